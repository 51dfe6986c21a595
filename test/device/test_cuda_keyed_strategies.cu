// The keyed and segmented scans across algo::cuda's look-back strategies, on the same inputs:
// inclusive / exclusive_scan_by_key, reduce_by_key_into (keys out, values out, the count) and
// segmented_inclusive / exclusive_scan over device offsets (the tuned runs: over their heads mask, as
// the policies read offsets in memory).
//   int32 values (plus: exact, so every strategy must give the same bits): the classic decoupled
//   look-back, the fixed-anchor deterministic look-back and the ordered look-back through their
//   policies, the default policy (the classic look-back for integers), and the ordered look-back
//   with 128-thread tiles (the threads128 tuning of test_cuda_scan_ordered.cu: tiles of 128 x 32
//   pairs, reduce_by_key's 128 x 16, where the policies take 256 x 32 and 256 x 16), each against
//   the host reference: a strategy whose tile prefix or run count is off anywhere differs there.
//   float values: the ordered look-back (the default policy's choice for floating-point values, the
//   ordered policy, and the 128-thread tuning) bit for bit against the host emulation of its
//   grouping (scan_emulation.cuh, emulate_with over the lifted (value, head) / (value, runs)
//   pairs and the library's segmented operator, in each one's tile shape): catches any change of
//   grouping, in a tile or across tiles, that a tolerance would let through; and reduce_by_key
//   without count-only tiles (count_walk = false: every tile folds its prefix's value) against the
//   same emulation, which the default (head-less tiles that end no run walk for the count alone)
//   must match too.
// Layouts: runs of 1-3 keys (heads in every tile: the ordered look-back's fold starts at the
// predecessor's head), of 500-1500 and of 2^16-2^17 (scans by key walk back to a head many tiles
// away, reduce_by_key to an inclusive prefix), and of exactly 2^16 (every head on a tile's first
// element in every tile shape, every run ending on a tile's last: the folds start at a tile that
// begins with a head, and each run's value is written by the last element of the tile before the
// next head); sizes around the tiles of every shape.
#include <algo/algo.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "keyed_tuned.cuh"
#include "scan_emulation.cuh"

using namespace algo_test;
using scan_emulation::bitwise_equal;
using scan_emulation::emulate_with;
using scan_emulation::first_bit_difference;

namespace {
namespace adc = algo::detail::cuda;
namespace seg = algo::detail::segmented;
namespace kt = keyed_tuned;

struct threads128 : adc::ordered_tuning_base {
  static constexpr int threads = 128;
};
/// reduce_by_key without count-only tiles (ordered_lookback.cuh, ordered_count_walk: every tile
/// folds its prefix's value): the same bits as the default, which has them.
struct no_count_walk : adc::ordered_tuning_base {
  static constexpr bool count_walk = false;
};

/// One input: keys in runs, the offsets of the same runs (segments), and the heads.
struct layout {
  const char* name;
  std::int64_t lo, hi;  // run lengths
};

std::vector<std::int64_t> sizes() {
  if (small_run()) return {1, 2049, 8193, 20000};
  return {1, 2047, 2049, 4095, 4097, 8191, 8193, 3 * 8192 + 5, 100003, (1 << 19) + 3};
}

/// What one strategy gives for the five calls.
template <class V>
struct results {
  std::vector<V> incl, excl, seg_incl, seg_excl, sums;
  std::vector<std::int32_t> keys;
  long long count = -1;
};

/// The device inputs and outputs of one case.
template <class V>
struct buffers {
  std::int64_t n, segments;
  V init;
  device_buffer<std::int32_t> k, ko;
  device_buffer<V> v, out;
  device_buffer<std::int64_t> offsets;
  device_buffer<std::uint32_t> mask;  // the heads mask of the offsets (the tuned segmented scans)
  device_buffer<long long> count;
  buffers(const std::vector<std::int32_t>& h_k, const std::vector<V>& h_v, const std::vector<std::int64_t>& h_o, V init_)
      : n(static_cast<std::int64_t>(h_k.size())), segments(static_cast<std::int64_t>(h_o.size()) - 1), init(init_),
        k(h_k), ko(h_k.size()), v(h_v), out(h_v.size()), offsets(h_o), mask(kt::heads_mask_of(h_o, n)), count(1) {}

