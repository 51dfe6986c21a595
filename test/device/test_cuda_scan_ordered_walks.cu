// Forced deep walks of the ordered look-back (detail/cuda/scan/ordered_lookback.cuh). Under normal
// timing a tile nearly always finds an inclusive prefix in the window of its 32 nearest
// predecessors, so the windows kept in shared memory (two in this test's tuning, eight by
// default), the windows read again for the fold
// (window_slot) and the fold's restart from an inclusive prefix published since the walk passed it
// (`restart`) are seldom reached. Here the test knob scan_tuning_base::test_inclusive_every = K
// lets only tile 0 and the tiles whose index is a multiple of K publish their inclusive prefix; the
// others publish their aggregate only. Tiles of 64 x 4 elements (256), so hundreds of tiles stay
// cheap, also under compute-sanitizer (ALGO_TEST_SMALL=1 drops only the largest size).
//
// What is forced (K = 100): every tile t walks back at least to the window holding the last
// multiple of K below t (ceil((t - that) / 32) windows, up to 4: two kept, the others read again
// in the fold), further when that tile has not published yet; a scan by key stops earlier only at
// a tile holding a head, and the runs here span hundreds of tiles. reduce_by_key always walks to an
// inclusive prefix (its run counts), past every head. Each case checks, through the look-back's
// stats (lookback_stats), that the tiles walked at least those windows in all (a knob that did not
// take effect, or a walk cut short, fails even where the values come out right), and the results:
// plain float scans bit for bit against the host emulation of the left fold (scan_emulation.cuh),
// affine maps (8 bytes, non-commutative) against a sequential fold, scans by key and
// reduce_by_key with float values bit for bit against the emulation of the lifted scan (keys and
// counts exact). Bugs these catch: a wrong tile index in a window read again, a kept window's slot
// reused before every lane read it, a fold that skips or repeats a window or folds one out of
// order, the start lane taken from the wrong window, run counts summed over the wrong lanes.
//
// What is not forced: the restart itself. It needs a tile that walked past a publisher still busy
// with its own walk, and that publisher's inclusive prefix to appear before the late tile reads
// its window again. The "restarts" case makes this likely (K = 320: each publisher walks 10 windows
// and folds 320 aggregates, while the tiles after it walk on past it to the publisher before; no
// delays, spinning polls) and reports how many folds restarted (WARN); its results are checked bit
// for bit whatever that count is.
//
// reduce_by_key's count-only tiles (ordered_count_walk: a head-less tile whose stores read no value
// of its prefix walks for its run count alone) give the same bits as the folding walk by design, so
// the results cannot show that they ran. The "[count_walk]" case records, through the test knob
// count_walk_stats, which tiles took that walk and the count each found, and compares both with the
// host's prediction tile by tile (under normal timing: which tiles take it depends on the data
// only).
#include <algo/algo.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "keyed_tuned.cuh"
#include "scan_emulation.cuh"

using namespace algo_test;
using scan_emulation::bitwise_equal;
using scan_emulation::emulate;
using scan_emulation::emulate_with;
using scan_emulation::first_bit_difference;

