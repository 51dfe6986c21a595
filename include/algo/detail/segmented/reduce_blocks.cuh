// algo::cuda's segmented_reduce over offsets in memory whose segments are all long: one block per
// segment, the reduce's own block agent on it (cuda/reduce/reduce_range.cuh: 16-byte loads from the
// segment's own alignment, every load in flight before the first fold, operands in order), as CUB's
// block-per-segment reduce reads them; nothing is staged or scanned (the merge path's load, walk,
// join and tile prefix are what cost it half CUB's speed at 4096 elements a segment).
//
//   choose   from what the offsets check finds (the host reads it back anyway: the element count):
//            at least `min_mean` elements a segment on average, no segment over `max_skew` times the
//            mean (one block per segment stays balanced), and enough segments to fill the device.
//            Otherwise the merge path, which is right for every mix. With offsets in memory (and
//            at least as many segments as SMs) the check runs in the kernel's own first blocks
//            (reduce_deferred.cuh, the default since 2026-12-02; `fused` below, one cooperative
//            launch whose blocks wait for the verdict, before: both send the verdict to the host
//            through mapped memory); where that is not possible, the blocks kernel is queued
//            behind a separate check (`speculation`): its blocks read the verdict on the device
//            and write nothing unless it holds, so the host's wait overlaps the kernel instead of
//            preceding it.
//   blocks   a block a segment (behind a check on the device: the blocks that fit at once, each
//            taking segments k, k + grid, ...): reads offsets[k] and offsets[k + 1], lays the
//            segment out for one block (on the device: the segment's misalignment to 16 bytes is
//            known only there), folds it, writes init op fold (init itself, as T, for an empty
//            segment, as the merge path does).
// The grouping depends only on the segment's length and alignment, so floats are the same run to
// run.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <type_traits>

#include "../../functional.hpp"
#include "../cuda/reduce/reduce_range.cuh"
#include "../cuda/reduce/reduce_tuning.cuh"
#include "../cuda/reduce.cuh"
#include "../cuda/runtime.cuh"
#include "device.cuh"