  /// out's first m values; out refilled with the sentinel.
  std::vector<V> take(std::size_t m) {
    require_device_ok("keyed call");
    CHECK(out.guard_intact());
    std::vector<V> r = out.download();
    r.resize(m);
    out.fill_sentinel();
    return r;
  }
  template <class Policy>
  results<V> through(const Policy& policy) {
    results<V> r;
    const auto un = static_cast<std::size_t>(n);
    algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin());
    r.incl = take(un);
    algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), init);
    r.excl = take(un);
    ko.fill_sentinel();
    algo::reduce_by_key_into(policy, k.begin(), k.end(), v.begin(), ko.begin(), out.begin(), count.begin());
    r.count = count.download()[0];
    r.sums = take(static_cast<std::size_t>(r.count > 0 && r.count <= n ? r.count : 0));
    r.keys = ko.download();
    r.keys.resize(r.sums.size());
    algo::segmented_inclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), out.begin());
    r.seg_incl = take(un);
    algo::segmented_exclusive_scan(policy, v.begin(), offsets.begin(), offsets.end(), out.begin(), init);
    r.seg_excl = take(un);
    return r;
  }
  template <class Tuning>
  results<V> tuned() {
    using kt::strategy;
    results<V> r;
    const auto un = static_cast<std::size_t>(n);
    kt::scan_by_key<strategy::ordered, Tuning, seg::lift_plain>(k.begin(), v.begin(), out.begin(), n, init);
    r.incl = take(un);
    kt::scan_by_key<strategy::ordered, Tuning, seg::lift_exclusive>(k.begin(), v.begin(), out.begin(), n, init);
    r.excl = take(un);
    ko.fill_sentinel();
    kt::reduce_by_key<strategy::ordered, Tuning>(k.begin(), v.begin(), ko.begin(), out.begin(), count.begin(), n);
    r.count = count.download()[0];
    r.sums = take(static_cast<std::size_t>(r.count > 0 && r.count <= n ? r.count : 0));
    r.keys = ko.download();
    r.keys.resize(r.sums.size());
    kt::segmented_scan<strategy::ordered, Tuning, seg::lift_plain>(v.begin(), mask.begin(), out.begin(), n, init);
    r.seg_incl = take(un);
    kt::segmented_scan<strategy::ordered, Tuning, seg::lift_exclusive>(v.begin(), mask.begin(), out.begin(), n, init);
    r.seg_excl = take(un);
    return r;
  }
  /// reduce_by_key_into alone under Tuning (the other fields empty: compare_reduce_by_key).
  template <class Tuning>
  results<V> tuned_reduce_by_key() {
    results<V> r;
    ko.fill_sentinel();
    kt::reduce_by_key<kt::strategy::ordered, Tuning>(k.begin(), v.begin(), ko.begin(), out.begin(), count.begin(), n);
    r.count = count.download()[0];
    r.sums = take(static_cast<std::size_t>(r.count > 0 && r.count <= n ? r.count : 0));
    r.keys = ko.download();
    r.keys.resize(r.sums.size());
    return r;
  }
};

/// The exact host reference (int32).
results<std::int32_t> host_reference(const std::vector<std::int32_t>& h_k, const std::vector<std::int32_t>& h_v,
                                     const std::vector<char>& heads, std::int32_t init) {
  results<std::int32_t> r;
  const std::size_t n = h_k.size();
  r.incl.resize(n);
  r.excl.resize(n);
  std::int32_t acc = 0, ex = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (heads[i]) {
      acc = 0;
      ex = init;
      r.keys.push_back(h_k[i]);
    }
    acc += h_v[i];
    r.incl[i] = acc;
    r.excl[i] = ex;
    ex += h_v[i];
    if (i + 1 == n || heads[i + 1]) r.sums.push_back(acc);
  }
  r.count = static_cast<long long>(r.keys.size());
  r.seg_incl = r.incl;  // the offsets are the runs
  r.seg_excl = r.excl;
  return r;
}

