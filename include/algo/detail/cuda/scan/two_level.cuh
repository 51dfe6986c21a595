// Strategy 3: Merrill's two-level reduce-then-scan (CUDA Handbook 13.4.3). 2 passes over memory
// plus a small spine, 3 launches, no recursion.
//
//   partition  one partition per block the GPU holds at once; each covers a whole number of tiles;
//   upsweep    each block reduces its partition to one partial (partition_reduce_kernel);
//   spine      one block scans the (at most one tile of) partials in place;
//   downsweep  each block rescans its partition tile by tile, carrying the running prefix from
//              init op partials before it (partition_scan_kernel).
//
// The handbook keeps the partials in a global __device__ array; that is not re-entrant (two
// streams would share it), so they live in a small per-call buffer from the caching resource.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "reduce_then_scan.cuh"
#include "scan_tile.cuh"

namespace algo::detail::cuda {

/// Blocks of partition_reduce_kernel<K, Problem> one SM holds at once (cached per device).
template <class K, class Problem>
int resident_blocks_per_sm(const char* algorithm) {
  static std::atomic<int> cached[64];
  const device_info& d = current_device_info();
  const int slot = d.device < 64 ? d.device : 63;
  int v = cached[slot].load(std::memory_order_relaxed);
  if (v == 0 || d.device >= 64) {
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, partition_reduce_kernel<K, Problem>, K::threads, 0),
               algorithm, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (v < 1) v = 1;
    cached[slot].store(v, std::memory_order_relaxed);
  }
  return v;
}

template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::two_level_t, Phase, Block, const Problem& p) {
  using K = tile_traits<Problem, Phase, Block>;
  using Acc = typename K::acc_t;
  using Spine = rebind_problem<Problem, Acc*, Acc*>;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles == 1) return launch_single_tile<Phase, Block>(p, policy.stream);

  // ---- partition: one per resident block, a whole number of tiles each, at most one spine tile
  const std::int64_t resident =
      static_cast<std::int64_t>(current_device_info().sm_count) *
      resident_blocks_per_sm<K, Problem>(p.name) * K::tuning::two_level_waves;
  const std::int64_t max_partitions =
      resident < tile_traits<Spine, Phase, Block>::tile_items ? resident : tile_traits<Spine, Phase, Block>::tile_items;
  const std::int64_t per_partition = (tiles + max_partitions - 1) / max_partitions;
  const std::int64_t partitions = (tiles + per_partition - 1) / per_partition;
  if (per_partition > 0x7fffffff) fail(p.name, "too many elements for one scan");

  temporary_buffer partials(policy, static_cast<std::size_t>(partitions) * sizeof(Acc));
  Acc* d_partials = partials.as<Acc>();

  // ---- upsweep
  partition_reduce_kernel<K><<<static_cast<unsigned>(partitions), K::threads, 0, policy.stream>>>(
      p, d_partials, static_cast<int>(per_partition), tiles);
  check_launch(p.name, "partition_reduce_kernel");
  // ---- spine (one block)
  launch_single_tile<Phase, Block>(retarget(p, d_partials, d_partials, partitions, none<Acc>(), false), policy.stream);
  // ---- downsweep
  partition_scan_kernel<K, false><<<static_cast<unsigned>(partitions), K::threads, 0, policy.stream>>>(
      p, d_partials, static_cast<int>(per_partition), tiles);
  check_launch(p.name, "partition_scan_kernel");
}

}  // namespace algo::detail::cuda
