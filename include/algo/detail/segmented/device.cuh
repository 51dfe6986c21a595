// Device side of the segmented algorithms, shared by algo::cuda and algo::cub: offsets checked and
// their ends read back (one small kernel and a synchronization), the heads mask, the empty
// segments of segmented_reduce, and a copy for in-place exclusive scans.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../cuda/thread/load.cuh"
#include "host.hpp"

namespace algo::detail::segmented {

/// Elements between a pointer and the 16-byte boundary at or below it (device side of
/// cuda::vector_misalignment, for raw pointers: the segments' own alignment, found in the kernels).
template <class T>
__device__ __forceinline__ int misalignment(const T* p) {
  return static_cast<int>((reinterpret_cast<std::uintptr_t>(p) % 16) / sizeof(T));
}

/// Whether the per-segment kernels read `Src` (an unwrapped input) with 16-byte loads, each
/// segment's misalignment found on the device: plain pointers to vectorizable values.
template <class Src>
inline constexpr bool segment_vector_loads_v = std::is_pointer<Src>::value && cuda::load_traits<Src>::vectorizable;

struct offsets_check {
  long long first, last;
  long long bad_at;      // the lowest k with offsets[k + 1] < offsets[k]; LLONG_MAX: none
  long long max_length;  // the longest segment (what segmented_reduce chooses its kernel by)
  long long min_length;  // the shortest segment (equal to max_length: uniform segments); -1: not known
};

/// Segments each thread of check_offsets_kernel takes at a time (their offsets' loads in flight
/// together).
inline constexpr int check_run = 4;

template <class OffIt>
__global__ void check_offsets_kernel(OffIt offsets, long long segments, offsets_check* r) {
  // thread t takes segments [check_run t, check_run (t + 1)), then the same a grid further on.
  // Lengths in the offsets' own width (unsigned: a decrease wraps, and is flagged anyway), the
  // bounds tested once a step, a decrease's position found only when there is one (with 64-bit
  // lengths and a bounds test a segment the kernel was bound by its instructions: ncu 75 % of the
  // SMs' throughput, 36 % of DRAM's, 57.7 us at 2^24 offsets).
  using V = std::remove_cv_t<std::remove_reference_t<decltype(offsets[0])>>;
  using U = std::conditional_t<(sizeof(V) <= 4), unsigned, unsigned long long>;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x * check_run;
  U lmax = 0, lmin = ~U(0);
  for (long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) * check_run; k < segments;
       k += stride) {
    const int m = segments - k < check_run ? static_cast<int>(segments - k) : check_run;  // segments this step
    V o[check_run + 1];
    bool bad = false;
    // segment k + j (the offsets passed in: a lambda that captured o before it was loaded drew
    // nvcc's warning #549-D, "used before its value is set")
    const auto fold = [&](const V* oj) {
      bad |= oj[1] < oj[0];
      const U length = static_cast<U>(static_cast<U>(oj[1]) - static_cast<U>(oj[0]));
      lmax = length > lmax ? length : lmax;
      lmin = length < lmin ? length : lmin;
    };
    if (m == check_run) {  // no bounds to test
#pragma unroll
      for (int j = 0; j <= check_run; ++j) o[j] = offsets[k + j];
#pragma unroll
      for (int j = 0; j < check_run; ++j) fold(o + j);
    } else {
      for (int j = 0; j <= m; ++j) o[j] = offsets[k + j];
      for (int j = 0; j < m; ++j) fold(o + j);
    }
    if (bad) {
      for (int j = 0; j < m; ++j)
        if (o[j + 1] < o[j]) {
          atomicMin(&r->bad_at, k + j);
          break;
        }
    }
  }
  // the block's longest and shortest, then at most one atomic a block for each, and none when the
  // word there already holds as much
  long long longest = static_cast<long long>(lmax);
  long long shortest = lmin == ~U(0) ? 0x7fffffffffffffffLL : static_cast<long long>(lmin);
  for (int d = 16; d > 0; d /= 2) {
    const long long other = __shfl_down_sync(0xffffffffu, longest, d);
    if (other > longest) longest = other;
    const long long other_short = __shfl_down_sync(0xffffffffu, shortest, d);
    if (other_short < shortest) shortest = other_short;
  }
  __shared__ long long s_longest[32], s_shortest[32];
  const int warp = static_cast<int>(threadIdx.x) / 32, warps = static_cast<int>(blockDim.x + 31) / 32;
  if ((threadIdx.x & 31) == 0) {
    s_longest[warp] = longest;
    s_shortest[warp] = shortest;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < warps; ++w) {
      if (s_longest[w] > longest) longest = s_longest[w];
      if (s_shortest[w] < shortest) shortest = s_shortest[w];
    }
    if (longest > 0 && longest > *static_cast<volatile long long*>(&r->max_length)) atomicMax(&r->max_length, longest);
    if (shortest < *static_cast<volatile long long*>(&r->min_length)) atomicMin(&r->min_length, shortest);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    r->first = static_cast<long long>(offsets[0]);
    r->last = static_cast<long long>(offsets[segments]);
  }
}

