// Strategy 5: single-pass scan whose results are bitwise reproducible run to run (same GPU, same
// build): a look-back with FIXED anchors. One launch, 2 passes over memory, like the default
// decoupled look-back (decoupled_lookback.cuh), whose float results are not reproducible: a tile
// there folds predecessor aggregates from the nearest tile that happens to have published its
// inclusive prefix, so how a prefix is grouped depends on timing.
//
// ---- what every tile computes (a fixed function of the input) ---------------------------------------
//   A(u)  aggregate of tile u (the block scan's fixed shape);
//   F(u)  the window of u: A(u-31), ..., A(u) (tiles below 0 left out), folded by one fixed-shape
//         warp scan (window_scan below: Kogge-Stone, lane 31 = tile u);
//   I(u)  inclusive prefix of tile u:  I(u) = I(u-32) op F(u),  with I(u-32) := init when u < 32
//         (absent init: nothing);
//   E(t)  exclusive prefix of tile t:  E(t) = I(t-32) op F'(t),  F'(t) = lane 30 of the same warp
//         scan (A(t-31) .. A(t-1)); E(0) = init.
// So the prefix of tile t is anchored at tile t-32 whatever the timing: tiles of one residue mod 32
// form a chain I(r) -> I(r+32) -> ..., and nothing depends on which tile published first. Operands
// are never reordered, so non-commutative operators keep their order.
//
// ---- how tile t gets there (warp 0, after its aggregate) --------------------------------------------
//   publish  A(t) at once (its own slot; the tile state keeps A and I in separate slots, since a
//            later tile may need both);
//   poll     lane l reads A of window w's tile t - 32 (w + 1) + 1 + l and, for every window
//            w' <= w, lane w' reads the anchor I(t - 32 (w' + 1)); all loads in flight together
//            (scan_tuning_base::lookback_windows windows per poll for the packed layouts);
//   walk     if window w is complete (all 32 aggregates in) but no anchor up to it is, the warp
//            keeps F of window w (in shared memory) and reads window w + 1 at once, without
//            sleeping: by the definition above, I(t - 32 w) = I(t - 32 (w + 1)) op F(window w),
//            so walking back computes exactly the values the chain would have published;
//   wait     if a needed aggregate is missing, sleep and poll again (scan_config.cuh's knobs);
//   fold     with the nearest ready anchor j (every window up to j complete):
//              x = I(t - 32 (j + 1));  x = x op F(window j); ...; x = x op F(window 1)
//            then E(t) = x op F'(t) and I(t) = x op F(window 0), published.
// Walking is bounded by the 32 window slots: after 32 windows (1024 tiles) the warp only polls
// the 32 anchors (one per lane) until one is ready. The window whose anchor would lie before tile
// 0 is the last one (its anchor is the init), so tiles below 1024 can always walk to the start.
//
// ---- why this and not a binary-indexed (Fenwick) tree ------------------------------------------------
// The Fenwick design (aligned blocks of 2^k tiles, each published once by its last tile from its
// two halves; E(t) from t's binary decomposition) is deterministic too, has no chain and loads only
// O(log tiles) words per tile. But the value of a block of 2^k tiles is published only after the
// block of 2^(k-1) before its last tile has been published, which itself waited on the one before:
// on a GPU where ~50-100 tiles start per L2 round trip, the blocks of 2^2 .. 2^8 tiles a tile needs
// arrive about one poll per level late, i.e. several polls after its own aggregate, while the
// default look-back needs about one poll after its initial delay (and bench/notes/scan.md shows the
// waiting, not the traffic, is what a look-back scan loses to a copy). A discrete-event model of
// the three (bench/lookback_model.py: tiles sharing DRAM bandwidth, L2 round trips, scan_config's
// delays; bench/notes/scan.md, "Deterministic look-back") put the Fenwick tree 13-70 % behind the
// default look-back at 2^28 elements, and the fixed-anchor look-back within ~1 % of it: it reads the same
// 32 status words per poll plus the anchors (one word per walked window), and its walk-back makes
// it as tolerant of a late tile as the default (no serial chain has to be waited out: a tile that
// finds its anchor late walks past it). What it gives up against the default is choice: it must
// reach the anchor of its own residue, I(t - 32 k), not just any inclusive prefix; the oldest tile
// of the window is also the likeliest one to be ready.
//
// ---- correctness -------------------------------------------------------------------------------------
// Values: the warp scan of a window depends only on (the aggregates, the lowest valid lane), both
// fixed by t; the walk and the final fold apply op in one fixed order, and every I(u) a tile
// computes while walking is the same expression as the I(u) tile u publishes (same window scan
// function, same fold loop). For floating point this assumes op's result depends only on its
// operands (true of algo's operators and of any IEEE arithmetic nvcc emits; a custom operator built
// so that its code could contract a*b+c differently in two inlined copies would need -fmad=false).
// Memory ordering: as tile_state.cuh: the packed layouts carry value and epoch-tagged status in one
// single-copy-atomic 64/128-bit relaxed access, so a status of this call's epoch always comes with
// its value; the split layout writes the value first, then the flag with release order, and reads
// the flag with acquire order before the value. Epochs: one per call from tile_state_pool (stale
// words of earlier calls read as empty); under graph capture a zeroed temporary and epoch 1.
// Forward progress: a tile draws its index from the ticket counter, so every tile below it is
// already running; it waits only on A(u) (published by tile u before any waiting) and on I(u) of
// tiles u < t, whose own waits are on tiles below u; by induction on the tile index every tile
// finishes, whatever order the hardware runs blocks in. bench/lookback_emulate.py runs this
// function's control flow on symbolic values under adversarial schedules (late aggregates, starved
// tiles, walks past 1024 tiles, 1-4 windows per poll) and checks every prefix is the expression
// above, in order, and that every run ends.
//
// ---- registers -------------------------------------------------------------------------------------------
// The look-back lives in warp 0 while every thread holds its tile's items, so what it keeps live
// costs registers in all threads. Window values, F'(t) and the anchors go to shared memory
// (anchored_storage); the tile code runs with launder_items (scan_config.cuh); 8-byte arithmetic
// accumulators ask ptxas for 7 blocks per SM. nvcc 13.0, sm_90, 128 threads, sums: i32 64
// registers, f32 56, f64 72, none spilling (the default look-back: 64 with an 88-byte spill, 64
// with 100 bytes, 70); float affine maps 72 (default 94); a 32-byte matrix product 127 (128).
// Since issue 27 the items also wait in shared memory across the look-back (stash_items, all but
// double): f32 48 registers, the keyed scans' (value, head) pairs 64 at 256 threads (72 at 128
// without it: 7 blocks per SM instead of 8, most of what reproducibility cost those scans).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "../../../error.hpp"
#include "../../../policy.hpp"
#include "../runtime.cuh"
#include "../thread/shuffle.cuh"
#include "../warp/warp_scan.cuh"
#include "scan_tile.cuh"
#include "../lookback/backoff.cuh"
#include "../lookback/tile_state.cuh"

