// The block's share of every reduce strategy: fold this block's contiguous range of the input (see
// reduce_tuning.cuh for the layout) into one value in thread 0. The strategies differ only in what
// they do with that value.
//
//   main loop    `unroll` warp tiles per warp and step, all loads issued before the first use
//                (16-byte vectors where the input allows). Ordered: each warp walks its own
//                contiguous range. Commutative: the block walks its range in steps of
//                warps x unroll tiles (CUB's access pattern: 16 KB contiguous per block and step)
//   lane fold    each lane folds its chunk left to right
//   warp order   commutative operators (algo::is_commutative): each lane keeps one running value
//                over all its chunks, and the block phase combines the threads' values once at
//                the end (a fixed shape: run-to-run identical floats). Other operators: after every
//                warp tile the warp folds its 32 chunks in lane order (warp phase) and lane 0
//                carries the result, so the warp's value is its range folded left to right.
//   block phase  the block folds its threads' (or warps') values in order (block_reduce)
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../../functional.hpp"
#include "../block/block_reduce.cuh"
#include "../block/block_scan_common.cuh"  // maybe_value
#include "../thread/load.cuh"
#include "../warp/warp_reduce.cuh"
#include "reduce_sync.cuh"
#include "reduce_tuning.cuh"

namespace algo::detail::cuda {

/// Ordered: keep lane order at every warp tile (any associative operator); otherwise lanes keep one
/// running value each (commutative operators).
template <class Tuning, class Phase, bool Vector, bool Ordered, class It, class T>
struct reduce_range {
  using V = typename load_traits<It>::value_type;
  using warp_phase = Phase;
  static constexpr int threads = Tuning::threads;
  static constexpr int warps = Tuning::warps;
  static constexpr int unroll = Tuning::unroll;
  static constexpr int items = Vector ? load_traits<It>::vector_items : Tuning::scalar_items;
  using warp_t = warp_reduce<Phase, T>;
  using block_t = block_reduce<Phase, T, threads>;

  union storage {
    typename block_t::storage block;
    typename warp_t::storage warp[warps];
  };

  /// Host: the layout this agent reads.
  static reduce_layout layout(std::int64_t n, int offset, int max_blocks) {
    return make_reduce_layout(n, Vector ? offset : 0, items, warps, Tuning::min_tiles_per_warp, max_blocks);
  }

  storage& s;
  It first;
  const reduce_layout& L;

  // ---- lane fold -------------------------------------------------------------------------------------
  template <class Op>
  __device__ __forceinline__ static T fold_chunk(const V (&v)[items], Op op) {
    T x = static_cast<T>(v[0]);
#pragma unroll
    for (int j = 1; j < items; ++j) x = op(x, v[j]);
    return x;
  }
  /// The chunk starting at virtual position `pos`, some of it outside the input: loads and folds
  /// only the elements inside. has = false when none is.
  template <class Op>
  __device__ __forceinline__ maybe_value<T> fold_chunk_guarded(std::int64_t pos, Op op) const {
    V v[items];
    const std::int64_t start = pos - L.offset;  // real index of the chunk's first position
    load_chunk_guarded<items>(first, start, L.n, v);
    maybe_value<T> r{T{}, false};
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const std::int64_t i = start + j;
      if (i >= 0 && i < L.n) {
        r.value = r.has ? static_cast<T>(op(r.value, v[j])) : static_cast<T>(v[j]);
        r.has = true;
      }
    }
    return r;
  }

  // ---- warp order ------------------------------------------------------------------------------------
  /// Adds one tile's lane value to this lane's state. Ordered: the warp folds the tile's lanes
  /// [0, valid) and lane 0 appends it to the carry; otherwise each lane appends its own value.
  template <bool Full, class Op>
  __device__ __forceinline__ void consume(maybe_value<T>& acc, const maybe_value<T>& x, int warp, Op op) const {
    if constexpr (Ordered) {
      warp_t w(s.warp[warp]);
      T r;
      if constexpr (Full) {
        r = w.reduce_full(x.value, op);
      } else {
        r = w.reduce(x.value, __popc(__ballot_sync(full_warp_mask, x.has)), op);
      }
      // Only lane 0 holds the tile's fold (other lanes hold partial folds, or, past the valid
      // lanes of a partial tile, no value at all): only lane 0 carries, so the operator never sees
      // a lane's placeholder.
      if (lane_index() == 0) {
        acc.value = acc.has ? static_cast<T>(op(acc.value, r)) : r;
        acc.has = true;
      }
    } else {
      if (Full || x.has) {
        acc.value = acc.has ? static_cast<T>(op(acc.value, x.value)) : x.value;
        acc.has = true;
      }
    }
  }

