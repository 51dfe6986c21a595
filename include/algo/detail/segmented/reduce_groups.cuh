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
//   grid     blocks of 256 threads stride over the warps' segment sets, a row loaded at a time;
//   rows     segments of whole rows of 32 lanes (4-byte elements read 16 bytes at a time, L a
//            multiple of 128): rows_kernel, gemv's shape (each warp four rows loaded before any is
//            folded, small blocks, no loop over the grid), the same folds.
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

template <int VI, bool Vector, class It, class OutIt, class Acc, class Op>
__global__ void __launch_bounds__(threads)
    groups_kernel(It first, long long length, long long segments, int group, OutIt out, Acc init, Op op) {
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
    for (long long r = 0; r < length; r += row) {
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

// ---- whole rows, four at a time -------------------------------------------------------------------------
/// Segments of whole rows of 32 lanes (L a multiple of 32 VI): each warp takes one unit, four rows
/// of the input in a row (4 / R segments of R = L / (32 VI) rows, or one segment of R >= 3 rows,
/// four rows a step), and loads the step's rows before folding any, as cuBLAS's gemv loads its
/// rows (four 16-byte loads a thread in flight, small blocks, a block per 16 rows, no loop over
/// the grid). Rows lie one after another in memory, so a step reads 4 x 32 x 16 contiguous bytes.
/// Each row is folded as groups() folds it (group of 32 lanes, full rows), so the bits are the same.
inline constexpr int rows_threads = 128;
inline constexpr int rows_step = 4;

template <int VI, class It, class OutIt, class Acc, class Op>
__global__ void __launch_bounds__(rows_threads)
    rows_kernel(It first, long long length, long long segments, long long segs_per_unit, OutIt out, Acc init, Op op) {
  using V = typename cuda::load_traits<It>::value_type;
  constexpr long long row = 32 * VI;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const long long unit = (static_cast<long long>(blockIdx.x) * rows_threads + threadIdx.x) / 32;
  const long long seg0 = unit * segs_per_unit;
  if (seg0 >= segments) return;  // the whole warp
  const int R = static_cast<int>(length / row);  // rows a segment (< 2 max_length / row)
  const long long segs = segs_per_unit < segments - seg0 ? segs_per_unit : segments - seg0;
  const int rows = static_cast<int>(segs) * R;  // this unit's rows, from row seg0 R of the input
  const It base = first + (seg0 * length + static_cast<long long>(lane) * VI);
  Acc acc{};
  int r = 0;              // the next row's place in its segment
  long long seg = seg0;   // and its segment
  for (int q0 = 0; q0 < rows; q0 += rows_step) {
    V e[rows_step][VI];
#pragma unroll
    for (int j = 0; j < rows_step; ++j)
      if (q0 + j < rows) cuda::load_chunk<VI, true>(base + static_cast<long long>(q0 + j) * row, e[j]);
#pragma unroll
    for (int j = 0; j < rows_step; ++j) {
      if (q0 + j < rows) {  // warp-uniform
        const Acc v = fold_group(fold_lane<VI, V, Acc>(e[j], op), true, 32, lane, true, op);
        if (lane == 0) acc = r == 0 ? v : op(acc, v);
        if (++r == R) {
          if (lane == 0) out[seg] = static_cast<Acc>(op(init, acc));
          r = 0;
          ++seg;
        }
      }
    }
  }
}

/// Whether rows_kernel takes segments of `length` (4-byte elements read 16 bytes at a time: the
/// case measured against gemv).
template <int VI, class V, class Acc>
inline constexpr bool rows_kernel_v = VI == 4 && sizeof(V) == 4 && sizeof(Acc) == 4;

template <int VI, bool Vector, class It, class OutIt, class Acc, class RawOp>
void run(const char* name, const device_policy_base& policy, It first, std::int64_t length, std::int64_t segments,
         OutIt out, const Acc& init, RawOp raw_op) {
  using Op = accumulate_with<RawOp, Acc>;
  const std::int64_t lanes = (length + VI - 1) / VI;  // lanes one row would need
  int group = 1;
  while (group < 32 && group < lanes) group *= 2;
  using V = typename cuda::load_traits<It>::value_type;
  if constexpr (Vector && rows_kernel_v<VI, V, Acc>) {
    if (group == 32 && length % (32 * VI) == 0) {
      const std::int64_t R = length / (32 * VI);  // >= 1
      const std::int64_t segs_per_unit = R < rows_step ? rows_step / R : 1;
      const std::int64_t units = (segments + segs_per_unit - 1) / segs_per_unit;
      const std::int64_t rblocks = (units + rows_threads / 32 - 1) / (rows_threads / 32);
      // (a grid of one unit a warp: up to 2^31 - 1 blocks, 2^35 rows; more take the looping kernel)
      if (rblocks <= 0x7fffffff) {
        rows_kernel<VI, It, OutIt, Acc, Op><<<static_cast<unsigned>(rblocks), rows_threads, 0, policy.stream>>>(
            first, static_cast<long long>(length), static_cast<long long>(segments),
            static_cast<long long>(segs_per_unit), out, init, Op{raw_op});
        cuda::check_launch(name, "segment_groups::rows_kernel");
        return;
      }
    }
  }
  const std::int64_t per_block = (threads / 32) * (32 / group);
  std::int64_t blocks = (segments + per_block - 1) / per_block;
  const std::int64_t cap = static_cast<std::int64_t>(cuda::current_device_info().sm_count) * 16;  // 2 waves of 8
  if (blocks > cap) blocks = cap;
  groups_kernel<VI, Vector, It, OutIt, Acc, Op><<<static_cast<unsigned>(blocks), threads, 0, policy.stream>>>(
      first, static_cast<long long>(length), static_cast<long long>(segments), group, out, init, Op{raw_op});
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
