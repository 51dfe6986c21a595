// algo::cuda scans: the in-house kernels (no CUB or Thrust call on this path). The policy's types
// pick the strategy, the block scan and the warp phase by overload:
//
//   algo::cuda                                              scan_strategy::automatic: decoupled look-back,
//                                                           deterministic look-back for float sums and
//                                                           other <= 4-byte floating-point accumulators;
//                                                           shuffle warp scans
//   algo::cuda.with(algo::scan_strategy::scan_then_fan)     scan/scan_then_fan.cuh        (4 passes)
//   algo::cuda.with(algo::scan_strategy::reduce_then_scan)  scan/reduce_then_scan.cuh     (3 passes)
//   algo::cuda.with(algo::scan_strategy::two_level)         scan/two_level.cuh            (2 + spine)
//   algo::cuda.with(algo::scan_strategy::decoupled_lookback) scan/decoupled_lookback.cuh (2, 1 launch)
//   algo::cuda.with(algo::scan_strategy::deterministic_lookback)
//                                                           scan/deterministic_lookback.cuh (2, 1 launch,
//                                                           bitwise reproducible)
//   algo::cuda.with(algo::scan_strategy::ordered_lookback)  scan/ordered_lookback.cuh (2, 1 launch,
//                                                           bitwise reproducible: left folds)
//   ... .with(algo::warp_phase::smem)                       volatile shared-memory warp scans
//   ... .with(algo::block_scan::kogge_stone)                block/block_scan_kogge_stone.cuh
//   ... .with(algo::block_scan::brent_kung)                 block/block_scan_brent_kung.cuh
//                                                           (default warp_scans: block/block_scan.cuh)
//
// Layers: thread/thread_scan.cuh -> warp/warp_scan.cuh -> block/block_scan*.cuh (chosen in
// block/block_scan_select.cuh; + block_load_store.cuh) -> scan/scan_tile.cuh ->
// scan/<strategy>.cuh; tuning in scan/scan_config.cuh; the look-backs' tile state in
// lookback/tile_state.cuh. Every strategy runs with every block scan and warp phase.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../policy.hpp"
#include "../iterator.hpp"
#include "../scan_kind.hpp"
#include "scan/decoupled_lookback.cuh"
#include "scan/deterministic_lookback.cuh"
#include "scan/ordered_lookback.cuh"
#include "scan/reduce_then_scan.cuh"
#include "scan/scan_then_fan.cuh"
#include "scan/scan_tile.cuh"
#include "scan/two_level.cuh"

namespace algo::detail {
namespace cuda {
/// The default strategy (policy.hpp, scan_strategy::automatic): bitwise reproducible where that is
/// (nearly) free. H100, 2^26-2^28 (bench/notes/scan.md, 2026-11-23): float 1.3-1.4 % slower with the
/// deterministic look-back, double 5-6 %, int32 within +-2 % (and exact either way).
template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::automatic_t, Phase phase, Block block, const Problem& p) {
  using Acc = typename Problem::acc_type;
  if constexpr (std::is_floating_point<Acc>::value && sizeof(Acc) <= 4) {
    run_scan(policy, scan_strategy::deterministic_lookback_t{}, phase, block, p);
  } else {
    run_scan(policy, scan_strategy::decoupled_lookback_t{}, phase, block, p);
  }
}
}  // namespace cuda

template <class... S, bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const cuda_policy<S...>& policy, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op,
           Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::cuda scans need a trivially copyable accumulator type");
  static_assert(std::is_default_constructible<Acc>::value, "algo::cuda scans need a default-constructible accumulator type");
  using Policy = cuda_policy<S...>;

  auto in = cuda::unwrap(first);
  auto o = cuda::unwrap(out);
  cuda::maybe_value<Acc> init_value = cuda::none<Acc>();
  if constexpr (!std::is_same<Init, no_init_t>::value) init_value = cuda::some(static_cast<Acc>(init));
  const cuda::scan_problem<Acc, decltype(in), decltype(o), accumulate_with<Op, Acc>> problem{
      in, o, n, accumulate_with<Op, Acc>{op}, init_value, !Inclusive, Inclusive ? "inclusive_scan" : "exclusive_scan"};
  cuda::run_scan(policy, typename Policy::scan_strategy{}, typename Policy::warp_phase{}, typename Policy::block_scan{},
                 problem);
  return out + n;
}

}  // namespace algo::detail