  // ---- tiles -----------------------------------------------------------------------------------------
  /// K interior tiles t, t+1, ..., t+K-1: every load in flight before the first fold.
  template <int K, class Op>
  __device__ __forceinline__ void full_tiles(maybe_value<T>& acc, std::int64_t t, int warp, Op op) const {
    const std::int64_t pos = t * L.tile_items() + lane_index() * items - L.offset;  // real index of this lane's chunk
    V v[K][items];
#pragma unroll
    for (int u = 0; u < K; ++u) load_chunk<items, Vector>(first + (pos + u * L.tile_items()), v[u]);
#pragma unroll
    for (int u = 0; u < K; ++u) consume<true>(acc, maybe_value<T>{fold_chunk(v[u], op), true}, warp, op);
  }
  /// The interior tiles among t, t+1, ..., t+K-1 that lie below `limit` (loads predicated).
  template <int K, class Op>
  __device__ __forceinline__ void full_tiles_upto(maybe_value<T>& acc, std::int64_t t, std::int64_t limit, int warp,
                                                  Op op) const {
    const std::int64_t pos = t * L.tile_items() + lane_index() * items - L.offset;
    V v[K][items];
#pragma unroll
    for (int u = 0; u < K; ++u)
      if (t + u < limit) load_chunk<items, Vector>(first + (pos + u * L.tile_items()), v[u]);
#pragma unroll
    for (int u = 0; u < K; ++u)
      if (t + u < limit) consume<true>(acc, maybe_value<T>{fold_chunk(v[u], op), true}, warp, op);
  }
  /// Tile t, which may begin before the input (the unaligned head) or end past it.
  template <class Op>
  __device__ __forceinline__ void any_tile(maybe_value<T>& acc, std::int64_t t, int warp, Op op) const {
    if (t >= L.full_begin && t < L.full_end) {
      full_tiles<1>(acc, t, warp, op);
    } else {
      consume<false>(acc, fold_chunk_guarded(t * L.tile_items() + lane_index() * items, op), warp, op);
    }
  }

  // ---- main loop, ordered: one warp walks its own contiguous range ------------------------------------
  template <class Op>
  __device__ maybe_value<T> reduce_warp_range(int warp, Op op) const {
    const std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * warps + warp;
    std::int64_t t = L.tile_begin(g);
    const std::int64_t t_end = L.tile_begin(g + 1);
    maybe_value<T> acc{T{}, false};
    for (; t < t_end && t < L.full_begin; ++t) any_tile(acc, t, warp, op);  // the unaligned head
    const std::int64_t body_end = t_end < L.full_end ? t_end : L.full_end;
    for (; t + unroll <= body_end; t += unroll) full_tiles<unroll>(acc, t, warp, op);
    for (; t < t_end; ++t) any_tile(acc, t, warp, op);  // the rest, and the tail
    return acc;
  }

  // ---- main loop, commutative: the block walks its range in steps, as CUB does ----------------------
  /// Each step covers warps x unroll consecutive tiles (16 KB of int32 on the vector path), warp w
  /// taking the `unroll` consecutive ones at w x unroll; the last step may be short (its loads are
  /// predicated). The partial last tile of the input goes, guarded, to the warp it would fall to.
  /// The assignment depends only on the layout, so results are the same on every run.
  template <class Op>
  __device__ maybe_value<T> reduce_block_steps(int warp, Op op) const {
    constexpr int step = warps * unroll;
    const std::int64_t b = blockIdx.x;
    std::int64_t t = L.tile_begin(b * warps);
    const std::int64_t t_end = L.tile_begin((b + 1) * warps);
    maybe_value<T> acc{T{}, false};
    if (t < t_end && t < L.full_begin) {  // the unaligned head: warp 0
      if (warp == 0) any_tile(acc, t, warp, op);
      ++t;
    }
    const std::int64_t t0 = t;
    const std::int64_t body_end = t_end < L.full_end ? t_end : L.full_end;
    for (; t + step <= body_end; t += step) full_tiles<unroll>(acc, t + warp * unroll, warp, op);
    if (t < body_end) full_tiles_upto<unroll>(acc, t + warp * unroll, body_end, warp, op);  // a short last step
    if (body_end < t_end && body_end >= t0 && ((body_end - t0) % step) / unroll == warp)
      any_tile(acc, body_end, warp, op);  // the partial last tile
    return acc;
  }

