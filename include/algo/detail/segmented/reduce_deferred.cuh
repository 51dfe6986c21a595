// algo::cuda's segmented_reduce over offsets in memory whose segments are all long, with the offsets
// check inside the launch and no block ever waiting (the default since 2026-12-02; the fused kernel
// of reduce_blocks.cuh waits for the verdict, so its grid must be resident at once: a cooperative
// launch at 5 blocks an SM, 48 registers, which is what cost it 10 % against CUB at 4096 elements
// a segment on the H200, bench/notes/keys_segments.md):
//
//   check    blocks 0 .. C-1 check the offsets first (check_share: the first decrease, the longest
//            segment) and publish their shares; the last of them to arrive (a counter tagged with the
//            call) folds the shares into the verdict and publishes it twice: one word for the other
//            blocks, the checked offsets to the host (mapped pinned memory, a flag after them).
//   fold     a block a segment, as many blocks as segments (the shape of CUB's block-per-segment
//            kernel, 8 blocks an SM): thread 0 reads the segment's offsets, offsets[0], offsets[S]
//            and the verdict's word in one round trip. It folds only a segment that every good
//            verdict allows (inside [offsets[0], offsets[S]] and the input's allocation, in order):
//            a segment that fails this means the verdict is no.
//   write    where the verdict was published when the block read its word (every block but those
//            of the first waves), the block stores its result to out[k] at once (or nothing, for
//            a verdict of no); otherwise it leaves it, tagged with the call, in a side buffer.
//   deferred the host waits for the verdict (published within microseconds), then, when it allows
//            the results, queues one small kernel behind the fold that moves the tagged entries of
//            the side buffer to out (deferred_copy_kernel). With a verdict of no nothing reaches out.
// The grouping of each segment's fold is reduce_blocks.cuh's (fold_segment), so the results are the
// same bits as the fused kernel's and the blocks kernel's.
#pragma once

#include <cstdint>
#include <type_traits>

#include "reduce_blocks.cuh"

