// Strategy 6: single-pass scan, bitwise reproducible run to run, with the classic look-back's
// waiting: the decoupled look-back (decoupled_lookback.cuh) with every fold across tiles a strict
// left fold, in tile order.
//
// ---- what every tile computes (a fixed function of the input) ---------------------------------------
//   A(u)  aggregate of tile u (the block scan's fixed shape);
//   I(u)  inclusive prefix of tile u:  I(u) = (...((init op A(0)) op A(1)) op ...) op A(u)
//         (absent init: A(0) first): the left fold of the aggregates, one operand at a time;
//   E(t)  exclusive prefix of tile t: I(t - 1) (E(0) = init).
// A left fold can be resumed from any of its partial results: I(t - 1) = I(k) op A(k + 1) op ... op
// A(t - 1), folded left to right, is the same expression, bit for bit, whatever k is. So a tile may
// start from the nearest inclusive prefix that happens to be published, as the classic look-back
// does, and the result does not depend on which one that was: timing picks k, never the grouping.
// (The classic look-back folds the aggregates after I(k) as a tree, a warp suffix scan, and joins
// windows right to left: the grouping there depends on k, hence its run-to-run differences.)
// The fixed-anchor look-back (deterministic_lookback.cuh) gets a fixed grouping by anchoring every
// tile at I(t - 32): a tile must reach the anchor of its own residue, not just any inclusive prefix.
//
// ---- how tile t gets there (warp 0, after its aggregate) --------------------------------------------
//   publish  A(t) at once;
//   find     as the classic look-back: read the status of the 32 preceding tiles (lane 31 the
//            nearest); wait while a tile above the nearest inclusive prefix k has published
//            nothing; when the window holds no inclusive prefix, step back 32 tiles. Operators
//            that restart at some operands (scan_tile.cuh, ordered_reset: the lifted segmented
//            operator at a head) start the fold at the newest such aggregate above k instead, and
//            a scan by key stops walking there: no inclusive prefix needed at all (reduce_by_key
//            still walks to one for its run count, an integer sum, exact in any order; its tiles
//            that need no value walk for the count alone: ordered_count_walk below);
//   fold     x = the start's value; then the aggregates above it one at a time, in order: each
//            lane puts its window value in shared memory and every lane folds the same values
//            sequentially (broadcast reads). The newest walked windows stay in shared memory
//            (ordered_tuning_base::ordered_kept_windows of them); older ones are read again, and a
//            tile that has published its inclusive prefix since restarts the fold from it (the
//            same value by the identity above). With a resetting operator no aggregate after the
//            start holds a head (the start is the newest one), so the fold applies op's branch
//            for such operands directly (ordered_reset::no_reset: the same operation, the same
//            bits), without the head test after every step;
//   publish  I(t) = x op A(t); E(t) = x. (Tests: scan_tuning_base::test_inclusive_every leaves all
//            but every K-th tile at their aggregate, forcing the deep walks the fold's windows
//            read again and restarts serve; no code in the default tunings.)
// What this costs over the classic look-back: the dependent applications of op from the start on,
// on warp 0's critical path, where the classic one does a 5-step suffix scan: none when the nearest
// predecessor has published its prefix or holds a head (short segments), up to the walk's length
// where long runs without a head meet a late inclusive prefix.
//
// ---- correctness -------------------------------------------------------------------------------------
// Values: by induction on t, every published I(u) is the left fold above (tile 0 publishes init op
// A(0); tile t folds the left fold I(k) one aggregate at a time), so E(t) and I(t) are fixed by the
// input, for any associative operator and any op whose result depends only on its operands (IEEE
// arithmetic as nvcc emits it; a custom operator whose inlined copies could contract a*b+c
// differently would need -fmad=false, as for the fixed-anchor look-back). Operands are never
// reordered: non-commutative operators keep their order. Memory ordering, epochs, the ticket and
// forward progress: as the classic look-back (same tile state, same waits: a tile waits only on
// tiles below it, which all finish by induction on the tile index).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "../../../error.hpp"
#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "../thread/shuffle.cuh"
#include "../warp/warp_reduce.cuh"
#include "scan_tile.cuh"
#include "deterministic_lookback.cuh"
#include "../lookback/backoff.cuh"
#include "../lookback/tile_state.cuh"