namespace algo::detail::segmented::segment_blocks {

/// The mean segment length from which one block per segment reads faster than the merge path.
inline constexpr std::int64_t min_mean = 2048;
/// No segment longer than this many times the mean (else one block would hold up the grid).
inline constexpr std::int64_t max_skew = 4;

/// Whether these offsets take this path: `segments` segments over n elements, the longest
/// `max_length` (-1: unknown), on a device of `sm_count` multiprocessors. Host and device: a launch
/// queued behind the offsets check decides with the same test as the host after it.
__host__ __device__ inline bool suits(std::int64_t segments, std::int64_t n, std::int64_t max_length, int sm_count) {
  if (max_length < 0 || segments < sm_count || segments <= 0) return false;
  const std::int64_t mean = n / segments;
  return mean >= min_mean && max_length <= max_skew * mean;
}

/// A necessary condition for a segment of `len` elements to be folded on this path, with no
/// division (for a kernel that must decide before the verdict whether a segment is worth its
/// fold): suits(segments, n, max_length) with max_length >= len implies n >= min_mean * segments
/// and ceil(len / max_skew) * segments <= n (ceil(len / max_skew) <= floor(n / segments)), so false
/// here means that no verdict that allows the path holds.
__host__ __device__ inline bool length_may_suit(long long len, long long n, long long segments) {
  if (len < 0 || n < 0 || segments <= 0) return false;
  const auto s = static_cast<unsigned long long>(segments), total = static_cast<unsigned long long>(n);
  if (s > (1ull << 40) || total < static_cast<unsigned long long>(min_mean) * s) return false;
  const unsigned long long q = (static_cast<unsigned long long>(len) + (max_skew - 1)) / max_skew;  // (a shift)
#ifdef __CUDA_ARCH__
  const unsigned long long high = __umul64hi(q, s);
#else
  const auto high = static_cast<unsigned long long>((static_cast<unsigned __int128>(q) * s) >> 64);
#endif
  return high == 0 && q * s <= total;
}

/// A launch queued behind the offsets check, before the host has its verdict (offsets in memory):
/// the kernel writes nothing unless the check found the offsets good and the segments long (suits,
/// as the host decides after the wait) and the input does not overlap the output (the bytes of
/// elements [offsets[0], offsets[S]) of `in` against the `out_bytes` at `out`, as the host's
/// overlap check); when it does write, the host's checks after the wait pass and it returns.
struct speculation {
  const offsets_check* check = nullptr;  // null: the host already decided (not speculative)
  int sm_count = 0;
  const char* in = nullptr;  // the input's element 0
  std::size_t in_size = 0;   // bytes per input element
  const char* out = nullptr;
  std::size_t out_bytes = 0;
  // the elements of `in` its allocation holds, [in_lo, in_hi) relative to element 0 (the driver's
  // range of the pointer): offsets past them write nothing, and nothing is read past them before
  // the verdict (garbage offsets could otherwise send a fold out of the allocation: a fault that
  // ends the context, where the host would have raised "offsets decrease")
  long long in_lo = -0x7fffffffffffffffLL - 1;
  long long in_hi = 0x7fffffffffffffffLL;
};

/// Whether [first, last) of the input lies in its allocation (speculation::in_lo, in_hi).
__host__ __device__ inline bool within_allocation(const speculation& spec, long long first, long long last) {
  return first >= spec.in_lo && last <= spec.in_hi;
}

/// Whether a launch that speculated on the offsets may write its results, given their check `c`
/// (host and device: the host decides with it what the device decided).
__host__ __device__ inline bool verdict_allows(const speculation& spec, const offsets_check& c, long long segments) {
  if (c.bad_at != 0x7fffffffffffffffLL || c.first < 0) return false;
  if (!suits(segments, c.last - c.first, c.max_length, spec.sm_count)) return false;
  if (!within_allocation(spec, c.first, c.last)) return false;
  const char* lo = spec.in + c.first * static_cast<long long>(spec.in_size);
  const char* hi = spec.in + c.last * static_cast<long long>(spec.in_size);
  return !(lo < hi && lo < spec.out + spec.out_bytes && spec.out < hi);
}

/// The verdict of a speculative launch (the same in every thread).
__device__ __forceinline__ bool go_ahead(const speculation& spec, long long segments) {
  if (!spec.check) return true;
  const offsets_check c = *spec.check;
  return verdict_allows(spec, c, segments);
}

// ---- blocks ---------------------------------------------------------------------------------------------
/// The block's fold of one non-empty segment, elements [a, e) of `first` (the agent's own layout
/// from the segment's length and, on the vector path, its misalignment); every thread calls it.
template <class Agent, class Tuning, bool Vector, class It, class Op>
__device__ __forceinline__ auto fold_segment(typename Agent::looped& loop, const It& first, long long a, long long e,
                                             Op op) {
  const It seg = first + a;
  int offset = 0;
  if constexpr (Vector) offset = misalignment(seg);
  const cuda::reduce_layout L =
      cuda::make_reduce_layout(e - a, offset, Agent::items, Agent::warps, Tuning::min_tiles_per_warp, 1);
  return loop.fold(seg, L, op);
}

// (MinBlocks: 0, no bound; __launch_bounds__(256, 1) takes this kernel from 38 to 61-64 registers)
template <class Agent, class Tuning, bool Vector, int MinBlocks, class It, class OffIt, class OutIt, class Acc, class Op,
          class T>
__global__ void __launch_bounds__(Agent::threads, MinBlocks)
    blocks_kernel(It first, OffIt offsets, long long base, long long segments, OutIt out, Acc init, Op op,
                  T init_as_t, speculation spec) {
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  if (!go_ahead(spec, segments)) return;
  for (long long k = blockIdx.y; k < segments; k += gridDim.y) {
    const long long a = static_cast<long long>(offsets[k]) - base, b = static_cast<long long>(offsets[k + 1]) - base;
    if (a == b) {  // the same for every thread of the block
      if (threadIdx.x == 0) out[k] = init_as_t;
      continue;
    }
    const cuda::maybe_value<Acc> part = fold_segment<Agent, Tuning, Vector>(loop, first, a, b, op);
    if (threadIdx.x == 0) out[k] = static_cast<Acc>(op(init, part.value));
    __syncwarp();  // (Agent::looped: a warp's barrier between two folds, no more)
  }
}

// ---- fused: the offsets check and the blocks in one launch ------------------------------------------------
// With offsets in memory the check runs in the kernel's first phase: block b < C checks segments
// b*T + t, b*T + t + C*T, ... (T threads; C checking blocks, about 8 segments a thread, at most the
// grid) and publishes its share (the first decrease it saw, its longest segment) in its own slot,
// tagged with the call's ticket (no slot needs clearing before the launch: a slot holding another
// tag is not yet written). Block 0 (a checker) folds every slot into the verdict as soon as it has
// checked and publishes it in one more slot for the other blocks, and to the host (mapped pinned
// memory, a flag after it), which the host waits for instead of a copy and a synchronization:
// the stream holds this one launch.
// No other block waits for the verdict before its work: each folds its segments at once, reading
// only segments that every good verdict allows (within [offsets[0], offsets[S]], in order, no
// longer than max_skew means, the mean long enough for this path; a segment that fails this means
// the verdict is bad, and the block waits for it and leaves), holds the results of its first
// `fused_ring` segments in shared memory, then reads the verdict (by then long published) and
// writes them, and its later ones as they come, only when it holds (speculation's test). The
// checking blocks take the segments of the blocks with one segment fewer (block b takes segments
// q, q + G, ..., q = (b - C) mod G), so the check's time fills their slack. The grid is
// cooperative (every block resident at once), so waiting for the checkers' slots always ends.
// Before 2026-11-27 every block read every slot before its first segment: 0.0949-0.0956 ms of GPU
// time against 0.0924-0.0930 after, 0.0912-0.0914 with one barrier a segment (Agent::looped); the
// blocks kernel without a check 0.0882-0.0885, CUB 0.0876-0.0878 (2^26 f32, 4096 elements a
// segment, seg_reduce_probe, H100; what stays is not the cooperative launch, which an ordinary one
// times the same, nor the wait: bench/notes/keys_segments.md).

/// One block's share of the check, published with the call's tag.
struct check_slot {
  unsigned long long tag;
  long long bad_at;
  long long max_length;
  long long pad;
};

/// What the fused kernel needs besides the blocks kernel's arguments.
struct fused_args {
  check_slot* slots = nullptr;  // `checkers` of them
  long long checkers = 0;       // the blocks that check (the first ones, at most the grid)
  unsigned long long tag = 0;
  offsets_check* host_check = nullptr;  // mapped pinned memory: the verdict for the host
  unsigned* host_flag = nullptr;        // set to `ticket` after host_check
  unsigned ticket = 0;
  speculation spec;  // its `check` is the block's own copy of the verdict (set on the device)
};

/// Blocks of the fused kernel per SM the compiler keeps registers for: 5 (48 registers) measured as
/// fast as 6 (40) at 4096 and 16384 elements a segment and 22 % faster at 2048 (seg_reduce_probe,
/// H100; the blocks kernel at 6 is as slow there).
inline constexpr int fused_min_blocks = 5;

/// (min bad, max longest) over the block into thread 0's return value; every thread calls it.
template <int Threads>
__device__ __forceinline__ void block_min_max(long long& bad, long long& longest, long long (&s_bad)[Threads / 32],
                                              long long (&s_long)[Threads / 32]) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    const long long ob = __shfl_down_sync(0xffffffffu, bad, d);
    const long long ol = __shfl_down_sync(0xffffffffu, longest, d);
    if (ob < bad) bad = ob;
    if (ol > longest) longest = ol;
  }
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if ((threadIdx.x & 31) == 0) {
    s_bad[warp] = bad;
    s_long[warp] = longest;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < Threads / 32; ++w) {
      if (s_bad[w] < bad) bad = s_bad[w];
      if (s_long[w] > longest) longest = s_long[w];
    }
  }
  __syncthreads();  // the arrays serve the next call
}

