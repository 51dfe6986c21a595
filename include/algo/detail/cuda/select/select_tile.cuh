// One tile of algo::cuda's selection, phase by phase (the kernel in select_lookback.cuh strings them
// together around the block scan and the look-back). Items are warp-striped: item j of lane l in
// warp w is element base + w * 32 * Items + j * 32 + l, so every load and store instruction of a
// warp touches consecutive addresses without a trip through shared memory:
//
//   load     the warp's 32 x Items values (and, for a stencil, its stencil elements), direct and
//            coalesced; lanes past the end load nothing;
//   flag     the selector's flag of each item, one bit per item (heads<> compares each item with
//            its predecessor: the lane below through a shuffle, lane 0 with the last item of the
//            row before, the warp's first item with the element before the warp, read once);
//   count    the warp's count (one warp reduction of the lanes' flag counts); in the scatter, per
//            item row j, a ballot of the flags gives each selected item's rank among the warp's
//            selected items (popc of the ballot below its lane);
//   scatter  once the warp's offset is known (block scan of the warp counts after the tile's
//            look-back prefix), each row's selected items go to consecutive positions: one warp
//            store instruction covers a contiguous run of the output (coalesced as the staged
//            stores of CUB's two-phase scatter are, without the shared-memory round trip);
//            partition_copy's rejected items go to out_false at (index - selected before it).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../select/common.hpp"
#include "../thread/shuffle.cuh"
#include "../warp/warp_scan.cuh"

namespace algo::detail::cuda::select_tile {

using namespace ::algo::detail::select;

/// Lanes below this one (the bits of a ballot that come before it).
__device__ __forceinline__ unsigned lanes_below() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// ---- ticket -------------------------------------------------------------------------------------
/// The block's tile (every thread): thread 0 draws it from the tile state's counter, so tiles
/// start in index order and a tile only waits on tiles already running; whoever draws the last
/// ticket resets the counter (every block has drawn its own by then). One tile: no state at all.
template <class State>
__device__ __forceinline__ int ticket(State& state, int num_tiles, int& shared_ticket) {
  if (num_tiles <= 1) return 0;
  if (threadIdx.x == 0) {
    const int t = state.take();
    if (t == num_tiles - 1) state.reset();
    shared_ticket = t;
  }
  __syncthreads();
  return shared_ticket;
}

// ---- load ---------------------------------------------------------------------------------------
/// x[j] = in[w0 + j * 32 + lane] for the items below `valid` (the warp's elements that exist).
template <int Items, class V, class InIt>
__device__ __forceinline__ void load(const InIt& in, std::int64_t w0, int valid, V (&x)[Items]) {
  const int lane = lane_index();
  if (valid >= 32 * Items) {
#pragma unroll
    for (int j = 0; j < Items; ++j) x[j] = in[w0 + j * 32 + lane];
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int k = j * 32 + lane;
      if (k < valid) x[j] = in[w0 + k];
    }
  }
}

// ---- flag ---------------------------------------------------------------------------------------
/// Bit j: item j exists and is selected.
template <int Items, class V, class InIt, class Pred, bool Negate>
__device__ __forceinline__ unsigned flags(const by_value<Pred, Negate>& sel, const InIt&, std::int64_t, int valid,
                                          const V (&x)[Items]) {
  const int lane = lane_index();
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j)
    if (j * 32 + lane < valid && sel.flag(x[j])) bits |= 1u << j;
  return bits;
}

template <int Items, class V, class InIt, class StIt, class Pred, bool Negate>
__device__ __forceinline__ unsigned flags(const by_stencil<StIt, Pred, Negate>& sel, const InIt&, std::int64_t w0,
                                          int valid, const V (&)[Items]) {
  const int lane = lane_index();
  using S = iter_value_t<StIt>;
  S s[Items];
  load<Items>(sel.stencil, w0, valid, s);
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j)
    if (j * 32 + lane < valid && sel.flag(s[j])) bits |= 1u << j;
  return bits;
}