namespace {
namespace ad = algo::detail;
namespace adc = algo::detail::cuda;
namespace seg = algo::detail::segmented;
namespace kt = keyed_tuned;

// tiles recorded, windows walked in all, most windows walked by one tile, folds restarted
__device__ unsigned long long g_walk[4];

template <int Every, bool Spin>
struct forced : adc::ordered_tuning_base {
  static constexpr int threads = 64;
  static constexpr int items_override = 4;
  static constexpr int test_inclusive_every = Every;
  static constexpr int ordered_kept_windows = 2;  // (the default keeps 8: walks past 2 read windows again)
  static constexpr unsigned lookback_initial_delay_ns = Spin ? 0 : adc::ordered_tuning_base::lookback_initial_delay_ns;
  static constexpr unsigned lookback_first_sleep_ns = Spin ? 0 : adc::ordered_tuning_base::lookback_first_sleep_ns;
  static constexpr unsigned lookback_max_sleep_ns = Spin ? 0 : adc::ordered_tuning_base::lookback_max_sleep_ns;
  static constexpr unsigned lookback_small_first_sleep_ns =
      Spin ? 0 : adc::ordered_tuning_base::lookback_small_first_sleep_ns;
  static constexpr unsigned lookback_small_max_sleep_ns = Spin ? 0 : adc::ordered_tuning_base::lookback_small_max_sleep_ns;
  static constexpr bool lookback_stats = true;
  static constexpr bool lookback_restart_stats = true;
  static __device__ void lookback_record(int, int, int windows, long long) {
    atomicAdd(&g_walk[0], 1ull);
    atomicAdd(&g_walk[1], static_cast<unsigned long long>(windows));
    atomicMax(&g_walk[2], static_cast<unsigned long long>(windows));
  }
  static __device__ void lookback_record_restarts(int r) {
    if (r > 0) atomicAdd(&g_walk[3], static_cast<unsigned long long>(r));
  }
};
constexpr int every = 100;
using forced_t = forced<every, false>;
constexpr int every_restart = 320;
using restart_t = forced<every_restart, true>;
constexpr int tile = 256;  // 64 x 4, every problem here

// reduce_by_key's count-only tiles (ordered_count_walk): E(t)'s run count + 1 for each tile t that
// walked for its count alone, 0 for the others
constexpr int max_counted_tiles = 4096;
__device__ unsigned g_count_walk[max_counted_tiles];

/// The default's look-back (normal timing, no forced walks) in 64 x 4 tiles, with a record of the
/// tiles that count only; FoldEvery = count_walk_fold_every (0: every head-less tile may).
template <int FoldEvery>
struct counting : adc::ordered_tuning_base {
  static constexpr int threads = 64;
  static constexpr int items_override = 4;
  static constexpr int count_walk_fold_every = FoldEvery;
  static constexpr bool count_walk_stats = true;
  static __device__ void count_walk_record(int t, unsigned count) {
    if (t < max_counted_tiles) g_count_walk[t] = count + 1u;
  }
};

struct walk_counts {
  unsigned long long tiles, windows, most, restarts;
};
void clear_walks() {
  const unsigned long long z[4] = {0, 0, 0, 0};
  require_cuda(cudaMemcpyToSymbol(g_walk, z, sizeof(z)), "cudaMemcpyToSymbol");
}
walk_counts read_walks() {
  unsigned long long h[4];
  require_cuda(cudaMemcpyFromSymbol(h, g_walk, sizeof(h)), "cudaMemcpyFromSymbol");
  return {h[0], h[1], h[2], h[3]};
}

/// The fewest windows the look-backs of n elements can walk in all, and the most one of them must
/// walk: tile t >= 1 walks at least to the window holding max(the last multiple of `k` below t, the
/// last tile below t holding a head when `stop_at_heads`).
struct walk_bound {
  unsigned long long total = 0, most = 0;
};
walk_bound bound_of(std::int64_t n, int k, const std::vector<char>* heads) {
  const std::int64_t tiles = (n + tile - 1) / tile;
  walk_bound b;
  std::int64_t last_head_tile = 0;
  for (std::int64_t t = 1; t < tiles; ++t) {
    if (heads) {
      for (std::int64_t i = (t - 1) * tile; i < t * tile; ++i)
        if ((*heads)[static_cast<std::size_t>(i)]) last_head_tile = t - 1;
    }
    const std::int64_t s = std::max((t - 1) / k * k, heads ? last_head_tile : std::int64_t(0));
    const auto w = static_cast<unsigned long long>((t - s + 31) / 32);
    b.total += w;
    b.most = std::max(b.most, w);
  }
  return b;
}

void check_walks(const walk_counts& c, std::int64_t n, const walk_bound& b) {
  const std::int64_t tiles = (n + tile - 1) / tile;
  INFO("tiles " << tiles << ": look-backs recorded " << c.tiles << ", windows walked " << c.windows << " (at least "
                << b.total << "), most by one tile " << c.most << " (at least " << b.most << ")");
  CHECK(c.tiles == static_cast<unsigned long long>(tiles - 1));
  CHECK(c.windows >= b.total);
  CHECK(c.most >= b.most);
}

/// Sizes: hundreds of tiles, at and around tile boundaries and multiples of K.
std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> s{101 * tile + 3, 2 * every * tile, 2 * every * tile + 1, 300 * tile - 1, 451 * tile + 17};
  if (!small_run()) s.push_back(1200 * tile + 77);
  return s;
}