/// A checking block's share of the offsets check (segments b*T + t, b*T + t + C*T, ... of C
/// checkers of T threads): the first decrease it saw and its longest segment, published in `slot`
/// with the call's tag (thread 0, the share before the tag). Every thread of the block calls it.
template <int Threads, class OffIt>
__device__ __forceinline__ void check_share(const OffIt& offsets, long long segments, long long b, long long checkers,
                                            unsigned long long tag, check_slot* slot,
                                            long long (&s_bad)[Threads / 32], long long (&s_long)[Threads / 32]) {
  long long bad = 0x7fffffffffffffffLL, longest = 0;
  // four segments a step, their loads in flight together (short segments: the whole offsets array)
  const long long stride = checkers * Threads;
  for (long long k0 = b * Threads + threadIdx.x; k0 < segments; k0 += 4 * stride) {
    long long lo[4], hi[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long k = k0 + j * stride;
      lo[j] = k < segments ? static_cast<long long>(offsets[k]) : 0;
      hi[j] = k < segments ? static_cast<long long>(offsets[k + 1]) : 0;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long k = k0 + j * stride;
      if (hi[j] < lo[j] && k < bad) bad = k;
      if (hi[j] - lo[j] > longest) longest = hi[j] - lo[j];
    }
  }
  block_min_max<Threads>(bad, longest, s_bad, s_long);
  if (threadIdx.x == 0) {
    volatile check_slot* v = slot;
    v->bad_at = bad;
    v->max_length = longest;
    __threadfence();  // the share before its tag
    v->tag = tag;
  }
}

