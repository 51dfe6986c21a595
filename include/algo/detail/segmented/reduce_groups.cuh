// algo::cuda's segmented_reduce over segments of one short or middling length (algo::uniform_offsets(L)
// with 1 <= L < max_length): a group of lanes per segment, as cuBLAS's gemv sums the rows of a
// matrix. The host knows L, so the group's shape is chosen without reading anything.
//
//   shape    each lane reads `VI` consecutive elements a row (one 16-byte load for plain pointers
//            and their transform iterators when every segment starts on a 16-byte boundary; else one
//            element), a group of G lanes (a power of two: the fewest whose row covers the
//            segment, at most 32) reads a row of G * VI elements; a warp holds 32 / G segments;
//   fold     each lane folds its VI elements in order; the group folds its lanes' values pairwise,
//            lane i with lane i + d (d = 1, 2, 4, ...: the left operand always the lower lane), so
//            every row is folded left to right in a shape fixed by G; group lane 0 folds the rows in
//            order and writes init op (the segment);
//   loads    a row at a time, or (4-byte elements read 16 bytes at a time, segments of 8 rows or
//            more: groups_pair_kernel) two rows loaded before either is folded; the folds are the
//            same either way;
//   grid     blocks of 256 threads stride over the warps' segment sets.
// Operands keep their order (non-commutative operators are fine) and the grouping depends only on
// L and the alignment, so floats are the same run to run. Segments of max_length and more are read
// by one block (reduce_blocks.cuh) or several (reduce_long.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../functional.hpp"
#include "../cuda/reduce.cuh"
#include "../cuda/runtime.cuh"
#include "../cuda/thread/load.cuh"
#include "../cuda/thread/shuffle.cuh"

