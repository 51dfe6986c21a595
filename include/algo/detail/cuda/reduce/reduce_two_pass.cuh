// reduce_strategy::two_pass: the textbook reduction in two launches.
//
//   pass 1   every block folds its contiguous range and writes its partial
//   pass 2   one block folds the partials in block order and writes init op total
// A one-block layout runs reduce_single.cuh's kernel alone (bitwise pass 1's result). Deterministic.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../runtime.cuh"
#include "reduce_range.cuh"
#include "reduce_single.cuh"
#include "reduce_sync.cuh"

namespace algo::detail::cuda {

// ---- pass 1 ---------------------------------------------------------------------------------------
template <class Agent, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_two_pass_blocks_kernel(It first, reduce_layout L, OutIt out, T init, Op op, T* partials) {
  __shared__ typename Agent::storage smem;
  const maybe_value<T> part = Agent{smem, first, L}.reduce_block(op);
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) {
    *out = part.has ? static_cast<T>(op(init, part.value)) : init;
  } else {
    partials[blockIdx.x] = part.value;  // every block of a multi-block grid has one
  }
}

// ---- pass 2 ---------------------------------------------------------------------------------------
template <class Agent, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_two_pass_partials_kernel(const T* partials, int count, OutIt out, T init, Op op) {
  __shared__ typename Agent::storage smem;
  const T total = reduce_partials<typename Agent::warp_phase, Agent::threads>(smem.block, partials, count, op);
  if (threadIdx.x == 0) *out = static_cast<T>(op(init, total));
}

template <class Agent, class It, class OutIt, class T, class Op>
struct reduce_two_pass {
  static auto kernel() { return reduce_two_pass_blocks_kernel<Agent, It, OutIt, T, Op>; }
  static std::size_t temp_bytes(const reduce_layout& L) {
    return L.blocks > 1 ? static_cast<std::size_t>(L.blocks) * sizeof(T) : 0;
  }
  static void run(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                  Op op, void* temp) {
    if (L.blocks == 1 && run_single_block<Agent>(algorithm, stream, first, L, out, init, op)) return;
    T* partials = static_cast<T*>(temp);
    kernel()<<<L.blocks, Agent::threads, 0, stream>>>(first, L, out, init, op, partials);
    check_launch(algorithm, "reduce_two_pass_blocks_kernel");
    if (L.blocks == 1) return;
    reduce_two_pass_partials_kernel<Agent, OutIt, T, Op><<<1, Agent::threads, 0, stream>>>(partials, L.blocks, out, init, op);
    check_launch(algorithm, "reduce_two_pass_partials_kernel");
  }
};

}  // namespace algo::detail::cuda
