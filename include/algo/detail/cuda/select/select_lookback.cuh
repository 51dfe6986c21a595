// algo::cuda's selection: one single-pass kernel (decoupled look-back over the selected counts),
// one launch, the input read once and each output element written once.
//
//   ticket     a block draws its tile index from the tile state's counter (tiles start in index
//              order, as in the scans: a tile only waits on tiles already running);
//   load       the tile's values (select_tile.cuh): whole warps of 4-byte values from an aligned
//              pointer with 16-byte loads (the vector layout), others warp-striped;
//   flag       the selector's flags (select_tile.cuh), and each warp's count (one warp reduction);
//   scan       the block scan (block/, the policy's block scan and warp phase) of the warp counts;
//              in its spine, warp 0 hands the tile's count to the look-back (scan/decoupled_lookback.cuh,
//              the scans' own look_back over lookback/tile_state.cuh), which publishes it and
//              returns the number selected in every earlier tile;
//   scatter    each warp writes its selected items from its offset (select_tile.cuh), row by row
//              from the registers (select_tile::scatter); staging them in shared memory first
//              (select_tile::scatter_staged, ALGO_SELECT_STAGED=1) measured slower (select_config.cuh);
//   count      the last tile's last warp writes the total to the count output.
//
// In place (the output is the input, or may overlap it): a tile writes only positions below its
// own end, and only after its look-back has found every earlier tile's count, which each tile
// publishes after it has read its own input: so no element is overwritten before it is read. The
// loads feed the flags (or, for the values, the scatter), so each thread fences its loads before
// the block scan (`in_place`: __threadfence) so that they are complete before warp 0 publishes.
// No temporary, no second pass (Thrust's and CUB's in-place forms copy the input first).
// partition's in-place form is not this: its rejected elements go to the end (select.cuh copies).
//
// Counts run in int when the input has at most INT_MAX elements (the packed 8-byte tile status),
// in long long above.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../../error.hpp"
#include "../../../functional.hpp"
#include "../../../policy.hpp"
#include "../block/block_scan_select.cuh"
#include "../lookback/tile_state.cuh"
#include "../runtime.cuh"
#include "../scan/decoupled_lookback.cuh"
#include "select_config.cuh"
#include "select_tile.cuh"

