// reduce_strategy::retirement_count (the default): one pass, ONE launch, deterministic.
//
//   arm        block 0 opens this call's epoch on the ticket word (reduce_sync.cuh: why an epoch and
//              not a memset)
//   reduce     every block folds its contiguous range (reduce_range.cuh)
//   retire     thread 0 writes the block's partial and takes a ticket (an acq_rel atomic: the
//              release publishes the partial, the last one's acquire sees every partial)
//   last block the block that draws the last ticket folds the partials in block order, writes
//              init op total, and disarms the ticket word for the next call
// A one-block layout runs reduce_single.cuh's kernel instead (no partials, no ticket, a short
// parameter list; bitwise the same result). The block count depends only on n and the device, and
// every fold has a fixed shape, so float results are identical from run to run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../runtime.cuh"
#include "reduce_range.cuh"
#include "reduce_single.cuh"
#include "reduce_sync.cuh"

namespace algo::detail::cuda {

template <class T>
struct retirement_temp {
  /// Bytes of per-call temporary storage for `blocks` blocks.
  static std::size_t bytes(int blocks) { return 256 + static_cast<std::size_t>(blocks) * sizeof(T); }
  unsigned long long* ticket;
  T* partials;
  static retirement_temp carve(void* p) {
    auto* base = static_cast<unsigned char*>(p);
    return {reinterpret_cast<unsigned long long*>(base), reinterpret_cast<T*>(base + 256)};
  }
};

template <class Agent, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_retirement_kernel(It first, reduce_layout L, OutIt out, T init, Op op, retirement_temp<T> temp,
                             unsigned long long tag) {
  __shared__ typename Agent::storage smem;
  __shared__ bool last;
  const epoch_ticket ticket{temp.ticket, tag};
  const bool single = gridDim.x == 1;

  // ---- arm ----------------------------------------------------------------------------------------
  if (!single && blockIdx.x == 0 && threadIdx.x == 0) ticket.arm();

  // ---- reduce this block's range ------------------------------------------------------------------
  const maybe_value<T> part = Agent{smem, first, L}.reduce_block(op);
  if (single) {
    if (threadIdx.x == 0) *out = part.has ? static_cast<T>(op(init, part.value)) : init;
    return;
  }

  // ---- retire: partial, then a ticket -------------------------------------------------------------
  if (threadIdx.x == 0) {
    store_coherent(temp.partials + blockIdx.x, part.value);  // every block of a multi-block grid has one
    ticket.wait();
    last = ticket.take() == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;

  // ---- last block: the partials in block order (thread 0's acquire + the barrier: all visible) ------
  const T total = reduce_partials<typename Agent::warp_phase, Agent::threads>(smem.block, temp.partials,
                                                                             static_cast<int>(gridDim.x), op);
  if (threadIdx.x == 0) {
    *out = static_cast<T>(op(init, total));
    ticket.disarm();
  }
}

template <class Agent, class It, class OutIt, class T, class Op>
struct reduce_retirement {
  static auto kernel() { return reduce_retirement_kernel<Agent, It, OutIt, T, Op>; }
  static std::size_t temp_bytes(const reduce_layout& L) {
    return L.blocks > 1 ? retirement_temp<T>::bytes(L.blocks) : 0;
  }
  static void run(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                  Op op, void* temp) {
    if (L.blocks == 1 && run_single_block<Agent>(algorithm, stream, first, L, out, init, op)) return;
    const auto tmp = L.blocks > 1 ? retirement_temp<T>::carve(temp) : retirement_temp<T>{nullptr, nullptr};
    kernel()<<<L.blocks, Agent::threads, 0, stream>>>(first, L, out, init, op, tmp, next_epoch_tag());
    check_launch(algorithm, "reduce_retirement_kernel");
  }
};

}  // namespace algo::detail::cuda