template <class Tuning, class T, class Op>
void plain_scan(const T* in, T* out, std::int64_t n, Op op, adc::maybe_value<T> init, bool exclusive) {
  using Acc = ad::accumulate_with<Op, T>;
  const adc::scan_problem<T, const T*, T*, Acc> p{in, out, n, Acc{op}, init, exclusive,
                                                   exclusive ? "exclusive_scan" : "inclusive_scan"};
  adc::run_ordered_lookback_tuned<kt::Phase, kt::Block, Tuning>(p, nullptr);
}

/// Float plain scans under Tuning: bit for bit against the emulation; the walks counted.
template <class Tuning>
walk_counts check_plain_float(std::int64_t n, std::uint64_t seed, bool exclusive) {
  INFO("float, n = " << n << (exclusive ? ", exclusive with init" : ", inclusive"));
  using K = adc::tile_traits<adc::scan_problem<float, const float*, float*, kt::aop<float>>, kt::Phase, kt::Block, Tuning>;
  static_assert(K::tile_items == tile, "64 x 4 tiles");
  const std::vector<float> h = random_vector<float>(static_cast<std::size_t>(n), seed);
  const float init = random_scalar<float>(seed + 1);
  device_buffer<float> in(h), out(h.size());
  clear_walks();
  plain_scan<Tuning>(in.begin(), out.begin(), n, algo::plus<>{}, exclusive ? adc::some(init) : adc::none<float>(), exclusive);
  require_device_ok("forced plain float scan");
  const walk_counts c = read_walks();
  const auto got = out.download();
  const auto want = emulate(h, exclusive, init, exclusive, K::threads, K::items, /*ordered=*/true);
  INFO("first bit difference from the emulation at " << first_bit_difference(got, want));
  CHECK(bitwise_equal(got, want));
  CHECK(out.guard_intact());
  return c;
}

/// reduce_by_key_into under Tuning, float values: the keys and the run count exact, the values bit for
/// bit against the emulation of the lifted scan.
template <class Tuning>
void check_runs_float(std::int64_t n, const std::vector<std::int32_t>& h_k, const std::vector<float>& h_v,
                      const std::vector<char>& heads) {
  using P = kt::runs_problem<float>;
  using K = kt::traits<P, Tuning>;
  static_assert(K::tile_items == tile, "64 x 4 tiles");
  device_buffer<std::int32_t> k(h_k), ko(h_k.size());
  device_buffer<float> v(h_v), out(h_v.size());
  device_buffer<long long> count(1);
  out.fill_sentinel();
  ko.fill_sentinel();
  kt::reduce_by_key<kt::strategy::ordered, Tuning>(k.begin(), v.begin(), ko.begin(), out.begin(), count.begin(), n);
  require_device_ok("tuned reduce_by_key");
  const auto lifted = emulate_with(kt::lift_runs_host(h_v, heads), false, {}, false, K::threads, K::items, true,
                                   kt::host_op<float>());
  std::vector<std::int32_t> want_k;
  std::vector<float> want_v;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (heads[u]) want_k.push_back(h_k[u]);
    if (i + 1 == n || heads[u + 1]) {
      want_v.push_back(lifted[u].value);
      CHECK(lifted[u].runs == static_cast<int>(want_k.size()));  // (the emulation's own counts)
    }
  }
  const long long runs = count.download()[0];
  REQUIRE(runs == static_cast<long long>(want_k.size()));
  auto got_k = ko.download();
  auto got_v = out.download();
  got_k.resize(want_k.size());
  got_v.resize(want_v.size());
  CHECK(got_k == want_k);
  INFO("first bit difference from the emulation at " << first_bit_difference(got_v, want_v));
  CHECK(bitwise_equal(got_v, want_v));
}

