// Tuning of algo::cuda's selection kernel (select_lookback.cuh), in one place. A tile is
// threads x items elements; the look-back's polling and tile state are the scans' (scan_config.cuh:
// scan_tuning_base), since the selection publishes its counts through the same look-back.
//
// Items per thread follow the scans' rule (about 128 bytes of values in flight per thread: 32 items
// of <= 4 bytes, 16 of 8, 8 of 16, ...); 256 threads for values of at most 8 bytes, 128 above.
// Not measured yet (issue 29's bench): first guesses from the scans' tunings.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../scan/scan_config.cuh"

namespace algo::detail::cuda {

// Tuning experiments (bench builds only): ALGO_SELECT_ITEMS / ALGO_SELECT_THREADS override the
// items per thread (at most 32: one flag bit each) and the threads of every selection kernel.
#ifndef ALGO_SELECT_ITEMS
#  define ALGO_SELECT_ITEMS 0
#endif
#ifndef ALGO_SELECT_THREADS
#  define ALGO_SELECT_THREADS 0
#endif
#ifndef ALGO_SELECT_STAGED  // 0: every store straight from the registers (select_tile::scatter)
#  define ALGO_SELECT_STAGED 1
#endif

template <class V, class Base = scan_tuning_base>
struct select_tuning : Base {
  static constexpr int items = ALGO_SELECT_ITEMS > 0 ? ALGO_SELECT_ITEMS : tuning_detail::base_items(sizeof(V));
  static constexpr int threads = ALGO_SELECT_THREADS > 0 ? ALGO_SELECT_THREADS : sizeof(V) <= 8 ? 256 : 128;
  static_assert(items >= 1 && items <= 32, "select_tuning: one flag bit per item, 32 at most");
  /// Item rows staged in shared memory at a time before the selected values are written
  /// (select_tile::scatter_staged; 0: no staging). Values that are not trivially copyable are
  /// never staged (shared memory holds no constructed objects).
  static constexpr int stage_rows = !ALGO_SELECT_STAGED || !std::is_trivially_copyable<V>::value ? 0
                                    : items < 8                                                 ? items
                                                                                                : 8;
  static constexpr int tile_items = threads * items;
  /// One window of 32 predecessors per poll (the scans' default, scan_tuning::windows).
  static constexpr int windows = Base::lookback_windows > 0 ? Base::lookback_windows : 1;
};

}  // namespace algo::detail::cuda