namespace algo::detail::segmented::segment_blocks {

/// Blocks of the deferred kernel an SM the compiler keeps registers for (32 registers, as CUB's
/// block-per-segment kernel).
inline constexpr int deferred_min_blocks = 8;

/// The call's shared words (in the side buffer, before the entries).
struct deferred_state {
  unsigned long long verdict;   // tag63 << 1 | go, written once by the last checker (deferred_publish)
  unsigned long long arrivals;  // tag40 << 24 | checkers arrived (a word from another call counts 0)
};

template <class Acc>
struct deferred_args {
  check_slot* slots = nullptr;  // `checkers` of them
  deferred_state* state = nullptr;
  unsigned long long* held_tag = nullptr;  // per segment: tag63 << 1 | empty, where the result was left
  Acc* held = nullptr;                     // per segment: the result left for the copy
  long long checkers = 0;
  unsigned long long tag = 0;  // low 63 bits not 0, low 40 bits not 0 (next_deferred_tag)
  offsets_check* host_check = nullptr;  // mapped pinned memory: the verdict for the host
  unsigned* host_flag = nullptr;        // set to `ticket` after host_check
  unsigned ticket = 0;
  speculation spec;  // its `check` unused (the verdict is computed on the device)
};

/// The low 63 bits of a tag, never 0 (a zeroed word must match no call).
__host__ __device__ inline unsigned long long tag63(unsigned long long tag) {
  const unsigned long long t = tag & 0x7fffffffffffffffull;
  return t ? t : 1;
}

/// Counts this checking block in (thread 0); true for the last of the `checkers` (fewer than 2^24:
/// at most 2^32 segments, the grid's limit, at 2048 a checker) to arrive. A word that another call
/// left and that matches this call's tag by chance (one in 2^40) is caught by the publisher, which
/// then finds a share missing (deferred_publish), or leaves the verdict unpublished (run_deferred).
__device__ __forceinline__ bool deferred_arrive(deferred_state* state, unsigned long long tag, long long checkers) {
  constexpr unsigned long long count_mask = (1ull << 24) - 1;
  const unsigned long long mine = (tag & ((1ull << 40) - 1)) << 24;
  unsigned long long* word = &state->arrivals;
  unsigned long long seen = *static_cast<volatile unsigned long long*>(word);
  unsigned long long count = 0;
  for (;;) {
    count = (seen & ~count_mask) == mine ? (seen & count_mask) : 0;  // another call's word: 0
    const unsigned long long was = atomicCAS(word, seen, mine | (count + 1));
    if (was == seen) break;
    seen = was;
  }
  return static_cast<long long>(count + 1) == checkers;
}

/// The last checker: folds every share into the verdict, publishes it for the blocks and the host.
/// Every thread of that block calls it.
template <int Threads, class OffIt, class Acc>
__device__ __forceinline__ void deferred_publish(const deferred_args<Acc>& da, const OffIt& offsets, long long segments,
                                                 long long (&s_bad)[Threads / 32], long long (&s_long)[Threads / 32]) {
  __threadfence();  // the others' shares after their arrivals
  long long bad = 0x7fffffffffffffffLL, longest = 0;
  for (long long i = threadIdx.x; i < da.checkers; i += Threads) {
    const volatile check_slot* slot = da.slots + i;
    const long long sb = slot->bad_at;
    // a share not there (the arrivals' word was another call's): the longest at its maximum marks it
    const long long sl = slot->tag == da.tag ? slot->max_length : 0x7fffffffffffffffLL;
    if (sb < bad) bad = sb;
    if (sl > longest) longest = sl;
  }
  block_min_max<Threads>(bad, longest, s_bad, s_long);
  if (threadIdx.x == 0) {
    // min_length -2: the check did not complete (no verdict: run_deferred's caller checks the
    // offsets its own way; nothing is written)
    const bool complete = longest != 0x7fffffffffffffffLL;
    const offsets_check c{static_cast<long long>(offsets[0]), static_cast<long long>(offsets[segments]), bad, longest,
                          complete ? -1 : -2};
    const bool go = complete && verdict_allows(da.spec, c, segments);
    *static_cast<volatile unsigned long long*>(&da.state->verdict) = tag63(da.tag) << 1 | (go ? 1u : 0u);
    publish_to_host(c, da.host_check, da.host_flag, da.ticket);
  }
}

template <int MinBlocks, class Agent, class Tuning, bool Vector, class It, class OffIt, class OutIt, class Acc, class Op,
          class T>
__global__ void __launch_bounds__(Agent::threads, MinBlocks)
    deferred_kernel(It first, OffIt offsets, long long segments, OutIt out, Acc init, Op op, T init_as_t,
                    deferred_args<Acc> da) {
  constexpr int threads = Agent::threads;
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  __shared__ long long s_bad[threads / 32], s_long[threads / 32];
  __shared__ long long s_seg[2];  // the segment's bounds
  __shared__ int s_go;            // 1 go, 0 no, -1 not published when read; 2: last checker (phase 1)
  const long long k = blockIdx.y + static_cast<long long>(blockIdx.z) * gridDim.y;
  // ---- check: the first blocks' shares, the last of them publishes the verdict -------------------------
  if (k < da.checkers) {
    check_share<threads>(offsets, segments, k, da.checkers, da.tag, da.slots + k, s_bad, s_long);
    if (threadIdx.x == 0) s_go = deferred_arrive(da.state, da.tag, da.checkers) ? 2 : 0;
    __syncthreads();
    if (s_go == 2) deferred_publish<threads>(da, offsets, segments, s_bad, s_long);
    __syncthreads();  // s_go read by every thread before thread 0 reuses it
  }
  if (k >= segments) return;
  // ---- fold: the segment's bounds and the verdict's word in one round trip (thread 0) -------------------
  if (threadIdx.x == 0) {
    const long long a = static_cast<long long>(offsets[k]), e = static_cast<long long>(offsets[k + 1]);
    const long long o0 = static_cast<long long>(offsets[0]), o_end = static_cast<long long>(offsets[segments]);
    const unsigned long long w = *static_cast<const volatile unsigned long long*>(&da.state->verdict);
    int go = (w >> 1) == tag63(da.tag) ? static_cast<int>(w & 1) : -1;
    // what every good verdict allows (else the verdict is no: nothing to fold); the reads stay in
    // [offsets[0], offsets[S]] and the input's allocation, and a segment too long for this path
    // (skewed offsets, whose verdict is no) is not folded by a block that starts before the verdict
    const bool allowed = 0 <= o0 && o0 <= a && a <= e && e <= o_end && within_allocation(da.spec, o0, o_end) &&
                         length_may_suit(e - a, o_end - o0, segments);
    if (!allowed) go = 0;
    s_seg[0] = a;
    s_seg[1] = e;
    s_go = go;
  }
  __syncthreads();
  if (s_go == 0) return;
  const long long a = s_seg[0], e = s_seg[1];
  // ---- write: at once where the verdict was known, else tagged in the side buffer ----------------------
  if (a == e) {
    if (threadIdx.x == 0) {
      if (s_go == 1) out[k] = init_as_t;
      else da.held_tag[k] = tag63(da.tag) << 1 | 1u;
    }
    return;
  }
  const cuda::maybe_value<Acc> part = fold_segment<Agent, Tuning, Vector>(loop, first, a, e, op);
  if (threadIdx.x == 0) {
    const Acc r = static_cast<Acc>(op(init, part.value));
    if (s_go == 1) {
      out[k] = r;
    } else {
      da.held[k] = r;
      da.held_tag[k] = tag63(da.tag) << 1;
    }
  }
}

/// The results left in the side buffer, to out (behind the fold on the stream, once the host has a
/// verdict that allows them).
template <class OutIt, class Acc, class T>
__global__ void deferred_copy_kernel(const unsigned long long* held_tag, const Acc* held, long long segments,
                                     unsigned long long tag, OutIt out, T init_as_t) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= segments) return;
  const unsigned long long w = held_tag[k];
  if ((w >> 1) != tag63(tag)) return;
  if (w & 1) out[k] = init_as_t;
  else out[k] = held[k];
}