/// Inclusive / exclusive scans by key and reduce_by_key_into under Tuning, float values, against the
/// emulation of the lifted scan; the walks counted against their bound.
template <class Tuning>
void check_keyed_float(std::int64_t n, const std::vector<std::int32_t>& h_k, std::uint64_t seed, bool report_restarts) {
  const std::vector<float> h_v = random_vector<float>(static_cast<std::size_t>(n), seed);
  const float init = random_scalar<float>(seed + 1);
  const std::vector<char> heads = kt::key_heads_of(h_k);
  device_buffer<std::int32_t> k(h_k);
  device_buffer<float> v(h_v), out(h_v.size());
  unsigned long long restarts = 0;
  for (bool exclusive : {false, true}) {
    INFO((exclusive ? "exclusive_scan_by_key (init)" : "inclusive_scan_by_key"));
    using P = kt::lifted_problem<float, kt::key_heads, seg::lift_plain>;
    using K = kt::traits<P, Tuning>;
    static_assert(K::tile_items == tile, "64 x 4 tiles");
    out.fill_sentinel();
    clear_walks();
    if (exclusive) {
      kt::scan_by_key<kt::strategy::ordered, Tuning, seg::lift_exclusive>(k.begin(), v.begin(), out.begin(), n, init);
    } else {
      kt::scan_by_key<kt::strategy::ordered, Tuning, seg::lift_plain>(k.begin(), v.begin(), out.begin(), n, init);
    }
    require_device_ok("forced scan by key");
    const walk_counts c = read_walks();
    restarts += c.restarts;
    const auto want = kt::values_of(emulate_with(kt::lift_host(h_v, heads, exclusive, init), false, {}, false, K::threads,
                                                 K::items, true, kt::host_op<float>()));
    const auto got = out.download();
    INFO("first bit difference from the emulation at " << first_bit_difference(got, want));
    CHECK(bitwise_equal(got, want));
    CHECK(out.guard_intact());
    check_walks(c, n, bound_of(n, Tuning::test_inclusive_every, &heads));
  }
  {
    INFO("reduce_by_key_into");
    clear_walks();
    check_runs_float<Tuning>(n, h_k, h_v, heads);
    const walk_counts c = read_walks();
    restarts += c.restarts;
    check_walks(c, n, bound_of(n, Tuning::test_inclusive_every, nullptr));  // counts: past every head
  }
  if (report_restarts) WARN("ordered look-back, n = " << n << ": folds restarted from a newer inclusive prefix: " << restarts);
}
}  // namespace

TEST_CASE("cuda ordered look-back, forced deep walks: float scans bit for bit against the emulation",
          "[cuda][scan][ordered][walks]") {
  std::uint64_t seed = 4100;
  for (std::int64_t n : sizes()) {
    for (bool exclusive : {false, true}) {
      const walk_counts c = check_plain_float<forced_t>(n, ++seed, exclusive);
      check_walks(c, n, bound_of(n, every, nullptr));
    }
  }
}

TEST_CASE("cuda ordered look-back, forced deep walks: affine maps (non-commutative) against a sequential fold",
          "[cuda][scan][ordered][walks]") {
  std::uint64_t seed = 4200;
  for (std::int64_t n : sizes()) {
    for (bool exclusive : {false, true}) {
      INFO("affine_i, n = " << n << (exclusive ? ", exclusive with init" : ", inclusive with init"));
      const std::vector<affine_i> h = random_vector<affine_i>(static_cast<std::size_t>(n), ++seed);
      const affine_i init = random_scalar<affine_i>(seed + 7);
      const compose_affine_i op{};
      std::vector<affine_i> want(h.size());
      affine_i acc = init;
      for (std::size_t i = 0; i < h.size(); ++i) {
        if (exclusive) want[i] = acc;
        acc = op(acc, h[i]);
        if (!exclusive) want[i] = acc;
      }
      device_buffer<affine_i> in(h), out(h.size());
      clear_walks();
      plain_scan<forced_t>(in.begin(), out.begin(), n, op, adc::some(init), exclusive);
      require_device_ok("forced affine scan");
      const walk_counts c = read_walks();
      expect_equal("vs sequential fold", out.download(), want);
      CHECK(out.guard_intact());
      check_walks(c, n, bound_of(n, every, nullptr));
    }
  }
}

TEST_CASE("cuda ordered look-back, forced deep walks: scans by key and reduce_by_key over runs of hundreds of tiles",
          "[cuda][segmented][by_key][ordered][walks]") {
  std::uint64_t seed = 4300;
  for (std::int64_t n : sizes()) {
    {
      INFO("runs of 30..350 tiles (random lengths), n = " << n);
      check_keyed_float<forced_t>(n, kt::run_keys(n, 30 * tile - 5, 350 * tile + 7, ++seed), seed + 100, false);
    }
    {
      INFO("runs of exactly 130 tiles (heads on tile boundaries), n = " << n);
      check_keyed_float<forced_t>(n, kt::run_keys(n, 130 * tile, 130 * tile, ++seed), seed + 100, false);
    }
    {
      INFO("runs of 1..40 elements then one run of the rest (heads in every early tile, none late), n = " << n);
      std::vector<std::int32_t> k = kt::run_keys(n, 1, 40, ++seed);
      for (std::int64_t i = n / 3; i < n; ++i) k[static_cast<std::size_t>(i)] = 1 << 30;
      check_keyed_float<forced_t>(n, k, seed + 100, false);
    }
  }
}

