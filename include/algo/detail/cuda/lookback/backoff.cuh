// How a look-back waits for its predecessors (the knobs: scan_config.cuh, "Look-back polling").
// Every walk over the tile state waits through one of these: the classic one
// (scan/decoupled_lookback.cuh), the deterministic one (scan/deterministic_lookback.cuh), the
// ordered one and its count-only walk (scan/ordered_lookback.cuh).
//   start  a grid of at least Tuning::lookback_delay_min_tiles tiles (a large grid) sleeps
//          lookback_initial_delay_ns before the first poll: its predecessors' prefixes are rarely
//          there sooner, and early polls crowd the status lines the publishes go to;
//   wait   after a poll that found a needed predecessor empty: sleep, then twice as long the next
//          time, up to the max (large grids lookback_first_sleep_ns .. lookback_max_sleep_ns,
//          small ones the lookback_small_ pair; 0 spins).
#pragma once

namespace algo::detail::cuda {

template <class Tuning>
class lookback_backoff {
 public:
  /// Before the first poll; `initial_delay`: whether this tile sleeps the initial delay (a large
  /// grid's tiles do, but where the walk says otherwise: tile 0 of the deterministic walk).
  __device__ __forceinline__ explicit lookback_backoff(bool initial_delay = true) {
    const bool large_grid = gridDim.x >= Tuning::lookback_delay_min_tiles;
    if constexpr (Tuning::lookback_initial_delay_ns > 0) {
      if (large_grid && initial_delay) __nanosleep(Tuning::lookback_initial_delay_ns);
    }
    max_ns_ = large_grid ? Tuning::lookback_max_sleep_ns : Tuning::lookback_small_max_sleep_ns;
    next_ns_ = large_grid ? Tuning::lookback_first_sleep_ns : Tuning::lookback_small_first_sleep_ns;
  }
  /// After a poll that found a needed predecessor still empty.
  __device__ __forceinline__ void wait() {
    if (next_ns_ > 0) {
      __nanosleep(next_ns_);
      next_ns_ = next_ns_ * 2 < max_ns_ ? next_ns_ * 2 : max_ns_;
    }
  }

 private:
  unsigned next_ns_, max_ns_;
};

}  // namespace algo::detail::cuda
