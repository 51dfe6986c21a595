// Strategy 4, the default: single-pass scan with decoupled look-back (Merrill & Garland 2016).
// One launch, 2 passes over memory (read n, write n).
//
//   ticket     a block draws its tile index from a counter, so tiles start in index order and a
//              tile only ever waits on tiles that are already running (forward progress whatever
//              order the hardware schedules blocks in);
//   tile       load, thread fold, warp scans, spine (block_scan);
//   publish    in the spine, warp 0 publishes the tile's aggregate at once;
//   look-back  warp 0 reads the status of the 32 W preceding tiles at a time (W windows of 32,
//              scan_tuning_base::lookback_windows, all loads in flight together), waits while a
//              tile it needs has published nothing, folds the aggregates from the nearest
//              inclusive prefix on (in order), and steps back 32 W tiles when there is none; then
//              publishes its own inclusive prefix;
//   fan-out    the prefix reaches every thread, which rescans its items and stores them.
//
// Tile 0 publishes its inclusive prefix (init op aggregate) straight away. The tile state and its
// epochs are described in tile_state.cuh: no clearing launch, no memset per call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "../../../error.hpp"
#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "../thread/shuffle.cuh"
#include "../warp/warp_scan.cuh"
#include "scan_tile.cuh"
#include "../lookback/backoff.cuh"
#include "../lookback/tile_state.cuh"

namespace algo::detail::cuda {

// ---- look-back (warp 0 of a tile, all 32 lanes) -----------------------------------------------------
/// Publishes the tile's aggregate, finds the value of everything before the tile (including the
/// init), publishes the tile's inclusive prefix, and returns the exclusive one (all lanes).
///
/// Each poll reads W windows of 32 predecessors at once (window 0 nearest; lane 31 of a window is
/// its nearest tile), all loads in flight together, so one L2 round trip covers 32 W tiles. The
/// windows are examined nearest first, up to the first holding an inclusive prefix (its highest
/// such lane k); every tile above that one must have published something, else the warp sleeps
/// and polls again. Then the aggregates from the inclusive prefix on are folded in order, and if
/// no window held one, the next W windows further back are read.
template <class Tuning, class State, class Acc, class Op>
__device__ __forceinline__ maybe_value<Acc> look_back(State& state, unsigned epoch, int tile, const Acc& aggregate,
                                                const maybe_value<Acc>& init, Op op) {
  constexpr int W = State::parallel_loads ? Tuning::windows : 1;
  static_assert(W >= 1 && W <= 8, "lookback_windows: 1..8");
  const int lane = lane_index();
  if (tile == 0) {
    if (lane == 0) state.publish(0, tile_inclusive, combine(init, aggregate, op), epoch);
    return init;
  }
  if (lane == 0) state.publish(tile, tile_aggregate, aggregate, epoch);
  [[maybe_unused]] long long stats_start = 0;
  [[maybe_unused]] int stats_polls = 0, stats_sleeps = 0, stats_windows = 0;
  if constexpr (Tuning::lookback_stats) stats_start = clock64();
  if constexpr (Tuning::timing_skip_lookback) {  // timing experiment (scan_config.cuh): wrong prefix
    return some(aggregate);
  }
  // Large grids wait before the first poll and poll at a long fixed interval; small ones poll at
  // once and back off from a short interval (lookback/backoff.cuh, scan_config.cuh).
  lookback_backoff<Tuning> backoff;

  Acc exclusive{};
  bool have = false;
  if constexpr (W == 1) {  // one window per poll (keeps the f64 kernel at 72 registers)
    for (int window_end = tile;; window_end -= 32) {
      const int pred = window_end - 32 + lane;  // lane 31: the nearest predecessor
      Acc v{};
      int k;  // highest lane holding an inclusive prefix, -1 when none does
      if constexpr (Tuning::lookback_stats) ++stats_windows;
      while (true) {
        if constexpr (Tuning::lookback_stats) ++stats_polls;
        const unsigned status = pred >= 0 ? state.load(pred, epoch, v) : static_cast<unsigned>(tile_before_first);
        const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, status == tile_inclusive);
        const unsigned empty_lanes = __ballot_sync(full_warp_mask, status == tile_empty);
        k = inclusive_lanes ? 31 - __clz(inclusive_lanes) : -1;
        const unsigned needed = k < 0 ? ~0u : k == 31 ? 0u : ~0u << (k + 1);  // the lanes above k
        if ((empty_lanes & needed) == 0) break;
        if constexpr (Tuning::lookback_stats) ++stats_sleeps;
        backoff.wait();
      }
      // Fold lanes k..31 (the whole window when it holds no inclusive prefix), left to right.
      const int first = k < 0 ? 0 : k;
      const Acc window = first == 31 ? shfl_idx(v, 31) : shfl_idx(warp_suffix_scan(v, op, first), first);
      exclusive = have ? op(window, exclusive) : window;
      have = true;
      if (k >= 0) break;
    }
  } else {
    for (int window_end = tile;; window_end -= 32 * W) {
      Acc v[W] = {};
      int nearest;  // first window holding an inclusive prefix (W: none does); warp-uniform
      int k;        // its highest lane holding one
      if constexpr (Tuning::lookback_stats) stats_windows += W;
      while (true) {
        if constexpr (Tuning::lookback_stats) ++stats_polls;
        unsigned status[W];
#pragma unroll
        for (int w = 0; w < W; ++w) {  // all loads issued before any status is looked at
          const int pred = window_end - 32 * (w + 1) + lane;
          status[w] = pred >= 0 ? state.load(pred, epoch, v[w]) : static_cast<unsigned>(tile_before_first);
        }
        bool wait = false;
        nearest = W;
        k = -1;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          if (nearest == W) {
            const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, status[w] == tile_inclusive);
            const unsigned empty_lanes = __ballot_sync(full_warp_mask, status[w] == tile_empty);
            const int kw = inclusive_lanes ? 31 - __clz(inclusive_lanes) : -1;
            const unsigned needed = kw < 0 ? ~0u : kw == 31 ? 0u : ~0u << (kw + 1);  // the lanes above kw
            if (empty_lanes & needed) wait = true;
            if (kw >= 0) {
              nearest = w;
              k = kw;
            }
          }
        }
        if (!wait) break;
        if constexpr (Tuning::lookback_stats) ++stats_sleeps;
        backoff.wait();
      }
      // Fold windows 0 .. nearest (all W when none holds an inclusive prefix), each from its first
      // needed lane to lane 31; older windows go on the left.
#pragma unroll
      for (int w = 0; w < W; ++w) {
        if (w <= nearest && w < W) {
          const int first = w == nearest ? k : 0;
          const Acc part = first == 31 ? shfl_idx(v[w], 31) : shfl_idx(warp_suffix_scan(v[w], op, first), first);
          exclusive = have ? op(part, exclusive) : part;
          have = true;
        }
      }
      if (nearest < W) break;
    }
  }
  if (lane == 0) state.publish(tile, tile_inclusive, op(exclusive, aggregate), epoch);
  if constexpr (Tuning::lookback_stats) {
    if (lane == 0) Tuning::lookback_record(stats_polls, stats_sleeps, stats_windows, clock64() - stats_start);
  }
  return some(exclusive);
}

