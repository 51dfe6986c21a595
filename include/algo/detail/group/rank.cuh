// group_reduce on algo::cuda, the rank pass (split from detail/group/device.cuh): every group's first
// index sets a bit in an n-bit map; the bits are counted by a three-kernel reduce-then-scan over the
// words, so the rank of a group = the number of first appearances before its own = its output
// position.
//   mark      mark_first_kernel: each occupied slot sets the bit of its group's first index
//   partials  rank_partials_kernel: the set bits of each block's words
//   spine     rank_spine_kernel (one block): the partials' exclusive prefix; the total (the number
//             of groups) goes to the build's status
//   words     rank_words_kernel: prefix[w] = set bits in words [0, w) (run by emit.cuh's drivers,
//             after the host has read the number of groups)
// rank_count runs mark + partials + spine.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "common.cuh"

namespace algo::detail::group {

// ---- rank: first appearances counted -------------------------------------------------------------
/// (gate: when given and its build stopped, nothing: that build is thrown away, and its table may
/// not even have been cleared, when the sample sent the call to the partitioned build; else the
/// slots the sample chose, gated_capacity)
template <class Table>
__global__ void __launch_bounds__(threads)
    mark_first_kernel(Table t, unsigned long long count, unsigned* bits, const build_status* gate = nullptr) {
  if (gate) {
    if (build_stopped(gate)) return;
    count = gated_capacity(gate, count);
  }
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    if (t.occupied(i)) {
      const unsigned long long f = t.first_index(i);
      atomicOr(bits + (f >> 5), 1u << (f & 31));
    }
}

template <class = void>
__global__ void __launch_bounds__(threads) rank_partials_kernel(const unsigned* bits, long long words,
                                                                 unsigned long long* partial,
                                                                 const build_status* gate = nullptr) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  if (gate && build_stopped(gate)) return;
  const long long base = blockIdx.x * rank_chunk;
  unsigned long long c = 0;
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    const long long w = base + j * threads + threadIdx.x;
    if (w < words) c += __popc(bits[w]);
  }
  unsigned long long total;
  block_exclusive_sum(c, smem, &total);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

/// One block: partial[] becomes its exclusive prefix; the grand total goes to status->total.
template <class = void>
__global__ void __launch_bounds__(threads) rank_spine_kernel(unsigned long long* partial, long long count,
                                                              build_status* status, bool gated = false) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  if (gated && build_stopped(status)) return;
  unsigned long long carry = 0;
  for (long long base = 0; base < count; base += threads) {
    const long long i = base + threadIdx.x;
    const unsigned long long x = i < count ? partial[i] : 0ull;
    unsigned long long total;
    const unsigned long long ex = block_exclusive_sum(x, smem, &total);
    if (i < count) partial[i] = carry + ex;
    carry += total;
  }
  if (threadIdx.x == 0) status->total = carry;
}

/// prefix[w] = set bits in words [0, w).
template <class = void>
__global__ void __launch_bounds__(threads) rank_words_kernel(const unsigned* bits, long long words,
                                                              const unsigned long long* partial,
                                                              unsigned long long* prefix) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long base = blockIdx.x * rank_chunk + static_cast<long long>(threadIdx.x) * rank_words_per_thread;
  unsigned c[rank_words_per_thread];
  unsigned long long sum = 0;
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    c[j] = base + j < words ? __popc(bits[base + j]) : 0u;
    sum += c[j];
  }
  unsigned long long total;
  unsigned long long run = partial[blockIdx.x] + block_exclusive_sum(sum, smem, &total);
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    if (base + j < words) prefix[base + j] = run;
    run += c[j];
  }
}

/// The rank pass's buffers for n records: the bit map, the per-block partials, the word prefixes.
struct rank_buffers {
  long long words, blocks;
  cuda::temporary_buffer bits, partial, prefix;
  rank_buffers(const device_policy_base& p, long long n)
      : words((n + 31) / 32),
        blocks((words + rank_chunk - 1) / rank_chunk),
        bits(p, static_cast<std::size_t>(words) * sizeof(unsigned)),
        partial(p, static_cast<std::size_t>(blocks) * sizeof(unsigned long long)),
        prefix(p, static_cast<std::size_t>(words) * sizeof(unsigned long long)) {}
};

/// mark + partials + spine (status->total = the number of groups); gated: nothing when the build
/// stopped, and the marks over the slots the sample chose (the mark's grid then a few blocks an
/// SM that loop: `gated_blocks`).
template <class Table>
void rank_count(const char* name, const device_policy_base& p, const Table& t, unsigned long long count,
                rank_buffers& rb, build_status* status, bool gated = false, unsigned gated_blocks = 0) {
  check_cuda(cudaMemsetAsync(rb.bits.get(), 0, rb.bits.size(), p.stream), name, "cudaMemsetAsync");
  const unsigned grid = grid_for(static_cast<long long>(count));
  mark_first_kernel<<<gated && gated_blocks ? std::min(grid, gated_blocks) : grid, threads, 0, p.stream>>>(
      t, count, rb.bits.as<unsigned>(), gated ? status : nullptr);
  cuda::check_launch(name, "mark_first_kernel");
  rank_partials_kernel<><<<static_cast<unsigned>(rb.blocks), threads, 0, p.stream>>>(
      rb.bits.as<unsigned>(), rb.words, rb.partial.as<unsigned long long>(), gated ? status : nullptr);
  cuda::check_launch(name, "rank_partials_kernel");
  rank_spine_kernel<><<<1, threads, 0, p.stream>>>(rb.partial.as<unsigned long long>(), rb.blocks, status, gated);
  cuda::check_launch(name, "rank_spine_kernel");
}

}  // namespace algo::detail::group
