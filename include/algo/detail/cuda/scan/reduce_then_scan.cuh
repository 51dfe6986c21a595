// Strategy 2: reduce-then-scan, recursive (CUDA Handbook 13.4.2). 3 passes over memory at the top
// level (read n; read n, write n) plus the partials.
//
//   upsweep    each block reduces its tile to one partial (no output written);
//   spine      the partials are scanned by the same strategy, recursively (in place);
//   downsweep  each block rescans its tile after its base sum (init op partials before it).
//
// The two kernels take a partition of several consecutive tiles per block: here every partition
// is one tile; two_level.cuh runs the same kernels with one partition per resident block.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "scan_tile.cuh"

namespace algo::detail::cuda {

// ---- upsweep: partials[b] = op over the tiles of partition b, in order ------------------------------
template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) partition_reduce_kernel(Problem p, typename K::acc_t* partials,
                                                                      int tiles_per_partition, std::int64_t num_tiles) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * tiles_per_partition;
  const std::int64_t last = first + tiles_per_partition < num_tiles ? first + tiles_per_partition : num_tiles;
  Acc carry = reduce_tile<K>(s, p, first * K::tile_items, tile_valid<K>(p.n, first));
  for (std::int64_t t = first + 1; t < last; ++t)
    carry = p.op(carry, reduce_tile<K>(s, p, t * K::tile_items, tile_valid<K>(p.n, t)));
  if (threadIdx.x == 0) partials[blockIdx.x] = carry;
}

// ---- downsweep: rescan each tile of partition b after init op partials[0..b-1] --------------------------
/// `scanned` holds the inclusive scan of the partition partials. SplitLast: the whole tiles in a
/// loop without the last-tile path (scan_tile<K, true>) and the input's partial last tile after it
/// (reduce_then_scan, a tile a block: with the path in the loop, up to 128 registers, ptxas sm_90,
/// the smem warp phase; split, 80, and 7 % faster, H200). Not split: one loop with the path
/// (two_level, many tiles a block: split, 64 -> 80 registers, 6-10 % slower on f32 / i32 with the
/// smem phase and f64 with shfl; bench/notes/scan.md, 2026-12-02).
template <class K, bool SplitLast, class Problem>
__global__ void __launch_bounds__(K::threads) partition_scan_kernel(Problem p, const typename K::acc_t* scanned,
                                                                    int tiles_per_partition, std::int64_t num_tiles) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * tiles_per_partition;
  const std::int64_t last = first + tiles_per_partition < num_tiles ? first + tiles_per_partition : num_tiles;
  // The running prefix lives in warp 0, the only warp that runs the prefix callback.
  maybe_value<Acc> carry = blockIdx.x == 0 ? p.init : some(combine(p.init, scanned[blockIdx.x - 1], p.op));
  const auto step = [&](const Acc& aggregate) {
    const maybe_value<Acc> prefix = carry;
    carry = some(combine(prefix, aggregate, p.op));
    return prefix;
  };
  if constexpr (SplitLast) {
    const std::int64_t whole_end = last == num_tiles && tile_valid<K>(p.n, last - 1) < K::tile_items ? last - 1 : last;
    for (std::int64_t t = first; t < whole_end; ++t) scan_tile<K, true>(s, p, t * K::tile_items, K::tile_items, step);
    if (whole_end < last) scan_tile<K>(s, p, whole_end * K::tile_items, tile_valid<K>(p.n, whole_end), step);
  } else {
    for (std::int64_t t = first; t < last; ++t) scan_tile<K>(s, p, t * K::tile_items, tile_valid<K>(p.n, t), step);
  }
}

// ---- host ----------------------------------------------------------------------------------------------
template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::reduce_then_scan_t, Phase, Block, const Problem& p) {
  using K = tile_traits<Problem, Phase, Block>;
  using Acc = typename K::acc_t;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles == 1) return launch_single_tile<Phase, Block>(p, policy.stream);

  temporary_buffer partials(policy, static_cast<std::size_t>(tiles) * sizeof(Acc));
  Acc* d_partials = partials.as<Acc>();

  // ---- upsweep
  partition_reduce_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, policy.stream>>>(p, d_partials, 1, tiles);
  check_launch(p.name, "partition_reduce_kernel");
  // ---- spine (recursive)
  run_scan(policy, scan_strategy::reduce_then_scan, Phase{}, Block{},
           retarget(p, d_partials, d_partials, tiles, none<Acc>(), false));
  // ---- downsweep
  partition_scan_kernel<K, true><<<static_cast<unsigned>(tiles), K::threads, 0, policy.stream>>>(p, d_partials, 1, tiles);
  check_launch(p.name, "partition_scan_kernel");
}

}  // namespace algo::detail::cuda
