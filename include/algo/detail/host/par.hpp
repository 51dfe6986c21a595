// algo::par: OpenMP threads. Every algorithm keeps the left-to-right order of combination, so
// operators need only be associative. Without OpenMP (a compiler run without -fopenmp) algo::par
// runs the algo::seq code on one thread.
//
// Work is cut into tiles that threads take from a shared counter, in order, as they become free
// (not one fixed slice per thread): on a machine shared with other processes a thread that loses
// its core for a while only delays the tile it holds, and the others take the rest.
//
//   reduce     each tile is folded into its own partial; the partials are combined in tile order.
//   scan       reduce-then-scan per tile, chained by a look-back instead of barriers:
//                single pass  when the previous tile is done, scan at once onto its prefix;
//                phase 1    otherwise fold the tile (this reads it into L2), publish its aggregate;
//                look-back  walk back over earlier tiles, combining their aggregates, until one
//                           has published its inclusive prefix (usually the previous tile or the
//                           one before); a tile whose owner is late (its thread lost its core) is
//                           claimed and folded here rather than waited for;
//                phase 2    scan the tile from L2 onto that prefix, publish the tile's inclusive
//                           prefix.
//              Memory sees about one read and one write per element; nothing is reordered. A
//              thread alone (the others descheduled) does the single pass, as algo::seq would.
//              A thread waits for another only when the scan is in place (the input's element i
//              reads the output's element i) and that thread holds a claim on a tile (folding it,
//              or scanning it in a single pass); never for a tile's owner to be scheduled.
//              An input that may read the output elsewhere, or that the library cannot see
//              through (alias.hpp), is scanned by algo::seq (see scan below).
//   transpose  square blocks of tiles, taken from the counter.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

#include "../alias.hpp"
#include "../validate.hpp"
#include "seq.hpp"

namespace algo::detail::host {

// ---- threads ------------------------------------------------------------------------------------
inline int thread_count(const par_policy& p) {
#if defined(_OPENMP)
  return p.threads > 0 ? p.threads : omp_get_max_threads();
#else
  (void)p;
  return 1;
#endif
}

/// A spin-wait hint to the core (x86 `pause`, ARM `yield`).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(_M_X64)
  _mm_pause();  // <immintrin.h>, included by seq.hpp
#elif defined(__aarch64__) && defined(__GNUC__)
  asm volatile("yield");
#endif
}

/// Thrown out of a wait when another thread has failed (run_team then rethrows that failure).
struct team_stopped {};

/// A shared counter handing out tile indices 0, 1, 2, ... in order (on its own cache line).
struct alignas(64) tile_counter {
  std::atomic<std::int64_t> next{0};
  std::int64_t take() { return next.fetch_add(1, std::memory_order_relaxed); }
};

/// Runs body(stop) on every thread of a team of up to `threads` OpenMP threads (the team may be
/// smaller: nested regions, thread limits; bodies take tiles from a tile_counter, so any team size
/// covers all the work). The first exception a body throws sets `stop`, which the other bodies
/// poll between tiles, and is rethrown on the calling thread once the team has joined.
template <class Body>
void run_team(int threads, Body body) {
  std::atomic<bool> stop{false};
  std::exception_ptr error;
#if defined(_OPENMP)
#  pragma omp parallel num_threads(threads)
#endif
  {
    try {
      body(stop);
    } catch (const team_stopped&) {  // another thread failed first
    } catch (...) {
      if (!stop.exchange(true)) error = std::current_exception();
    }
  }
  (void)threads;
  if (error) std::rethrow_exception(error);
}

// ---- scan: tile states and the look-back ----------------------------------------------------
/// Waits (pause, then yield) until ready() holds; throws team_stopped when the team is stopping.
template <class Ready>
void spin_until(Ready ready, const std::atomic<bool>& stop) {
  for (int spin = 0; !ready(); ++spin) {
    if (stop.load(std::memory_order_relaxed)) throw team_stopped{};
    if (spin < tuning::lookback_spins) cpu_relax();
    else std::this_thread::yield();
  }
}

