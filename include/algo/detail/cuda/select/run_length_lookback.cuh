// algo::cuda's run_length_encode: the selection of run heads (select_lookback.cuh's kernel shape)
// in one pass, where each head also writes the length of the run before it. What flows through the
// block scan and the look-back is not just the number of heads but the pair
//
//   run_carry{runs, last}: the number of heads so far and the index of the last of them (-1: none)
//   (a ⊕ b) = {a.runs + b.runs, b.runs > 0 ? b.last : a.last}      (associative; identity {0, -1})
//
// so every head finds the index of the head before it, whichever tile holds that one, and writes
// counts[r - 1] = its index - that index. The last run's length (n - the last head) is written by
// the last tile, with the number of runs.
//
//   ticket     the block's tile (select_tile::ticket);
//   load       the tile's values, warp-striped (select_tile::load);
//   flag       the head flags (select_tile::flags over heads<Eq>);
//   carry      each warp's run_carry: its number of heads (one warp reduction) and the index of its
//              last head (one warp max of each lane's last head);
//   scan       the block scan of the warp carries (the policy's block scan), whose spine hands the
//              tile's carry to the scans' look-back (scan/decoupled_lookback.cuh): 8-byte pairs
//              (int counts) in the packed 16-byte tile status, 16-byte pairs above INT_MAX;
//   scatter    per item row, a ballot of the head flags: a head's rank among the warp's heads (popc
//              of the lanes below) and its previous head (the highest lane below it in the row, else
//              the last head of the rows before, else the warp's carry): the value to unique_out[r],
//              the previous run's length to counts_out[r - 1]; staged in shared memory a few rows
//              at a time and written 32 consecutive values per store, as the selection's;
//   close      the last tile's last warp: the number of runs, and the last run's length.
//
// In place (unique_out over the input): as the selection (select_lookback.cuh), a tile writes only
// below its own end and only after every earlier tile has read its input; each thread fences its
// loads before the block scan.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "../../../error.hpp"
#include "../../../policy.hpp"
#include "../block/block_scan_select.cuh"
#include "../lookback/tile_state.cuh"
#include "../runtime.cuh"
#include "../scan/decoupled_lookback.cuh"
#include "select_config.cuh"
#include "select_lookback.cuh"
#include "select_tile.cuh"