/// reduce_by_key under counting<FoldEvery>: the results (check_runs_float), and which tiles walked
/// for their count alone, with which count, against the host: tile t > 0 does when it holds no head,
/// t is not a multiple of FoldEvery, and its last element does not end a run (no store of the tile
/// reads its prefix's value: prefix_value_use); its count is the heads before it.
template <int FoldEvery>
void check_count_only_tiles(std::int64_t n, const std::vector<std::int32_t>& h_k, std::uint64_t seed) {
  const std::int64_t tiles = (n + tile - 1) / tile;
  REQUIRE(tiles <= max_counted_tiles);
  const std::vector<float> h_v = random_vector<float>(static_cast<std::size_t>(n), seed);
  const std::vector<char> heads = kt::key_heads_of(h_k);
  std::vector<unsigned> want(static_cast<std::size_t>(tiles), 0u);
  unsigned before = 0;  // heads before tile t
  std::int64_t taken = 0;
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t b = t * tile, e = std::min(n, b + tile);
    bool head = false;
    for (std::int64_t i = b; i < e; ++i) head |= heads[static_cast<std::size_t>(i)] != 0;
    const bool ends_run = e == n || heads[static_cast<std::size_t>(e)] != 0;
    if (t > 0 && !head && (FoldEvery == 0 || t % std::max(FoldEvery, 1) != 0) && !ends_run) {
      want[static_cast<std::size_t>(t)] = before + 1u;
      ++taken;
    }
    for (std::int64_t i = b; i < e; ++i) before += heads[static_cast<std::size_t>(i)] != 0;
  }
  INFO("count_walk_fold_every " << FoldEvery << ", " << tiles << " tiles, " << taken << " of them count only");
  REQUIRE(taken > 0);  // (the case exercises the path: keys chosen so)
  std::vector<unsigned> zero(static_cast<std::size_t>(max_counted_tiles), 0u);
  require_cuda(cudaMemcpyToSymbol(g_count_walk, zero.data(), zero.size() * sizeof(unsigned)), "cudaMemcpyToSymbol");
  check_runs_float<counting<FoldEvery>>(n, h_k, h_v, heads);
  std::vector<unsigned> got(static_cast<std::size_t>(tiles));
  require_cuda(cudaMemcpyFromSymbol(got.data(), g_count_walk, got.size() * sizeof(unsigned)), "cudaMemcpyFromSymbol");
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::size_t t = 0; t < got.size(); ++t)
    if (got[t] != want[t]) {
      if (first_wrong < 0) first_wrong = static_cast<std::int64_t>(t);
      ++wrong;
    }
  std::ostringstream first;
  if (first_wrong >= 0)
    first << "; the first, tile " << first_wrong << ": recorded " << got[static_cast<std::size_t>(first_wrong)]
          << ", expected " << want[static_cast<std::size_t>(first_wrong)] << " (count + 1; 0: not taken)";
  INFO("tiles whose record differs from the host's: " << wrong << first.str());
  CHECK(wrong == 0);
}

TEST_CASE("cuda ordered look-back: reduce_by_key's count-only tiles taken where they should, with the right counts",
          "[cuda][segmented][by_key][ordered][walks][count_walk]") {
  std::uint64_t seed = 4500;
  for (std::int64_t n : sizes()) {
    {
      INFO("runs of 300..1500 elements (random lengths), n = " << n);
      const auto k = kt::run_keys(n, 300, 1500, ++seed);
      check_count_only_tiles<32>(n, k, seed + 100);
      check_count_only_tiles<0>(n, k, seed + 200);
    }
    {
      INFO("runs of 1..40 elements then one run of the rest (count-only tiles after a third), n = " << n);
      std::vector<std::int32_t> k = kt::run_keys(n, 1, 40, ++seed);
      for (std::int64_t i = n / 3; i < n; ++i) k[static_cast<std::size_t>(i)] = 1 << 30;
      check_count_only_tiles<32>(n, k, seed + 100);
      check_count_only_tiles<0>(n, k, seed + 200);
    }
    {
      INFO("runs of exactly 3 tiles (heads on tile boundaries: each run's last tile ends it), n = " << n);
      const auto k = kt::run_keys(n, 3 * tile, 3 * tile, ++seed);
      check_count_only_tiles<0>(n, k, seed + 100);
    }
  }
}

