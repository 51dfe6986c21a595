// Tuning of the in-house scans, in one place: the shape of a tile (threads x items per thread) and
// the look-back's polling. Kernels read these numbers; they hard-code none of their own.
//
// In  : the element type a tile is loaded as (the input's value type),
// Acc : the accumulator type the scan runs in (kept in registers, Items of them per thread),
// Out : the element type a tile is stored as (the output's value type, or Acc for fancy outputs).
//
// Items per thread is chosen from sizeof(Acc) so that each thread keeps about 128 bytes in
// flight (CUB's sm_90 tunings keep 96 bytes for 4-byte sums; 32 items beat 24 for int32 with the
// look-back's delays on the H200: 1.06x -> 1.10x CUB at 2^28; f64 stays at 16), then rounded up so that
// Items * sizeof(In) and Items * sizeof(Out) are multiples of 16 bytes when that costs at most
// 32 items: the tile then moves as 16-byte vectors.
#pragma once

#include <cstddef>
#include <type_traits>

namespace algo::detail::cuda {

struct scan_tuning_base {
  /// Threads per block of every scan kernel when positive; 0: chosen from the accumulator in
  /// scan_tuning below: 256 (8 warps, 8192-item tiles) for arithmetic accumulators of at most 4
  /// bytes read and written as elements of at most 4 bytes (wider input or output elements would
  /// take the staging area past 48 KB of static shared memory),
  /// 128 (4 warps: __syncthreads stays cheap and tiles keep turning over) for everything else.
  /// 256 for int32 / float: H100 bench, 2026-11-22 and -23 (and H200, 2026-11-21), the "256
  /// threads" variant against 128: 2^26-2^28 1.10-1.13x CUB instead of 1.01-1.06x, 2^20 1.40-1.43x
  /// instead of 1.25-1.31x, 2^22 2-3 % slower (bench/notes/scan.md, 2026-11-23); double stays at 128
  /// (mixed: better at 2^20, worse at 2^22, level at 2^28).
  static constexpr int threads = 0;
  /// Threads per block, when threads is 0, for 8-byte accumulators that are not arithmetic types
  /// (the keyed scans' (value, head) and (value, run count) pairs) read and written as elements of
  /// at most 8 bytes; 0: 128, as for everything else. The deterministic look-back takes 256
  /// (deterministic_lookback.cuh): tiles of 4096 pairs instead of 2048 halve the rate at which
  /// tiles start, and with it how far back the anchors' frontier lies (keys_segments.md, issue 27).
  static constexpr int pair_threads = 0;
  /// Items per thread for those pairs when positive (0: 16, from their 8 bytes, as below). Taken
  /// only where the tile's staging stays within 40 KB: the lifted loads stage 4-byte keys and
  /// values, not the pairs (cuda::tile_staging), so 256 x 32 fits; a lifted input without its fast
  /// load (a fancy values iterator) stages pairs and keeps 16.
  static constexpr int pair_items = 0;
  /// Blocks per SM asked of ptxas (__launch_bounds__) for those pairs when they take pair_items
  /// (0: none). The scan by key's pairs at 256 x 32 take 90 registers unbounded (2 blocks per SM);
  /// bounded to 3 blocks, 80 with a 24-byte spill: 11 % faster than unbounded and 8 % faster than
  /// 256 x 16 (H100, bench/keys_sweep.cu; bench/notes/keys_segments.md, "Bigger tiles for the
  /// keyed pairs").
  static constexpr int pair_min_blocks = 0;
  /// Look-back polling (H200 sweeps of 2026-11-21 in bench/notes/scan.md): the waiting, not the
  /// memory traffic, is what a look-back scan loses to a copy, and early or frequent polls make it
  /// worse: they crowd the few L2 lines that hold the newest tiles' status words, and the
  /// publishes they wait for queue behind them. So, as CUB's sm_90 tunings do:
  ///   initial delay  warp 0 sleeps this long after publishing its aggregate, before its first
  ///                  poll (its predecessors' inclusive prefixes are rarely there sooner), when the
  ///                  grid has at least lookback_delay_min_tiles tiles (smaller grids finish
  ///                  before the delay would pay off);
  ///   poll interval  sleep between polls that found a needed predecessor empty, starting at
  ///                  first and doubling up to max (equal: a fixed interval; 0: spin).
  /// On the H200 at 2^28 int32 this took the look-back from 0.78x to 0.98x CUB's time ratio
  /// (no delay, 32..512 ns polls -> 1245 ns + 648 ns polls). Grids of fewer than
  /// lookback_delay_min_tiles tiles (one wave or so) keep the short polls, 32 ns doubling to 512:
  /// 5-7 % faster there than 648 ns polls (H200 bench, int32 2^16..2^20).
  static constexpr unsigned lookback_initial_delay_ns = 1245;
  static constexpr int lookback_delay_min_tiles = 500;
  static constexpr unsigned lookback_first_sleep_ns = 648;
  static constexpr unsigned lookback_max_sleep_ns = 648;
  static constexpr unsigned lookback_small_first_sleep_ns = 32;
  static constexpr unsigned lookback_small_max_sleep_ns = 512;
  /// Look-back tile state: packed status words sit this many 8-byte words apart (1: adjacent;
  /// 4: one per 32-byte sector), spreading a window's polls and the publishes they wait for over
  /// 4x more L2 sectors and lines (H200, 2^28 int32: 0.98x -> 1.06x CUB).
  static constexpr int tile_state_spread = 4;
  /// Look-back: windows of 32 predecessors that warp 0 reads per poll (lane l of window w reads
  /// tile - 32 (w + 1) + l; all loads issued before any is used). One window moves the inclusive
  /// prefix "frontier" at most 32 tiles per L2 round trip, which is what bound the first GPU run
  /// (70-84 tiles/us for every type, whatever the tile's bytes); 4 windows lift it 2x for
  /// 512 B of L2 reads per poll. That was with polls every 32..512 ns; with the delays above,
  /// one window is as fast or faster (fewer L2 reads per poll), so 0 = chosen below = 1 (4
  /// windows make the i32 kernel spill at 64 registers; 2 windows take f64 from 72 to 95
  /// registers, 7 -> 5 blocks per SM). Layouts whose loads are acquire-ordered (the split state
  /// of large accumulators) read one window per poll whatever this says.
  static constexpr int lookback_windows = 0;
  /// Items per thread when positive; 0: chosen from the types below.
  static constexpr int items_override = 0;
  /// Look-back kernel: blocks per SM asked of ptxas (__launch_bounds__ min blocks) when positive;
  /// 0: chosen from the accumulator below (arithmetic <= 4 bytes with 128 threads: 8 = 64
  /// registers; others: 0 = no bound; even __launch_bounds__(t, 1) takes f64 from 72 to 77
  /// registers, and 7 makes it spill). Keeps the wider
  /// look-back's extra live registers from costing a resident block.
  static constexpr int min_blocks_override = 0;
  /// two_level: partitions per SM, as a multiple of the blocks one SM holds at once.
  static constexpr int two_level_waves = 1;
  /// Look-back kernel: where a block's tile index comes from. true: the ticket counter (tiles start
  /// in index order whatever order blocks are dispatched in: the forward-progress guarantee this
  /// library gives); false: blockIdx.x, as CUB does (relies on in-order dispatch). Bench variants
  /// only, to measure what the ticket costs.
  static constexpr bool ticket = true;
  /// Timing experiment only, results are WRONG: tiles publish and take no prefix (no polling), to
  /// measure what the look-back's waiting costs. Bench variants only.
  static constexpr bool timing_skip_lookback = false;
  /// scan_tile: pass the items through an empty asm between the thread fold and the rescan
  /// (launder(), scan_tile.cuh). Without it nvcc notices that the rescan of a thread without a
  /// prefix repeats the thread fold, keeps the fold's partial results live across the prefix
  /// callback for that one thread, and pays for it in registers in every thread (nvcc 13.0, sm_90:
  /// look-back f64 70 -> 62 registers, i32/f32 64 with a 100-byte spill -> 56 without). On by
  /// default since the H100 bench of 2026-11-23 timed it 2-5 % faster at every size; the bench
  /// keeps a row without it ("algo::cuda lookback unlaundered").
  static constexpr bool launder_items = true;
  /// scan_tile (with launder_items): the items wait in the tile's staging area (shared memory,
  /// idle between the load and the store) while the block scan and the look-back run, instead of
  /// in registers. The look-back runs in warp 0 while every thread holds its items, so its live
  /// values add to the items' registers; stashed, the two peaks no longer add up. Costs one
  /// shared-memory write and read of the items per tile. Used where the tile's items fit the
  /// staging area (tile_traits::stash_items).
  static constexpr bool stash_items = false;
  /// Bench instrumentation only (bench/keys_sweep.cu): when true, lane 0 of every tile's look-back
  /// calls Tuning::lookback_record(polls, sleeps, windows, cycles) once it has its prefix (polls:
  /// rounds of status loads; windows: windows of 32 read or kept; cycles: clock64 from the
  /// aggregate's publication to the prefix). false: no code at all.
  static constexpr bool lookback_stats = false;
  /// A test knob (the ordered look-back, ordered_lookback.cuh): when positive, only tile 0 and the
  /// tiles whose index is a multiple of this publish their inclusive prefix; every other tile
  /// publishes only its aggregate (its own prefix is still computed, and right). Every look-back
  /// then walks back to a multiple of it (or to a head, for a scan by key), through windows that
  /// normal timing seldom reaches: the kept windows and the ones read again in the fold.
  /// 0: every tile publishes it (no code).
  static constexpr int test_inclusive_every = 0;
  /// reduce_by_key (scan_tile.cuh, staging_kept; detail/segmented/tile.cuh): the tile's load keeps
  /// the keys in the staging for its store, and loads keys and values together, where they fit;
  /// false: the store loads the keys again from global memory (the bench's "keys reloaded" row).
  static constexpr bool keep_staged_keys = true;
  /// ... and with the keys kept, a warp of many runs writes their values and keys as contiguous
  /// spans, compacted in the staging (store_runs_staged, detail/segmented/tile.cuh); false: each
  /// head and tail stores its own element. On in ordered_tuning_base (reduce_by_key's reproducible
  /// default: 64 registers either way); off here: it takes the classic kernel from 62-64 to 70-72
  /// registers (8 -> 7 blocks of 128 an SM), measured 14 % slower at runs of 32 (H100).
  static constexpr bool staged_run_store = false;
  /// reduce_by_key with the keys kept: how a warp that writes its runs in place (not staged) finds
  /// each item's key and run index. 1: the thread's keys stay in registers from the flags to the
  /// stores and each item's run index is its scanned count (x[j].runs - 1). 0: keys read again
  /// from the staging where a head writes one, run indices from popc of the head bits and the
  /// first item's count (the code of d4008f9); 2: as 0, the run index as a running count. H100,
  /// 2^26 f32, the ordered kernel with the staged path beside it: 1 took 3-8 % less time than 0
  /// at runs of 32 and longer (keys_sweep rows "in place: ...", bench/notes/keys_segments.md).
  static constexpr int inplace_runs = 1;
  /// A test knob (the ordered look-back, with lookback_stats): lane 0 of every tile's look-back also
  /// calls Tuning::lookback_record_restarts(r), r: the windows read again whose fold restarted from
  /// an inclusive prefix published since the walk passed it. false: no code.
  static constexpr bool lookback_restart_stats = false;
};

namespace tuning_detail {
constexpr std::size_t gcd(std::size_t a, std::size_t b) { return b == 0 ? a : gcd(b, a % b); }
/// Smallest item count whose bytes are a multiple of 16.
constexpr int vector_granule(std::size_t bytes) { return static_cast<int>(16 / gcd(bytes, 16)); }
constexpr int lcm(int a, int b) { return a / static_cast<int>(gcd(a, b)) * b; }
constexpr int base_items(std::size_t acc_bytes) {
  return acc_bytes <= 4 ? 32 : acc_bytes <= 8 ? 16 : acc_bytes <= 16 ? 8 : acc_bytes <= 32 ? 4 : acc_bytes <= 64 ? 2 : 1;
}
constexpr int round_items(int items, int granule) {
  const int up = (items + granule - 1) / granule * granule;
  return up <= 32 ? up : items;
}
}  // namespace tuning_detail

/// Base without pair_items (tile_traits falls back to it when the pairs' staging would not fit).
template <class Base>
struct without_pair_items : Base {
  static constexpr int pair_items = 0;
};

/// The tuning of one scan. `Base` supplies threads, look-back knobs and an optional items
/// override (scan_tuning_base by default; the bench passes variants to compare configurations).
template <class In, class Acc, class Out, class Base = scan_tuning_base>
struct scan_tuning : Base {
  static constexpr int threads =
      Base::threads > 0 ? Base::threads
      : std::is_arithmetic<Acc>::value && sizeof(Acc) <= 4 && sizeof(In) <= 4 && sizeof(Out) <= 4
          ? 256  // a tile's staging (32 items of <= 4 bytes per thread) stays at 32 KB
      : Base::pair_threads > 0 && !std::is_arithmetic<Acc>::value && sizeof(Acc) == 8 && sizeof(In) <= 8 &&
              sizeof(Out) <= 8
          ? Base::pair_threads  // 16 items of <= 8 bytes: 32 KB of staging at 256 threads
          : 128;
  static constexpr bool is_pair = !std::is_arithmetic<Acc>::value && sizeof(Acc) == 8 && sizeof(In) <= 8 &&
                                  sizeof(Out) <= 8;
  static constexpr int items =
      Base::items_override > 0 ? Base::items_override
      : Base::pair_items > 0 && is_pair
          ? Base::pair_items
          : tuning_detail::round_items(tuning_detail::base_items(sizeof(Acc)),
                                       tuning_detail::lcm(tuning_detail::vector_granule(sizeof(In)),
                                                          tuning_detail::vector_granule(sizeof(Out))));
  static constexpr int tile_items = threads * items;
  static constexpr int windows =
      Base::lookback_windows > 0 ? Base::lookback_windows : 1;
  static constexpr int min_blocks =
      Base::min_blocks_override > 0 ? Base::min_blocks_override
      : Base::pair_items > 0 && is_pair && Base::pair_min_blocks > 0
          ? Base::pair_min_blocks
          : std::is_arithmetic<Acc>::value && threads == 128 && sizeof(Acc) <= 4 ? 8 : 0;
};

}  // namespace algo::detail::cuda