namespace algo::detail::segmented::segment_groups {

/// Uniform segments shorter than this take this path (from this length on, one block a segment
/// reads as fast: reduce_blocks.cuh's min_mean).
inline constexpr std::int64_t max_length = 2048;
inline constexpr int threads = 256;

// ---- groups ---------------------------------------------------------------------------------------------
/// Segments of at least this many rows take the kernel that loads two rows before folding either
/// (4-byte elements read 16 bytes at a time only: the case measured, H100, 2026-11-28: L = 1024 /
/// 1536 0.0937 / 0.0967 -> 0.0919 / 0.0930 ms, 2^26 floats; at L = 256 and 512, two and four rows,
/// it was 1-2.5 % slower: bench/notes/keys_segments.md).
inline constexpr std::int64_t pair_min_rows = 8;
template <int VI, class V, class Acc>
inline constexpr bool pair_rows_v = VI == 4 && sizeof(V) == 4 && sizeof(Acc) == 4;

/// A lane's VI elements, folded in order.
template <int VI, class V, class Acc, class Op>
__device__ __forceinline__ Acc fold_lane(const V (&e)[VI], const Op& op) {
  Acc v = static_cast<Acc>(e[0]);
#pragma unroll
  for (int j = 1; j < VI; ++j) v = op(v, e[j]);
  return v;
}

/// The group's lanes' values folded pairwise, lane i with lane i + d (d = 1, 2, 4, ...), the lower
/// lane on the left; lanes past the end hold nothing (with full rows every lane holds elements and
/// no partner's count is asked). Group lane 0 ends with the row's fold.
template <class Acc, class Op>
__device__ __forceinline__ Acc fold_group(Acc v, bool mine, int group, int g_lane, bool full_rows, const Op& op) {
  for (int d = 1; d < group; d *= 2) {
    const Acc other = cuda::shfl_down(v, static_cast<unsigned>(d), cuda::full_warp_mask, group);
    const int other_has =
        full_rows ? 1 : __shfl_down_sync(cuda::full_warp_mask, mine ? 1 : 0, static_cast<unsigned>(d), group);
    if ((g_lane & (2 * d - 1)) == 0 && mine && other_has) v = op(v, other);
  }
  return v;
}

/// The kernels' body. Pair: two rows loaded before either is folded (groups_pair_kernel, for
/// segments of pair_min_rows rows or more; its registers capped to 32 so that an SM holds 8 blocks,
/// as the one-row kernel's 28 let it: at 33 it held 6, and was slower).
template <int VI, bool Vector, bool Pair, class It, class OutIt, class Acc, class Op>
__device__ __forceinline__ void groups(It first, long long length, long long segments, int group, OutIt out, Acc init,
                                       Op op) {
  using V = typename cuda::load_traits<It>::value_type;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int g_lane = lane & (group - 1);
  const int per_warp = 32 / group;  // segments a warp holds at once
  const long long warp = (static_cast<long long>(blockIdx.x) * threads + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * (threads / 32);
  const long long row = static_cast<long long>(group) * VI;
  const bool full_rows = length % row == 0;
  const auto load = [&](long long k, long long i0, V (&e)[VI]) {
    if constexpr (Vector) cuda::load_chunk<VI, true>(first + (k * length + i0), e);
    else e[0] = first[k * length + i0];
  };
  // every lane of a warp runs the same iterations (the shuffles take the whole warp)
  for (long long k0 = warp * per_warp; k0 < segments; k0 += warps * per_warp) {
    const long long k = k0 + lane / group;
    const bool valid = k < segments;
    Acc acc{};
    long long r = 0;
    if constexpr (Pair) {
      // ---- two rows at a time, both loaded before either is folded (every lane of the first
      // holds elements)
      for (; r + row < length; r += 2 * row) {
        const long long i0 = r + static_cast<long long>(g_lane) * VI, i1 = i0 + row;
        const bool mine1 = valid && i1 < length;
        V e0[VI], e1[VI];
        if (valid) load(k, i0, e0);
        if (mine1) load(k, i1, e1);
        Acc v0{}, v1{};
        if (valid) v0 = fold_lane<VI, V, Acc>(e0, op);
        v0 = fold_group(v0, valid, group, g_lane, true, op);
        if (g_lane == 0 && valid) acc = r == 0 ? v0 : op(acc, v0);
        if (mine1) v1 = fold_lane<VI, V, Acc>(e1, op);
        v1 = fold_group(v1, mine1, group, g_lane, full_rows, op);
        if (g_lane == 0 && valid) acc = op(acc, v1);
      }
    }
    for (; r < length; r += row) {
      // ---- this lane's VI elements of the row, folded in order
      const long long i0 = r + static_cast<long long>(g_lane) * VI;
      const bool mine = valid && i0 < length;
      Acc v{};
      if (mine) {
        V e[VI];
        load(k, i0, e);
        v = fold_lane<VI, V, Acc>(e, op);
      }
      v = fold_group(v, mine, group, g_lane, full_rows, op);
      // ---- the rows, in order (group lane 0; the first row always has elements)
      if (g_lane == 0 && valid) acc = r == 0 ? v : op(acc, v);
    }
    if (g_lane == 0 && valid) out[k] = static_cast<Acc>(op(init, acc));
  }
}

template <int VI, bool Vector, class It, class OutIt, class Acc, class Op>
__global__ void __launch_bounds__(threads)
    groups_kernel(It first, long long length, long long segments, int group, OutIt out, Acc init, Op op) {
  groups<VI, Vector, false>(first, length, segments, group, out, init, op);
}
template <int VI, bool Vector, class It, class OutIt, class Acc, class Op>
__global__ void __launch_bounds__(threads, 8)
    groups_pair_kernel(It first, long long length, long long segments, int group, OutIt out, Acc init, Op op) {
  groups<VI, Vector, true>(first, length, segments, group, out, init, op);
}

template <int VI, bool Vector, class It, class OutIt, class Acc, class RawOp>
void run(const char* name, const device_policy_base& policy, It first, std::int64_t length, std::int64_t segments,
         OutIt out, const Acc& init, RawOp raw_op) {
  using Op = accumulate_with<RawOp, Acc>;
  const std::int64_t lanes = (length + VI - 1) / VI;  // lanes one row would need
  int group = 1;
  while (group < 32 && group < lanes) group *= 2;
  const std::int64_t per_block = (threads / 32) * (32 / group);
  std::int64_t blocks = (segments + per_block - 1) / per_block;
  const std::int64_t cap = static_cast<std::int64_t>(cuda::current_device_info().sm_count) * 16;  // 2 waves of 8
  if (blocks > cap) blocks = cap;
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(blocks), threads, 0, policy.stream>>>(
        first, static_cast<long long>(length), static_cast<long long>(segments), group, out, init, Op{raw_op});
  };
  using V = typename cuda::load_traits<It>::value_type;
  if constexpr (Vector && pair_rows_v<VI, V, Acc>) {
    if (length >= pair_min_rows * group * VI) {
      launch(groups_pair_kernel<VI, Vector, It, OutIt, Acc, Op>);
      cuda::check_launch(name, "segment_groups::groups_kernel");
      return;
    }
  }
  launch(groups_kernel<VI, Vector, It, OutIt, Acc, Op>);
  cuda::check_launch(name, "segment_groups::groups_kernel");
}

/// out[k] = init op (elements [k L, (k + 1) L) of `values`, in order), k < segments, 1 <= L < max_length.
template <class ValIt, class OutIt, class Acc, class RawOp>
void reduce(const char* name, const device_policy_base& policy, ValIt values, std::int64_t length, std::int64_t segments,
            OutIt out, const Acc& init, RawOp raw_op) {
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = cuda::unwrap_input(values);
  using Src = decltype(first);
  // 16-byte loads when every segment (and so every lane's chunk) starts on a 16-byte boundary
  if constexpr (cuda::load_traits<Src>::vectorizable && !cuda::is_zip_input<Src>::value) {
    constexpr int VI = cuda::load_traits<Src>::vector_items;
    if (length % VI == 0 && cuda::vector_misalignment(first) == 0) {
      run<VI, true>(name, policy, first, length, segments, out, init, raw_op);
      return;
    }
  }
  run<1, false>(name, policy, first, length, segments, out, init, raw_op);
}

}  // namespace algo::detail::segmented::segment_groups
