// Block layer: the in-order fold of one value per thread (or of values already in shared memory),
// for any block size (1..1024 threads, the last warp possibly partial), result in thread 0. The CUDA Handbook's tree, kept order-preserving:
//
//   store        thread t writes its value to slot t
//   fold front   when the count m is not a power of two, fold the e = m - floorPow2(m) extra values
//                onto the front: the first 2e slots combine pairwise into e slots, the rest move down
//                by e (slot order is data order, so the pairs are neighbours: left op right)
//   halve        while more than 64 remain: slot i <- slot 2i op slot 2i+1 (read, barrier, write)
//   warps finish warp 0 combines the last <= 64 slots pairwise into its 32 lanes and runs the warp
//                phase (volatile shared memory or shuffles): no __syncthreads() from here on
// reduce_prefix folds whole warps first, each on its own, and then warp 0 their values: one barrier
// instead of the tree's, the same tree when the values fill 2^j warps (loops of folds use it).
//
// The classic code combines slot i with slot i + m/2, which pairs values that are not neighbours;
// combining neighbours and compacting them to the front is what keeps a matrix product right.
#pragma once

#include <type_traits>

#include "../warp/warp_reduce.cuh"

namespace algo::detail::cuda {

template <class Phase, class T, int Threads>
struct block_reduce {
  static_assert(Threads >= 1 && Threads <= 1024, "block size: 1..1024 threads");
  using warp_t = warp_reduce<Phase, T>;

  struct storage {
    uninitialized_array<T, Threads> slot;
    typename warp_t::storage warp;
  };

  __device__ __forceinline__ explicit block_reduce(storage& s) : s_(s) {}

  /// In-order fold of the values of threads [0, valid) (1 <= valid <= Threads) into thread 0.
  /// Every thread of the block must call it (it contains __syncthreads()).
  template <class Op>
  __device__ __forceinline__ T reduce(const T& v, int valid, Op op) {
    if (static_cast<int>(threadIdx.x) < valid) s_.slot[threadIdx.x] = v;
    __syncthreads();
    return reduce_slots(valid, op);
  }

  /// In-order fold of slots [0, m) (1 <= m <= Threads), already written and followed by a
  /// __syncthreads(), into thread 0. Every thread of the block must call it.
  template <class Op>
  __device__ T reduce_slots(int m, Op op) {
    const int t = static_cast<int>(threadIdx.x);

    // ---- fold front: make the count a power of two -----------------------------------------------
    if (m > 64 && (m & (m - 1)) != 0) {
      int p = m;
      while (p & (p - 1)) p &= p - 1;  // floorPow2(m)
      const int e = m - p;
      T x;
      if (t < p) x = t < e ? op(s_.slot[2 * t], s_.slot[2 * t + 1]) : s_.slot[t + e];
      __syncthreads();
      if (t < p) s_.slot[t] = x;
      __syncthreads();
      m = p;
    }

    // ---- halve --------------------------------------------------------------------------------------
    while (m > 64) {
      const int h = m / 2;
      T x;
      if (t < h) x = op(s_.slot[2 * t], s_.slot[2 * t + 1]);
      __syncthreads();
      if (t < h) s_.slot[t] = x;
      __syncthreads();
      m = h;
    }

    // ---- warps finish: warp 0, no more __syncthreads() ------------------------------------------------
    T x;
    if (t < 32) {
      if (2 * t + 1 < m) {
        x = op(s_.slot[2 * t], s_.slot[2 * t + 1]);
      } else if (2 * t < m) {
        x = s_.slot[2 * t];
      }
      // A block of fewer than 32 threads has a partial warp 0: only its lanes exchange values.
      const warp_lanes lanes = Threads >= 32 ? warp_lanes{} : warp_lanes::segment(32, Threads);
      x = warp_t(s_.warp, lanes).reduce(x, (m + 1) / 2, op);
    }
    return x;
  }

  /// One value a thread, the threads with one (`has`) a prefix of the block: in thread 0 the fold
  /// of theirs, `valid` = their count (0: no value, the result unspecified). One barrier when they
  /// fill 2^j whole warps: each such warp folds its 32 lanes (in warp_scratch[w]), warp 0 folds the
  /// 2^j warp values (warp_value[w]) after the count's barrier; any other count takes reduce().
  /// Both build the one perfect binary tree over the values in order (the 32 lanes by ascending
  /// offsets, then the 2^j warp values pairwise; reduce(): neighbour halving, then ascending
  /// offsets), so the result is bitwise reduce()'s. warp_scratch may overlap this block's storage
  /// (it is free after the count); warp_value must not. Every thread of the block must call it.
  template <class WarpValues, class Op>
  __device__ T reduce_prefix(const T& v, bool has, int& valid, typename warp_t::storage* warp_scratch,
                             WarpValues& warp_value, Op op) {
    static_assert(Threads % 32 == 0, "whole warps");
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if (__ballot_sync(full_warp_mask, has) == full_warp_mask) {
      const T w = warp_t(warp_scratch[warp]).reduce_full(v, op);
      if (lane_index() == 0) warp_value[warp] = w;
    }
    valid = __syncthreads_count(has);
    if (valid == 0) return v;
    const int nw = valid / 32;
    if (valid % 32 != 0 || (nw & (nw - 1)) != 0) return reduce(v, valid, op);
    // warps [0, nw) are whole: warp 0 folds their values, nw a power of two (the perfect tree)
    T x = warp_value[0];
    if (threadIdx.x < 32) {
      if (lane_index() < nw) x = warp_value[lane_index()];
      x = warp_t(warp_scratch[0]).reduce(x, nw, op);
    }
    return x;
  }

 private:
  storage& s_;
};

}  // namespace algo::detail::cuda
