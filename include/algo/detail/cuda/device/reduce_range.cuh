// The block's share of every reduce strategy: fold this block's contiguous range of the input (see
// reduce_tuning.cuh for the layout) into one value in thread 0. The strategies differ only in what
// they do with that value.
//
//   main loop    each warp walks its own range, `unroll` warp tiles per step with all loads issued
//                before the first use (16-byte vectors where the input allows)
//   lane fold    each lane folds its chunk left to right
//   warp order   commutative operators (algo::is_commutative): each lane keeps one running value
//                over all its chunks and the warp combines lanes once at the end (fixed order:
//                run-to-run identical floats). Other operators: after every warp tile the warp
//                folds its 32 chunks in lane order (warp phase) and lane 0 carries the result, so
//                the warp's value is its range folded left to right.
//   block phase  the block folds its threads' (or warps') values in order (block_reduce)
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../../functional.hpp"
#include "../block/block_reduce.cuh"
#include "../block/block_scan.cuh"  // maybe_value
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
      acc.value = acc.has ? static_cast<T>(op(acc.value, r)) : r;  // meaningful in lane 0
      acc.has = true;
    } else {
      if (Full || x.has) {
        acc.value = acc.has ? static_cast<T>(op(acc.value, x.value)) : x.value;
        acc.has = true;
      }
    }
  }

  // ---- main loop: one warp, its whole range ------------------------------------------------------------
  template <class Op>
  __device__ maybe_value<T> reduce_warp_range(int warp, Op op) const {
    const int lane = lane_index();
    const std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * warps + warp;
    std::int64_t t = L.tile_begin(g);
    const std::int64_t t_end = L.tile_begin(g + 1);
    const std::int64_t ti = L.tile_items();
    maybe_value<T> acc{T{}, false};

    // the first tile may begin before the input (the unaligned head): guarded
    for (; t < t_end && t < L.full_begin; ++t) consume<false>(acc, fold_chunk_guarded(t * ti + lane * items, op), warp, op);

    // interior tiles, `unroll` at a time: every load in flight before the first fold
    const std::int64_t body_end = t_end < L.full_end ? t_end : L.full_end;
    for (; t + unroll <= body_end; t += unroll) {
      V v[unroll][items];
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        load_chunk<items, Vector>(first + ((t + u) * ti + lane * items - L.offset), v[u]);
#pragma unroll
      for (int u = 0; u < unroll; ++u) consume<true>(acc, maybe_value<T>{fold_chunk(v[u], op), true}, warp, op);
    }
    for (; t < body_end; ++t) {
      V v[items];
      load_chunk<items, Vector>(first + (t * ti + lane * items - L.offset), v);
      consume<true>(acc, maybe_value<T>{fold_chunk(v, op), true}, warp, op);
    }

    // the last tile may end past the input: guarded
    for (; t < t_end; ++t) consume<false>(acc, fold_chunk_guarded(t * ti + lane * items, op), warp, op);
    return acc;
  }

  // ---- block phase ---------------------------------------------------------------------------------
  /// The fold of this block's range, in thread 0 (has = false: the block has no elements).
  /// Every thread of the block must call it; `s` is free again after the next __syncthreads().
  template <class Op>
  __device__ maybe_value<T> reduce_block(Op op) const {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const maybe_value<T> acc = reduce_warp_range(warp, op);
    block_t block(s.block);
    if constexpr (Ordered) {
      // one value per warp (lane 0's carry); warps with values form a prefix
      __syncthreads();  // the warp phase's scratch overlaps the block's slots
      const bool has = lane_index() == 0 && acc.has;
      if (has) s.block.slot[warp] = acc.value;
      const int valid = __syncthreads_count(has);
      if (valid == 0) return maybe_value<T>{T{}, false};
      return maybe_value<T>{block.reduce_slots(valid, op), true};
    } else {
      // one value per thread; threads with values form a prefix of the block
      const int valid = __syncthreads_count(acc.has);
      if (valid == 0) return maybe_value<T>{T{}, false};
      return maybe_value<T>{block.reduce(acc.value, valid, op), true};
    }
  }
};

/// The in-order fold of `count` values at `values` (written by other blocks) by one block, into
/// thread 0: thread t folds a contiguous run of them (threads with runs form a prefix), then the
/// block phase. 1 <= count. Every thread must call it; `storage` must be free.
template <class Phase, int Threads, class T, class Op>
__device__ T reduce_partials(typename block_reduce<Phase, T, Threads>::storage& storage, const T* values, int count,
                             Op op) {
  const int t = static_cast<int>(threadIdx.x);
  const int q = count / Threads, r = count % Threads;
  const int begin = t * q + (t < r ? t : r);
  const int len = q + (t < r ? 1 : 0);
  T x;
  if (len > 0) {
    x = load_coherent(values + begin);
    for (int i = 1; i < len; ++i) x = op(x, load_coherent(values + begin + i));
  }
  const int valid = count < Threads ? count : Threads;
  return block_reduce<Phase, T, Threads>(storage).reduce(x, valid, op);
}

}  // namespace algo::detail::cuda