namespace algo::detail::cuda {

/// The ordered look-back runs with the fixed-anchor look-back's tile shapes (stashed items, the
/// keyed pairs' 256-thread tiles): what it changes is only the look-back.
struct ordered_tuning_base : deterministic_tuning_base {
  /// Windows whose values warp 0 keeps in shared memory while it walks back (older ones are read
  /// again from the tile state for the fold, one L2 round trip each on the tile's critical path;
  /// 0: every walked window but the last is read again, which tests use to reach that path).
  /// 8 (256 tiles; 2.3 KB a block for 8-byte values, was 2: 0.75 KB): reduce_by_key's 4096-pair
  /// tiles start ~60 per us and, where no head stops the fold (long runs), walk to an inclusive
  /// prefix that trails by some 60-200 tiles; with 2 kept windows such a walk read 1-4 windows
  /// again before its fold (keys_segments.md, 2026-11-27).
  /// At most: accumulators wider than 8 bytes keep what fits 2.3 KB, at least 2 (ordered_keep).
  static constexpr int ordered_kept_windows = 8;
  /// reduce_by_key: warps of many runs write them staged (scan_config.cuh, staged_run_store).
  static constexpr bool staged_run_store = true;
  /// ... and the warps that write in place keep the keys and the scanned counts in registers
  /// (scan_config.cuh, inplace_runs), as the classic kernel does: 64 registers with the staged
  /// path beside it, since the warp chooses from the counts before either path reads its keys.
  static constexpr int inplace_runs = 1;
  /// reduce_by_key: tiles without a head whose stores read no value of their exclusive prefix walk
  /// for its count alone (ordered_count_walk, below), where the tile state has a side word for it.
  static constexpr bool count_walk = true;
  /// ... except those whose index is a multiple of this (0: none), which fold and publish their
  /// inclusive prefix as before, so that a walk for a value (or for a tile with a head, for its
  /// count) finds one within this many tiles of the frontier: with every head-less tile count-only,
  /// the tiles after a long run walked back to its start (up to 256 tiles at the bench's power-law
  /// runs: 3.8 % slower there; H100, keys_segments.md, 2026-11-28).
  static constexpr int count_walk_fold_every = 32;
  /// A test knob (ordered_count_walk): when true, lane 0 of every tile that walks for its count alone
  /// calls Tuning::count_walk_record(tile, count), count = E(tile)'s run count as the walk found it
  /// (test_cuda_scan_ordered_walks: the tiles that take the path, and their counts, against the
  /// host's). false: no code.
  static constexpr bool count_walk_stats = false;
};

/// The windows kept for Acc: Tuning::ordered_kept_windows, or fewer where their slots (one more
/// for the window read again) would pass 2304 bytes, but never fewer than 2 (the number kept
/// before 2026-11-27) unless the tuning asks for fewer.
template <class Tuning, class Acc>
__host__ __device__ constexpr int ordered_keep() {  // (device too: no --expt-relaxed-constexpr needed)
  constexpr int fits = static_cast<int>(2304 / (32 * sizeof(Acc))) - 1;
  constexpr int most = fits > 2 ? fits : 2;
  return Tuning::ordered_kept_windows < most ? Tuning::ordered_kept_windows : most;
}

/// Shared memory of the ordered fold (warp 0): the walked windows' values (the last slot: the
/// window being folded when it is not kept), read by every lane in order.
template <class Acc, int Keep>
struct ordered_storage {
  uninitialized<Acc> value[Keep + 1][32];
};

/// x op v[from] op ... op v[31], left to right (every lane the same; `vals` written by the warp
/// before a __syncwarp()).
template <class Acc, class Op>
__device__ __forceinline__ Acc fold_in_order(Acc x, int from, uninitialized<Acc> (&vals)[32], Op op) {
#pragma unroll 4
  for (int l = from; l < 32; ++l) x = op(x, vals[l].get());
  return x;
}

/// The same fold where no operand resets it (Reset::enabled: every aggregate after the fold's
/// start holds no head, see ordered_look_back): Reset::no_reset(op, x, v) is op(x, v) for such a v,
/// the same operation on the same operands (so the same bits). It reads only the values (4-byte
/// loads for float pairs) and tests no head, so 16 loads go out before the chain of 16 dependent
/// adds (sm_90 SASS of reduce_by_key f32: 16 LDS + 16 FADD a step; the general fold did 4 LDS.64,
/// 4 ISETP and 4 predicated FADD a step, one shared-memory latency every 4 adds).
template <class Reset, class Acc, class Op>
__device__ __forceinline__ Acc fold_after_start(Acc x, int from, uninitialized<Acc> (&vals)[32], Op op) {
  if constexpr (Reset::enabled) {
#pragma unroll 16
    for (int l = from; l < 32; ++l) x = Reset::no_reset(op, x, vals[l].get());
    return x;
  } else {
    return fold_in_order(x, from, vals, op);
  }
}

// ---- the look-back (warp 0 of a tile, all 32 lanes) -----------------------------------------------------
/// Publishes A(tile) and I(tile) and returns E(tile) (all lanes); see the top of this file.
template <class Tuning, class State, class Acc, class Op>
__device__ __forceinline__ maybe_value<Acc> ordered_look_back(State& state, unsigned epoch, int tile, const Acc& aggregate,
                                                        const maybe_value<Acc>& init, Op op,
                                                        ordered_storage<Acc, ordered_keep<Tuning, Acc>()>& kept) {
  using Reset = ordered_reset<Op, Acc>;
  constexpr int keep = ordered_keep<Tuning, Acc>();
  static_assert(keep >= 0, "");
  const int lane = lane_index();
  if (tile == 0) {
    if (lane == 0) state.publish(0, tile_inclusive, combine(init, aggregate, op), epoch);
    return init;
  }
  if (lane == 0) state.publish(tile, tile_aggregate, aggregate, epoch);
  [[maybe_unused]] long long stats_start = 0;
  [[maybe_unused]] int stats_polls = 0, stats_sleeps = 0, stats_windows = 0, stats_restarts = 0;
  if constexpr (Tuning::lookback_stats) stats_start = clock64();
  lookback_backoff<Tuning> backoff;

  // ---- find: walk back to where the fold starts ------------------------------------------------------------
  // Window w covers tiles tile - 32 (w + 1) .. tile - 32 w - 1 (lane 31 the newest). The fold starts
  // at the newest inclusive prefix, or (Reset) at the newest reset above it; every tile above the
  // start must have published. Without counts a reset ends the walk; with counts the walk goes on
  // to an inclusive prefix, summing the counts of the tiles above it.
  Acc v{};
  int w = 0;
  int k;                       // lane of the inclusive prefix in window w, -1 when none
  int start_w = -1, start = -1;  // where the fold starts: window and lane
  long long counted = 0;       // (counts) the counts of the walked tiles above the inclusive prefix
  for (;; ++w) {
    const int pred = tile - 32 * (w + 1) + lane;
    if constexpr (Tuning::lookback_stats) ++stats_windows;
    unsigned status;
    unsigned resets = 0;  // lanes holding an aggregate that resets the fold
    while (true) {
      if constexpr (Tuning::lookback_stats) ++stats_polls;
      status = pred >= 0 ? state.load(pred, epoch, v) : static_cast<unsigned>(tile_before_first);
      const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, status == tile_inclusive);
      const unsigned empty_lanes = __ballot_sync(full_warp_mask, status == tile_empty);
      k = inclusive_lanes ? 31 - __clz(inclusive_lanes) : -1;
      int s = k;  // the lowest lane whose predecessors in the window are not needed
      if constexpr (Reset::enabled) {
        resets = __ballot_sync(full_warp_mask, status == tile_aggregate && Reset::reset(v));
        if constexpr (!Reset::counts) {
          if (resets && 31 - __clz(resets) > s) s = 31 - __clz(resets);
        }
      }
      const unsigned needed = s < 0 ? ~0u : s == 31 ? 0u : ~0u << (s + 1);  // the lanes above s
      if ((empty_lanes & needed) == 0) break;
      if constexpr (Tuning::lookback_stats) ++stats_sleeps;
      backoff.wait();
    }
    if (w < keep) kept.value[w][lane].get() = v;
    const unsigned above_k = k < 0 ? ~0u : k == 31 ? 0u : ~0u << (k + 1);
    if constexpr (Reset::enabled) {
      if (start_w < 0 && (resets & above_k)) {  // the newest reset above the inclusive prefix
        start_w = w;
        start = 31 - __clz(resets & above_k);
      }
    }
    if constexpr (Reset::counts) {
      const bool mine = ((above_k >> lane) & 1u) && status == tile_aggregate;
      counted += static_cast<long long>(warp_sum_u32(mine ? static_cast<unsigned>(Reset::count(v)) : 0u));
    }
    if (k >= 0 || (Reset::enabled && !Reset::counts && start_w >= 0)) break;
    // tile 0 publishes only its inclusive prefix: the window holding it ends the walk
  }
  if (start_w < 0) {  // no reset above the inclusive prefix: the fold starts there
    start_w = w;
    start = k;
  }

