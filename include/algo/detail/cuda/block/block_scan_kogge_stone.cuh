// Block scan, Kogge-Stone (the "work-inefficient" scan of seed 001 and of Hillis & Steele): every
// thread's value sits in shared memory, and in step d = 1, 2, 4, ... each thread t >= d combines
// the value d places below it into its own:
//
//   after the step of stride d, thread t holds op(x_{max(0, t-2d+1)}, ..., x_t)
//
// so after ceil(log2 Threads) steps thread t holds its inclusive prefix. Each step does up to
// Threads operations (about Threads log2 Threads in all, where a serial scan does Threads - 1) and
// ends at a barrier; in exchange every thread is busy at every step and there is no down-sweep.
//
//   using scan_t = algo::detail::cuda::block_scan_kogge_stone<int, 128>;
//   __shared__ scan_t::temp_storage tmp;
//   int items[8];                                   // blocked: thread t holds items [8t, 8t + 8)
//   scan_t(tmp).inclusive_scan(items, algo::plus<>{});
//
// Phases (the same interface and prefix protocol as block_scan.cuh; the warp phase plays no part):
//   thread   each thread folds its items in order (thread/thread_scan.cuh);
//   block    Kogge-Stone over the per-thread totals. Two buffers in shared memory, read from one
//            and written to the other at each step, so one barrier per step suffices (the seed's
//            single buffer needs a second barrier between the reads and the writes of a step; it
//            is used here only when two buffers would take more than 16 KiB);
//   prefix   warp 0 reads the aggregate (thread Threads-1's inclusive value) and calls the prefix
//            callback with it; each thread's exclusive value is prefix op (inclusive value of the
//            thread before it);
//   thread   each thread rescans its items from that value.
//
// Only associativity is used: the value from below always goes on the left, and a thread below
// the stride keeps its value (no identity element, nothing padded). Threads: 1..1024, not
// necessarily a multiple of 32 or a power of two (warp 0's lanes present run the prefix callback).
#pragma once

#include <type_traits>

#include "block_scan_common.cuh"

namespace algo::detail::cuda {

template <class T, int Threads>
class block_scan_kogge_stone : public block_scan_items<block_scan_kogge_stone<T, Threads>, T> {
  static_assert(Threads >= 1 && Threads <= 1024, "block_scan_kogge_stone: Threads must be 1..1024");
  static_assert(std::is_trivially_copyable<T>::value, "block_scan_kogge_stone needs a trivially copyable type");
  using buffer = shared_array<T, Threads>;
  /// Two buffers (one barrier per step) unless they would take more than 16 KiB (every tuning of
  /// the device scans fits: 256 threads x 32-byte accumulators).
  static constexpr bool double_buffered = 2 * sizeof(buffer) <= 16384;

 public:
  struct temp_storage {
    buffer values[double_buffered ? 2 : 1];
    prefix_slot<T> end;
  };

  __device__ explicit block_scan_kogge_stone(temp_storage& s) : s_(s) {}

  using block_scan_items<block_scan_kogge_stone, T>::exclusive_scan;

  /// Exclusive scan of one value per thread; the contract of block_scan::exclusive_scan: prefix
  /// called by all lanes of warp 0 with the block's aggregate, false returned only in thread 0
  /// when there is no prefix, aggregate() the block's aggregate afterwards; with `count`, only the
  /// first `count` threads hold values and the operator sees nothing else.
  template <class Op, class Prefix>
  __device__ __forceinline__ bool exclusive_scan(const T& x, T& exclusive, Op op, Prefix&& prefix,
                                                 int count = all_threads) {
    const int t = static_cast<int>(threadIdx.x);
    T v = x;
    s_.values[0].put(t, v);
    __syncthreads();
    if constexpr (double_buffered) {
      int from = 0;  // the buffer the step reads (the other one gets this step's values)
#pragma unroll
      for (int d = 1; d < Threads; d *= 2) {
        if (t >= d && t < count) v = op(s_.values[from].get(t - d), v);
        s_.values[from ^ 1].put(t, v);
        __syncthreads();
        from ^= 1;
      }
      return finish_block_scan<Threads>(s_.end, [&](int i) { return s_.values[from].get(i); }, exclusive, op, prefix,
                                        count);
    } else {
#pragma unroll
      for (int d = 1; d < Threads; d *= 2) {
        // A thread below d reads its own slot and leaves it unused: every read is of a real value.
        const T below = s_.values[0].get(t >= d ? t - d : t);
        __syncthreads();  // every read of this step before any write
        if (t >= d && t < count) {
          v = op(below, v);
          s_.values[0].put(t, v);
        }
        __syncthreads();
      }
      return finish_block_scan<Threads>(s_.end, [&](int i) { return s_.values[0].get(i); }, exclusive, op, prefix,
                                        count);
    }
  }

  /// The block's aggregate from the last exclusive_scan (without its prefix).
  __device__ __forceinline__ T aggregate() { return s_.end.aggregate.get(); }

 private:
  temp_storage& s_;
};

}  // namespace algo::detail::cuda