template <int Items, class V, class InIt, class Eq>
__device__ __forceinline__ unsigned flags(const heads<Eq>& sel, const InIt& in, std::int64_t w0, int valid,
                                          const V (&x)[Items]) {
  const int lane = lane_index();
  unsigned bits = 0;
  if constexpr (std::is_trivially_copyable<V>::value) {
    // one rotation per row: lane l receives lane l - 1's item (lane 0: lane 31's), which is the
    // predecessor of every lane but 0; lane 0's is lane 31's item of the row before, which it
    // received in the previous rotation (row 0: the element before the warp, read once; nothing
    // comes before element 0)
    V before_row = x[0];
    if (lane == 0 && w0 > 0 && valid > 0) before_row = in[w0 - 1];
    const int from = (lane + 31) & 31;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const V rot = shfl_idx(x[j], from);
      const V& prev = lane > 0 ? rot : before_row;
      const std::int64_t i = w0 + j * 32 + lane;
      if (j * 32 + lane < valid && (i == 0 || !static_cast<bool>(sel.eq(prev, x[j])))) bits |= 1u << j;
      before_row = rot;
    }
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const std::int64_t i = w0 + j * 32 + lane;
      if (j * 32 + lane < valid && (i == 0 || !static_cast<bool>(sel.eq(in[i - 1], x[j])))) bits |= 1u << j;
    }
  }
  return bits;
}

// ---- count --------------------------------------------------------------------------------------
/// The warp's number of selected items (every lane): one warp reduction of the lanes' counts (sm_80
/// on), else a ballot per item row.
template <int Items>
__device__ __forceinline__ int warp_count(unsigned bits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return static_cast<int>(__reduce_add_sync(full_warp_mask, static_cast<unsigned>(__popc(bits))));
#else
  int c = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) c += __popc(__ballot_sync(full_warp_mask, (bits >> j) & 1u));
  return c;
#endif
}

/// The largest of the lanes' values (every lane).
__device__ __forceinline__ unsigned warp_max(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(full_warp_mask, v);
#else
#  pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    const unsigned o = __shfl_xor_sync(full_warp_mask, v, d);
    v = o > v ? o : v;
  }
  return v;
#endif
}

// ---- scatter ------------------------------------------------------------------------------------
/// Writes the warp's selected items from `offset` (the number selected before the warp) on, in
/// order; with an out_false, the rejected ones at (their index - the number selected before them).
template <int Items, class Offset, class V, class OutT, class OutF>
__device__ __forceinline__ void scatter(unsigned bits, Offset offset, std::int64_t w0, int valid, const V (&x)[Items],
                                        const OutT& out_true, const OutF& out_false) {
  const int lane = lane_index();
  const unsigned below = lanes_below();
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const unsigned row = __ballot_sync(full_warp_mask, (bits >> j) & 1u);
    const Offset before = offset + static_cast<Offset>(__popc(row & below));  // selected before item j
    if ((bits >> j) & 1u) {
      out_true[before] = x[j];
    } else {
      if constexpr (has_output_v<OutF>) {
        const int k = j * 32 + lane;
        if (k < valid) out_false[w0 + k - static_cast<std::int64_t>(before)] = x[j];
      }
    }
    offset += static_cast<Offset>(__popc(row));
  }
}

/// scatter without an out_false, through the warp's staging area in shared memory: Rows item rows
/// at a time, their selected items compacted into `stage` (Rows x 32 values), then written 32
/// consecutive values per store instruction (full 128-byte lines where scatter's stores, one per
/// item row, cover only the selected lanes of each row: at 25 % kept, a quarter line each).
template <int Items, int Rows, class Offset, class V, class OutT>
__device__ __forceinline__ void scatter_staged(unsigned bits, Offset offset, const V (&x)[Items], const OutT& out_true,
                                               V* stage) {
  const int lane = lane_index();
  const unsigned below = lanes_below();
#pragma unroll
  for (int c = 0; c < Items; c += Rows) {
    int kept = 0;  // selected in these rows so far (the same in every lane)
#pragma unroll
    for (int j = c; j < c + Rows && j < Items; ++j) {
      const unsigned row = __ballot_sync(full_warp_mask, (bits >> j) & 1u);
      if ((bits >> j) & 1u) stage[kept + __popc(row & below)] = x[j];
      kept += __popc(row);
    }
    __syncwarp();
    for (int k = lane; k < kept; k += 32) out_true[offset + static_cast<Offset>(k)] = stage[k];
    __syncwarp();
    offset += static_cast<Offset>(kept);
  }
}

