// Strategy 1: scan-then-fan, recursive (CUDA Handbook 13.4.1). 4 passes over memory at the top
// level (read n, write n; read n, write n) plus the partials.
//
//   scan     each block scans its tile on its own, writes the local results to an intermediate
//            array and its tile total to the partials;
//   spine    the partials are scanned by the same strategy, recursively (in place);
//   fan      each block combines its base sum (init op partials before it) into its local results
//            and writes the output.
//
// The intermediate is the output itself when the output is a plain Acc* (in-place scans too: a
// tile is read before it is written); otherwise (other output types, fancy output iterators)
// it is a temporary array of n accumulators.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "scan_tile.cuh"

namespace algo::detail::cuda {

// ---- scan: local scan of each tile, tile totals to the partials ----------------------------------------
template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) local_scan_kernel(Problem p, typename K::acc_t* partials) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  const std::int64_t tile = blockIdx.x;
  scan_tile<K>(s, p, tile * K::tile_items, tile_valid<K>(p.n, tile), [&](const Acc& aggregate) {
    if (lane_index() == 0) partials[tile] = aggregate;
    return none<Acc>();
  });
}

// ---- fan: out = base op local, per element -----------------------------------------------------------
/// `local` holds each tile's local scan (exclusive: its first element unspecified), `scanned` the
/// inclusive scan of the tile totals.
template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) fan_kernel(Problem p, const typename K::acc_t* local,
                                                         const typename K::acc_t* scanned) {
  using Acc = typename K::acc_t;
  using Out = staged_out_t<typename Problem::out_iterator, Acc>;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t base = tile * K::tile_items;
  const int valid = tile_valid<K>(p.n, tile);
  const maybe_value<Acc> prefix = tile == 0 ? p.init : some(combine(p.init, scanned[tile - 1], p.op));
#pragma unroll 4
  for (int i = threadIdx.x; i < valid; i += K::threads) {
    const Acc r = p.exclusive && i == 0 ? prefix.value : combine(prefix, local[base + i], p.op);
    p.out[base + i] = static_cast<Out>(r);
  }
}

// ---- host ---------------------------------------------------------------------------------------------
template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::scan_then_fan_t, Phase, Block, const Problem& p) {
  using Acc = typename Problem::acc_type;
  using Local = rebind_problem<Problem, typename Problem::in_iterator, Acc*>;
  using K = tile_traits<Local, Phase, Block>;
  if (p.n <= tile_traits<Problem, Phase, Block>::tile_items) return launch_single_tile<Phase, Block>(p, policy.stream);
  const std::int64_t tiles = K::tiles(p.n);

  constexpr bool out_is_acc = std::is_same<typename Problem::out_iterator, Acc*>::value;
  temporary_buffer intermediate(policy, out_is_acc ? 0 : static_cast<std::size_t>(p.n) * sizeof(Acc));
  Acc* local = nullptr;
  if constexpr (out_is_acc) {
    local = p.out;
  } else {
    local = intermediate.as<Acc>();
  }
  temporary_buffer partials(policy, static_cast<std::size_t>(tiles) * sizeof(Acc));
  Acc* d_partials = partials.as<Acc>();

  // ---- scan
  local_scan_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, policy.stream>>>(
      retarget(p, p.in, local, p.n, none<Acc>(), p.exclusive), d_partials);
  check_launch(p.name, "local_scan_kernel");
  // ---- spine (recursive)
  run_scan(policy, scan_strategy::scan_then_fan, Phase{}, Block{},
           retarget(p, d_partials, d_partials, tiles, none<Acc>(), false));
  // ---- fan
  fan_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, policy.stream>>>(p, local, d_partials);
  check_launch(p.name, "fan_kernel");
}

}  // namespace algo::detail::cuda