// ---- the kernel: one block per tile -------------------------------------------------------------------
template <class K, class Problem, class State>
__global__ void __launch_bounds__(K::threads, K::tuning::min_blocks) decoupled_lookback_kernel(Problem p, State state, unsigned epoch,
                                                                        int num_tiles) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  __shared__ int ticket;

  // ---- ticket ----------------------------------------------------------------------------------------
  int tile;
  if constexpr (K::tuning::ticket) {
    if (threadIdx.x == 0) {
      const int t = state.take();
      if (t == num_tiles - 1) state.reset();  // the last ticket: every block has drawn its own
      ticket = t;
    }
    __syncthreads();
    tile = ticket;
  } else {
    tile = static_cast<int>(blockIdx.x);  // bench variant: the hardware's dispatch order
  }

  // ---- tile, publish, look-back, fan-out ---------------------------------------------------------------
  scan_tile<K>(s, p, static_cast<std::int64_t>(tile) * K::tile_items, tile_valid<K>(p.n, tile),
               [&](const Acc& aggregate) {
                 return look_back<typename K::tuning>(state, epoch, tile, aggregate, p.init, p.op);
               });
}

// ---- host ------------------------------------------------------------------------------------------------
/// The look-back scan with an explicit block scan (`Block`: algo::block_scan::*_t) and tuning
/// (`TuningBase`: threads, look-back knobs, optional items; see scan_config.cuh). The policy's path
/// below uses scan_tuning_base; the bench also runs variants through this to compare
/// configurations side by side.
/// The tile state comes from with_tile_state (tile_state.cuh): the pool outside graph capture, a
/// zeroed graph temporary under it.
template <class Phase, class Block, class TuningBase, class Problem>
void run_lookback_tuned(const Problem& p, cudaStream_t stream, device_memory_resource* resource = nullptr) {
  using K = tile_traits<Problem, Phase, Block, TuningBase>;
  using State = tile_state_for<typename K::acc_t, K::tuning::tile_state_spread>;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles == 0) return;
  if (tiles == 1) return launch_single_tile<Phase, Block, TuningBase>(p, stream);
  if (tiles > 0x7fffffff) fail(p.name, "too many elements for one scan (" + std::to_string(p.n) + ")");

  const auto launch = [&](void* memory, unsigned epoch) {
    decoupled_lookback_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, stream>>>(p, State::at(memory, tiles), epoch,
                                                                   static_cast<int>(tiles));
    check_launch(p.name, "decoupled_lookback_kernel");
  };
  with_tile_state(p.name, State::bytes(tiles), State::layout_key(tiles), stream, resource, launch);
}

template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::decoupled_lookback_t, Phase, Block, const Problem& p) {
  run_lookback_tuned<Phase, Block, scan_tuning_base>(p, policy.stream, policy.resource);
}

}  // namespace algo::detail::cuda