/// Results a block of the fused kernel holds before it waits for the verdict (at most 512 bytes of
/// shared memory): the checking blocks publish theirs while the others fold these segments.
template <class Acc>
inline constexpr int fused_ring = sizeof(Acc) * 32 <= 512 ? 32 : (512 / sizeof(Acc) > 0 ? static_cast<int>(512 / sizeof(Acc)) : 1);

/// The offsets' verdict to the host (one thread): the check into mapped pinned memory, then the
/// call's ticket into its flag, which the host polls (cuda::wait_for_result).
__device__ __forceinline__ void publish_to_host(const offsets_check& c, offsets_check* host_check, unsigned* host_flag,
                                                unsigned ticket) {
  volatile offsets_check* h = host_check;
  h->first = c.first;
  h->last = c.last;
  h->bad_at = c.bad_at;
  h->max_length = c.max_length;
  h->min_length = c.min_length;
  __threadfence_system();  // the verdict is visible to the host before the flag
  *static_cast<volatile unsigned*>(host_flag) = ticket;
}

/// Block 0 of the fused kernel: folds every checking block's slot into the verdict (1 go: the
/// results may be written, 0 no), publishes it in the slot after theirs for the other blocks and
/// to the host. Every thread of block 0 calls it. `allowed`: offsets[0] and offsets[S].
template <int Threads>
__device__ __forceinline__ int fused_verdict_fold(const fused_args& fa, long long segments, const long long* allowed,
                                                  long long (&s_bad)[Threads / 32], long long (&s_long)[Threads / 32],
                                                  int& s_go) {
  long long bad = 0x7fffffffffffffffLL, longest = 0;
  for (long long i = threadIdx.x; i < fa.checkers; i += Threads) {
    const volatile check_slot* slot = fa.slots + i;
    while (slot->tag != fa.tag) __nanosleep(64);
    __threadfence();
    const long long sb = slot->bad_at, sl = slot->max_length;
    if (sb < bad) bad = sb;
    if (sl > longest) longest = sl;
  }
  block_min_max<Threads>(bad, longest, s_bad, s_long);
  if (threadIdx.x == 0) {
    const offsets_check c{allowed[0], allowed[1], bad, longest, -1};
    speculation spec = fa.spec;
    spec.check = &c;
    const int go = go_ahead(spec, segments) ? 1 : 0;
    s_go = go;
    volatile check_slot* v = fa.slots + fa.checkers;  // the verdict, for the other blocks
    v->bad_at = go;
    __threadfence();
    v->tag = fa.tag;
    publish_to_host(c, fa.host_check, fa.host_flag, fa.ticket);
  }
  __syncthreads();
  return s_go;
}

