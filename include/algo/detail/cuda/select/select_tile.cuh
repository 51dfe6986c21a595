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

}  // namespace algo::detail::cuda::select_tile