  // ---- fold: from the start, one value at a time, oldest first ---------------------------------------------
  // Window `w` (the last walked) is in v; windows below `keep` are kept; others are read again
  // (all published by now; a tile that has published its inclusive prefix since gives that, the
  // fold up to it bit for bit, so the fold may restart from it).
  [[maybe_unused]] long long total = 0;
  if constexpr (Reset::counts) total = static_cast<long long>(Reset::count(shfl_idx(v, k))) + counted;
  // window u's values in a slot of `kept`; `restart`: the newest lane that reads as an inclusive prefix
  // in a window read again (-1: none, or a kept window)
  const auto window_slot = [&](int u, int& restart) {
    restart = -1;
    if (u < keep) return u;
    Acc r = v;
    if (u != w) {
      const unsigned status = state.load(tile - 32 * (u + 1) + lane, epoch, r);
      const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, status == tile_inclusive);
      restart = inclusive_lanes ? 31 - __clz(inclusive_lanes) : -1;
    }
    __syncwarp();  // the slot's previous window is read by every lane by now
    kept.value[keep][lane].get() = r;
    return keep;
  };
  int restart;
  int slot = window_slot(start_w, restart);
  __syncwarp();
  // a start window read again may show a newer inclusive prefix above the start: the fold up to it
  const int from = restart > start ? restart : start;
  // every operand after the start holds no head (Reset): the fold's start is the newest reset above
  // the inclusive prefix, or that prefix when there is none; a restart is a newer inclusive prefix
  if constexpr (Tuning::lookback_restart_stats) stats_restarts += restart > start;
  Acc x = fold_after_start<Reset>(kept.value[slot][from].get(), from + 1, kept.value[slot], op);
  for (int u = start_w - 1; u >= 0; --u) {  // the newer windows, whole
    slot = window_slot(u, restart);
    __syncwarp();
    x = restart >= 0 ? fold_after_start<Reset>(kept.value[slot][restart].get(), restart + 1, kept.value[slot], op)
                     : fold_after_start<Reset>(x, 0, kept.value[slot], op);
    if constexpr (Tuning::lookback_restart_stats) stats_restarts += restart >= 0;
  }
  if constexpr (Reset::counts) x = Reset::with_count(x, total);
  __syncwarp();  // every lane's reads of kept are done before the next tile's warp 0 could reuse it
  // (tests: Tuning::test_inclusive_every > 0 leaves the other tiles at their aggregate)
  bool publish_inclusive = true;
  if constexpr (Tuning::test_inclusive_every > 0) publish_inclusive = tile % Tuning::test_inclusive_every == 0;
  if (lane == 0 && publish_inclusive) state.publish(tile, tile_inclusive, op(x, aggregate), epoch);
  if constexpr (Tuning::lookback_stats) {
    if (lane == 0) Tuning::lookback_record(stats_polls, stats_sleeps, stats_windows, clock64() - stats_start);
  }
  if constexpr (Tuning::lookback_restart_stats) {
    if (lane == 0) Tuning::lookback_record_restarts(stats_restarts);
  }
  return some(x);
}

