// Block layer of the scans: scan-then-fan within a thread block (CUDA Handbook 13.4.1), usable
// on its own inside any kernel, like CUB's BlockScan:
//
//   using scan_t = algo::detail::cuda::block_scan<int, 128, algo::warp_phase::shfl_t>;
//   __shared__ scan_t::temp_storage tmp;
//   int items[8];                                   // blocked: thread t holds items [8t, 8t + 8)
//   scan_t(tmp).inclusive_scan(items, algo::plus<>{});
//
// Phases (one value per thread; the item-array forms add a thread phase around them):
//   thread   each thread folds its items in order (register blocking);
//   warp     each warp scans its threads' values (warp/warp_scan.cuh, the policy's warp phase);
//   spine    the warp totals go to shared memory and warp 0 scans them; a caller-supplied
//            prefix callback runs there, in warp 0, with the block's aggregate (the device scans
//            use it to fetch the tile's prefix: look-back, carried partition sum, ...);
//   fan-out  each warp combines its base (prefix op totals of the warps before it) into its
//            threads' exclusive values; each thread rescans its items from that value.
//
// Operators need only be associative: every combination keeps left-to-right order. No identity
// element is needed; the one value without a predecessor (thread 0 of a block that has no
// prefix) is reported as such. The block must be 1-D with exactly Threads threads.
//
// This is the default block scan of the device scans (algo::block_scan::warp_scans). The others,
// with the same interface (block_scan_common.cuh) and the same prefix protocol:
// block_scan_kogge_stone.cuh and block_scan_brent_kung.cuh; block_scan_select.cuh maps the
// policy's tag to the class.
#pragma once

#include <type_traits>

#include "../../../policy.hpp"
#include "../thread/shuffle.cuh"
#include "../warp/warp_scan.cuh"
#include "block_scan_common.cuh"

namespace algo::detail::cuda {

// ---- the block scan -----------------------------------------------------------------------------
/// Threads: the block size, 1..1024 (not necessarily a multiple of 32: the last warp is then
/// partial and its exchanges name only its present lanes), or dynamic_threads (0): blockDim.x, with
/// storage for 32 warps (the group policies, which run in blocks of any size).
inline constexpr int dynamic_threads = 0;

template <class T, int Threads, class Phase = warp_phase::shfl_t>
class block_scan : public block_scan_items<block_scan<T, Threads, Phase>, T> {
  static_assert(Threads >= 0 && Threads <= 1024, "block_scan: Threads must be 1..1024 (or dynamic_threads)");
  static_assert(std::is_trivially_copyable<T>::value, "block_scan needs a trivially copyable type");
  static constexpr int max_warps = Threads == dynamic_threads ? 32 : (Threads + 31) / 32;
  /// Whole warps only (the device scans' tunings): every exchange uses the full mask.
  static constexpr bool whole_warps = Threads != dynamic_threads && Threads % 32 == 0;
  using warp_scan_t = warp_scan<T, Phase>;

  __device__ static __forceinline__ int threads() {
    return Threads == dynamic_threads ? static_cast<int>(blockDim.x) : Threads;
  }
  __device__ static __forceinline__ warp_lanes my_warp() {
    if constexpr (whole_warps) return warp_lanes{};
    else return warp_lanes::block_warp(threads());
  }

 public:
  struct temp_storage {
    typename warp_scan_t::temp_storage warp[max_warps];
    uninitialized<T> total[max_warps];  // each warp's total, then (after the spine) each warp's base
    uninitialized<T> aggregate;         // the block's aggregate, without the prefix
    bool has_prefix;
  };

  __device__ explicit block_scan(temp_storage& s) : s_(s) {}

  // reduce(x, op), scan(items, exclusive_output, op, prefix), inclusive_scan(items, op) and
  // exclusive_scan(items, init, op): block_scan_common.cuh.
  using block_scan_items<block_scan, T>::exclusive_scan;