/// What a tile of the scan has published. Only the holder of the tile's claim writes `aggregate`:
/// its owner after phase 1, or a look-back that found the owner late; `inclusive` only its owner.
/// When the scan is in place (scan_tiles' same_position), a tile is read by others only under a
/// claim, its owner writes no output while another thread holds one, and a single pass holds the
/// owner's own claim while it writes; when the input reads nothing of the output, nobody waits for
/// a claim: a look-back folds a claimed tile itself.
template <class Acc>
struct alignas(64) scan_tile_status {
  enum : int { nothing = 0, claimed = 1, aggregate_ready = 2, inclusive_ready = 3 };
  std::atomic<int> state{nothing};
  std::optional<Acc> aggregate;  // op-fold of the tile's elements
  std::optional<Acc> inclusive;  // the prefix through the tile's last element (with init)

  int load() const { return state.load(std::memory_order_acquire); }
  bool try_claim() {
    int expected = nothing;
    return state.compare_exchange_strong(expected, claimed, std::memory_order_acq_rel);
  }
  /// The claim holder publishes the aggregate (unless the owner has published more meanwhile).
  void publish_aggregate(Acc a) {
    aggregate.emplace(std::move(a));
    int expected = claimed;
    state.compare_exchange_strong(expected, aggregate_ready, std::memory_order_release, std::memory_order_relaxed);
  }
  /// The claim holder gives the claim back (its fold threw).
  void release_claim() {
    int expected = claimed;
    state.compare_exchange_strong(expected, nothing, std::memory_order_release, std::memory_order_relaxed);
  }
  /// The owner publishes the inclusive prefix.
  void publish_inclusive(Acc a) {
    inclusive.emplace(std::move(a));
    state.store(inclusive_ready, std::memory_order_release);
  }
  /// Waits until the aggregate (or more) is published; returns the state.
  int wait_ready(const std::atomic<bool>& stop) const {
    int s = load();
    spin_until([&] { return (s = load()) >= aggregate_ready; }, stop);
    return s;
  }
};

/// Folds a tile under a claim: publishes its aggregate, or gives the claim back if op throws.
template <class Acc, class InIt, class Op>
Acc fold_claimed(scan_tile_status<Acc>& st, InIt first, std::int64_t len, Op op) {
  std::optional<Acc> a;
  try {
    a.emplace(fold_nonempty<Acc>(first, len, op));
  } catch (...) {
    st.release_claim();
    throw;
  }
  st.publish_aggregate(*a);
  return std::move(*a);
}

/// The exclusive prefix of tile i: op-fold of init (if any) and tiles 0 .. i-1, in order. Walks
/// back from tile i-1, combining aggregates, until a tile has published its inclusive prefix. A
/// tile with nothing published after a short spin is claimed and folded here; one claimed by
/// another thread is waited for, or, when the input reads nothing of the output, folded here too.
template <class Acc, class InIt, class Op>
std::optional<Acc> look_back(scan_tile_status<Acc>* status, std::int64_t i, InIt first, std::int64_t n, Op op,
                             const std::optional<Acc>& init, bool may_alias, const std::atomic<bool>& stop) {
  constexpr std::int64_t T = tuning::scan_tile;
  std::optional<Acc> suffix;  // tiles j+1 .. i-1, combined in order
  auto prepend = [&](const Acc& a) { suffix = suffix ? static_cast<Acc>(op(a, *suffix)) : a; };
  for (std::int64_t j = i - 1; j >= 0; --j) {
    auto& st = status[j];
    const InIt tile = first + j * T;
    const std::int64_t len = std::min(T, n - j * T);
    int s = st.load();
    for (int spin = 0; s < st.aggregate_ready && spin < tuning::lookback_spins; ++spin) {
      cpu_relax();
      s = st.load();
    }
    if (s < st.aggregate_ready && st.try_claim()) {  // the owner is late: fold its tile here
      prepend(fold_claimed(st, tile, len, op));
      continue;
    }
    s = st.load();
    if (s < st.aggregate_ready) {  // another thread holds the claim
      if (!may_alias) {
        prepend(fold_nonempty<Acc>(tile, len, op));
        continue;
      }
      s = st.wait_ready(stop);
    }
    if (s == st.inclusive_ready) {
      prepend(*st.inclusive);
      return suffix;
    }
    prepend(*st.aggregate);
  }
  if (init) prepend(*init);
  return suffix;
}

}  // namespace algo::detail::host

