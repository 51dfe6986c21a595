// The one-block reduce (retirement_count and two_pass when the layout has one block: up to
// warps x min_tiles_per_warp warp tiles, 4096 four-byte elements): a kernel of its own, so that a
// small call pays only for what it does. Profile of main's path at 2^12 i32 (H100, ncu, 2026-11-26:
// bench/notes/reduce.md): 3.20 us and 1,501 warp instructions against CUB's single-tile kernel's
// 2.70 us and 490; the difference is instruction count (64-bit layout arithmetic in the uniform
// datapath before the first load, the general loop's bounds and branches), not memory.
//
//   parameters  the input, n, the 16-byte offset, the output, init and the operator (~40 bytes,
//               CUB's single-tile kernel's size) instead of the multi-block kernel's ~120 (the
//               layout struct, the ticket's temporaries and the epoch tag)
//   walk        commutative operators: reduce_range::reduce_one_block, 32-bit arithmetic from n
//               and the offset, the same tiles to the same lanes in the same order as the general
//               walk; ordered operators rebuild the layout on the device (make_reduce_layout with
//               one block, the host's function) and take the general walk
//   code        no ticket, no partials, no spin loop
// Either way the fold's shape is the multi-block kernel's at one block (the same lane folds, the
// same block tree), so results are bitwise those of main's one-block path (bench/reduce_small
// --verify checks every one-block size x offset).
#pragma once

#include <cstdint>

#include "../runtime.cuh"
#include "reduce_range.cuh"

namespace algo::detail::cuda {

template <class Agent, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_single_block_kernel(It first, std::int64_t n, int offset, OutIt out, T init, Op op) {
  __shared__ typename Agent::storage smem;
  maybe_value<T> part;
  if constexpr (Agent::ordered) {
    const reduce_layout L =
        make_reduce_layout(n, offset, Agent::items, Agent::warps, Agent::min_tiles_per_warp, /*max_blocks=*/1);
    part = Agent{smem, first, L}.reduce_block(op);
  } else {
    part = Agent::reduce_one_block(smem, first, static_cast<int>(n), offset, op);
  }
  if (threadIdx.x == 0) *out = part.has ? static_cast<T>(op(init, part.value)) : init;
}

/// For a layout with L.blocks == 1: launches the one-block kernel and returns true, or returns
/// false (the caller launches its own kernel) when the layout is one block only because the grid
/// was capped (more than warps x min_tiles_per_warp tiles: a device with room for one block).
template <class Agent, class It, class OutIt, class T, class Op>
bool run_single_block(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                      Op op) {
  if (L.tiles > static_cast<std::int64_t>(Agent::warps) * Agent::min_tiles_per_warp) return false;
  reduce_single_block_kernel<Agent, It, OutIt, T, Op><<<1, Agent::threads, 0, stream>>>(first, L.n, L.offset, out, init, op);
  check_launch(algorithm, "reduce_single_block_kernel");
  return true;
}

}  // namespace algo::detail::cuda