// ---- the vector layout: full warps of 4-byte values read through a pointer ------------------------
// Item 4 g + s of lane l is element w0 + 128 g + 4 l + s: each group of four items is one 16-byte
// load (a warp's load instruction covers 512 consecutive bytes), where the striped layout above
// takes four 4-byte loads for the same bytes. Only whole warps (valid == 32 x Items) of an input
// whose first element is 16-byte aligned take it; a warp's rank arithmetic is its own, so the last,
// partial warp of the input keeps the striped layout beside them. Used for heads (unique), where
// the flags' shuffles were the cost; for selections that keep most items its stores are slower
// (select_lookback.cuh has the numbers).
template <int Items, class V>
__device__ __forceinline__ void load_vec(const V* in, std::int64_t w0, V (&x)[Items]) {
  static_assert(sizeof(V) == 4 && Items % 4 == 0, "load_vec: four 4-byte items a group");
  struct alignas(16) quad {
    V v[4];
  };
  const int lane = lane_index();
#pragma unroll
  for (int g = 0; g < Items / 4; ++g) {
    const quad q = *reinterpret_cast<const quad*>(in + w0 + g * 128 + lane * 4);
#pragma unroll
    for (int k = 0; k < 4; ++k) x[4 * g + k] = q.v[k];
  }
}

template <int Items, class V, class InIt, class Pred, bool Negate>
__device__ __forceinline__ unsigned flags_vec(const by_value<Pred, Negate>& sel, const InIt&, std::int64_t,
                                              const V (&x)[Items]) {
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j)
    if (sel.flag(x[j])) bits |= 1u << j;
  return bits;
}

/// Heads: item 4 g's predecessor is lane l - 1's item 4 g + 3 (one rotation per group; lane 0:
/// lane 31's item of the group before, or the element before the warp), the others' the item
/// before them in the same lane.
template <int Items, class V, class InIt, class Eq>
__device__ __forceinline__ unsigned flags_vec(const heads<Eq>& sel, const InIt& in, std::int64_t w0,
                                              const V (&x)[Items]) {
  constexpr int G = Items / 4;
  const int lane = lane_index();
  const int from = (lane + 31) & 31;
  // each group's first predecessor: lane l - 1's last item of the group; lane 0's, lane 31's last
  // item of the group before (the element before the warp for group 0)
  V rot[G];
#pragma unroll
  for (int g = 0; g < G; ++g) rot[g] = shfl_idx(x[4 * g + 3], from);
  V before_warp = x[0];
  if (lane == 0 && w0 > 0) before_warp = in[w0 - 1];
  unsigned bits = 0;
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const V prev = lane > 0 ? rot[g] : g > 0 ? rot[g - 1] : before_warp;
    unsigned f = static_cast<bool>(sel.eq(prev, x[4 * g])) ? 0u : 1u;
#pragma unroll
    for (int k = 1; k < 4; ++k) f |= (static_cast<bool>(sel.eq(x[4 * g + k - 1], x[4 * g + k])) ? 0u : 1u) << k;
    bits |= f << (4 * g);
  }
  if (w0 == 0 && lane == 0) bits |= 1u;  // element 0: a head
  return bits;
}

/// scatter for the vector layout: per group, a lane's selected items go to consecutive positions
/// after those of the lanes below it (a warp scan of the lanes' counts); rejected ones (out_false) at
/// their index - the number selected before them.
template <int Items, class Offset, class V, class OutT, class OutF>
__device__ __forceinline__ void scatter_vec(unsigned bits, Offset offset, std::int64_t w0, const V (&x)[Items],
                                            const OutT& out_true, const OutF& out_false) {
  const int lane = lane_index();
#pragma unroll
  for (int g = 0; g < Items / 4; ++g) {
    const unsigned q = (bits >> (4 * g)) & 0xfu;
    // an inclusive warp scan of the lanes' counts (its last lane's value: the group's total); the
    // same from four ballots (one per item of the group, popc below the lane) makes ptxas of CUDA
    // 13.0 fail ("Register allocation failed with register count of '7'") on unique's kernel
    // with int counts
    const int mine = __popc(q);
    int incl = mine;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int o = __shfl_up_sync(full_warp_mask, incl, d);
      if (lane >= d) incl += o;
    }
    const int before = incl - mine;
    const int total = __shfl_sync(full_warp_mask, incl, 31);
    const Offset pos = offset + static_cast<Offset>(before);
    int kept = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if ((q >> k) & 1u) {
        out_true[pos + static_cast<Offset>(kept)] = x[4 * g + k];
        ++kept;
      } else {
        if constexpr (has_output_v<OutF>) {
          const std::int64_t e = w0 + g * 128 + lane * 4 + k;
          out_false[e - static_cast<std::int64_t>(pos + static_cast<Offset>(kept))] = x[4 * g + k];
        }
      }
    }
    offset += static_cast<Offset>(total);
  }
}

}  // namespace algo::detail::cuda::select_tile
