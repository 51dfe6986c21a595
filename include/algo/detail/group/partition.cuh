// group_reduce on algo::cuda, the partition pre-pass of the open-addressing build (oa_tuning::
// partition_bits; split from detail/group/device.cuh): the records grouped into 2^b partitions by
// the top b bits of their keys' hashes, so that each partition owns one region of the table.
//   count     partition_count_kernel: each block's records per partition
//   offsets   partition_offsets_kernel (one block): where each block's slice of each partition starts
//   scatter   partition_scatter_kernel: key, value and input index copied to their partition's place
#pragma once

#include <cstdint>

#include "../cuda/hash/probe.cuh"
#include "common.cuh"

namespace algo::detail::group {

// ---- partition pre-pass (oa_tuning::partition_bits) --------------------------------------------------
/// Records a block of the pre-pass handles (a contiguous chunk of the input).
inline constexpr long long partition_chunk = 16 * tile;

/// The partition of a mixed hash: its top Bits bits.
template <int Bits>
__device__ __forceinline__ unsigned partition_of(std::uint64_t h) {
  return static_cast<unsigned>(h >> (64 - Bits));
}

/// counts[p * gridDim.x + block] = the block's records in partition p (warp-aggregated shared
/// atomics: the lanes with the same partition add once).
template <int Bits, class KeyIt, class Hash>
__global__ void __launch_bounds__(threads) partition_count_kernel(KeyIt keys, long long n, Hash hash, unsigned* counts) {
  constexpr int parts = 1 << Bits;
  __shared__ unsigned c[parts];
  for (int p = threadIdx.x; p < parts; p += threads) c[p] = 0;
  __syncthreads();
  const long long begin = blockIdx.x * partition_chunk;
  const long long end = begin + partition_chunk < n ? begin + partition_chunk : n;
  const int lane = threadIdx.x & 31;
  for (long long base = begin; base < end; base += threads) {
    const long long i = base + threadIdx.x;
    const bool valid = i < end;
    const unsigned p = valid ? partition_of<Bits>(hc::hash_of(hash, keys[i])) : ~0u;
    const unsigned peers = __match_any_sync(0xffffffffu, p);
    if (valid && lane == __ffs(peers) - 1) atomicAdd(&c[p], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  for (int p = threadIdx.x; p < parts; p += threads) counts[static_cast<long long>(p) * gridDim.x + blockIdx.x] = c[p];
}

/// One block: offsets[j] = counts[0] + ... + counts[j - 1] over the partition-major order (each
/// thread a contiguous run), so block b's records of partition p start at offsets[p * blocks + b].
template <class = void>
__global__ void __launch_bounds__(threads) partition_offsets_kernel(const unsigned* counts, long long count,
                                                                     unsigned long long* offsets) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long per = (count + threads - 1) / threads;
  const long long b = threadIdx.x * per;
  const long long e = b + per < count ? b + per : count;
  unsigned long long sum = 0;
  for (long long j = b; j < e; ++j) sum += counts[j];
  unsigned long long total;
  unsigned long long run = block_exclusive_sum(sum, smem, &total);
  for (long long j = b; j < e; ++j) {
    offsets[j] = run;
    run += counts[j];
  }
}

/// Copies each record (key, value as Acc, input index) to its partition's place: the block's
/// slice of each partition is filled by warp-aggregated shared counters (order inside a
/// partition is free: the table keeps each key's smallest index).
template <int Bits, class KeyIt, class ValIt, class Hash, class K, class Acc>
__global__ void __launch_bounds__(threads)
    partition_scatter_kernel(KeyIt keys, ValIt values, long long n, Hash hash, const unsigned long long* offsets,
                             K* part_keys, Acc* part_values, unsigned* part_index) {
  constexpr int parts = 1 << Bits;
  __shared__ unsigned long long next[parts];
  for (int p = threadIdx.x; p < parts; p += threads) next[p] = offsets[static_cast<long long>(p) * gridDim.x + blockIdx.x];
  __syncthreads();
  const long long begin = blockIdx.x * partition_chunk;
  const long long end = begin + partition_chunk < n ? begin + partition_chunk : n;
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  for (long long base = begin; base < end; base += threads) {
    const long long i = base + threadIdx.x;
    const bool valid = i < end;
    K key{};
    unsigned p = ~0u;
    if (valid) {
      key = keys[i];
      p = partition_of<Bits>(hc::hash_of(hash, key));
    }
    const unsigned peers = __match_any_sync(0xffffffffu, p);
    const int leader = __ffs(peers) - 1;
    unsigned long long at = 0;
    if (valid && lane == leader) at = atomicAdd(&next[p], static_cast<unsigned long long>(__popc(peers)));
    at = __shfl_sync(0xffffffffu, at, leader) + static_cast<unsigned long long>(__popc(peers & below));
    if (valid) {
      part_keys[at] = key;
      part_values[at] = static_cast<Acc>(values[i]);
      part_index[at] = static_cast<unsigned>(i);
    }
  }
}

}  // namespace algo::detail::group