namespace algo::detail::cuda {

/// The tuning the policy's path uses: scan_tuning_base with laundered items (scan_config.cuh):
/// the fixed-anchor look-back holds more values than the default one, and without it the f64
/// kernel needs 80+ registers (6 blocks per SM instead of 7) and the f32 one spills.
struct deterministic_tuning_base : scan_tuning_base {
  static constexpr bool launder_items = true;
  /// The items wait in shared memory during the look-back (scan_config.cuh, stash_items): the
  /// fixed-anchor look-back keeps more live than the classic one, and on top of 16 items of 8-byte
  /// (head, value) pairs it took the keyed scans' kernels from 64 to 72 registers, 8 -> 7 blocks
  /// per SM: the 11-13 % the keyed scans paid for reproducibility (bench/notes/keys_segments.md).
  static constexpr bool stash_items = true;
  /// ... and those pairs move in tiles of 256 x 16 (scan_config.cuh, pair_threads): with 2048-pair
  /// tiles a tile found its anchor 2.4 windows back on average (one L2 round trip per window walked),
  /// with 4096 1.5 (H100, 2^26, keys_sweep --stats).
  static constexpr int pair_threads = 256;
  /// ... of 32 items (8192 pairs) since 2026-11-26, bounded to 3 blocks per SM: the
  /// lifted loads stage 4-byte keys and values (cuda::tile_staging) and the stash keeps the pairs'
  /// flags as register bits (cuda::flagged_items), so these tiles fit 37 KB of staging. H100, 2^26
  /// f32, the scan by key: 0.321 ms (256 x 16) -> 0.295 (256 x 32, 3 blocks); unbounded (90
  /// registers, 2 blocks) 0.331. reduce_by_key's pairs keep 256 x 16 (narrow_tile_store: 128
  /// registers at 32 items, slower). bench/notes/keys_segments.md, "Bigger tiles for the keyed pairs".
  static constexpr int pair_items = 32;
  static constexpr int pair_min_blocks = 3;
};

// ---- the window scan (warp-wide, all 32 lanes) ---------------------------------------------------------
/// Inclusive scan of lanes first..31 (lanes below `first` are ignored): lane i >= first gets
/// op(v_first, ..., v_i), combined in a shape fixed by (first, i): Kogge-Stone, where a lane
/// combines with lane i - d only when that lane is valid. With first = 0 it is warp_scan's shape.
template <class T, class Op>
__device__ __forceinline__ T window_scan(T v, int first, Op op) {
  const int lane = lane_index();
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const T other = shfl_up(v, d);
    if (lane - d >= first) v = op(other, v);
  }
  return v;
}

