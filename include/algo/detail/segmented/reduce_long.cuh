// algo::cuda's segmented_reduce over segments of one long length (algo::uniform_offsets(L) with
// L >= long_length): each segment is a reduce, so the reduce's own block agent
// (cuda/reduce/reduce_range.cuh: 16-byte loads, all in flight before the first fold, operands in
// order) reads it, as CUB's block-per-segment reduce does, and nothing is staged or scanned.
//
//   blocks     grid (chunks, segments): block (c, k) folds chunk c of segment k, the reduce's
//              layout of one segment over `chunks` blocks (one block per segment when a segment is
//              no more than a block fills; more, up to what fills the GPU, for few long segments);
//   partials   a segment split over several blocks is finished by one block that folds its chunks'
//              partials in chunk order (the two-pass reduce, per segment).
// The split depends only on L, the number of segments and the device, so floats are the same run
// to run. The host knows L here without reading anything, so the choice costs no round trip.
//
// Offsets in memory (few long segments of different lengths: fewer than the GPU has SMs, at least
// long_length on average, none over max_skew times that; what the offsets check found): the same
// grid of `chunks` blocks a segment, each segment laid out on the device from its own two offsets
// and its alignment over at most `chunks` blocks (a shorter segment uses fewer; the others of its
// row skip it), and the partials of each segment folded in chunk order. The split depends on the
// segment's length and alignment and on `chunks` (from the segment count and the device).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../functional.hpp"
#include "../cuda/reduce/reduce_range.cuh"
#include "../cuda/reduce/reduce_tuning.cuh"
#include "../cuda/reduce.cuh"
#include "../cuda/runtime.cuh"
#include "device.cuh"

