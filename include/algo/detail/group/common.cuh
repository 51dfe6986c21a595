// group_reduce on algo::cuda, what its passes share (split from detail/group/device.cuh): the device
// view of an iterator, the build's status (which also carries the rank pass's group count), the
// block shape of every pass, grid sizes, a block's exclusive sum, and the hash the global table sees.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "../cuda/hash/probe.cuh"
#include "../../functional.hpp"
#include "../cuda/pointer.cuh"

namespace algo::detail::group {

namespace hc = ::algo::detail::cuda::hash;

/// A raw pointer for contiguous device iterators, the iterator itself otherwise.
template <class It>
auto device_view(It it) {
  auto p = raw_address(it);
  if constexpr (std::is_same<decltype(p), std::nullptr_t>::value) return it;
  else return p;
}

/// Whether key_equal Eq on K compares the keys' bits (== on integers and enumerations): then a
/// group's key may be taken from its slot word (the bits of the key that claimed it) instead of
/// the input's key at its first appearance.
template <class Eq, class K>
inline constexpr bool bitwise_equal_v =
    (std::is_integral<K>::value || std::is_enum<K>::value) &&
    (std::is_same<Eq, ::algo::equal_to<void>>::value || std::is_same<Eq, ::algo::equal_to<K>>::value ||
     std::is_same<Eq, std::equal_to<void>>::value || std::is_same<Eq, std::equal_to<K>>::value);

struct build_status {
  unsigned long long claimed;  // global slots claimed (distinct keys so far)
  unsigned long long tiles;    // tiles taken
  unsigned long long records;  // records whose new keys `claimed` counts (reported with them; not
                               // the tiles taken, which also count the tiles in flight at a stop)
  unsigned long long total;    // groups counted (the rank pass; the partitioned build's span scan)
  unsigned abort;              // 1: the table passed its load limit or was full: build again, larger
  unsigned pad;
  unsigned long long cap;      // the sampled build's table size, when its sample chose one smaller than
                               // the host's (0: the host's; partitioned.cuh, sample_kernel)
};

/// A flag word an earlier kernel on the stream wrote, read once a block by thread 0 (every thread
/// reading the one word was a hot spot in the L2); whether it is set. All threads.
__device__ __forceinline__ bool flag_set(const unsigned* flag) {
  __shared__ unsigned set;
  if (threadIdx.x == 0) set = *reinterpret_cast<const volatile unsigned*>(flag);
  __syncthreads();
  return set != 0u;
}

/// Whether the build behind `gate` stopped (abort set). All threads.
__device__ __forceinline__ bool build_stopped(const build_status* gate) { return flag_set(&gate->abort); }

inline constexpr int threads = 256;
inline constexpr int items = 16;
inline constexpr long long tile = threads * items;
inline constexpr int rank_words_per_thread = 8;
inline constexpr long long rank_chunk = threads * rank_words_per_thread;  // words per block

/// The open-addressing tables' load factors: sized for size_load, grown past limit_load (but the
/// last size, which holds every record distinct); a table that may still grow gives up on a key
/// after max_probes_growing probes (build.cuh says why).
inline constexpr double size_load = 0.7;
inline constexpr double limit_load = 0.7;
inline constexpr unsigned long long max_probes_growing = 256;

/// The slots of the table behind `gate` that its build may use: `cap` (the host's size), or where
/// the sample chose a smaller size (gate->cap) that many plus max_probes_growing (sized_shift).
/// Read once a block by thread 0. All threads.
__device__ __forceinline__ unsigned long long gated_capacity(const build_status* gate, unsigned long long cap) {
  __shared__ unsigned long long c;
  if (threadIdx.x == 0) c = *reinterpret_cast<const volatile unsigned long long*>(&gate->cap);
  __syncthreads();
  return c ? c + max_probes_growing : cap;
}

/// The table of a size c (a power of two) the sample chose below the host's C >= 2c (status->cap):
/// the host's table, its mask unchanged, with each key's home slot the top log2(c) bits of its
/// hash (global_hash with this shift), so the keys take slots [0, c) and the probes past them, at
/// most max_probes_growing (a table that may grow gives up there), never wrapping: the build,
/// clear and mark kernels read c on the device, and no table's mask changes under them.
__host__ __device__ __forceinline__ int sized_shift(unsigned long long c) {
  int lg = 0;
  while ((2ull << lg) <= c) ++lg;
  return 64 - lg;
}

inline unsigned grid_for(long long work, int per_block = threads) {
  const long long b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<long long>(1, std::min<long long>(b, 65535LL * 8)));
}

