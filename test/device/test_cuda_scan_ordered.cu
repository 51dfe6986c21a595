// algo::cuda scans with the ordered_lookback strategy (detail/cuda/scan/ordered_lookback.cuh: the
// classic look-back whose folds across tiles are left folds in tile order):
//   correctness  the battery of test/support/device_checks.cuh on float, double, the
//                non-commutative affine maps and big32 (split tile state) at sizes around its
//                tiles and past 32 and 1100 tiles; the strategy checks; a tuning without delays
//                (spinning polls: more tiles find their nearest inclusive prefix windows back and
//                fold the newer windows again) and one with 128-thread tiles, with a
//                non-commutative operator against a sequential host fold; concurrent and
//                back-to-back scans;
//   determinism  2^20 + 3 and 2^24 + 1 random floats and doubles scanned 20 times: every run
//                bitwise equal to the first and to a host emulation of the left fold of the
//                tiles' aggregates (scan_emulation.cuh), to the other tunings of the same tile
//                shape and to a replay of the scan captured into a CUDA graph.
// The segmented and keyed algorithms on this strategy: test_cuda_segmented_ordered.cu and
// test_cuda_keyed_strategies.cu (against the other look-backs and the emulation); walks forced
// past the kept windows (scan_tuning_base::test_inclusive_every): test_cuda_scan_ordered_walks.cu.
#include <algo/algo.hpp>

#include <memory>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "scan_emulation.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;
using scan_emulation::bitwise_equal;
using scan_emulation::emulate;
using scan_emulation::first_bit_difference;
using scan_emulation::uniform_vector;

namespace {
namespace ad = algo::detail;
namespace adc = algo::detail::cuda;

const auto ord = algo::cuda.with(algo::scan_strategy::ordered_lookback);

std::vector<std::int64_t> sizes() {
  using Tile4 = adc::scan_tuning<float, float, float, adc::ordered_tuning_base>;
  using Tile8 = adc::scan_tuning<double, double, double, adc::ordered_tuning_base>;
  const std::int64_t t4 = Tile4::tile_items, t8 = Tile8::tile_items;
  std::vector<std::int64_t> s = device_sizes({t4, t8});
  for (std::int64_t v : {32 * t4 - 1, 32 * t4 + 1, 33 * t8, 1100 * t8 + 17}) s.push_back(v);
  return cuda_scan_test::for_this_run(s);
}

struct no_delays : adc::ordered_tuning_base {  // polls at once, spins between polls
  static constexpr unsigned lookback_initial_delay_ns = 0;
  static constexpr unsigned lookback_first_sleep_ns = 0;
  static constexpr unsigned lookback_max_sleep_ns = 0;
  static constexpr unsigned lookback_small_first_sleep_ns = 0;
  static constexpr unsigned lookback_small_max_sleep_ns = 0;
};
struct threads128 : adc::ordered_tuning_base {
  static constexpr int threads = 128;
};

template <class Tuning, class T, class Op>
void run_tuned(const T* in, T* out, std::int64_t n, Op op, adc::maybe_value<T> init, bool exclusive) {
  using Acc = ad::accumulate_with<Op, T>;
  const adc::scan_problem<T, const T*, T*, Acc> p{in, out, n, Acc{op}, init, exclusive,
                                                   exclusive ? "exclusive_scan" : "inclusive_scan"};
  adc::run_ordered_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, nullptr);
}