namespace algo::detail::segmented::long_segments {

/// Segments at least this long take this path (a reduce block's worth at its minimum: 8 warps x
/// 4 warp tiles x 32 lanes x 4 floats); shorter ones the merge path.
inline constexpr std::int64_t long_length = 4096;
/// Offsets in memory: no segment over this many times the mean (else its blocks hold up the grid).
inline constexpr std::int64_t max_skew = 4;

// ---- blocks ---------------------------------------------------------------------------------------------
template <class Agent, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    blocks_kernel(It first, long long length, long long segments, cuda::reduce_layout L, OutIt out, T init, Op op,
                  T* partials) {
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  for (long long k = blockIdx.y; k < segments; k += gridDim.y) {
    const cuda::maybe_value<T> part = loop.fold(first + k * length, L, op);
    if (threadIdx.x == 0) {
      // every block of a segment has elements: the layout gives a block tiles only while some remain
      if (gridDim.x == 1) out[k] = part.has ? static_cast<T>(op(init, part.value)) : init;
      else partials[k * gridDim.x + blockIdx.x] = part.value;
    }
    __syncwarp();  // (Agent::looped: a warp's barrier between two folds, no more)
  }
}

// ---- partials -------------------------------------------------------------------------------------------
template <class Agent, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    partials_kernel(const T* partials, int chunks, long long segments, OutIt out, T init, Op op) {
  __shared__ typename Agent::storage smem;
  for (long long k = blockIdx.x; k < segments; k += gridDim.x) {
    const T total =
        cuda::reduce_partials<typename Agent::warp_phase, Agent::threads>(smem.block, partials + k * chunks, chunks, op);
    if (threadIdx.x == 0) out[k] = static_cast<T>(op(init, total));
    __syncthreads();
  }
}

// ---- offsets in memory ------------------------------------------------------------------------------------
/// A segment's layout over at most `chunks` blocks (the same in both kernels; the reduce's own
/// layout, Agent::layout, on the device).
template <class Agent, class Tuning, bool Vector, class It>
__device__ __forceinline__ cuda::reduce_layout segment_layout(It seg, long long length, int chunks) {
  int offset = 0;
  if constexpr (Vector) offset = misalignment(seg);
  return cuda::make_reduce_layout(length, offset, Agent::items, Agent::warps, Tuning::min_tiles_per_warp, chunks);
}

template <class Agent, class Tuning, bool Vector, class It, class OffIt, class OutIt, class T, class TOut, class Op>
__global__ void __launch_bounds__(Agent::threads)
    offsets_blocks_kernel(It first, OffIt offsets, long long base, long long segments, OutIt out, T init,
                          TOut init_as_t, Op op, T* partials) {
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  const int chunks = static_cast<int>(gridDim.x);
  for (long long k = blockIdx.y; k < segments; k += gridDim.y) {
    const long long a = static_cast<long long>(offsets[k]) - base, b = static_cast<long long>(offsets[k + 1]) - base;
    if (a == b) {  // an empty segment (the same for every thread of the block)
      if (threadIdx.x == 0 && blockIdx.x == 0) out[k] = init_as_t;
      continue;
    }
    const It seg = first + a;
    const cuda::reduce_layout L = segment_layout<Agent, Tuning, Vector>(seg, b - a, chunks);
    if (static_cast<long long>(blockIdx.x) >= L.blocks) continue;  // a shorter segment: fewer blocks
    const cuda::maybe_value<T> part = loop.fold(seg, L, op);
    if (threadIdx.x == 0) {
      if (L.blocks == 1) out[k] = static_cast<T>(op(init, part.value));
      else partials[k * chunks + blockIdx.x] = part.value;
    }
    __syncwarp();  // (Agent::looped: a warp's barrier between two folds, no more)
  }
}

template <class Agent, class Tuning, bool Vector, class It, class OffIt, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    offsets_partials_kernel(It first, OffIt offsets, long long base, const T* partials, int chunks, long long segments,
                            OutIt out, T init, Op op) {
  __shared__ typename Agent::storage smem;
  for (long long k = blockIdx.x; k < segments; k += gridDim.x) {
    const long long a = static_cast<long long>(offsets[k]) - base, b = static_cast<long long>(offsets[k + 1]) - base;
    if (a == b) continue;
    const cuda::reduce_layout L = segment_layout<Agent, Tuning, Vector>(first + a, b - a, chunks);
    if (L.blocks == 1) continue;  // written by its block
    const T total = cuda::reduce_partials<typename Agent::warp_phase, Agent::threads>(
        smem.block, partials + k * chunks, static_cast<int>(L.blocks), op);
    if (threadIdx.x == 0) out[k] = static_cast<T>(op(init, total));
    __syncthreads();
  }
}

/// Names the blocks kernel for the occupancy cache.
template <class Agent, class Kernel>
struct blocks_key {};

template <bool Vector, class Phase, class It, class OutIt, class Acc, class RawOp>
void run(const char* name, const device_policy_base& policy, It first, std::int64_t length, std::int64_t segments,
         OutIt out, const Acc& init, RawOp raw_op) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  const auto kernel = blocks_kernel<Agent, It, OutIt, Acc, Op>;
  // blocks per segment: enough that the grid fills the device twice over, never more than the
  // segment has work for (the layout caps it)
  const long long resident = cuda::resident_blocks<blocks_key<Agent, decltype(kernel)>>(
      name, kernel, Agent::threads, Tuning::max_blocks_per_sm);
  long long per_segment = (2 * resident + segments - 1) / segments;
  if (per_segment > Tuning::max_blocks) per_segment = Tuning::max_blocks;
  const cuda::reduce_layout L = Agent::layout(length, cuda::vector_misalignment(first), static_cast<int>(per_segment));
  const unsigned rows = static_cast<unsigned>(segments < 65535 ? segments : 65535);
  cuda::temporary_buffer partials(policy, L.blocks > 1 ? static_cast<std::size_t>(segments) * L.blocks * sizeof(Acc) : 0);
  kernel<<<dim3(static_cast<unsigned>(L.blocks), rows), Agent::threads, 0, policy.stream>>>(
      first, static_cast<long long>(length), static_cast<long long>(segments), L, out, init, Op{raw_op},
      partials.as<Acc>());
  cuda::check_launch(name, "long_segments::blocks_kernel");
  if (L.blocks == 1) return;
  const long long grid = segments < 65535 ? segments : 65535;
  partials_kernel<Agent, OutIt, Acc, Op><<<static_cast<unsigned>(grid), Agent::threads, 0, policy.stream>>>(
      partials.as<Acc>(), L.blocks, static_cast<long long>(segments), out, init, Op{raw_op});
  cuda::check_launch(name, "long_segments::partials_kernel");
}