/// Tile state of the fixed-anchor look-back over one of tile_state.cuh's layouts: slots
/// [0, tiles) hold the aggregates, [tiles, 2 tiles) the inclusive prefixes.
template <class State>
struct anchored_slots {
  static std::size_t bytes(std::int64_t tiles) { return State::bytes(2 * tiles); }
  static State at(void* memory, std::int64_t tiles) { return State::at(memory, 2 * tiles); }
  static std::uint64_t layout_key(std::int64_t tiles) { return State::layout_key(2 * tiles); }
};

/// Shared memory of the look-back (warp 0): F(window w) at window[w], F'(tile) at window[32], the
/// anchor I(tile - 32 (w + 1)) at anchor[w] once seen. Each is written by one lane and read by all
/// after __syncwarp(); held in registers they would be live across every poll (the f64 kernel
/// went from 72 to 80-96 registers).
template <class Acc>
struct anchored_storage {
  uninitialized<Acc> window[33];
  uninitialized<Acc> anchor[32];
};

// ---- the look-back (warp 0 of a tile, all 32 lanes) -----------------------------------------------------
/// Publishes A(tile) and I(tile) and returns E(tile) (all lanes); see the top of this file.
template <class Tuning, class State, class Acc, class Op>
__device__ __forceinline__ maybe_value<Acc> anchored_look_back(State& state, unsigned epoch, int tile, int tiles,
                                                         const Acc& aggregate, const maybe_value<Acc>& init, Op op,
                                                         anchored_storage<Acc>& kept) {
  constexpr int W = State::parallel_loads ? Tuning::windows : 1;
  static_assert(W >= 1 && W <= 8, "lookback_windows: 1..8");
  constexpr int max_windows = 32;  // windows kept at once (one slot of kept.window each)
  const int lane = lane_index();
  if (lane == 0) state.publish(tile, tile_aggregate, aggregate, epoch);
  [[maybe_unused]] long long stats_start = 0;
  [[maybe_unused]] int stats_polls = 0, stats_sleeps = 0;
  if constexpr (Tuning::lookback_stats) stats_start = clock64();

  // Window w covers tiles tile - 32 (w + 1) + 1 .. tile - 32 w (lane 31 the newest), anchored at
  // tile - 32 (w + 1). The last window is `base`: its anchor lies before tile 0 (the init).
  const int base = tile >> 5;
  const int last = base < max_windows - 1 ? base : max_windows - 1;  // the last window we can keep

  // Large grids wait before the first poll and poll at a long fixed interval; small ones poll at
  // once and back off from a short interval (lookback/backoff.cuh), as every look-back does; tile
  // 0 reads only the init's anchor, at once.
  lookback_backoff<Tuning> backoff(tile > 0);

  int next = 0;  // first window not yet kept (every window below it is)
  int found;     // the anchor used: the nearest ready one with every window up to it kept
  while (true) {
    if constexpr (Tuning::lookback_stats) ++stats_polls;
    // ---- one poll: windows next .. top, and the anchors of windows 0 .. max(top, next - 1) ----------
    const int top = next + W - 1 < last ? next + W - 1 : last;  // < next once window `last` is kept
    Acc v[W];
    unsigned status[W];
#pragma unroll
    for (int i = 0; i < W; ++i) {  // all loads issued before any status is looked at
      const int w = next + i;
      const int u = tile - 32 * (w + 1) + 1 + lane;
      status[i] = tile_before_first;  // "not needed": never waited for
      if (w <= top && u >= 0) {
        if (u == tile) {
          status[i] = tile_aggregate;
          v[i] = aggregate;
        } else {
          status[i] = state.load(u, epoch, v[i]);
        }
      }
    }
    bool anchor_ready = false;
    if (lane <= (top > next - 1 ? top : next - 1)) {
      const int a = tile - 32 * (lane + 1);
      Acc anchor;
      anchor_ready = a < 0 || state.load(tiles + a, epoch, anchor) == tile_inclusive;  // a < 0: the init
      if (a >= 0 && anchor_ready) kept.anchor[lane].get() = anchor;
    }
    const unsigned anchors = __ballot_sync(full_warp_mask, anchor_ready);

    // ---- the nearest ready anchor below `next` (its windows are all kept), else this poll's windows -----
    found = next > 0 && (anchors & (next >= 32 ? ~0u : (1u << next) - 1)) ? __ffs(anchors) - 1 : -1;
    bool incomplete = false;
#pragma unroll
    for (int i = 0; i < W; ++i) {  // window next + i, if every window before it is kept by now
      const int w = next;
      if (found < 0 && !incomplete && w <= top) {
        if (__ballot_sync(full_warp_mask, status[i] == tile_empty) != 0) {
          incomplete = true;
        } else {
          const int first = w == base ? 32 * (w + 1) - 1 - tile : 0;  // lowest lane at a tile >= 0
          const Acc scanned = window_scan(v[i], first, op);
          if (lane == 31) kept.window[w].get() = scanned;
          if (w == 0 && lane == (tile > 0 ? 30 : 31)) kept.window[32].get() = scanned;  // F'(tile); tile 0: A(0)
          next = w + 1;
          if (anchors >> w & 1u) found = w;
        }
      }
    }
    if (found >= 0) break;
    if (!incomplete && next <= last) continue;  // walk back at once
    // A needed aggregate is missing, or every window we can keep is kept and no anchor is ready.
    if constexpr (Tuning::lookback_stats) ++stats_sleeps;
    backoff.wait();
  }
  __syncwarp();

  // ---- fold: x = anchor op F(window found) op ... op F(window 1); then F'(tile) and F(window 0) ------------
  // x.has is false only at the base window of a scan without init.
  const maybe_value<Acc> x = found == base ? init : some(kept.anchor[found].get());
  Acc xv = x.value;
  bool has = x.has;
  Acc exclusive = xv;
#pragma unroll 1
  for (int w = found; w >= 0; --w) {
    if (w == 0) {
      const Acc f = kept.window[32].get();  // F'(tile) (tile 0: its aggregate, a value not used)
      exclusive = has ? op(xv, f) : f;
    }
    const Acc f = kept.window[w].get();
    xv = has ? op(xv, f) : f;  // I(tile - 32 w): the value its own tile publishes
    has = true;
  }
  if (lane == 0) state.publish(tiles + tile, tile_inclusive, xv, epoch);
  if constexpr (Tuning::lookback_stats) {  // windows: the anchor's window + 1
    if (lane == 0) Tuning::lookback_record(stats_polls, stats_sleeps, found + 1, clock64() - stats_start);
  }
  return tile > 0 ? some(exclusive) : x;
}

