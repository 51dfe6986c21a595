// Tuning of algo::cuda's selection kernel (select_lookback.cuh), in one place. A tile is
// threads x items elements; the look-back's polling and tile state are the scans' (scan_config.cuh:
// scan_tuning_base), since the selection publishes its counts through the same look-back.
//
// Items per thread follow the scans' rule (about 128 bytes of values in flight per thread: 32 items
// of <= 4 bytes, 16 of 8, 8 of 16, ...); 256 threads for values of at most 8 bytes, 128 above.
// Not measured yet (issue 29's bench): first guesses from the scans' tunings.
#pragma once

#include <cstddef>

#include "../scan/scan_config.cuh"

namespace algo::detail::cuda {

template <class V, class Base = scan_tuning_base>
struct select_tuning : Base {
  static constexpr int items = tuning_detail::base_items(sizeof(V));
  static constexpr int threads = sizeof(V) <= 8 ? 256 : 128;
  static constexpr int tile_items = threads * items;
  /// One window of 32 predecessors per poll (the scans' default, scan_tuning::windows).
  static constexpr int windows = Base::lookback_windows > 0 ? Base::lookback_windows : 1;
};

}  // namespace algo::detail::cuda