/// The ordered look-back's float results in the tile shapes of Tuning, from the emulation.
template <class Tuning>
results<float> emulated(const std::vector<std::int32_t>& h_k, const std::vector<float>& h_v,
                        const std::vector<char>& heads, float init) {
  using KI = kt::traits<kt::lifted_problem<float, kt::key_heads, seg::lift_plain>, Tuning>;
  using KE = kt::traits<kt::lifted_problem<float, kt::key_heads, seg::lift_exclusive>, Tuning>;
  using KR = kt::traits<kt::runs_problem<float>, Tuning>;
  using KO = kt::traits<kt::lifted_problem<float, kt::mask_heads, seg::lift_plain>, Tuning>;
  using KOE = kt::traits<kt::lifted_problem<float, kt::mask_heads, seg::lift_exclusive>, Tuning>;
  const auto op = kt::host_op<float>();
  const auto li = kt::lift_host(h_v, heads, false, init), le = kt::lift_host(h_v, heads, true, init);
  results<float> r;
  r.incl = kt::values_of(emulate_with(li, false, {}, false, KI::threads, KI::items, true, op));
  r.excl = kt::values_of(emulate_with(le, false, {}, false, KE::threads, KE::items, true, op));
  // the offsets are the runs: the same lifted inputs, emulated again only where the shape differs
  r.seg_incl = KO::threads == KI::threads && KO::items == KI::items
                   ? r.incl
                   : kt::values_of(emulate_with(li, false, {}, false, KO::threads, KO::items, true, op));
  r.seg_excl = KOE::threads == KE::threads && KOE::items == KE::items
                   ? r.excl
                   : kt::values_of(emulate_with(le, false, {}, false, KOE::threads, KOE::items, true, op));
  const auto runs = emulate_with(kt::lift_runs_host(h_v, heads), false, {}, false, KR::threads, KR::items, true, op);
  const std::size_t n = h_k.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (heads[i]) r.keys.push_back(h_k[i]);
    if (i + 1 == n || heads[i + 1]) r.sums.push_back(runs[i].value);
  }
  r.count = static_cast<long long>(r.keys.size());
  return r;
}

template <class V>
void compare(const char* who, const results<V>& got, const results<V>& want) {
  INFO("strategy: " << who);
  REQUIRE(got.count == want.count);
  CHECK(got.keys == want.keys);
  const auto same = [](const char* what, const std::vector<V>& a, const std::vector<V>& b) {
    INFO(what << ": first bit difference at " << first_bit_difference(a, b) << " of " << b.size());
    CHECK(bitwise_equal(a, b));
  };
  same("inclusive_scan_by_key", got.incl, want.incl);
  same("exclusive_scan_by_key", got.excl, want.excl);
  same("reduce_by_key_into values", got.sums, want.sums);
  same("segmented_inclusive_scan", got.seg_incl, want.seg_incl);
  same("segmented_exclusive_scan", got.seg_excl, want.seg_excl);
}

template <class V>
void compare_reduce_by_key(const char* who, const results<V>& got, const results<V>& want) {
  INFO("strategy: " << who);
  REQUIRE(got.count == want.count);
  CHECK(got.keys == want.keys);
  INFO("reduce_by_key_into values: first bit difference at " << first_bit_difference(got.sums, want.sums) << " of "
                                                              << want.sums.size());
  CHECK(bitwise_equal(got.sums, want.sums));
}

