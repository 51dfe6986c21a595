// The one-block reduce (retirement_count and two_pass when the layout has one block: up to
// warps x min_tiles_per_warp warp tiles, 4096 four-byte elements): a kernel of its own, so that a
// small call pays only for what it does.
//
//   parameters  the input, n, the 16-byte offset, the output, init and the operator (~40 bytes,
//               CUB's single-tile kernel's size) instead of the multi-block kernel's ~120 (the
//               layout struct, the ticket's temporaries and the epoch tag); the layout is rebuilt
//               on the device from n and the offset (make_reduce_layout with one block, the same
//               function the host uses: the same ranges)
//   code        no ticket, no partials, no spin loop: only the range and the block's fold
//   block fold  reduce_range::reduce_block_few_barriers: one barrier after the count when the
//               threads with values fill 2^j whole warps, bitwise the block tree's result
// The fold's shape is the multi-block kernel's at one block (the same layout, the same lane folds,
// the same tree), so results are bitwise those of the one-block retirement kernel.
#pragma once

#include <cstdint>

#include "../runtime.cuh"
#include "reduce_range.cuh"

namespace algo::detail::cuda {

template <class Agent, class It, class OutIt, class T, class Op, bool FewBarriers = true>
__global__ void __launch_bounds__(Agent::threads)
    reduce_single_block_kernel(It first, std::int64_t n, int offset, OutIt out, T init, Op op) {
  __shared__ typename Agent::storage smem;
  const reduce_layout L =
      make_reduce_layout(n, offset, Agent::items, Agent::warps, Agent::min_tiles_per_warp, /*max_blocks=*/1);
  const Agent agent{smem, first, L};
  const maybe_value<T> part = FewBarriers ? agent.reduce_block_few_barriers(op) : agent.reduce_block(op);
  if (threadIdx.x == 0) *out = part.has ? static_cast<T>(op(init, part.value)) : init;
}

/// Launches the one-block kernel for a layout with L.blocks == 1.
template <class Agent, class It, class OutIt, class T, class Op>
void run_single_block(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                      Op op) {
  reduce_single_block_kernel<Agent, It, OutIt, T, Op><<<1, Agent::threads, 0, stream>>>(first, L.n, L.offset, out, init, op);
  check_launch(algorithm, "reduce_single_block_kernel");
}

}  // namespace algo::detail::cuda