// ---- count-only tiles (reduce_by_key) ----------------------------------------------------------------------
// A tile of reduce_by_key writes its exclusive prefix's value nowhere unless the run open when the
// tile starts ends in it; every tile needs the prefix's count (where its runs go), an integer sum,
// exact in any order. At long runs (2^20) nearly every tile holds no head and ends no run: the
// walk above still folded the value for each of them, to the newest inclusive prefix (3.9 us a
// tile against 2.9 at runs of 256, H100, keys_segments.md). Such a tile (no head, and
// prefix_value_use says no store reads the value) walks instead for the count alone:
//   publish  A(t) at once (status aggregate, as every tile);
//   find     the newest predecessor whose inclusive count is known: an inclusive prefix, or an
//            aggregate whose side word holds its inclusive count (the tile state's second word:
//            packed128_tile_state::publish_side, one 16-byte store of aggregate, tag and count);
//            wait while a tile above it has published nothing; step back 32 tiles while there is
//            none (tile 0 publishes its inclusive prefix: a walk ends there at the latest);
//   sum      its count plus the counts of the aggregates above it (a warp sum);
//   publish  A(t) again with the side word (the count + the bit 31): still an aggregate to every
//            other walk, so ordered_look_back's folds read what they read before, bit for bit, and
//            a later count-only tile may end its walk here.
// The tile itself then needs no prefix at all: it holds no head and ends no run (prefix_value_use),
// so it stores nothing (reduce_by_key writes a key at a head and a value at a run's end), and its
// scan runs without one (the kernel's callback returns none): its items are folded with each other
// only, as a sequential fold would fold them, never with a prefix value made up for them. Counts
// stay below 2^31: the side word exists only for accumulators of <= 8 bytes, whose run counts are
// int (n < 2^31, lifted.hpp). One head-less tile in Tuning::count_walk_fold_every folds as before
// (the kernel below), so that the walks that do fold a value, and those of tiles with a head, find
// an inclusive prefix within that many tiles.
template <class Tuning, class State, class Acc, class Op>
__device__ __forceinline__ void ordered_count_walk(State& state, unsigned epoch, int tile, const Acc& aggregate, Op) {
  using Reset = ordered_reset<Op, Acc>;
  static_assert(Reset::counts && State::side_word, "");
  static_assert(sizeof(decltype(Reset::count(aggregate))) <= 4, "run counts of 32 bits: they fit the side word");
  constexpr unsigned known = 0x80000000u;  // the side word's flag: an inclusive count below it
  const int lane = lane_index();
  [[maybe_unused]] long long stats_start = 0;
  [[maybe_unused]] int stats_polls = 0, stats_sleeps = 0, stats_windows = 0;
  if constexpr (Tuning::lookback_stats) stats_start = clock64();
  lookback_backoff<Tuning> backoff;
  unsigned counted = 0;  // the counts of the walked aggregates above the end
  unsigned total = 0;    // E(tile)'s count
  for (int w = 0;; ++w) {
    const int pred = tile - 32 * (w + 1) + lane;
    if constexpr (Tuning::lookback_stats) ++stats_windows;
    Acc v{};
    unsigned side = 0, status;
    int end;  // the newest lane with a known inclusive count, -1 when none
    while (true) {
      if constexpr (Tuning::lookback_stats) ++stats_polls;
      status = pred >= 0 ? state.load_side(pred, epoch, v, side) : static_cast<unsigned>(tile_before_first);
      const unsigned ends =
          __ballot_sync(full_warp_mask, status == tile_inclusive || (status == tile_aggregate && (side & known)));
      const unsigned empty_lanes = __ballot_sync(full_warp_mask, status == tile_empty);
      end = ends ? 31 - __clz(ends) : -1;
      const unsigned above = end < 0 ? ~0u : end == 31 ? 0u : ~0u << (end + 1);
      if ((empty_lanes & above) == 0) break;
      if constexpr (Tuning::lookback_stats) ++stats_sleeps;
      backoff.wait();
    }
    const unsigned mine = lane > end && status == tile_aggregate ? static_cast<unsigned>(Reset::count(v)) : 0u;
    counted += warp_sum_u32(mine);
    if (end >= 0) {
      const unsigned c = status == tile_inclusive ? static_cast<unsigned>(Reset::count(v)) : side & ~known;
      total = shfl_idx(c, end) + counted;
      break;
    }
  }
  // (tests: Tuning::test_inclusive_every > 0 leaves the other tiles without their count)
  bool publish_count = true;
  if constexpr (Tuning::test_inclusive_every > 0) publish_count = tile % Tuning::test_inclusive_every == 0;
  if (lane == 0 && publish_count) state.publish_side(tile, tile_aggregate, aggregate, epoch, known | total);
  if constexpr (Tuning::count_walk_stats) {
    if (lane == 0) Tuning::count_walk_record(tile, total);
  }
  if constexpr (Tuning::lookback_stats) {
    if (lane == 0) Tuning::lookback_record(stats_polls, stats_sleeps, stats_windows, clock64() - stats_start);
  }
}