template <bool Vector, class Phase, class It, class OffIt, class OutIt, class Acc, class RawOp, class T>
void run_offsets(const char* name, const device_policy_base& policy, It first, OffIt offsets, std::int64_t base,
                 std::int64_t segments, std::int64_t longest, OutIt out, const Acc& init, RawOp raw_op,
                 const T& init_as_t) {
  using V = typename cuda::load_traits<It>::value_type;
  using Tuning = cuda::reduce_tuning<V, Acc>;
  using Agent = cuda::reduce_range<Tuning, Phase, Vector, !is_commutative_v<RawOp, Acc>, It, Acc>;
  using Op = accumulate_with<RawOp, Acc>;
  const auto kernel = offsets_blocks_kernel<Agent, Tuning, Vector, It, OffIt, OutIt, Acc, T, Op>;
  // blocks per segment: the grid fills the device twice over, never more than the longest segment
  // has work for
  const long long resident = cuda::resident_blocks<blocks_key<Agent, decltype(kernel)>>(
      name, kernel, Agent::threads, Tuning::max_blocks_per_sm);
  long long per_segment = (2 * resident + segments - 1) / segments;
  if (per_segment > Tuning::max_blocks) per_segment = Tuning::max_blocks;
  const int chunks = static_cast<int>(Agent::layout(longest, 0, static_cast<int>(per_segment)).blocks);
  const unsigned rows = static_cast<unsigned>(segments < 65535 ? segments : 65535);
  cuda::temporary_buffer partials(policy, chunks > 1 ? static_cast<std::size_t>(segments) * chunks * sizeof(Acc) : 0);
  kernel<<<dim3(static_cast<unsigned>(chunks), rows), Agent::threads, 0, policy.stream>>>(
      first, offsets, static_cast<long long>(base), static_cast<long long>(segments), out, init, init_as_t, Op{raw_op},
      partials.as<Acc>());
  cuda::check_launch(name, "long_segments::offsets_blocks_kernel");
  if (chunks == 1) return;
  offsets_partials_kernel<Agent, Tuning, Vector, It, OffIt, OutIt, Acc, Op><<<rows, Agent::threads, 0, policy.stream>>>(
      first, offsets, static_cast<long long>(base), partials.as<Acc>(), chunks, static_cast<long long>(segments), out,
      init, Op{raw_op});
  cuda::check_launch(name, "long_segments::offsets_partials_kernel");
}

/// Whether offsets in memory take reduce_offsets: `segments` segments over n elements, the longest
/// `longest`, fewer segments than the device's `sm_count` SMs (more take one block per segment,
/// reduce_blocks.cuh), at least long_length elements a segment on average, none over max_skew
/// times the mean.
inline bool suits_offsets(std::int64_t segments, std::int64_t n, std::int64_t longest, int sm_count) {
  if (segments <= 0 || segments >= sm_count || longest < 0) return false;
  const std::int64_t mean = n / segments;
  return mean >= long_length && longest <= max_skew * mean;
}

/// out[k] = init op (elements [offsets[k], offsets[k + 1]) of `values`, in order), or init (as T)
/// for an empty segment; `values` at element offsets[0] == base; see suits_offsets.
template <class Phase, class ValIt, class OffIt, class OutIt, class Acc, class RawOp, class T>
void reduce_offsets(const char* name, const device_policy_base& policy, ValIt values, OffIt offsets, std::int64_t base,
                    std::int64_t segments, std::int64_t longest, OutIt out, const Acc& init, RawOp raw_op,
                    const T& init_as_t) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  run_offsets<segment_vector_loads_v<Src>, Phase>(name, policy, first, offsets, base, segments, longest, out, init,
                                                 raw_op, init_as_t);
}

/// out[k] = init op (elements [k L, (k + 1) L) of `values`, in order), k < segments, L >= long_length.
template <class Phase, class ValIt, class OutIt, class Acc, class RawOp>
void reduce(const char* name, const device_policy_base& policy, ValIt values, std::int64_t length,
            std::int64_t segments, OutIt out, const Acc& init, RawOp raw_op) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  // 16-byte loads only when every segment starts at the same offset from a 16-byte boundary
  if constexpr (cuda::load_traits<Src>::vectorizable && !cuda::is_zip_input<Src>::value) {
    if (length % cuda::load_traits<Src>::vector_items == 0) {
      run<true, Phase>(name, policy, first, length, segments, out, init, raw_op);
      return;
    }
  }
  run<false, Phase>(name, policy, first, length, segments, out, init, raw_op);
}

}  // namespace algo::detail::segmented::long_segments