/// 20 scans of n random values: bitwise equal to each other, to the host emulation of the left
/// fold, to the scan without delays (same tile shape) and to a graph replay.
template <class T>
void check_determinism(std::int64_t n, std::uint64_t seed) {
  INFO("type " << type_name_v<T> << ", n = " << n);
  const std::vector<T> h = uniform_vector<T>(static_cast<std::size_t>(n), seed);
  device_buffer<T> in(h), out(h.size());
  using K = adc::scan_tuning<T, T, T, adc::ordered_tuning_base>;
  const T init = static_cast<T>(0.5);
  for (bool exclusive : {false, true}) {
    INFO((exclusive ? "exclusive_scan(policy, first, last, d_first, init)" : "inclusive_scan(policy, first, last, d_first)"));
    auto scan = [&](const auto& policy, T* o) {
      if (exclusive) {
        algo::exclusive_scan(policy, in.begin(), in.end(), o, init);
      } else {
        algo::inclusive_scan(policy, in.begin(), in.end(), o);
      }
    };
    const std::vector<T> want = emulate(h, exclusive, init, exclusive, K::threads, K::items, /*ordered=*/true);
    std::vector<T> first;
    int differing_runs = 0;
    for (int run = 0; run < 20; ++run) {
      out.fill_sentinel();
      scan(ord, out.begin());
      std::vector<T> got = out.download();
      if (run == 0) {
        first = std::move(got);
        INFO("first run vs the host emulation of the left fold: first bit difference at "
             << first_bit_difference(first, want));
        CHECK(bitwise_equal(first, want));
        const std::vector<double> scale = abs_scan_scale(h, exclusive ? static_cast<double>(init) : 0.0);
        expect_equal("vs host sequential",
                     first, convert<T>(exclusive ? ref_exclusive_scan<double>(h, static_cast<double>(init), algo::plus<>{})
                                                 : ref_inclusive_scan<double>(h, algo::plus<>{})),
                     &scale);
      } else if (!bitwise_equal(got, first)) {
        ++differing_runs;
      }
      CHECK(out.guard_intact());
    }
    INFO("runs 1..19 that differ from run 0 in any bit: " << differing_runs);
    CHECK(differing_runs == 0);
    {
      INFO("no delays, spinning polls (same tile shape)");
      out.fill_sentinel();
      run_tuned<no_delays>(in.begin(), out.begin(), n, algo::plus<>{}, exclusive ? adc::some(init) : adc::none<T>(),
                           exclusive);
      require_device_ok("tuned scan");
      const auto got = out.download();
      INFO("first bit difference at " << first_bit_difference(got, first));
      CHECK(bitwise_equal(got, first));
    }
    {
      INFO("captured into a CUDA graph, replayed 3 times");
      test_stream s;
      require_device_ok("before capture");
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      require_cuda(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      scan(ord.on(s.get()), out.begin());
      require_cuda(cudaStreamEndCapture(s.get(), &graph), "cudaStreamEndCapture");
      require_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
      for (int r = 0; r < 3; ++r) {
        require_cuda(cudaMemsetAsync(out.begin(), 0xA5, h.size() * sizeof(T), s.get()), "cudaMemsetAsync");
        require_cuda(cudaGraphLaunch(exec, s.get()), "cudaGraphLaunch");
        s.sync();
        INFO("replay " << r);
        CHECK(bitwise_equal(out.download(), first));
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
}
}  // namespace

// ---- correctness -----------------------------------------------------------------------------------------
TEST_CASE("cuda scans (ordered look-back): float", "[cuda][scan][ordered]") { check_scans<float>(ord, sizes()); }
TEST_CASE("cuda scans (ordered look-back): double", "[cuda][scan][ordered]") { check_scans<double>(ord, sizes()); }
TEST_CASE("cuda scans (ordered look-back): affine maps (8 bytes, non-commutative)", "[cuda][scan][ordered]") {
  check_scans<affine_i, affine>(ord, sizes());
}
TEST_CASE("cuda scans (ordered look-back): big32 (32 bytes, non-commutative, split tile state)", "[cuda][scan][ordered]") {
  check_scans<big32>(ord, sizes());
}
TEST_CASE("cuda scans: ordered look-back, strategy checks", "[cuda][scan][ordered]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(ord, false);
}

TEST_CASE("cuda scans: ordered look-back tunings (no delays, 128 threads), non-commutative, against a sequential fold",
          "[cuda][scan][ordered]") {
  const std::vector<std::int64_t> ns = cuda_scan_test::small_run()
                                           ? std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1}
                                           : std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1, 1100 * 2048 + 5,
                                                                       3000000};
  std::uint64_t seed = 900;
  for (std::int64_t n : ns) {
    for (bool exclusive : {false, true}) {
      INFO("n = " << n << (exclusive ? ", exclusive" : ", inclusive"));
      const std::vector<affine_i> h = random_vector<affine_i>(static_cast<std::size_t>(n), ++seed);
      const affine_i init = h[static_cast<std::size_t>(n / 2)];
      const compose_affine_i op{};
      std::vector<affine_i> ref(h.size());
      affine_i acc = init;
      for (std::size_t i = 0; i < h.size(); ++i) {
        if (exclusive) ref[i] = acc;
        acc = op(acc, h[i]);
        if (!exclusive) ref[i] = acc;
      }
      device_buffer<affine_i> in(h), out(h.size());
      auto one = [&](auto tag, const char* what) {
        INFO("tuning: " << what);
        out.fill_sentinel();
        run_tuned<decltype(tag)>(in.begin(), out.begin(), n, op, adc::some(init), exclusive);
        require_device_ok("tuned ordered look-back");
        expect_equal("vs host", out.download(), ref);
        CHECK(out.guard_intact());
      };
      one(no_delays{}, "no delays");
      one(threads128{}, "128 threads");
    }
  }
}

TEST_CASE("cuda scans: ordered look-back, concurrent scans on several streams, back-to-back scans on one",
          "[cuda][scan][ordered]") {
  cuda_scan_test::check_concurrent_scans(ord, 400);
}

// ---- determinism -----------------------------------------------------------------------------------------
TEST_CASE("cuda scans: ordered look-back is bitwise reproducible (float)", "[cuda][scan][ordered]") {
  check_determinism<float>((1 << 20) + 3, 51);
  if (!cuda_scan_test::small_run()) check_determinism<float>((1 << 24) + 1, 52);
}
TEST_CASE("cuda scans: ordered look-back is bitwise reproducible (double)", "[cuda][scan][ordered]") {
  check_determinism<double>((1 << 20) + 3, 53);
  if (!cuda_scan_test::small_run()) check_determinism<double>((1 << 24) + 1, 54);
}

// ---- reduce_by_key's fold over head-less windows, with windows read again --------------------------------
namespace {
/// Keeps no walked window in shared memory: every walked window but the newest is read again from the
/// tile state for the fold (the path that the default's 8 kept windows reach only behind a frontier
/// more than 256 tiles back), with and without the polls' delays.
struct keep_none : adc::ordered_tuning_base {
  static constexpr int ordered_kept_windows = 0;
};
struct keep_none_no_delays : no_delays {
  static constexpr int ordered_kept_windows = 0;
};
struct keep_one : adc::ordered_tuning_base {
  static constexpr int ordered_kept_windows = 1;
};

/// reduce_by_key's lifted scan (segmented.hpp, reduce_by_key_lifted_to) through the ordered
/// look-back with Tuning; returns (keys out, values out, count).
template <class Tuning>
void run_rbk_tuned(const int* k, const float* v, std::int64_t n, int* ko, float* vo, long long* count) {
  namespace seg = algo::detail::segmented;
  using AOp = ad::accumulate_with<algo::plus<>, float>;
  using Heads = seg::key_heads<const int*, algo::equal_to<>>;
  using L = seg::lift_runs<float, Heads, const float*, int>;
  using W = seg::run_writer<float, const int*, algo::equal_to<>, int*, float*, long long*>;
  using RV = seg::run_value<float, int>;
  using SOp = seg::segmented_op<AOp>;
  const seg::indexed_iterator<L> in(L{Heads{k, algo::equal_to<>{}}, v, n}, 0);
  const seg::indexed_output<W> out(W{k, algo::equal_to<>{}, ko, vo, n, count}, 0);
  const adc::scan_problem<RV, seg::indexed_iterator<L>, seg::indexed_output<W>, ad::accumulate_with<SOp, RV>> p{
      in, out, n, ad::accumulate_with<SOp, RV>{SOp{AOp{algo::plus<>{}}}}, adc::none<RV>(), false, "reduce_by_key"};
  adc::run_ordered_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, nullptr);
}
}  // namespace