namespace algo::detail {

// ---- scan ---------------------------------------------------------------------------------------
namespace host {

/// The tiled scan (see the top of this file) of n >= scan_min_tiles tiles on `threads` threads.
/// `same_position`: the input's element i may read the output's element i (an in-place scan,
/// directly or through a transform or zip over the output), and nothing else of the output. Then
/// a tile's input is read by others only under a claim, its owner writes no output while another
/// thread holds one, and a single pass holds the owner's own claim while it writes: every read of
/// a tile's input happens before its owner's first write to that tile, and no other thread writes
/// there. Otherwise the input must not read the output at all.
template <bool Inclusive, class Acc, class InIt, class OutIt, class Op>
void scan_tiles(int threads, InIt first, std::int64_t n, OutIt out, Op op, const std::optional<Acc>& seed,
                bool same_position) {
  using status_t = scan_tile_status<Acc>;
  constexpr std::int64_t T = tuning::scan_tile;
  const std::int64_t tiles = (n + T - 1) / T;
  std::unique_ptr<status_t[]> status(new status_t[tiles]);
  tile_counter counter;
  const bool stream = should_stream<OutIt>(n);

  run_team(threads, [&](const std::atomic<bool>& stop) {
    for (std::int64_t i = counter.take(); i < tiles && !stop.load(std::memory_order_relaxed); i = counter.take()) {
      const std::int64_t b0 = i * T, len = std::min(T, n - b0);
      status_t& st = status[i];
      InIt in = first + b0;
      OutIt o = out + b0;
      // single pass: when the prefix is already known (the first tile, or the previous tile is
      // done: this thread is ahead of the others, or alone on a busy machine), scan at once
      // (holding the claim if the output may overlap the input, so that no look-back reads the
      // tile while it is overwritten)
      if ((i == 0 || status[i - 1].load() == st.inclusive_ready) && (!same_position || st.try_claim())) {
        const std::optional<Acc> prefix = i == 0 ? seed : status[i - 1].inclusive;
        st.publish_inclusive(scan_nonempty<Inclusive, Acc>(in, len, o, op, prefix, stream));
        continue;
      }
      // phase 1: fold the tile (into L2) and publish its aggregate for the tiles after it
      // (unless a look-back got there first: then, if the output may overlap the input, wait
      // until it has read the tile)
      Acc aggregate = fold_nonempty<Acc>(in, len, op);
      if (st.try_claim()) st.publish_aggregate(std::move(aggregate));
      else if (same_position) st.wait_ready(stop);
      // look-back: the exclusive prefix of this tile
      const std::optional<Acc> prefix = look_back(status.get(), i, first, n, op, seed, same_position, stop);
      // phase 2: scan the tile from L2 onto the prefix, publish its inclusive prefix
      st.publish_inclusive(scan_nonempty<Inclusive, Acc>(in, len, o, op, prefix, stream));
    }
  });
}

}  // namespace host

/// algo::par's scans. Before any thread starts, the input is checked against the output
/// (alias.hpp):
///   none           the input reads nothing the output writes: the tiled scan; nobody waits for a
///                  claim;
///   same_position  in place (the input's element i reads, of the output, element i only; also
///                  through a transform or zip iterator over the output): the tiled scan with
///                  claims (scan_tiles says why that is safe);
///   other          the input may read the output at other positions, or the library cannot tell
///                  (permutation iterators, stateful functors, iterator types it does not know,
///                  arrays that overlap the output partly): algo::seq's scan, on this thread.
/// The tiled scan is not safe in the last case: a tile is read twice (phase 1, then phase 2, or
/// by a look-back), and between those reads any other tile may be written, so an input element
/// that reads another tile's output could see the old value once and the new one the next time.
/// The sequential scan reads each chunk of input before it writes the same positions of the
/// output, in order: whatever std::inclusive_scan defines for an overlap (d_first == first), and
/// more generally an input whose element i reads output positions at or after i, it gets right;
/// it needs no memory and no other thread. (A parallel alternative, copying the whole input
/// into a new array with the threads and then scanning the copy, is correct too but was 2 to 8
/// times slower than this on a 2-core machine at 2^20 to 2^25 elements: the first touch of the
/// new array's pages costs more than the whole sequential scan.)
/// Before issue 16, an input whose elements are not lvalues (any transform iterator) was taken
/// not to alias the output, and an in-place scan through a transform iterator raced.
template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const par_policy& policy, scan_kind<Inclusive> kind, InIt first, std::int64_t n, OutIt out, Op op,
           Init init) {
  if constexpr (!is_random_access_v<InIt> || !is_random_access_v<OutIt>) {
    return scan(seq, kind, first, n, out, op, init);
  } else {
    using Acc = scan_accumulator_t<InIt, Init>;
    const int threads = host::thread_count(policy);
    if (threads <= 1 || n < host::tuning::scan_min_tiles * host::tuning::scan_tile)
      return scan(seq, kind, first, n, out, op, init);
    const alias_kind alias = alias_between(first, n, out, n);
    if (alias == alias_kind::other) return scan(seq, kind, first, n, out, op, init);

    std::optional<Acc> seed;
    if constexpr (!std::is_same<Init, no_init_t>::value) seed.emplace(init);
    host::scan_tiles<Inclusive, Acc>(threads, first, n, out, op, seed, alias == alias_kind::same_position);
    return out + n;
  }
}