/// Blocks per SM asked of ptxas: the tuning's, else 7 for 8-byte arithmetic accumulators with 128
/// threads (the f64 kernel then gets 72 registers like the default look-back's 70, instead of 74,
/// which would cost a block per SM).
template <class K>
constexpr int deterministic_min_blocks() {
  using Acc = typename K::acc_t;
  return K::tuning::min_blocks > 0 ? K::tuning::min_blocks
         : std::is_arithmetic<Acc>::value && sizeof(Acc) == 8 && K::threads == 128 ? 7
                                                                                   : 0;
}

// ---- the kernel: one block per tile -------------------------------------------------------------------
template <class K, class Problem, class State>
__global__ void __launch_bounds__(K::threads, deterministic_min_blocks<K>())
    deterministic_lookback_kernel(Problem p, State state, unsigned epoch, int num_tiles) {
  using Acc = typename K::acc_t;
  __shared__ typename K::temp_storage s;
  __shared__ anchored_storage<Acc> kept;
  __shared__ int ticket;

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

  scan_tile<K>(s, p, static_cast<std::int64_t>(tile) * K::tile_items, tile_valid<K>(p.n, tile),
               [&](const Acc& aggregate) {
                 return anchored_look_back<typename K::tuning>(state, epoch, tile, num_tiles, aggregate, p.init, p.op,
                                                               kept);
               });
}