// ---- spans: a non-commutative operator that knows its operands ----------------------------------------
// A value is the span [lo, hi] of input positions it covers (mod 2^16: 4 bytes, so reduce_by_key's
// accumulator takes the packed tile state and its count-only tiles); op concatenates two spans.
// Results, exact: each run's span (reduce_by_key), each element's span from its run's start
// (inclusive_scan_by_key, segmented_inclusive_scan over the runs' offsets), from 0 (inclusive_scan);
// an operand dropped, folded twice or out of order shows in them. op also counts the calls whose
// spans are not adjacent (b not starting where a ends): operands a sequential fold never forms,
// whose results the scan drops. There must be none in the plain scans at any size (the last tile
// folds only its items before the end: scan_last_tile) and none over whole tiles anywhere (the keyed
// scans at multiples of 2^16, a multiple of every tile): the warp scans and the walks are predicated,
// the block scan's spine scans only the warps' totals (until 2026-12-01 its lanes past the last warp
// folded repeated totals: 112 calls a tile of 8 warps), reduce_by_key's count-only tiles scan with
// no prefix. What the keyed scans' last tile folds past the end, where its items do not fit the
// staging beside its kept keys (tile_traits::last_tile_staged), is reported (WARN), not asserted.
struct span16 {
  std::uint16_t lo, hi;
};
__device__ unsigned g_span_violations;
struct span_concat {
  __host__ __device__ span16 operator()(const span16& a, const span16& b) const {
#ifdef __CUDA_ARCH__
    if (static_cast<std::uint16_t>(a.hi + 1u) != b.lo) atomicAdd(&g_span_violations, 1u);
#endif
    return span16{a.lo, b.hi};
  }
};
bool same_span(const span16& a, const span16& b) { return a.lo == b.lo && a.hi == b.hi; }
span16 span_of(std::int64_t lo, std::int64_t hi) {
  return span16{static_cast<std::uint16_t>(lo), static_cast<std::uint16_t>(hi)};
}
void clear_violations() {
  const unsigned z = 0;
  require_cuda(cudaMemcpyToSymbol(g_span_violations, &z, sizeof z), "cudaMemcpyToSymbol");
}
unsigned read_violations() {
  unsigned v = 0;
  require_cuda(cudaMemcpyFromSymbol(&v, g_span_violations, sizeof v), "cudaMemcpyFromSymbol");
  return v;
}
/// No call on spans that are not adjacent since clear_violations (`whole_tiles`), or a report of
/// them (the last tile's items past the end).
void check_violations(bool whole_tiles) {
  const unsigned violations = read_violations();
  if (whole_tiles) {
    INFO("calls of op on spans that are not adjacent (results discarded): " << violations);
    CHECK(violations == 0u);
  } else if (violations) {
    WARN("calls of op on spans that are not adjacent, the last tile's items past the end: " << violations);
  }
}
/// Every tile of every single-pass scan is whole at these sizes (tiles are powers of two <= 2^13).
bool whole_tiles_at(std::int64_t n) { return n % 65536 == 0; }
std::int64_t first_span_difference(const std::vector<span16>& got, const std::vector<span16>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (i >= got.size() || !same_span(got[i], want[i])) return static_cast<std::int64_t>(i);
  return -1;
}