// ---- reduce -------------------------------------------------------------------------------------
template <class It, class T, class Op>
T reduce(const par_policy& policy, It first, std::int64_t n, T init, Op op) {
  if constexpr (!is_random_access_v<It>) {
    return reduce(seq, first, n, init, op);
  } else {
    constexpr std::int64_t R = host::tuning::reduce_tile;
    const int threads = host::thread_count(policy);
    if (threads <= 1 || n < 2 * R) return reduce(seq, first, n, init, op);

    const std::int64_t tiles = (n + R - 1) / R;
    std::vector<std::optional<T>> partial(tiles);  // each written once: false sharing is negligible
    host::tile_counter counter;
    host::run_team(threads, [&](const std::atomic<bool>& stop) {
      for (std::int64_t i = counter.take(); i < tiles && !stop.load(std::memory_order_relaxed); i = counter.take()) {
        const std::int64_t b0 = i * R;
        partial[i].emplace(host::fold_nonempty<T>(first + b0, std::min(R, n - b0), op));
      }
    });
    T acc = init;
    for (auto& p : partial) acc = static_cast<T>(op(acc, *p));
    return acc;
  }
}

// ---- transpose ----------------------------------------------------------------------------------
/// Square blocks of every matrix of the batch, taken from the counter.
template <class InIt, class OutIt>
void transpose(const par_policy& policy, InIt in, OutIt out, const transpose_shape& s) {
  constexpr std::int64_t B = host::tuning::transpose_block;
  const int threads = host::thread_count(policy);
  const std::int64_t row_blocks = (s.rows + B - 1) / B, col_blocks = (s.cols + B - 1) / B;
  const std::int64_t per_matrix = row_blocks * col_blocks, blocks = per_matrix * s.count;
  if (threads <= 1 || blocks < 2) return transpose(seq, in, out, s);

  host::tile_counter counter;
  host::run_team(threads, [&](const std::atomic<bool>&) {
    for (std::int64_t t = counter.take(); t < blocks; t = counter.take()) {
      const std::int64_t b = t / per_matrix, k = t % per_matrix;
      const std::int64_t r0 = k / col_blocks * B, c0 = k % col_blocks * B;
      host::transpose_tiles(in + b * s.stride_in, s.ld_in, out + b * s.stride_out, s.ld_out, r0,
                            std::min(s.rows, r0 + B), c0, std::min(s.cols, c0 + B));
    }
  });
}

}  // namespace algo::detail