  // ---- block phase ---------------------------------------------------------------------------------
  /// The fold of this block's range, in thread 0 (has = false: the block has no elements).
  /// Every thread of the block must call it; `s` is free again after the next __syncthreads().
  template <class Op>
  __device__ maybe_value<T> reduce_block(Op op) const {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    block_t block(s.block);
    if constexpr (Ordered) {
      // one value per warp (lane 0's carry); warps with values form a prefix
      const maybe_value<T> acc = reduce_warp_range(warp, op);
      __syncthreads();  // the warp phase's scratch overlaps the block's slots
      const bool has = lane_index() == 0 && acc.has;
      if (has) s.block.slot[warp] = acc.value;
      const int valid = __syncthreads_count(has);
      if (valid == 0) return maybe_value<T>{T{}, false};
      return maybe_value<T>{block.reduce_slots(valid, op), true};
    } else {
      // one value per thread; threads with values form a prefix of the block (a thread without
      // one is in a warp whose only tile was the partial last one, or that got no tile)
      const maybe_value<T> acc = reduce_block_steps(warp, op);
      const int valid = __syncthreads_count(acc.has);
      if (valid == 0) return maybe_value<T>{T{}, false};
      return maybe_value<T>{block.reduce(acc.value, valid, op), true};
    }
  }

  // ---- one range after another: one barrier a range -------------------------------------------------
  /// What a loop over ranges folds with (segmented_reduce's block-per-segment kernels): two sets of
  /// the agent's storage, and two of one value a warp, used in turn. A fold's shared memory is
  /// written again two folds later, after the barrier inside the fold between them, which every
  /// warp reaches only once done with it; so the loop needs no __syncthreads() after a fold.
  struct loop_storage {
    storage agent[2];
    uninitialized_array<T, warps> warp_value[2];
  };

  /// The folds of a loop over ranges, in thread 0 (has = false: an empty range). Every thread of the
  /// block calls fold() with the same range; ranges the block skips do not count. The loop should
  /// end each pass with __syncwarp() (no more): with no barrier at all between two folds the
  /// compiler interleaves one fold's loads with the last one's end and needs ~60 registers, not ~40.
  struct looped {
    loop_storage& ls;
    int turn = 0;

    template <class Op>
    __device__ __forceinline__ maybe_value<T> fold(It first, const reduce_layout& L, Op op) {
      const int k = turn;
      turn ^= 1;
      if constexpr (Ordered) {
        return reduce_range{ls.agent[k], first, L}.reduce_block(op);
      } else {
        return reduce_range{ls.agent[k], first, L}.reduce_block_whole_warps(op, ls.warp_value[k]);
      }
    }
  };

  /// reduce_block (commutative operators) with one barrier when the threads with values fill 2^j
  /// whole warps (every block of a long segment but its partial ones): block_reduce::reduce_prefix,
  /// the warps' folds in this agent's warp scratch, the warp values in `warp_value`. Bitwise
  /// reduce_block's value.
  template <class Op>
  __device__ maybe_value<T> reduce_block_whole_warps(Op op, uninitialized_array<T, warps>& warp_value) const {
    static_assert(!Ordered, "one value per lane: commutative operators only");
    const maybe_value<T> acc = reduce_block_steps(static_cast<int>(threadIdx.x) / 32, op);
    int valid = 0;
    const T x = block_t(s.block).reduce_prefix(acc.value, acc.has, valid, s.warp, warp_value, op);
    return maybe_value<T>{x, valid > 0};
  }

