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
// ALGO_SELECT_STAGED: 1 stages every kernel's stores in shared memory, 0 none, -1 (default) only
// run_length_encode's (measured, H100, 2^26 and 2^28 i32: staging cost copy_if 3-4 % at 1, 50 and
// 99 % kept and the 16-byte struct 3 %, left unique within 1.5 %, and gained run_length_encode,
// whose heads write a value and a length each, 1.5-2 %; bench/notes/select.md)
// ALGO_SELECT_VECTOR=0: whole warps read 4-byte values with 4-byte loads too (select_tile's striped
// layout) instead of 16-byte ones (its vector layout).
#ifndef ALGO_SELECT_VECTOR
#  define ALGO_SELECT_VECTOR 1
#endif
#ifndef ALGO_SELECT_STAGED
#  define ALGO_SELECT_STAGED -1
#endif

template <class V, class Base = scan_tuning_base>
struct select_tuning : Base {
  static constexpr int items = ALGO_SELECT_ITEMS > 0 ? ALGO_SELECT_ITEMS : tuning_detail::base_items(sizeof(V));
  static constexpr int threads = ALGO_SELECT_THREADS > 0 ? ALGO_SELECT_THREADS : sizeof(V) <= 8 ? 256 : 128;
  static_assert(items >= 1 && items <= 32, "select_tuning: one flag bit per item, 32 at most");
  /// Item rows staged in shared memory at a time before the selected values are written
  /// (select_tile::scatter_staged; 0: never). Values that are not trivially copyable are never
  /// staged (shared memory holds no constructed objects).
  static constexpr int stage_rows = !std::is_trivially_copyable<V>::value ? 0 : items < 8 ? items : 8;
  /// Whether the selection kernel (select_lookback.cuh) and the run-length kernel
  /// (run_length_lookback.cuh) stage their stores.
  static constexpr bool stage_selection = ALGO_SELECT_STAGED == 1;
  static constexpr bool stage_runs = ALGO_SELECT_STAGED != 0;
  /// Whole warps of 4-byte values read through an aligned pointer in the vector layout
  /// (select_tile::load_vec: 16-byte loads); by value and heads selectors (a stencil keeps the
  /// striped layout).
  static constexpr bool vector = ALGO_SELECT_VECTOR != 0 && sizeof(V) == 4 && items % 4 == 0 &&
                                 std::is_trivially_copyable<V>::value;
  static constexpr int tile_items = threads * items;
  /// One window of 32 predecessors per poll (the scans' default, scan_tuning::windows).
  static constexpr int windows = Base::lookback_windows > 0 ? Base::lookback_windows : 1;
};

}  // namespace algo::detail::cuda