namespace algo::detail::cuda {

/// The number of run heads so far and the index of the last of them (-1: none yet).
template <class Offset>
struct run_carry {
  Offset runs;
  Offset last;
};
struct run_carry_op {
  template <class Offset>
  __host__ __device__ __forceinline__ run_carry<Offset> operator()(const run_carry<Offset>& a,
                                                                   const run_carry<Offset>& b) const {
    return {a.runs + b.runs, b.runs > 0 ? b.last : a.last};
  }
};

/// A run-length encoding as the kernel sees it. Count is the type the lengths are written as.
template <class InIt, class Sel, class UniqueOut, class CountOut, class Count, class RunsIt>
struct rle_problem {
  InIt in;
  Sel sel;  // select::heads<Eq>
  std::int64_t n;
  UniqueOut unique_out;
  CountOut counts_out;
  RunsIt runs;
  bool in_place;
  const char* name;  // for errors (host only)
  using count_t = Count;
};

template <class Problem, class Offset, class Phase, class Block>
struct rle_traits {
  using value_t = iter_value_t<decltype(std::declval<Problem>().in)>;
  using offset_t = Offset;
  using carry_t = run_carry<Offset>;
  using tuning = select_tuning<value_t>;
  static constexpr int threads = tuning::threads;
  static constexpr int items = tuning::items;
  static constexpr int tile_items = tuning::tile_items;
  static constexpr int warps = threads / 32;
  using block_scan_t = block_scan_for<Block, carry_t, threads, Phase>;
  using state_t = tile_state_for<carry_t, tuning::tile_state_spread>;
  using count_t = typename Problem::count_t;
  static constexpr int stage_rows = tuning::stage_runs ? tuning::stage_rows : 0;  // 0: from the registers
  static constexpr int stage_values = stage_rows * 32 + 1;  // per warp
  struct temp_storage {
    typename block_scan_t::temp_storage scan;
    alignas(value_t) unsigned char values[stage_rows > 0 ? warps * stage_values * sizeof(value_t) : 1];
    alignas(count_t) unsigned char counts[stage_rows > 0 ? warps * stage_values * sizeof(count_t) : 1];
    int ticket;
  };
  static std::int64_t tiles(std::int64_t n) { return (n + tile_items - 1) / tile_items; }
};

template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) rle_lookback_kernel(Problem p, typename K::state_t state, unsigned epoch,
                                                                  int num_tiles) {
  using Offset = typename K::offset_t;
  using Carry = typename K::carry_t;
  using Count = typename Problem::count_t;
  using V = typename K::value_t;
  constexpr int items = K::items;
  __shared__ typename K::temp_storage s;
  const int warp = warp_index();
  const int lane = lane_index();

  // ---- ticket, load, flag ---------------------------------------------------------------------------
  const int tile = select_tile::ticket(state, num_tiles, s.ticket);
  const std::int64_t w0 = static_cast<std::int64_t>(tile) * K::tile_items + static_cast<std::int64_t>(warp) * 32 * items;
  const std::int64_t rest = p.n - w0;
  const int valid = rest <= 0 ? 0 : rest >= 32 * items ? 32 * items : static_cast<int>(rest);
  V x[items];
  select_tile::load<items>(p.in, w0, valid, x);
  const unsigned bits = select_tile::flags<items>(p.sel, p.in, w0, valid, x);

  // ---- carry: the warp's heads and its last head -------------------------------------------------------
  // a lane's last head is its highest item row with a head; item (j, lane) is w0 + 32 j + lane
  const unsigned mine = bits ? static_cast<unsigned>((31 - __clz(bits)) * 32 + lane) + 1u : 0u;
  const Offset heads = static_cast<Offset>(select_tile::warp_count<items>(bits));
  const unsigned last = select_tile::warp_max(mine);
  const Carry warp_carry{heads, heads > 0 ? static_cast<Offset>(w0 + static_cast<std::int64_t>(last) - 1) : Offset(-1)};
  if (p.in_place) __threadfence();  // every load of the tile complete before warp 0 publishes

  // ---- scan: warp carries, after the tile's look-back prefix ---------------------------------------------
  const run_carry_op op{};
  const Carry none{Offset(0), Offset(-1)};
  Carry before;
  typename K::block_scan_t(s.scan).exclusive_scan(lane == 0 ? warp_carry : none, before, op,
                                                  [&](const Carry& aggregate) {
                                                    if (num_tiles == 1) return some(none);
                                                    return look_back<typename K::tuning>(state, epoch, tile, aggregate,
                                                                                         some(none), op);
                                                  });
  before.runs = shfl_idx(before.runs, 0);  // lane 0's: the heads before the warp, the last of them
  before.last = shfl_idx(before.last, 0);

  // ---- scatter: values at their ranks, each previous run's length ----------------------------------------
  const unsigned below = select_tile::lanes_below();
  Offset rank = before.runs;  // heads before the current row
  Offset prev = before.last;  // the last head before the current row
  if constexpr (K::stage_rows > 0) {
    // staged: K::stage_rows rows at a time, the heads' values and lengths compacted in shared
    // memory, then written 32 consecutive at a time (counts shifted by one: a head writes the
    // length of the run before it)
    V* sv = reinterpret_cast<V*>(s.values) + warp * K::stage_values;
    Count* sc = reinterpret_cast<Count*>(s.counts) + warp * K::stage_values;
#pragma unroll
    for (int c = 0; c < items; c += K::stage_rows) {
      int kept = 0;
#pragma unroll
      for (int j = c; j < c + K::stage_rows && j < items; ++j) {
        const unsigned row = __ballot_sync(full_warp_mask, (bits >> j) & 1u);
        const std::int64_t row0 = w0 + j * 32;
        if ((bits >> j) & 1u) {
          const int q = kept + __popc(row & below);
          const unsigned lower = row & below;
          const Offset p_head = lower ? static_cast<Offset>(row0 + 31 - __clz(lower)) : prev;
          sv[q] = x[j];
          sc[q] = static_cast<Count>(static_cast<Offset>(row0 + lane) - p_head);
        }
        if (row) prev = static_cast<Offset>(row0 + 31 - __clz(row));
        kept += __popc(row);
      }
      __syncwarp();
      for (int k = lane; k < kept; k += 32) {
        const Offset r = rank + static_cast<Offset>(k);
        p.unique_out[r] = sv[k];
        if (r > 0) p.counts_out[r - 1] = sc[k];
      }
      __syncwarp();
      rank += static_cast<Offset>(kept);
    }
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const unsigned row = __ballot_sync(full_warp_mask, (bits >> j) & 1u);
      const std::int64_t row0 = w0 + j * 32;
      if ((bits >> j) & 1u) {
        const Offset r = rank + static_cast<Offset>(__popc(row & below));
        const unsigned lower = row & below;
        const Offset p_head = lower ? static_cast<Offset>(row0 + 31 - __clz(lower)) : prev;
        p.unique_out[r] = x[j];
        if (r > 0) p.counts_out[r - 1] = static_cast<Count>(static_cast<Offset>(row0 + lane) - p_head);
      }
      if (row) prev = static_cast<Offset>(row0 + 31 - __clz(row));
      rank += static_cast<Offset>(__popc(row));
    }
  }

  // ---- close: the number of runs, the last run's length --------------------------------------------------
  if (tile == num_tiles - 1 && warp == K::warps - 1 && lane == 0) {
    const Carry total = op(before, warp_carry);
    *p.runs = static_cast<long long>(total.runs);
    p.counts_out[total.runs - 1] = static_cast<Count>(static_cast<Offset>(p.n) - total.last);
  }
}

/// Runs the encoding (n >= 1) with counts and indices in Offset.
template <class Offset, class Phase, class Block, class Problem>
void run_rle(const device_policy_base& policy, const Problem& p) {
  using K = rle_traits<Problem, Offset, Phase, Block>;
  launch_select_tiles<K>(policy, p, rle_lookback_kernel<K, Problem>, "rle_lookback_kernel");
}

}  // namespace algo::detail::cuda