/// The verdict for blocks other than 0: one word, which block 0 publishes (fused_verdict_fold).
/// Every thread of the block calls it.
__device__ __forceinline__ int fused_verdict_wait(const fused_args& fa, int& s_go) {
  if (threadIdx.x == 0) {
    const volatile check_slot* v = fa.slots + fa.checkers;
    while (v->tag != fa.tag) __nanosleep(64);
    __threadfence();
    s_go = static_cast<int>(v->bad_at);
  }
  __syncthreads();
  return s_go;
}

template <int MinBlocks, bool Early, class Agent, class Tuning, bool Vector, class It, class OffIt, class OutIt, class Acc,
          class Op, class T>
__global__ void __launch_bounds__(Agent::threads, MinBlocks)
    fused_kernel(It first, OffIt offsets, long long segments, OutIt out, Acc init, Op op, T init_as_t, fused_args fa) {
  constexpr int threads = Agent::threads;
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  __shared__ long long s_bad[threads / 32], s_long[threads / 32];
  __shared__ int s_go;
  constexpr int ring = fused_ring<Acc>;
  __shared__ alignas(Acc) unsigned char s_held[ring * sizeof(Acc)];  // the first results, before the verdict
  __shared__ unsigned char s_held_empty[ring];
  const long long grid = gridDim.y, b = blockIdx.y;
  const long long checkers = fa.checkers;  // blocks 0 .. checkers - 1 check (<= grid)
  // ---- phase 1: this block's share of the check ----------------------------------------------------------
  if (b < checkers) check_share<threads>(offsets, segments, b, checkers, fa.tag, fa.slots + b, s_bad, s_long);
  // ---- what every good verdict allows: the host's test (suits) without the longest segment -----------------
  // (in shared memory: read again only while the verdict is not known, not held in registers
  // across the segments' folds)
  __shared__ long long s_allowed[3];  // offsets[0], offsets[S], the longest segment allowed
  if (threadIdx.x == 0) {
    const long long o0 = static_cast<long long>(offsets[0]), o_end = static_cast<long long>(offsets[segments]);
    const bool may = o0 >= 0 && o_end >= o0 && suits(segments, o_end - o0, 0, fa.spec.sm_count) &&
                     within_allocation(fa.spec, o0, o_end);
    s_allowed[0] = o0;
    s_allowed[1] = o_end;
    s_allowed[2] = may ? max_skew * ((o_end - o0) / segments) : -1;
  }
  // phase 2's first segment: its bounds read with the above (q = (b - C) mod G: see phase 2)
  const long long q = Early ? (b + grid - checkers) % grid : b;
  long long a = 0, e = 0;
  if (q < segments) {
    a = static_cast<long long>(offsets[q]);
    e = static_cast<long long>(offsets[q + 1]);
  }
  __syncthreads();
  int go = -1;  // the verdict: -1 not known yet (block-uniform)
  if (b == 0) go = fused_verdict_fold<threads>(fa, segments, s_allowed, s_bad, s_long, s_go);
  if (s_allowed[2] < 0 || go == 0) return;  // the verdict is no
  if (!Early && go < 0) {  // (the code before 2026-11-27: every block waits for the verdict first)
    go = fused_verdict_wait(fa, s_go);
    if (go == 0) return;
  }
  // ---- phase 2: the block's segments q, q + G, ... (the checkers take the light ones); the results
  // of the first `ring` wait in shared memory, then the block waits for the verdict (long
  // published by then) and writes them, and the others as they come
  int i = 0;  // the segment's place among the block's
  for (long long k = q; k < segments; k += grid, ++i) {
    if (go < 0 && (a < s_allowed[0] || e < a || s_allowed[1] < e || e - a > s_allowed[2])) {  // (block-uniform)
      // offsets out of order or a segment too long: the verdict will be no; wait for it, leave
      fused_verdict_wait(fa, s_go);
      return;
    }
    if (a == e) {  // the same for every thread of the block
      if (threadIdx.x == 0) {
        if (go == 1) out[k] = init_as_t;
        else s_held_empty[i] = 1;
      }
    } else {
      const cuda::maybe_value<Acc> part = fold_segment<Agent, Tuning, Vector>(loop, first, a, e, op);
      if (threadIdx.x == 0) {
        const Acc r = static_cast<Acc>(op(init, part.value));
        if (go == 1) out[k] = r;
        else {
          reinterpret_cast<Acc*>(s_held)[i] = r;
          s_held_empty[i] = 0;
        }
      }
      __syncwarp();  // (Agent::looped: a warp's barrier between two folds, no more)
    }
    if (k + grid < segments) {  // the next segment's bounds
      a = static_cast<long long>(offsets[k + grid]);
      e = static_cast<long long>(offsets[k + grid + 1]);
    }
    if (go < 0 && (i + 1 == ring || k + grid >= segments)) {  // the results held: wait for the verdict
      go = fused_verdict_wait(fa, s_go);
      if (go == 0) return;
      if (threadIdx.x == 0)
        for (int j = 0; j <= i; ++j) {
          if (s_held_empty[j]) out[q + j * grid] = init_as_t;
          else out[q + j * grid] = reinterpret_cast<const Acc*>(s_held)[j];
        }
    }
  }
}