// ---- block helpers --------------------------------------------------------------------------------
/// Exclusive sum over the block's Threads threads (all must call; Threads <= 1024, a multiple of
/// 32); *total receives the block's sum.
template <int Threads = threads>
__device__ inline unsigned long long block_exclusive_sum(unsigned long long x,
                                                         unsigned long long* smem /*[Threads / 32 + 1]*/,
                                                         unsigned long long* total) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 32 of them");
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long inc = x;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long y = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d) inc += y;
  }
  if (lane == 31) smem[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    unsigned long long w = lane < Threads / 32 ? smem[lane] : 0ull;
    unsigned long long winc = w;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const unsigned long long y = __shfl_up_sync(0xffffffffu, winc, d);
      if (lane >= d) winc += y;
    }
    if (lane < Threads / 32) smem[lane] = winc - w;
    if (lane == Threads / 32 - 1) smem[Threads / 32] = winc;
  }
  __syncthreads();
  const unsigned long long r = smem[warp] + inc - x;
  *total = smem[Threads / 32];
  __syncthreads();
  return r;
}

/// One block of Threads scans `count` 64-bit values (value(i)), Threads x 4 a round: loaded in
/// stripes (consecutive threads, consecutive i: every global access coalesced) into shared
/// memory, read back 4 consecutive a thread for the scan, the exclusive sums written back and
/// handed out in stripes again: emit(i, sum of value(j) for j < i). Returns the total. (A
/// thread's 4-8 consecutive values read and written straight from global memory made every
/// warp access touch 32 sectors: 59-94 us for 2^15 partitions in one block on an H100.)
template <int Threads, class Value, class Emit>
__device__ unsigned long long block_scan_striped(long long count, Value value, Emit emit,
                                                 unsigned long long* s /*[Threads * 4]*/,
                                                 unsigned long long* smem /*[Threads / 32 + 1]*/) {
  constexpr int per = 4;
  unsigned long long carry = 0;
  for (long long round = 0; round < count; round += Threads * per) {
#pragma unroll
    for (int k = 0; k < per; ++k) {
      const long long i = round + k * Threads + threadIdx.x;
      s[k * Threads + threadIdx.x] = i < count ? value(i) : 0ull;
    }
    __syncthreads();
    unsigned long long x[per], sum = 0;
#pragma unroll
    for (int j = 0; j < per; ++j) {
      x[j] = s[threadIdx.x * per + j];
      sum += x[j];
    }
    unsigned long long total;
    unsigned long long at = carry + block_exclusive_sum<Threads>(sum, smem, &total);  // (its barriers: s read)
#pragma unroll
    for (int j = 0; j < per; ++j) {
      s[threadIdx.x * per + j] = at;
      at += x[j];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < per; ++k) {
      const long long i = round + k * Threads + threadIdx.x;
      if (i < count) emit(i, s[k * Threads + threadIdx.x]);
    }
    __syncthreads();
    carry += total;
  }
  return carry;
}

/// The hash the global table sees: the mixed hash itself (home slot: its low bits), or with the
/// partition pre-pass the hash shifted right by 64 - log2(capacity) (home slot: its top bits).
__device__ __forceinline__ std::uint64_t global_hash(std::uint64_t h, int shift) { return shift ? h >> shift : h; }

}  // namespace algo::detail::group