namespace algo::detail::cuda {

/// A selection as the kernel sees it (by value). Iterators are raw pointers for contiguous device
/// storage (unwrap()); out_false is select::no_output unless the call partitions; count receives
/// the number selected (a pointer or an output iterator).
template <class InIt, class Sel, class OutT, class OutF, class CountIt>
struct select_problem {
  InIt in;
  Sel sel;
  std::int64_t n;
  OutT out_true;
  OutF out_false;
  CountIt count;
  bool in_place;
  const char* name;  // for errors (host only)
  bool aligned;      // `in` is a pointer to 16-byte aligned storage (the vector layout may read it)
};

template <class Problem, class Offset, class Phase, class Block>
struct select_traits {
  using value_t = iter_value_t<decltype(std::declval<Problem>().in)>;
  using offset_t = Offset;
  using tuning = select_tuning<value_t>;
  static constexpr int threads = tuning::threads;
  static constexpr int items = tuning::items;
  static constexpr int tile_items = tuning::tile_items;
  static constexpr int warps = threads / 32;
  using block_scan_t = block_scan_for<Block, Offset, threads, Phase>;
  using state_t = tile_state_for<Offset, tuning::tile_state_spread>;
  /// Staging of the selected values (no out_false: copy_if, unique, unique_by_key, ...).
  static constexpr int stage_rows =
      select::has_output_v<std::remove_const_t<decltype(std::declval<Problem>().out_false)>> || !tuning::stage_selection
          ? 0
          : tuning::stage_rows;
  static constexpr int stage_values = stage_rows > 0 ? stage_rows * 32 : 1;  // per warp
  struct temp_storage {
    typename block_scan_t::temp_storage scan;
    alignas(value_t) unsigned char stage[stage_rows > 0 ? warps * stage_values * sizeof(value_t) : 1];
    int ticket;
  };
  using in_t = std::remove_const_t<decltype(std::declval<Problem>().in)>;
  using sel_t = std::remove_const_t<decltype(std::declval<Problem>().sel)>;
  /// Whole warps in the vector layout (select_tile.cuh) when the input is aligned (p.aligned): for
  /// unique's heads only. Measured (H100, 2^26 / 2^28 i32, same run): unique 1.167x / 1.183x CUB
  /// against 1.069x / 1.088x striped (one shuffle per four items instead of one per item); copy_if
  /// 1 % 1.21x / 1.24x against 1.20x / 1.23x, but 50 % 1.09x / 1.11x against 1.16x / 1.25x, 99 %
  /// 0.90x / 0.91x against 1.24x / 1.25x and partition_copy 0.77x against 1.16x: a lane's kept items
  /// go to consecutive addresses, so each store instruction spreads over four times the lines of
  /// the striped rows' stores once most items are kept.
  static constexpr bool vector = tuning::vector && stage_rows == 0 && std::is_pointer<in_t>::value &&
                                 sel_t::kind == select::kind::heads;
  static std::int64_t tiles(std::int64_t n) { return (n + tile_items - 1) / tile_items; }
};

template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) select_lookback_kernel(Problem p, typename K::state_t state,
                                                                     unsigned epoch, int num_tiles) {
  using Offset = typename K::offset_t;
  using V = typename K::value_t;
  constexpr int items = K::items;
  __shared__ typename K::temp_storage s;
  const int warp = warp_index();
  const int lane = lane_index();

  // ---- ticket ----------------------------------------------------------------------------------------
  const int tile = select_tile::ticket(state, num_tiles, s.ticket);

  // ---- load, flag ------------------------------------------------------------------------------------
  const std::int64_t w0 = static_cast<std::int64_t>(tile) * K::tile_items + static_cast<std::int64_t>(warp) * 32 * items;
  const std::int64_t rest = p.n - w0;
  const int valid = rest <= 0 ? 0 : rest >= 32 * items ? 32 * items : static_cast<int>(rest);
  V x[items];
  unsigned bits;
  const bool vec = K::vector && p.aligned && valid == 32 * items;  // the same in every lane of the warp
  if constexpr (K::vector) {
    if (vec) {
      select_tile::load_vec<items>(p.in, w0, x);
      bits = select_tile::flags_vec<items>(p.sel, p.in, w0, x);
    } else {
      select_tile::load<items>(p.in, w0, valid, x);
      bits = select_tile::flags<items>(p.sel, p.in, w0, valid, x);
    }
  } else {
    select_tile::load<items>(p.in, w0, valid, x);
    bits = select_tile::flags<items>(p.sel, p.in, w0, valid, x);
  }
  const Offset count = static_cast<Offset>(select_tile::warp_count<items>(bits));
  if (p.in_place) __threadfence();  // every load of the tile complete before warp 0 publishes

  // ---- scan: warp counts, after the tile's look-back prefix --------------------------------------------
  const plus<Offset> add{};
  Offset warp_offset;
  typename K::block_scan_t(s.scan).exclusive_scan(lane == 0 ? count : Offset(0), warp_offset, add,
                                                  [&](const Offset& aggregate) {
                                                    if (num_tiles == 1) return some(Offset(0));
                                                    return look_back<typename K::tuning>(state, epoch, tile, aggregate,
                                                                                         some(Offset(0)), add);
                                                  });
  warp_offset = shfl_idx(warp_offset, 0);  // lane 0's: the number selected before the warp

  // ---- scatter, count -----------------------------------------------------------------------------------
  if constexpr (K::stage_rows > 0) {
    V* stage = reinterpret_cast<V*>(s.stage) + warp * K::stage_values;
    select_tile::scatter_staged<items, K::stage_rows>(bits, warp_offset, x, p.out_true, stage);
  } else {
    if (vec) select_tile::scatter_vec<items>(bits, warp_offset, w0, x, p.out_true, p.out_false);
    else select_tile::scatter<items>(bits, warp_offset, w0, valid, x, p.out_true, p.out_false);
  }
  if (tile == num_tiles - 1 && warp == K::warps - 1 && lane == 0) *p.count = warp_offset + count;
}

/// Launches a selection-family look-back kernel (traits K) over p.n >= 1 elements: one block per
/// tile; a single tile needs no tile state, more take theirs from the pool (with_tile_state).
template <class K, class Problem, class Kernel>
void launch_select_tiles(const device_policy_base& policy, const Problem& p, Kernel kernel, const char* kernel_name) {
  using State = typename K::state_t;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles > 0x7fffffff) fail(p.name, "too many elements for one pass (" + std::to_string(p.n) + ")");
  if (tiles == 1) {
    kernel<<<1, K::threads, 0, policy.stream>>>(p, State{}, 0u, 1);
    check_launch(p.name, kernel_name);
    return;
  }
  const auto launch = [&](void* memory, unsigned epoch) {
    kernel<<<static_cast<unsigned>(tiles), K::threads, 0, policy.stream>>>(p, State::at(memory, tiles), epoch,
                                                                          static_cast<int>(tiles));
    check_launch(p.name, kernel_name);
  };
  with_tile_state(p.name, State::bytes(tiles), State::layout_key(tiles), policy.stream, policy.resource, launch);
}

/// Runs the selection (n >= 1) with counts in Offset.
template <class Offset, class Phase, class Block, class Problem>
void run_select(const device_policy_base& policy, const Problem& p) {
  using K = select_traits<Problem, Offset, Phase, Block>;
  launch_select_tiles<K>(policy, p, select_lookback_kernel<K, Problem>, "select_lookback_kernel");
}

}  // namespace algo::detail::cuda