const layout layouts[] = {{"runs of 1-3", 1, 3},
                          {"runs of 500-1500", 500, 1500},
                          {"runs of 2^16-2^17", 1 << 16, 1 << 17},
                          {"runs of exactly 2^16 (heads on the tiles' edges)", 1 << 16, 1 << 16}};

template <class F>
void each_case(std::uint64_t seed, F&& f) {
  for (std::int64_t n : sizes()) {
    for (const layout& l : layouts) {
      INFO("n = " << n << ", " << l.name << ", seed " << seed);
      const std::vector<std::int32_t> h_k = kt::run_keys(n, l.lo, l.hi, ++seed);
      const std::vector<char> heads = kt::key_heads_of(h_k);
      std::vector<std::int64_t> h_o;
      for (std::int64_t i = 0; i < n; ++i)
        if (heads[static_cast<std::size_t>(i)]) h_o.push_back(i);
      h_o.push_back(n);
      f(h_k, heads, h_o, seed * 7);
    }
  }
}
}  // namespace

TEST_CASE("cuda keyed scans, reduce_by_key and segmented scans: int32, every look-back strategy gives the same bits",
          "[cuda][segmented][by_key][offsets][strategies]") {
  each_case(5100, [](const std::vector<std::int32_t>& h_k, const std::vector<char>& heads,
                     const std::vector<std::int64_t>& h_o, std::uint64_t seed) {
    const auto h_v = random_vector<std::int32_t>(h_k.size(), seed);
    const auto init = random_scalar<std::int32_t>(seed + 1);
    const results<std::int32_t> want = host_reference(h_k, h_v, heads, init);
    buffers<std::int32_t> b(h_k, h_v, h_o, init);
    compare("decoupled_lookback", b.through(algo::cuda.with(algo::scan_strategy::decoupled_lookback)), want);
    compare("deterministic_lookback", b.through(algo::cuda.with(algo::scan_strategy::deterministic_lookback)), want);
    compare("ordered_lookback", b.through(algo::cuda.with(algo::scan_strategy::ordered_lookback)), want);
    compare("algo::cuda (default)", b.through(algo::cuda), want);
    compare("ordered_lookback, 128-thread tiles", b.tuned<threads128>(), want);
  });
}

TEST_CASE("cuda keyed scans, reduce_by_key and segmented scans: float, the ordered look-back bit for bit against the "
          "emulation in each tile shape",
          "[cuda][segmented][by_key][offsets][ordered][strategies]") {
  each_case(5200, [](const std::vector<std::int32_t>& h_k, const std::vector<char>& heads,
                     const std::vector<std::int64_t>& h_o, std::uint64_t seed) {
    const auto h_v = random_vector<float>(h_k.size(), seed);
    const auto init = random_scalar<float>(seed + 1);
    buffers<float> b(h_k, h_v, h_o, init);
    const results<float> want = emulated<adc::ordered_tuning_base>(h_k, h_v, heads, init);
    compare("algo::cuda (default: ordered_lookback for float)", b.through(algo::cuda), want);
    compare("ordered_lookback", b.through(algo::cuda.with(algo::scan_strategy::ordered_lookback)), want);
    compare("ordered_lookback, 128-thread tiles", b.tuned<threads128>(), emulated<threads128>(h_k, h_v, heads, init));
    compare_reduce_by_key("ordered_lookback without count-only tiles", b.tuned_reduce_by_key<no_count_walk>(), want);
  });
}