  /// The one-block kernel's walk (reduce_single.cuh; commutative operators): reduce_block at block 0
  /// of a one-block layout, n + offset <= warps x unroll warp tiles, in 32-bit arithmetic from n and
  /// the offset alone (no layout struct, no general loop). The same tiles go to the same lanes in the
  /// same order as reduce_block_steps gives them there: the unaligned head tile to warp 0 first,
  /// body tile t0 + unroll w + u to warp w (u = 0..unroll-1), the partial last tile to the warp it
  /// falls to; then the same block fold. So the value is bitwise reduce_block's.
  template <class Op>
  __device__ static maybe_value<T> reduce_one_block(storage& s, It first, int n, int offset, Op op) {
    static_assert(!Ordered, "the one-block walk keeps one value per lane: commutative operators only");
    constexpr int ti = 32 * items;
    const int lane = lane_index();
    const int warp = warp_index();
    const int vn = n + offset;  // virtual positions; offset is 0 when n is
    const int tiles = (vn + ti - 1) / ti;
    const int full_begin = offset > 0 ? 1 : 0;
    const int full_end = vn / ti > full_begin ? vn / ti : full_begin;
    maybe_value<T> acc{T{}, false};
    // a tile partly outside the input (the head or the partial last tile): guarded loads, in order
    auto guarded_tile = [&](int t) {
      V v[items];
      const int start = t * ti + lane * items - offset;  // real index of the chunk's first position
      load_chunk_guarded<items>(first, start, n, v);
      maybe_value<T> r{T{}, false};
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = start + j;
        if (i >= 0 && i < n) {
          r.value = r.has ? static_cast<T>(op(r.value, v[j])) : static_cast<T>(v[j]);
          r.has = true;
        }
      }
      if (r.has) {
        acc.value = acc.has ? static_cast<T>(op(acc.value, r.value)) : r.value;
        acc.has = true;
      }
    };
    if (full_begin == 1 && warp == 0) guarded_tile(0);  // the unaligned head (n > 0 here)
    const int t = full_begin + warp * unroll;           // this warp's body tiles: t .. t + unroll - 1
    const int pos = t * ti + lane * items - offset;
    V v[unroll][items];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (t + u < full_end) load_chunk<items, Vector>(first + (pos + u * ti), v[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      if (t + u < full_end) {
        const T x = fold_chunk(v[u], op);
        acc.value = acc.has ? static_cast<T>(op(acc.value, x)) : x;
        acc.has = true;
      }
    if (full_end < tiles && (full_end - full_begin) / unroll == warp) guarded_tile(full_end);  // partial last tile
    const int valid = __syncthreads_count(acc.has);
    if (valid == 0) return maybe_value<T>{T{}, false};
    return maybe_value<T>{block_t(s.block).reduce(acc.value, valid, op), true};
  }
  static constexpr bool ordered = Ordered;
  static constexpr int min_tiles_per_warp = Tuning::min_tiles_per_warp;
};

/// The in-order fold of `count` values at `values` (written by other blocks) by one block, into
/// thread 0: thread t folds a contiguous run of them (threads with runs form a prefix), then the
/// block phase. 1 <= count. Every thread must call it; `storage` must be free. A run's loads are
/// issued four at a time before any is used (runs are short: at most a few partials per thread).
template <class Phase, int Threads, class T, class Op>
__device__ T reduce_partials(typename block_reduce<Phase, T, Threads>::storage& storage, const T* values, int count,
                             Op op) {
  constexpr int batch = 4;
  const int t = static_cast<int>(threadIdx.x);
  const int q = count / Threads, r = count % Threads;
  const int begin = t * q + (t < r ? t : r);
  const int end = begin + q + (t < r ? 1 : 0);
  maybe_value<T> x{T{}, false};
  for (int i = begin; i < end; i += batch) {
    T v[batch];
#pragma unroll
    for (int k = 0; k < batch; ++k)
      if (i + k < end) v[k] = load_coherent(values + i + k);
#pragma unroll
    for (int k = 0; k < batch; ++k)
      if (i + k < end) {
        x.value = x.has ? static_cast<T>(op(x.value, v[k])) : v[k];
        x.has = true;
      }
  }
  const int valid = count < Threads ? count : Threads;
  return block_reduce<Phase, T, Threads>(storage).reduce(x.value, valid, op);
}

}  // namespace algo::detail::cuda