inline unsigned small_grid(long long work, int threads) {
  const long long blocks = (work + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

/// Device-resident offsets are read back to the host (the number of elements): refused under capture.
inline void refuse_offsets_under_capture(const char* name, const device_policy_base& policy) {
  if (cuda::stream_is_capturing(policy.stream, name))
    fail(name,
         "reads the ends of device-resident offsets back to the host (the number of elements), which needs a "
         "synchronization and cannot be captured into a CUDA graph; use algo::uniform_offsets, or call it "
         "outside the capture");
}

/// The check's verdict as offsets_info, or algo::error naming what is wrong.
inline offsets_info checked_info(const char* name, const offsets_check& got) {
  if (got.bad_at != 0x7fffffffffffffffLL)
    fail(name, "offsets decrease at segment " + std::to_string(got.bad_at) + " (offsets[" + std::to_string(got.bad_at + 1) +
                   "] < offsets[" + std::to_string(got.bad_at) + "])");
  if (got.first < 0) fail(name, "offsets[0] is negative (" + std::to_string(got.first) + ")");
  return offsets_info{got.first, got.last, got.max_length, got.min_length};
}

/// Checks device-resident offsets (algo::error, nothing written, when they decrease or start
/// below 0) and returns offsets[0], offsets[segments] and the longest segment. Synchronizes the stream, so it is
/// refused under graph capture (algo::uniform_offsets needs no check and no synchronization).
/// `queued(const offsets_check*)` runs once the check is queued and before the host waits for it:
/// what it queues after the check can read the check's verdict on the device (segmented_reduce's
/// block-per-segment kernel does, so the wait overlaps it).
template <class OffIt, class Queued>
offsets_info read_offsets_device(const char* name, const device_policy_base& policy, OffIt offsets,
                                 std::int64_t segments, Queued&& queued) {
  refuse_offsets_under_capture(name, policy);
  cuda::temporary_buffer tmp(policy, sizeof(offsets_check));
  auto* r = tmp.as<offsets_check>();
  // bad_at starts at LLONG_MAX, so that atomicMin keeps the first bad segment seen
  const offsets_check start{0, 0, 0x7fffffffffffffffLL, 0, 0x7fffffffffffffffLL};
  cuda::write_value_kernel<<<1, 1, 0, policy.stream>>>(r, start);
  cuda::check_launch(name, "write_value_kernel");
  check_offsets_kernel<<<small_grid((segments + check_run - 1) / check_run, 256), 256, 0, policy.stream>>>(
      offsets, static_cast<long long>(segments), r);
  cuda::check_launch(name, "check_offsets_kernel");
  // the verdict comes back through pinned memory, and the host waits for that copy alone (an event
  // after it), not for what `queued` adds behind it
  thread_local cuda::pinned_host_block staging_block;
  auto* staging = static_cast<offsets_check*>(staging_block.at_least(name, sizeof(offsets_check), cudaHostAllocDefault));
  check_cuda(cudaMemcpyAsync(staging, r, sizeof(offsets_check), cudaMemcpyDeviceToHost, policy.stream), name,
             "cudaMemcpyAsync");
  const cudaEvent_t copied = cuda::record_thread_event(name, policy.stream);
  queued(static_cast<const offsets_check*>(r));
  check_cuda(cudaEventSynchronize(copied), name, "cudaEventSynchronize");
  offsets_check got;
  std::memcpy(&got, staging, sizeof(got));
  return checked_info(name, got);
}
template <class OffIt>
offsets_info read_offsets_device(const char* name, const device_policy_base& policy, OffIt offsets,
                                 std::int64_t segments) {
  return read_offsets_device(name, policy, offsets, segments, [](const offsets_check*) {});
}

/// heads_mask_kernel's shape: mask words a block writes (32 elements each), offsets a thread has
/// in flight at once.
struct mask_tuning {
  static constexpr int words = 1024;
  static constexpr int unroll = 4;
};

/// The first k in [0, segments] with offsets[k] >= x, for x <= offsets[segments] (offsets in
/// order), searched by one warp: a probe of 32 offsets a step, then 32 neighbours. Every lane of
/// the warp calls it and gets the answer.
template <class OffIt>
__device__ __forceinline__ long long warp_lower_bound(OffIt offsets, long long segments, long long x) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  long long lo = 0, hi = segments;  // the answer is in [lo, hi]
  while (hi - lo > 32) {
    const long long step = (hi - lo + 31) / 32;
    const long long p = lo + lane * step;
    const bool below = p < hi && static_cast<long long>(offsets[p]) < x;
    const int c = __popc(__ballot_sync(0xffffffffu, below));  // a prefix of the lanes (the offsets are in order)
    if (c == 0) return lo;
    const long long next = lo + c * step;
    lo += (c - 1) * step + 1;
    if (next < hi) hi = next;
  }
  const long long p = lo + lane;
  const bool below = p < hi && static_cast<long long>(offsets[p]) < x;
  return lo + __popc(__ballot_sync(0xffffffffu, below));
}

/// The heads of the non-empty segments, one bit per element from offsets[0] (`base`), written
/// whole: block b builds words [W b, W (b + 1)) in shared memory (W = Tuning::words) and stores
/// them (no clearing pass, no global atomics). Warps 0 and 1 find the segments whose offsets fall
/// in the block's elements (warp_lower_bound of its first element and of the one past its last),
/// then the block reads those offsets and the next one of each, several loads in flight a thread,
/// each non-empty segment setting its head's bit. For offsets already checked (in order).
template <class Tuning, class OffIt>
__global__ void __launch_bounds__(256) heads_mask_kernel(OffIt offsets, long long segments, long long base, long long n,
                                                          std::uint32_t* mask) {
  constexpr int threads = 256, unroll = Tuning::unroll, mask_block_words = Tuning::words;
  __shared__ std::uint32_t s_bits[mask_block_words];
  __shared__ long long s_range[2];
  const long long x0 = static_cast<long long>(blockIdx.x) * mask_block_words * 32;
  const long long x1 = x0 + mask_block_words * 32 < n ? x0 + mask_block_words * 32 : n;
  for (int i = static_cast<int>(threadIdx.x); i < mask_block_words; i += threads) s_bits[i] = 0u;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (warp < 2) {
    const long long k = warp_lower_bound(offsets, segments, base + (warp == 0 ? x0 : x1));
    if ((threadIdx.x & 31) == 0) s_range[warp] = k;
  }
  __syncthreads();
  const long long k0 = s_range[0], k1 = s_range[1];  // offsets[k] in [base + x0, base + x1) (so k < segments)
  for (long long kb = k0 + threadIdx.x; kb < k1; kb += unroll * threads) {
    long long o[unroll], e[unroll];
#pragma unroll
    for (int j = 0; j < unroll; ++j) {
      const long long k = kb + j * threads;
      o[j] = k < k1 ? static_cast<long long>(offsets[k]) : 0;
      e[j] = k < k1 ? static_cast<long long>(offsets[k + 1]) : 0;
    }
#pragma unroll
    for (int j = 0; j < unroll; ++j) {
      if (o[j] < e[j]) {  // (past k1: both 0)
        const long long rel = o[j] - base - x0;
        atomicOr(s_bits + (rel >> 5), 1u << (rel & 31));
      }
    }
  }
  __syncthreads();
  const long long w0 = x0 / 32;
  const int words = static_cast<int>((x1 - x0 + 31) / 32);
  for (int i = static_cast<int>(threadIdx.x); i < words; i += threads) mask[w0 + i] = s_bits[i];
}

/// The heads of the non-empty segments, one bit per element, in `mask` ((n + 31) / 32 words), for
/// offsets already checked (in order, offsets[0] = base, n = offsets[segments] - base).
template <class Tuning = mask_tuning, class OffIt>
void heads_mask_device(const char* name, const device_policy_base& policy, OffIt offsets, std::int64_t segments,
                       std::int64_t base, std::int64_t n, std::uint32_t* mask) {
  if (n <= 0) return;
  const long long blocks = (n + 32ll * Tuning::words - 1) / (32ll * Tuning::words);
  heads_mask_kernel<Tuning><<<static_cast<unsigned>(blocks), 256, 0, policy.stream>>>(
      offsets, static_cast<long long>(segments), static_cast<long long>(base), static_cast<long long>(n), mask);
  cuda::check_launch(name, "heads_mask_kernel");
}

/// out[k] = init for every empty segment k.
template <class OffIt, class OutIt, class T>
__global__ void empty_segments_kernel(OffIt offsets, long long segments, OutIt out, T init) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < segments; k += stride) {
    if (static_cast<long long>(offsets[k]) == static_cast<long long>(offsets[k + 1])) out[k] = init;
  }
}

template <class OffIt, class OutIt, class T>
void empty_segments_device(const char* name, const device_policy_base& policy, OffIt offsets, std::int64_t segments,
                           OutIt out, const T& init) {
  if (segments == 0) return;
  empty_segments_kernel<<<small_grid(segments, 256), 256, 0, policy.stream>>>(offsets, static_cast<long long>(segments), out, init);
  cuda::check_launch(name, "empty_segments_kernel");
}

template <class InIt, class T>
__global__ void copy_values_kernel(InIt in, long long n, T* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

/// A copy of n values (T) in `tmp`, for in-place exclusive scans (which read element i - 1 after
/// writing it otherwise).
template <class T, class InIt>
T* copy_values_device(const char* name, const device_policy_base& policy, InIt in, std::int64_t n,
                      cuda::temporary_buffer& tmp) {
  T* out = tmp.as<T>();
  copy_values_kernel<<<small_grid(n, 256), 256, 0, policy.stream>>>(in, static_cast<long long>(n), out);
  cuda::check_launch(name, "copy_values_kernel");
  return out;
}

}  // namespace algo::detail::segmented
