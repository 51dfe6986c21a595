// algo::cuda's segmented_reduce over offsets in memory whose segments are all long: one block per
// segment, the reduce's own block agent on it (cuda/reduce/reduce_range.cuh: 16-byte loads from the
// segment's own alignment, every load in flight before the first fold, operands in order), as CUB's
// block-per-segment reduce reads them; nothing is staged or scanned (the merge path's load, walk,
// join and tile prefix are what cost it half CUB's speed at 4096 elements a segment).
//
//   choose   from what the offsets check finds (the host reads it back anyway: the element count):
//            at least `min_mean` elements a segment on average, no segment over `max_skew` times the
//            mean (one block per segment stays balanced), and enough segments to fill the device.
//            Otherwise the merge path, which is right for every mix. With offsets in memory the
//            launch is queued behind the check before the host waits for it (`speculation`): the
//            blocks read the check's verdict on the device and write nothing unless it holds, so the
//            host's wait overlaps the kernel instead of preceding it.
//   blocks   a grid of the blocks that fit on the device at once, each taking segments k, k + grid,
//            ...: reads offsets[k] and offsets[k + 1], lays the segment out for one block (on the
//            device: the segment's misalignment to 16 bytes is known only there), folds it, writes
//            init op fold (init itself, as T, for an empty segment, as the merge path does).
// The grouping depends only on the segment's length and alignment, so floats are the same run to
// run.
#pragma once

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

/// Elements between a pointer and the 16-byte boundary at or below it (device side of
/// cuda::vector_misalignment, for raw pointers).
template <class T>
__device__ __forceinline__ int misalignment(const T* p) {
  return static_cast<int>((reinterpret_cast<std::uintptr_t>(p) % 16) / sizeof(T));
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
};

/// The verdict of a speculative launch (the same in every thread).
__device__ __forceinline__ bool go_ahead(const speculation& spec, long long segments) {
  if (!spec.check) return true;
  const offsets_check c = *spec.check;
  if (c.bad_at != 0x7fffffffffffffffLL || c.first < 0) return false;
  if (!suits(segments, c.last - c.first, c.max_length, spec.sm_count)) return false;
  const char* lo = spec.in + c.first * static_cast<long long>(spec.in_size);
  const char* hi = spec.in + c.last * static_cast<long long>(spec.in_size);
  return !(lo < hi && lo < spec.out + spec.out_bytes && spec.out < hi);
}

// ---- blocks ---------------------------------------------------------------------------------------------
template <class Agent, class Tuning, bool Vector, class It, class OffIt, class OutIt, class Acc, class Op, class T>
__global__ void __launch_bounds__(Agent::threads)
    blocks_kernel(It first, OffIt offsets, long long base, long long segments, OutIt out, Acc init, Op op,
                  T init_as_t, speculation spec) {
  __shared__ typename Agent::storage smem;
  if (!go_ahead(spec, segments)) return;
  for (long long k = blockIdx.y; k < segments; k += gridDim.y) {
    const long long a = static_cast<long long>(offsets[k]) - base, b = static_cast<long long>(offsets[k + 1]) - base;
    if (a == b) {  // the same for every thread of the block
      if (threadIdx.x == 0) out[k] = init_as_t;
      continue;
    }
    const It seg = first + a;
    int offset = 0;
    if constexpr (Vector) offset = misalignment(seg);
    const cuda::reduce_layout L =
        cuda::make_reduce_layout(b - a, offset, Agent::items, Agent::warps, Tuning::min_tiles_per_warp, 1);
    const cuda::maybe_value<Acc> part = Agent{smem, seg, L}.reduce_block(op);
    if (threadIdx.x == 0) out[k] = static_cast<Acc>(op(init, part.value));
    __syncthreads();  // the agent's shared memory serves the next segment
  }
}

/// Names the blocks kernel for the occupancy cache.
template <class Agent, class Kernel>
struct blocks_key {};

template <bool Vector, class Phase, class It, class OffIt, class OutIt, class Acc, class RawOp, class T>
void run(const char* name, const device_policy_base& policy, It first, OffIt offsets, std::int64_t base,
         std::int64_t segments, OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t,
         const speculation& spec) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  const auto kernel = blocks_kernel<Agent, Tuning, Vector, It, OffIt, OutIt, Acc, Op, T>;
  const long long resident = cuda::resident_blocks<blocks_key<Agent, decltype(kernel)>>(
      name, kernel, Agent::threads, Tuning::max_blocks_per_sm);
  long long rows = segments < resident ? segments : resident;
  if (rows > 65535) rows = 65535;
  kernel<<<dim3(1, static_cast<unsigned>(rows)), Agent::threads, 0, policy.stream>>>(
      first, offsets, static_cast<long long>(base), static_cast<long long>(segments), out, init, Op{raw_op},
      init_as_t, spec);
  cuda::check_launch(name, "segment_blocks::blocks_kernel");
}

/// out[k] = init op (elements [offsets[k], offsets[k + 1]) of `values`, in order), or init (as T)
/// for an empty segment; `values` at element offsets[0] == base (offsets are absolute). With a
/// speculation, queued behind the offsets check (base 0) and written only when it holds.
template <class Phase, class ValIt, class OffIt, class OutIt, class Acc, class RawOp, class T>
void reduce(const char* name, const device_policy_base& policy, ValIt values, OffIt offsets, std::int64_t base,
            std::int64_t segments, OutIt out, const Acc& init, RawOp raw_op, const T& init_as_t,
            const speculation& spec = speculation{}) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  // 16-byte loads for plain pointers (each segment's misalignment is found on the device)
  if constexpr (std::is_pointer<Src>::value && cuda::load_traits<Src>::vectorizable) {
    run<true, Phase>(name, policy, first, offsets, base, segments, out, init, raw_op, init_as_t, spec);
  } else {
    run<false, Phase>(name, policy, first, offsets, base, segments, out, init, raw_op, init_as_t, spec);
  }
}

}  // namespace algo::detail::segmented::segment_blocks