  /// Exclusive scan of one value per thread. `prefix(aggregate)` is called by all lanes of warp 0
  /// (those present, when the block has fewer than 32 threads) with the block's aggregate and
  /// returns the value of everything before the block (a maybe_value<T>; the same in every lane).
  /// Returns false only in thread 0 when there is no prefix: `exclusive` is then unspecified.
  /// Afterwards aggregate() is the block's aggregate (without the prefix).
  ///
  /// `count` (1 .. the block's threads; all by default): only threads 0 .. count-1 hold values (a
  /// tile's last block). The operator then sees only what a left-to-right fold of those values
  /// forms: threads at or past `count` call it on nothing, their `exclusive` is unspecified, and
  /// the aggregate is that of the first `count` values.
  template <class Op, class Prefix>
  __device__ __forceinline__ bool exclusive_scan(const T& x, T& exclusive, Op op, Prefix&& prefix,
                                                 int count = all_threads) {
    const int lane = lane_index();
    const int warp = warp_index();
    const int warps = whole_warps ? Threads / 32 : (threads() + 31) / 32;
    const warp_lanes lanes = my_warp();
    const int last_lane = whole_warps ? 31 : 31 - __clz(lanes.mask);  // the warp's last present lane
    const bool all = count >= threads();

    // ---- warp: scan the threads' values of each warp -----------------------------------------
    T inclusive, warp_exclusive;
    const warp_scan_t scan_warp(s_.warp[warp], lanes);
    int warp_last = last_lane;  // the warp's last lane holding a value (-1: none)
    int spine_count = warps;    // the warps holding values
    if (all) {
      scan_warp.scan(x, inclusive, warp_exclusive, op);
    } else {
      const int here = count - warp * 32;
      warp_last = (here < 32 ? here : 32) - 1;
      spine_count = (count + 31) / 32;
      scan_warp.scan_first(x, inclusive, warp_exclusive, op, warp_last + 1);
    }
    if (lane == warp_last) s_.total[warp].get() = inclusive;
    __syncthreads();

    // ---- spine: warp 0 scans the warp totals, then asks for the block's prefix -----------------
    if (warp == 0) {
      // Only lanes below spine_count hold a warp's total; the others read warp 0's (a real value)
      // and call no operator.
      const T total = s_.total[lane < spine_count ? lane : 0].get();
      T spine_inclusive, spine_exclusive;
      warp_scan_t(s_.warp[0], lanes).scan_first(total, spine_inclusive, spine_exclusive, op, spine_count, max_warps);
      const T aggregate = shfl_idx(spine_inclusive, spine_count - 1, lanes.mask);
      const maybe_value<T> pre = prefix(aggregate);
      __syncwarp(lanes.mask);
      if (lane < spine_count) {
        // base of warp `lane`: prefix op (totals of warps 0 .. lane-1)
        if (lane == 0) {
          if (pre.has) s_.total[0].get() = pre.value;
        } else {
          s_.total[lane].get() = combine(pre, spine_exclusive, op);
        }
      }
      if (lane == 0) {
        s_.has_prefix = pre.has;
        s_.aggregate.get() = aggregate;
      }
    }
    __syncthreads();

    // ---- fan-out: combine each warp's base into its threads' exclusive values --------------------
    if (!all && static_cast<int>(threadIdx.x) >= count) {
      exclusive = x;  // unspecified: no value here
      return true;
    }
    const bool has_base = warp > 0 || s_.has_prefix;
    if (!has_base && lane == 0) return false;  // thread 0, no prefix: nothing comes before it
    if (!has_base) {
      exclusive = warp_exclusive;
    } else {
      const T base = s_.total[warp].get();
      exclusive = lane == 0 ? base : op(base, warp_exclusive);
    }
    return true;
  }

  /// The block's aggregate from the last exclusive_scan (without its prefix).
  __device__ __forceinline__ T aggregate() { return s_.aggregate.get(); }

 private:
  temp_storage& s_;
};

}  // namespace algo::detail::cuda