/// Names the fused kernel for the occupancy cache.
template <class Agent, class Kernel, int MinBlocks>
struct fused_key {};

/// Whether the current device runs cooperative launches (cached per device).
inline bool cooperative_launch_supported(const char* name) {
  static std::atomic<int> cache[64];  // 0: not asked; 1: no; 2: yes
  const int dev = cuda::current_device_info().device;
  if (dev < 64) {
    const int c = cache[dev].load(std::memory_order_relaxed);
    if (c) return c == 2;
  }
  int v = 0;
  check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, dev), name, "cudaDeviceGetAttribute");
  if (dev < 64) cache[dev].store(v ? 2 : 1, std::memory_order_relaxed);
  return v != 0;
}

/// A tag no earlier call of this process used (slots left in reused memory never match it).
inline unsigned long long next_fused_tag() {
  static std::atomic<unsigned long long> counter{
      0x9e3779b97f4a7c15ull ^
      static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0xbf58476d1ce4e5b9ull};
  unsigned long long t = counter.fetch_add(1, std::memory_order_relaxed);
  if (t == 0) t = counter.fetch_add(1, std::memory_order_relaxed);
  return t;
}

/// The fused launch: checks the offsets and, when they are good, the segments long and the input
/// clear of the output (spec), writes out[k] for every segment. Returns false when it launched
/// nothing (no mapped host memory, no cooperative launch, or the grid would not fit at once): the
/// caller then checks the offsets its own way. Otherwise `verdict` holds the check (as
/// read_offsets_device's) and the kernel wrote the results exactly when go_ahead holds for it.
template <bool Vector, class Phase, int MinBlocks = fused_min_blocks, bool Early = true, bool Cooperative = true, class It,
          class OffIt, class OutIt, class Acc, class RawOp, class T>
