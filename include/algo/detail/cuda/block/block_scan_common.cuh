// What the block scans share (block_scan.cuh: warp scans and a spine; block_scan_kogge_stone.cuh;
// block_scan_brent_kung.cuh): the optional value, raw shared-memory storage for any type, and the
// item-array forms every block scan offers on top of its one-value-per-thread scan.
//
// A block scan class `B` provides
//   struct temp_storage;                          shared memory, reusable by the next call at once
//   explicit B(temp_storage&);
//   bool exclusive_scan(x, exclusive, op, prefix[, count])
//                                                 one value per thread (see block_scan.cuh); with a
//                                                 count, only the first `count` threads hold values
//   T aggregate();                                the block's aggregate of the last call
// and derives from block_scan_items<B, T> for reduce(), scan(items, ...), inclusive_scan(items)
// and exclusive_scan(items, init).
#pragma once

#include <cstring>
#include <type_traits>

#include "../thread/thread_scan.cuh"
#include "../warp/warp_scan.cuh"

namespace algo::detail::cuda {

/// The block scans' default `count`: every thread holds a value.
inline constexpr int all_threads = 1 << 30;

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

/// N values of T in shared memory, stored as 4-byte word planes (word k of slot i at w[k][i]):
/// consecutive slots fall in consecutive banks whatever sizeof(T) is, so a warp reading 32
/// consecutive slots of a 32-byte struct costs 8 conflict-free accesses instead of 8-way
/// conflicts. Plain (non-volatile) accesses: the callers order them with __syncthreads().
template <class T, int N>
struct shared_array {
  static_assert(std::is_trivially_copyable<T>::value, "shared_array needs a trivially copyable type");
  static constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[words][N];

  __device__ __forceinline__ void put(int i, const T& v) {
    unsigned tmp[words] = {};
    memcpy(tmp, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < words; ++k) w[k][i] = tmp[k];
  }
  __device__ __forceinline__ T get(int i) const {
    unsigned tmp[words];
#pragma unroll
    for (int k = 0; k < words; ++k) tmp[k] = w[k][i];
    T v;
    memcpy(&v, tmp, sizeof(T));
    return v;
  }
};

// ---- the end of a shared-memory block scan -------------------------------------------------------
/// Where the shared-memory block scans (Kogge-Stone, Brent-Kung) leave the block's prefix.
template <class T>
struct prefix_slot {
  uninitialized<T> prefix;     // the value of everything before the block, when has_prefix
  uninitialized<T> aggregate;  // the block's aggregate, without the prefix
  bool has_prefix;
};

/// The last phase of the shared-memory block scans, once every thread's inclusive value
/// op(x_0, ..., x_t) is in shared memory and visible to the block (the caller has passed a
/// __syncthreads() since writing them): `inclusive(i)` reads thread i's. Warp 0 (all 32 lanes)
/// reads the aggregate (thread count-1's inclusive value) and calls prefix(aggregate) as
/// block_scan does; after one more barrier each thread below `count` combines the prefix with its
/// predecessor's inclusive value (threads at or past it call no operator). Every read of the
/// scan's own storage happens before that barrier, and the prefix slot is written only after the
/// next call's first barrier, so the storage may be reused at once.
template <int Threads, class T, class Inclusive, class Op, class Prefix>
__device__ __forceinline__ bool finish_block_scan(prefix_slot<T>& s, Inclusive&& inclusive, T& exclusive, Op op,
                                                  Prefix&& prefix, int count = all_threads) {
  const int t = static_cast<int>(threadIdx.x);
  const int last = (count < Threads ? count : Threads) - 1;
  if (warp_index() == 0) {
    const T aggregate = inclusive(last);
    const maybe_value<T> pre = prefix(aggregate);
    if (lane_index() == 0) {
      s.has_prefix = pre.has;
      if (pre.has) s.prefix.get() = pre.value;
      s.aggregate.get() = aggregate;
    }
  }
  // Read after the prefix callback (not live across the look-back's registers), before the barrier.
  // Thread 0 has no predecessor: it reads its own value, which it never uses (no identity needed).
  const T left = inclusive(t > 0 ? t - 1 : 0);
  __syncthreads();
  const bool has_prefix = s.has_prefix;
  if (t == 0) {
    if (!has_prefix) return false;  // nothing comes before thread 0
    exclusive = s.prefix.get();
    return true;
  }
  exclusive = has_prefix && t <= last ? op(s.prefix.get(), left) : left;
  return true;
}

// ---- item arrays, for every block scan ---------------------------------------------------------------
/// The forms on blocked item arrays (thread t holds items [t*N, t*N + N)) and the reduction, built
/// on the one-value-per-thread exclusive_scan of `Derived` (CRTP): thread phase (fold each thread's
/// items in order), block phase (Derived's scan of the per-thread totals, prefix included), thread
/// phase again (rescan each thread's items from its exclusive value).
template <class Derived, class T>
class block_scan_items {
 public:
  /// The block's aggregate op(x_0, ..., x_{Threads-1}), returned in every thread (of the first
  /// `count` threads' values, when only they hold values).
  template <class Op>
  __device__ __forceinline__ T reduce(const T& x, Op op, int count = all_threads) {
    T exclusive;
    self().exclusive_scan(x, exclusive, op, [](const T&) { return none<T>(); }, count);
    return self().aggregate();
  }

  /// The general form used by the device scans: scans the items in place, inclusive or exclusive,
  /// after the block's prefix (see block_scan::exclusive_scan for `prefix`). Without a prefix an
  /// exclusive scan leaves the block's first item unchanged (unspecified output).
  template <int N, class Op, class Prefix>
  __device__ __forceinline__ void scan(T (&items)[N], bool exclusive_output, Op op, Prefix&& prefix) {
    const T partial = thread_reduce(items, op);
    T exclusive;
    const bool has = self().exclusive_scan(partial, exclusive, op, prefix);
    thread_scan(items, exclusive, has, exclusive_output, op);
  }

  /// How many of the calling thread's N blocked items are among the block's first `valid`.
  template <int N>
  __device__ static __forceinline__ int items_of_thread(int valid) {
    const int rest = valid - static_cast<int>(threadIdx.x) * N;
    return rest < 0 ? 0 : rest < N ? rest : N;
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
  __device__ __forceinline__ Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace algo::detail::cuda