template <class Policy>
void check_spans(const char* what, const Policy& policy, const std::vector<std::int32_t>& h_k) {
  const auto n = static_cast<std::int64_t>(h_k.size());
  const bool whole = whole_tiles_at(n);
  const std::vector<char> heads = kt::key_heads_of(h_k);
  std::vector<span16> h_v(h_k.size());
  for (std::int64_t i = 0; i < n; ++i) h_v[static_cast<std::size_t>(i)] = span_of(i, i);
  device_buffer<std::int32_t> k(h_k), ko(h_k.size());
  device_buffer<span16> v(h_v), out(h_v.size());
  {
    INFO(what << ": reduce_by_key, n = " << n);
    std::vector<std::int32_t> want_k;
    std::vector<span16> want_v;
    for (std::int64_t i = 0, start = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (heads[u]) {
        want_k.push_back(h_k[u]);
        start = i;
      }
      if (i + 1 == n || heads[u + 1]) want_v.push_back(span_of(start, i));
    }
    clear_violations();
    const auto ends = algo::reduce_by_key(policy, k.begin(), k.begin() + n, v.begin(), ko.begin(), out.begin(),
                                          algo::equal_to<>{}, span_concat{});
    require_device_ok("reduce_by_key of spans");
    check_violations(whole);
    REQUIRE(ends.first - ko.begin() == static_cast<std::ptrdiff_t>(want_k.size()));
    auto got_k = ko.download();
    auto got_v = out.download();
    got_k.resize(want_k.size());
    got_v.resize(want_v.size());
    CHECK(got_k == want_k);
    INFO("first span that differs: run " << first_span_difference(got_v, want_v));
    CHECK(first_span_difference(got_v, want_v) < 0);
  }
  {
    INFO(what << ": inclusive_scan_by_key, n = " << n);
    std::vector<span16> want(h_v.size());
    for (std::int64_t i = 0, start = 0; i < n; ++i) {
      if (heads[static_cast<std::size_t>(i)]) start = i;
      want[static_cast<std::size_t>(i)] = span_of(start, i);
    }
    clear_violations();
    algo::inclusive_scan_by_key(policy, k.begin(), k.begin() + n, v.begin(), out.begin(), algo::equal_to<>{},
                                span_concat{});
    require_device_ok("inclusive_scan_by_key of spans");
    check_violations(whole);
    const auto got = out.download();
    INFO("first span that differs: element " << first_span_difference(got, want));
    CHECK(first_span_difference(got, want) < 0);
  }
  {
    INFO(what << ": segmented_inclusive_scan over the runs' offsets, n = " << n);
    std::vector<std::int64_t> h_off;
    std::vector<span16> want(h_v.size());
    for (std::int64_t i = 0, start = 0; i < n; ++i) {
      if (heads[static_cast<std::size_t>(i)]) {
        start = i;
        h_off.push_back(i);
      }
      want[static_cast<std::size_t>(i)] = span_of(start, i);
    }
    h_off.push_back(n);
    device_buffer<std::int64_t> off(h_off);
    clear_violations();
    algo::segmented_inclusive_scan(policy, v.begin(), off.begin(), off.end(), out.begin(), span_concat{});
    require_device_ok("segmented_inclusive_scan of spans");
    check_violations(whole);
    const auto got = out.download();
    INFO("first span that differs: element " << first_span_difference(got, want));
    CHECK(first_span_difference(got, want) < 0);
  }
  {
    INFO(what << ": inclusive_scan, n = " << n);
    std::vector<span16> want(h_v.size());
    for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = span_of(0, i);
    clear_violations();
    algo::inclusive_scan(policy, v.begin(), v.begin() + n, out.begin(), span_concat{});
    require_device_ok("inclusive_scan of spans");
    check_violations(true);  // its last tile folds only its items (scan_last_tile)
    const auto got = out.download();
    INFO("first span that differs: element " << first_span_difference(got, want));
    CHECK(first_span_difference(got, want) < 0);
  }
}

TEST_CASE("cuda look-backs: spans of positions, concatenated (non-commutative, exact), over three look-backs",
          "[cuda][segmented][by_key][ordered][walks][count_walk][spans]") {
  std::uint64_t seed = 4600;
  // 300,001: a last tile of a few items; 5 x 2^16 and 46 x 2^16: whole tiles only
  const std::vector<std::int64_t> ns = small_run() ? std::vector<std::int64_t>{300001, 327680}
                                                   : std::vector<std::int64_t>{300001, 327680, 3014656};
  for (std::int64_t n : ns) {
    // long runs (most tiles hold no head: reduce_by_key's count-only tiles), then short ones
    std::vector<std::int32_t> k = kt::run_keys(n, 20000, 150000, ++seed);
    const std::vector<std::int32_t> tail = kt::run_keys(n / 4, 1, 40, ++seed);
    for (std::int64_t i = 0; i < n / 4; ++i)
      k[static_cast<std::size_t>(n - n / 4 + i)] = tail[static_cast<std::size_t>(i)] + (1 << 29);
    check_spans("ordered_lookback", algo::cuda.with(algo::scan_strategy::ordered_lookback), k);
    check_spans("decoupled_lookback", algo::cuda.with(algo::scan_strategy::decoupled_lookback), k);
    check_spans("deterministic_lookback", algo::cuda.with(algo::scan_strategy::deterministic_lookback), k);
  }
}