bool run_fused(const char* name, const device_policy_base& policy, It first, OffIt offsets, std::int64_t segments,
               OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t, const speculation& spec,
               offsets_check& verdict) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  if (!cooperative_launch_supported(name)) return false;
  constexpr std::size_t value_offset = 16;
  void* mapped = cuda::mapped_result_slot(name, value_offset + sizeof(offsets_check));
  if (!mapped) return false;
  const auto kernel = fused_kernel<MinBlocks, Early, Agent, Tuning, Vector, It, OffIt, OutIt, Acc, Op, T>;
  const long long resident = cuda::resident_blocks<fused_key<Agent, decltype(kernel), MinBlocks>>(
      name, kernel, Agent::threads, Tuning::max_blocks_per_sm);
  long long rows = segments < resident ? segments : resident;
  if (rows > 65535) rows = 65535;
  // the check's blocks: about eight segments a thread (at least one block, at most the grid; with
  // every block checking and every block reading every slot, G^2 reads, the wait took ~20 us at 792
  // blocks); one slot more for the verdict
  long long checkers = (segments + 8ll * Agent::threads - 1) / (8ll * Agent::threads);
  checkers = checkers < 1 ? 1 : checkers > rows ? rows : checkers;
  cuda::temporary_buffer slots(policy, static_cast<std::size_t>(checkers + 1) * sizeof(check_slot));
  fused_args fa;
  fa.slots = slots.as<check_slot>();
  fa.checkers = checkers;
  fa.tag = next_fused_tag();
  auto* base = static_cast<unsigned char*>(mapped);
  fa.host_flag = reinterpret_cast<unsigned*>(base);
  fa.host_check = reinterpret_cast<offsets_check*>(base + value_offset);
  fa.ticket = cuda::next_result_ticket();
  fa.spec = spec;
  long long segs = static_cast<long long>(segments);
  Acc init_v = init;
  Op op{raw_op};
  T init_t = init_as_t;
  void* args[] = {&first, &offsets, &segs, &out, &init_v, &op, &init_t, &fa};
  // the work queued ahead of the launch: the host waits for it, then for the verdict (published
  // early in the kernel), never for the whole kernel (cuda::wait_for_result)
  const cudaEvent_t before = cuda::record_thread_event(name, policy.stream);
  // (!Cooperative: an ordinary launch of the same grid, for seg_reduce_probe's timing only: nothing
  // then guarantees that the blocks waiting for the check's slots let the checking blocks run)
  const cudaError_t e =
      Cooperative ? cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(1, static_cast<unsigned>(rows)),
                                                dim3(Agent::threads), args, 0, policy.stream)
                  : cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1, static_cast<unsigned>(rows)),
                                     dim3(Agent::threads), args, 0, policy.stream);
  if (e == cudaErrorCooperativeLaunchTooLarge) {
    (void)cudaGetLastError();
    return false;
  }
  check_cuda(e, name, "cudaLaunchCooperativeKernel(segment_blocks::fused_kernel)");
  const cuda::result_slot<offsets_check> slot{fa.host_check, fa.host_flag, fa.ticket};
  verdict = cuda::wait_for_result(name, policy.stream, slot, before);
  return true;
}

/// Names the blocks kernel for the occupancy cache.
template <class Agent, class Kernel>
struct blocks_key {};

template <bool Vector, class Phase, int MinBlocks, class It, class OffIt, class OutIt, class Acc, class RawOp, class T>
void run(const char* name, const device_policy_base& policy, It first, OffIt offsets, std::int64_t base,
         std::int64_t segments, OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t,
         const speculation& spec) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  const auto kernel = blocks_kernel<Agent, Tuning, Vector, MinBlocks, It, OffIt, OutIt, Acc, Op, T>;
  const long long resident = cuda::resident_blocks<blocks_key<Agent, decltype(kernel)>>(
      name, kernel, Agent::threads, Tuning::max_blocks_per_sm);
  // decided on the host (uniform_offsets, or offsets already checked): a block a segment (up to
  // 65535 rows, then each block takes several); queued behind a check, only the blocks that fit at
  // once, each reading the verdict once
  const long long cap = spec.check ? resident : 65535;
  long long rows = segments < cap ? segments : cap;
  if (rows > 65535) rows = 65535;
  kernel<<<dim3(1, static_cast<unsigned>(rows)), Agent::threads, 0, policy.stream>>>(
      first, offsets, static_cast<long long>(base), static_cast<long long>(segments), out, init, Op{raw_op},
      init_as_t, spec);
  cuda::check_launch(name, "segment_blocks::blocks_kernel");
}

/// out[k] = init op (elements [offsets[k], offsets[k + 1]) of `values`, in order), or init (as T)
/// for an empty segment; `values` at element offsets[0] == base (offsets are absolute). With a
/// speculation, queued behind the offsets check (base 0) and written only when it holds.
template <class Phase, int MinBlocks = 0, class ValIt, class OffIt, class OutIt, class Acc, class RawOp, class T>
void reduce(const char* name, const device_policy_base& policy, ValIt values, OffIt offsets, std::int64_t base,
            std::int64_t segments, OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t,
            const speculation& spec = speculation{}) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  run<segment_vector_loads_v<Src>, Phase, MinBlocks>(name, policy, first, offsets, base, segments, out, init, raw_op,
                                                    init_as_t, spec);
}

}  // namespace algo::detail::segmented::segment_blocks