/// A tag no earlier call of this process used, its low 40 bits not 0 (the arrivals' word).
inline unsigned long long next_deferred_tag() {
  unsigned long long t = next_fused_tag();
  while ((t & ((1ull << 40) - 1)) == 0 || tag63(t) != (t & 0x7fffffffffffffffull)) t = next_fused_tag();
  return t;
}

/// The deferred launch (see the top of this file): checks the offsets and, when they are good, the
/// segments long and the input clear of the output (verdict_allows), writes out[k] for every
/// segment (the fold, then the copy of what it left behind). Returns false when it wrote nothing
/// and has no verdict (no mapped host memory, more segments than a grid, a check that did not
/// complete): the caller then checks the offsets its own way. Otherwise `verdict`
/// holds the check (as read_offsets_device's) and the results were written exactly when
/// verdict_allows holds for it.
template <bool Vector, class Phase, int MinBlocks = deferred_min_blocks, class It, class OffIt, class OutIt, class Acc,
          class RawOp, class T>
bool run_deferred(const char* name, const device_policy_base& policy, It first, OffIt offsets, std::int64_t segments,
                  OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t, const speculation& spec,
                  offsets_check& verdict) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  constexpr std::size_t value_offset = 16;
  void* mapped = cuda::mapped_result_slot(name, value_offset + sizeof(offsets_check));
  if (!mapped) return false;
  const auto kernel = deferred_kernel<MinBlocks, Agent, Tuning, Vector, It, OffIt, OutIt, Acc, Op, T>;
  // a block a segment (rows of at most 65535 blocks); about eight segments a thread of the checking
  // blocks (at least one)
  const long long z = (segments + 65534) / 65535, y = (segments + z - 1) / z;
  if (z > 65535) return false;  // more segments than a grid holds
  long long checkers = (segments + 8ll * Agent::threads - 1) / (8ll * Agent::threads);
  checkers = checkers < 1 ? 1 : checkers;
  // the side buffer: the checkers' slots, the shared words, then per segment a tag and a result
  const std::size_t slots_bytes = static_cast<std::size_t>(checkers) * sizeof(check_slot);
  const std::size_t tags_at = slots_bytes + sizeof(deferred_state);
  std::size_t held_at = tags_at + static_cast<std::size_t>(segments) * sizeof(unsigned long long);
  held_at = (held_at + alignof(Acc) - 1) / alignof(Acc) * alignof(Acc);
  cuda::temporary_buffer side(policy, held_at + static_cast<std::size_t>(segments) * sizeof(Acc));
  auto* bytes = side.as<unsigned char>();
  deferred_args<Acc> da;
  da.slots = reinterpret_cast<check_slot*>(bytes);
  da.state = reinterpret_cast<deferred_state*>(bytes + slots_bytes);
  da.held_tag = reinterpret_cast<unsigned long long*>(bytes + tags_at);
  da.held = reinterpret_cast<Acc*>(bytes + held_at);
  da.checkers = checkers;
  da.tag = next_deferred_tag();
  auto* base = static_cast<unsigned char*>(mapped);
  da.host_flag = reinterpret_cast<unsigned*>(base);
  da.host_check = reinterpret_cast<offsets_check*>(base + value_offset);
  da.ticket = cuda::next_result_ticket();
  da.spec = spec;
  da.spec.check = nullptr;
  // the work queued ahead of the launch: the host waits for it, then for the verdict (published
  // early in the kernel), never for the whole kernel (cuda::wait_for_result)
  const cudaEvent_t before = cuda::record_thread_event(name, policy.stream);
  kernel<<<dim3(1, static_cast<unsigned>(y), static_cast<unsigned>(z)), Agent::threads, 0, policy.stream>>>(
      first, offsets, static_cast<long long>(segments), out, init, Op{raw_op}, init_as_t, da);
  cuda::check_launch(name, "segment_blocks::deferred_kernel");
  const cuda::result_slot<offsets_check> slot{da.host_check, da.host_flag, da.ticket};
  verdict = cuda::wait_for_result(name, policy.stream, slot, before);
  // no verdict (the check did not complete, or was never published: see deferred_arrive): nothing
  // was written, and the caller checks the offsets its own way
  if (*static_cast<volatile unsigned*>(da.host_flag) != da.ticket || verdict.min_length == -2) return false;
  if (verdict_allows(spec, verdict, static_cast<long long>(segments))) {
    constexpr int copy_threads = 256;
    const long long blocks = (static_cast<long long>(segments) + copy_threads - 1) / copy_threads;
    deferred_copy_kernel<<<static_cast<unsigned>(blocks), copy_threads, 0, policy.stream>>>(
        da.held_tag, da.held, static_cast<long long>(segments), da.tag, out, init_as_t);
    cuda::check_launch(name, "segment_blocks::deferred_copy_kernel");
  }
  return true;
}

/// The deferred launch over offsets in memory (absolute offsets, `values` at element 0); see
/// run_deferred.
template <class Phase, class ValIt, class OffIt, class OutIt, class Acc, class RawOp, class T>
bool deferred(const char* name, const device_policy_base& policy, ValIt values, OffIt offsets, std::int64_t segments,
              OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t, const speculation& spec,
              offsets_check& verdict) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  return run_deferred<segment_vector_loads_v<Src>, Phase>(name, policy, first, offsets, segments, out, init, raw_op,
                                                         init_as_t, spec, verdict);
}

}  // namespace algo::detail::segmented::segment_blocks