// ---- host ------------------------------------------------------------------------------------------------
/// The deterministic look-back with an explicit tuning (the bench and tests run variants through
/// this). Tile state from with_tile_state (tile_state.cuh), as the default look-back's.
template <class Phase, class Block, class TuningBase, class Problem>
void run_deterministic_lookback_tuned(const Problem& p, cudaStream_t stream, device_memory_resource* resource = nullptr) {
  using K = tile_traits<Problem, Phase, Block, TuningBase>;
  using Slots = anchored_slots<tile_state_for<typename K::acc_t, K::tuning::tile_state_spread>>;
  const std::int64_t tiles = K::tiles(p.n);
  if (tiles == 0) return;
  if (tiles == 1) return launch_single_tile<Phase, Block, TuningBase>(p, stream);
  if (tiles > 0x3fffffff) fail(p.name, "too many elements for one scan (" + std::to_string(p.n) + ")");

  const auto launch = [&](void* memory, unsigned epoch) {
    deterministic_lookback_kernel<K><<<static_cast<unsigned>(tiles), K::threads, 0, stream>>>(p, Slots::at(memory, tiles), epoch,
                                                                   static_cast<int>(tiles));
    check_launch(p.name, "deterministic_lookback_kernel");
  };
  with_tile_state(p.name, Slots::bytes(tiles), Slots::layout_key(tiles), stream, resource, launch);
}

template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::deterministic_lookback_t, Phase, Block, const Problem& p) {
  run_deterministic_lookback_tuned<Phase, Block, deterministic_tuning_base>(p, policy.stream, policy.resource);
}

}  // namespace algo::detail::cuda