// reduce_by_key's tile load keeps the keys in the staging for the store (detail/segmented/tile.cuh,
// load_runs_tile; when the keys are 16-byte aligned) and reads the keys on either side of each
// tile from there: keys and values at every combination of aligned and misaligned (the values'
// element path beside the kept keys; misaligned keys: the store loads them again), sizes that
// are whole multiples of the tiles (the last tile full: no key after it) and one past, runs that
// cross the tiles' and the warps' edges; float values that are small integers (every sum exact:
// any order gives the same bits) through the default policy (the ordered look-back; runs of 1-3:
// its warps write their runs staged, store_runs_staged; runs of 31-33 and 500-1500: in place; runs
// of 6-16: warps on both sides of the choice, at >= 48 runs a warp, in one tile) and int32 through
// the classic one (in place), each against the host reference.
TEST_CASE("cuda reduce_by_key_into: keys kept between the tile's load and store, aligned and misaligned",
          "[cuda][segmented][by_key][kept]") {
  std::uint64_t seed = 5300;
  const std::int64_t sizes_k[] = {4096, 8192, 3 * 4096, 5 * 4096 + 1, 12289, 40000};
  const std::int64_t offsets_k[][2] = {{0, 0}, {0, 1}, {4, 4}, {1, 0}, {4, 3}, {8, 2}};
  for (const std::int64_t n : sizes_k) {
    for (const auto& lohi : {std::pair<std::int64_t, std::int64_t>{1, 3}, {6, 16}, {31, 33}, {500, 1500}}) {
      const std::vector<std::int32_t> h_all = kt::run_keys(n + 8, lohi.first, lohi.second, ++seed);
      std::mt19937_64 rng(seed * 3);
      std::vector<std::int32_t> h_vi(static_cast<std::size_t>(n + 8));
      for (auto& x : h_vi) x = static_cast<std::int32_t>(rng() % 17) - 8;
      const std::vector<float> h_vf(h_vi.begin(), h_vi.end());
      device_buffer<std::int32_t> k(h_all), vi(h_vi), ko(h_all.size()), vio(h_all.size());
      device_buffer<float> vf(h_vf), vfo(h_vf.size());
      device_buffer<long long> count(2);
      for (const auto& off : offsets_k) {
        INFO("n = " << n << ", runs of " << lohi.first << "-" << lohi.second << ", keys + " << off[0] << ", values + "
                    << off[1]);
        const auto kb = static_cast<std::size_t>(off[0]), vb = static_cast<std::size_t>(off[1]);
        // the host reference over keys[kb, kb + n), values[vb, vb + n)
        std::vector<std::int32_t> want_k, want_v;
        for (std::int64_t i = 0; i < n; ++i) {
          const auto u = static_cast<std::size_t>(i);
          if (i == 0 || h_all[kb + u] != h_all[kb + u - 1]) {
            want_k.push_back(h_all[kb + u]);
            want_v.push_back(0);
          }
          want_v.back() += h_vi[vb + u];
        }
        ko.fill_sentinel();
        vio.fill_sentinel();
        algo::reduce_by_key_into(algo::cuda, k.begin() + off[0], k.begin() + off[0] + n, vi.begin() + off[1], ko.begin(),
                                 vio.begin(), count.begin());
        require_device_ok("reduce_by_key_into int32");
        REQUIRE(count.download()[0] == static_cast<long long>(want_k.size()));
        auto got_k = ko.download();
        auto got_v = vio.download();
        got_k.resize(want_k.size());
        got_v.resize(want_v.size());
        CHECK(got_k == want_k);
        CHECK(got_v == want_v);
        ko.fill_sentinel();
        algo::reduce_by_key_into(algo::cuda, k.begin() + off[0], k.begin() + off[0] + n, vf.begin() + off[1], ko.begin(),
                                 vfo.begin(), count.begin() + 1);
        require_device_ok("reduce_by_key_into float");
        REQUIRE(count.download()[1] == static_cast<long long>(want_k.size()));
        got_k = ko.download();
        const auto got_f = vfo.download();
        got_k.resize(want_k.size());
        CHECK(got_k == want_k);
        std::vector<float> want_f(want_v.begin(), want_v.end()), got_fv(got_f.begin(), got_f.begin() + static_cast<std::ptrdiff_t>(want_v.size()));
        CHECK(got_fv == want_f);
        CHECK(ko.guard_intact());
        CHECK(vio.guard_intact());
        CHECK(vfo.guard_intact());
      }
    }
  }
}
