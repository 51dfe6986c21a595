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
#pragma once

#include <type_traits>

#include "../../../policy.hpp"
#include "../thread/shuffle.cuh"
#include "../warp/warp_scan.cuh"

namespace algo::detail::cuda {

/// A value that may be absent (an init, a tile prefix). T must be default constructible.
template <class T>
struct maybe_value {
  T value;
  bool has;
};
template <class T>
__host__ __device__ __forceinline__ maybe_value<T> some(const T& v) {
  return maybe_value<T>{v, true};
}
template <class T>
__host__ __device__ __forceinline__ maybe_value<T> none() {
  maybe_value<T> m{};
  m.has = false;
  return m;
}
/// op(a, b) when a is present, else b.
template <class T, class Op>
__device__ __forceinline__ T combine(const maybe_value<T>& a, const T& b, Op op) {
  return a.has ? op(a.value, b) : b;
}

/// Raw storage for a T in shared memory (T may have a non-trivial default constructor, which
/// __shared__ variables may not).
template <class T>
struct alignas(alignof(T)) uninitialized {
  unsigned char bytes[sizeof(T)];
  __device__ __forceinline__ T& get() { return *reinterpret_cast<T*>(bytes); }
};

// ---- thread phase ----------------------------------------------------------------------------
/// op(items[0], ..., items[N-1]) in order.
template <class T, int N, class Op>
__device__ __forceinline__ T thread_reduce(const T (&items)[N], Op op) {
  T acc = items[0];
#pragma unroll
  for (int i = 1; i < N; ++i) acc = op(acc, items[i]);
  return acc;
}

/// Rescans a thread's items in place from `prefix`, the value of everything before them.
/// Without a prefix (has_prefix false) the first item starts the scan; an exclusive scan then
/// leaves items[0] unchanged (its output is unspecified).
template <class T, int N, class Op>
__device__ __forceinline__ void thread_scan(T (&items)[N], T prefix, bool has_prefix, bool exclusive, Op op) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i == 0 && !has_prefix) {
      prefix = items[0];
    } else {
      const T next = op(prefix, items[i]);
      items[i] = exclusive ? prefix : next;
      prefix = next;
    }
  }
}

// ---- the block scan -----------------------------------------------------------------------------
template <class T, int Threads, class Phase = warp_phase::shfl_t>
class block_scan {
  static_assert(Threads % 32 == 0 && Threads >= 32 && Threads <= 1024, "block_scan: Threads must be 32..1024, a multiple of 32");
  static_assert(std::is_trivially_copyable<T>::value, "block_scan needs a trivially copyable type");
  static constexpr int warps = Threads / 32;
  using warp_scan_t = warp_scan<T, Phase>;

 public:
  struct temp_storage {
    typename warp_scan_t::temp_storage warp[warps];
    uninitialized<T> total[warps];  // each warp's total, then (after the spine) each warp's base
    uninitialized<T> aggregate;     // the block's aggregate, without the prefix
    bool has_prefix;
  };

  __device__ explicit block_scan(temp_storage& s) : s_(s) {}

  /// Exclusive scan of one value per thread. `prefix(aggregate)` is called by all lanes of warp 0
  /// with the block's aggregate and returns the value of everything before the block (a maybe_value<T>;
  /// the same in every lane). Returns false only in thread 0 when there is no prefix: `exclusive`
  /// is then unspecified. Afterwards aggregate() is the block's aggregate (without the prefix).
  template <class Op, class Prefix>
  __device__ __forceinline__ bool exclusive_scan(const T& x, T& exclusive, Op op, Prefix&& prefix) {
    const int lane = lane_index();
    const int warp = warp_index();

    // ---- warp: scan the threads' values of each warp -----------------------------------------
    T inclusive, warp_exclusive;
    warp_scan_t(s_.warp[warp]).scan(x, inclusive, warp_exclusive, op);
    if (lane == 31) s_.total[warp].get() = inclusive;
    __syncthreads();

    // ---- spine: warp 0 scans the warp totals, then asks for the block's prefix -----------------
    if (warp == 0) {
      // Lanes past the last warp repeat warp 0's total: a lane's inclusive result depends only on
      // the lanes below it, so they change nothing.
      const T total = s_.total[lane < warps ? lane : 0].get();
      T spine_inclusive, spine_exclusive;
      warp_scan_t(s_.warp[0]).scan(total, spine_inclusive, spine_exclusive, op);
      const T aggregate = shfl_idx(spine_inclusive, warps - 1);
      const maybe_value<T> pre = prefix(aggregate);
      __syncwarp();
      if (lane < warps) {
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

  /// The block's aggregate op(x_0, ..., x_{Threads-1}), returned in every thread.
  template <class Op>
  __device__ __forceinline__ T reduce(const T& x, Op op) {
    T exclusive;
    exclusive_scan(x, exclusive, op, [](const T&) { return none<T>(); });
    return aggregate();
  }

  // ---- blocked item arrays (thread t holds items [t*N, t*N + N)) -----------------------------
  /// The general form used by the device scans: scans the items in place, inclusive or exclusive,
  /// after the block's prefix (see exclusive_scan for `prefix`). Without a prefix an exclusive
  /// scan leaves the block's first item unchanged (unspecified output).
  template <int N, class Op, class Prefix>
  __device__ __forceinline__ void scan(T (&items)[N], bool exclusive_output, Op op, Prefix&& prefix) {
    const T partial = thread_reduce(items, op);
    T exclusive;
    const bool has = exclusive_scan(partial, exclusive, op, prefix);
    thread_scan(items, exclusive, has, exclusive_output, op);
  }

  template <int N, class Op>
  __device__ __forceinline__ void inclusive_scan(T (&items)[N], Op op) {
    scan(items, false, op, [](const T&) { return none<T>(); });
  }

  template <int N, class Op>
  __device__ __forceinline__ void exclusive_scan(T (&items)[N], const T& init, Op op) {
    scan(items, true, op, [&](const T&) { return some(init); });
  }

 private:
  temp_storage& s_;
};

}  // namespace algo::detail::cuda