/// A tile without a head (its aggregate published): where no store of the tile reads its prefix's
/// value, ordered_count_walk (its count published for the walks after it) and true: the tile needs
/// no prefix; else false (the caller folds). Not inlined, everything by value but the block's
/// shared storage: inlined into the kernel, the same code cost tiles that never take it (every
/// tile at runs of 4-4096) 0.5-2 % of the kernel's time; out of line, none (H100, keys_sweep,
/// bench/notes/keys_segments.md, 2026-11-28).
template <class K, class InIt, class State, class Acc, class Op>
__device__ __noinline__ bool ordered_count_tile(typename K::temp_storage& s, InIt in, std::int64_t base, int valid,
                                                State state, unsigned epoch, int tile, Acc aggregate, Op op) {
  if (prefix_value_use<InIt>::template needed<K>(s, in, base, valid, aggregate)) return false;
  ordered_count_walk<typename K::tuning>(state, epoch, tile, aggregate, op);
  return true;
}

/// Whether tiles of K over State take ordered_count_walk where they can.
template <class K, class State, class Op>
inline constexpr bool ordered_count_walk_v =
    K::tuning::count_walk && ordered_reset<Op, typename K::acc_t>::counts && State::side_word;

// ---- the kernel: one block per tile -------------------------------------------------------------------
template <class K, class Problem, class State>
__global__ void __launch_bounds__(K::threads, deterministic_min_blocks<K>())
    ordered_lookback_kernel(Problem p, State state, unsigned epoch, int num_tiles) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  __shared__ ordered_storage<Acc, ordered_keep<typename K::tuning, Acc>()> kept;
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
  const std::int64_t base = static_cast<std::int64_t>(tile) * K::tile_items;
  const int valid = tile_valid<K>(p.n, tile);
  scan_tile<K>(s, p, base, valid, [&](const Acc& aggregate) {
    using Op = std::decay_t<decltype(p.op)>;
    if constexpr (ordered_count_walk_v<K, State, Op>) {
      // a tile without a head (but every count_walk_fold_every-th): its aggregate out first (every
      // later tile waits for it), then the question; tiles with a head take the walk above as they
      // always did
      constexpr int every = K::tuning::count_walk_fold_every;
      constexpr int every_or_1 = every > 0 ? every : 1;  // (no "% 0" for nvcc to warn about)
      if (tile > 0 && !ordered_reset<Op, Acc>::reset(aggregate) && (every == 0 || tile % every_or_1 != 0)) {
        if (lane_index() == 0) state.publish(tile, tile_aggregate, aggregate, epoch);
        // counted: the tile stores nothing, and scans without a prefix
        if (ordered_count_tile<K>(s, p.in, base, valid, state, epoch, tile, aggregate, p.op)) return none<Acc>();
      }
    }
    return ordered_look_back<typename K::tuning>(state, epoch, tile, aggregate, p.init, p.op, kept);
  });
}