// Plain scans of spans over every scan strategy, the three block scans and both warp phases, at sizes
// around the tiles (4096 spans a tile of the default tuning; one, two and many tiles, last tiles of
// 1 .. 4095 items) and at multiples of 2^16: results exact, and no call on spans that are not
// adjacent at any size: the last tile of each pass (the multi-pass strategies' later passes
// included) folds only its items before the end (scan_last_tile, reduce_tile).
template <class Policy>
void check_plain_spans(const char* what, const Policy& policy, bool exclusive_too) {
  std::vector<std::int64_t> ns{1, 2, 31, 33, 257, 4095, 4096, 4097, 8191, 12289, 65536, 100003};
  if (!small_run()) ns.insert(ns.end(), {196608, 1114112});  // (ALGO_TEST_SMALL: under the sanitizers)
  for (std::int64_t n : ns) {
    INFO(what << ", n = " << n);
    std::vector<span16> h_v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h_v[static_cast<std::size_t>(i)] = span_of(i, i);
    device_buffer<span16> v(h_v), out(h_v.size());
    std::vector<span16> want(h_v.size());
    for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = span_of(0, i);
    clear_violations();
    algo::inclusive_scan(policy, v.begin(), v.end(), out.begin(), span_concat{});
    require_device_ok("inclusive_scan of spans");
    check_violations(true);  // every call checked
    auto got = out.download();
    INFO("inclusive: first span that differs: element " << first_span_difference(got, want));
    CHECK(first_span_difference(got, want) < 0);
    if (!exclusive_too) continue;
    // init = the span just before position 0: [-1, -1] mod 2^16
    for (std::int64_t i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = span_of(-1, i - 1);
    clear_violations();
    algo::exclusive_scan(policy, v.begin(), v.end(), out.begin(), span_of(-1, -1), span_concat{});
    require_device_ok("exclusive_scan of spans");
    check_violations(true);
    got = out.download();
    INFO("exclusive: first span that differs: element " << first_span_difference(got, want));
    CHECK(first_span_difference(got, want) < 0);
  }
}

TEST_CASE("cuda scans of spans: every strategy, block scan and warp phase; op sees only neighbours",
          "[cuda][scan][block_scan][spans]") {
  check_plain_spans("default", algo::cuda, true);
  check_plain_spans("deterministic_lookback", algo::cuda.with(algo::scan_strategy::deterministic_lookback), false);
  check_plain_spans("reduce_then_scan", algo::cuda.with(algo::scan_strategy::reduce_then_scan), true);
  check_plain_spans("scan_then_fan", algo::cuda.with(algo::scan_strategy::scan_then_fan), false);
  check_plain_spans("two_level", algo::cuda.with(algo::scan_strategy::two_level), false);
  check_plain_spans("kogge_stone", algo::cuda.with(algo::block_scan::kogge_stone), true);
  check_plain_spans("brent_kung", algo::cuda.with(algo::block_scan::brent_kung), true);
  check_plain_spans("brent_kung, reduce_then_scan",
                    algo::cuda.with(algo::block_scan::brent_kung).with(algo::scan_strategy::reduce_then_scan), false);
  check_plain_spans("smem warp phase", algo::cuda.with(algo::warp_phase::smem), false);
}

TEST_CASE("cuda ordered look-back, restarts plausible (K = 320, spinning polls): results bit for bit",
          "[cuda][scan][segmented][ordered][walks]") {
  const std::vector<std::int64_t> ns = small_run() ? std::vector<std::int64_t>{250 * tile + 9}
                                                   : std::vector<std::int64_t>{1500 * tile + 9, 3000 * tile - 1};
  std::uint64_t seed = 4400;
  for (std::int64_t n : ns) {
    unsigned long long restarts = 0;
    for (bool exclusive : {false, true}) {
      const walk_counts c = check_plain_float<restart_t>(n, ++seed, exclusive);
      check_walks(c, n, bound_of(n, every_restart, nullptr));
      restarts += c.restarts;
    }
    WARN("ordered look-back, plain float scans, n = " << n << ": folds restarted from a newer inclusive prefix: "
                                                      << restarts);
    INFO("one run of the whole input (no head after element 0), n = " << n);
    check_keyed_float<restart_t>(n, std::vector<std::int32_t>(static_cast<std::size_t>(n), 7), ++seed, true);
  }
}