TEST_CASE("cuda reduce_by_key (ordered look-back): kept windows change no bit", "[cuda][scan][ordered][by_key]") {
  // runs of 1 .. 2^18 elements (up to 64 tiles of 4096 pairs, several head-less windows), float values
  const std::int64_t n = cuda_scan_test::small_run() ? (1 << 21) + 5 : (1 << 24) + 5;
  std::mt19937_64 rng(61);
  std::vector<int> hk(static_cast<std::size_t>(n));
  int key = 0;
  for (std::int64_t i = 0; i < n;) {
    const std::int64_t len = std::int64_t{1} << (rng() % 19);
    for (std::int64_t j = 0; j < len && i < n; ++j, ++i) hk[static_cast<std::size_t>(i)] = key;
    ++key;
  }
  const std::vector<float> hv = uniform_vector<float>(static_cast<std::size_t>(n), 62);
  device_buffer<int> k(hk), ko(hk.size());
  device_buffer<float> v(hv), vo(hv.size());
  device_buffer<long long> count(std::vector<long long>{0});
  algo::reduce_by_key_into(ord, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), count.begin());
  require_device_ok("reduce_by_key_into (ordered)");
  const auto want_count = count.download();
  const auto want_keys = ko.download();
  const auto want_values = vo.download();
  REQUIRE(want_count[0] == key);
  auto one = [&](auto tag, const char* what) {
    INFO("tuning: " << what);
    ko.fill_sentinel();
    vo.fill_sentinel();
    count.fill_sentinel();
    run_rbk_tuned<decltype(tag)>(k.begin(), v.begin(), n, ko.begin(), vo.begin(), count.begin());
    require_device_ok("tuned ordered reduce_by_key");
    CHECK(count.download() == want_count);
    CHECK(ko.download() == want_keys);
    const auto got = vo.download();
    INFO("first bit difference at " << first_bit_difference(got, want_values));
    CHECK(bitwise_equal(got, want_values));
    CHECK(vo.guard_intact());
  };
  for (int rep = 0; rep < 3; ++rep) {
    one(keep_none{}, "no window kept");
    one(keep_none_no_delays{}, "no window kept, no delays");
    one(keep_one{}, "one window kept");
  }
}