// ---- host ------------------------------------------------------------------------------------------------
/// The ordered look-back with an explicit tuning (the bench and tests run variants through this).
/// Tile state from with_tile_state (tile_state.cuh), as the classic look-back's.
template <class Phase, class Block, class TuningBase, class Problem>
void run_ordered_lookback_tuned(const Problem& p, cudaStream_t stream, device_memory_resource* resource = nullptr) {
  using K = tile_traits<Problem, Phase, Block, TuningBase>;
  using State = tile_state_for<typename K::acc_t, K::tuning::tile_state_spread>;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles == 0) return;
  if (tiles == 1) return launch_single_tile<Phase, Block, TuningBase>(p, stream);
  if (tiles > 0x7fffffff) fail(p.name, "too many elements for one scan (" + std::to_string(p.n) + ")");

  const auto launch = [&](void* memory, unsigned epoch) {
    ordered_lookback_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, stream>>>(p, State::at(memory, tiles), epoch,
                                                                  static_cast<int>(tiles));
    check_launch(p.name, "ordered_lookback_kernel");
  };
  with_tile_state(p.name, State::bytes(tiles), State::layout_key(tiles), stream, resource, launch);
}

template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::ordered_lookback_t, Phase, Block, const Problem& p) {
  run_ordered_lookback_tuned<Phase, Block, ordered_tuning_base>(p, policy.stream, policy.resource);
}

}  // namespace algo::detail::cuda
