// algo::cuda scans with the deterministic_lookback strategy (detail/cuda/scan/deterministic_lookback.cuh):
//   correctness  the full battery of test/support/device_checks.cuh (every overload, in place,
//                device_vector, fancy iterators in and out, discard output, a non-blocking stream)
//                on int32, float, double, the non-commutative affine maps and big32 (split tile
//                state), at sizes around its tiles; the strategy checks with both warp phases;
//                look-back tunings the policy does not pick (several windows per poll, no delays,
//                256-thread tiles) with a non-commutative operator; concurrent and back-to-back
//                scans (the tile state's epochs);
//   determinism  2^20 + 3 and 2^24 + 1 random floats and doubles (and float affine maps) scanned
//                20 times: every run bitwise equal to the first (memcmp); float/double sums also
//                bitwise equal to a host emulation of the kernels' fixed grouping, to the same
//                scan under other look-back tunings (the grouping must not depend on them) and
//                to a replay of the scan captured into a CUDA graph (the other tile-state path).
#include <algo/algo.hpp>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"
#include "scan_emulation.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;
using scan_emulation::bitwise_equal;
using scan_emulation::emulate;
using scan_emulation::first_bit_difference;
using scan_emulation::uniform_vector;

namespace {
namespace ad = algo::detail;
namespace adc = algo::detail::cuda;

const auto det = algo::cuda.with(algo::scan_strategy::deterministic_lookback);
const auto det_smem = det.with(algo::warp_phase::smem);

/// Sizes around the tiles of every type below (4-byte, 8-byte and 32-byte accumulators), plus
/// 37 and 1100 tiles (the look-back's windows of 32 tiles, and beyond the 1024 tiles it can walk).
std::vector<std::int64_t> sizes() {
  const std::int64_t t4 = cuda_scan_test::tile_items<float, float>(), t8 = cuda_scan_test::tile_items<double, double>();
  std::vector<std::int64_t> s = device_sizes({t4, t8});
  for (std::int64_t v : {32 * t4 - 1, 32 * t4 + 1, 33 * t8, 1100 * t8 + 17}) s.push_back(v);
  return cuda_scan_test::for_this_run(s);
}

// ---- look-back tunings the policy does not pick -------------------------------------------------------
struct windows2 : adc::deterministic_tuning_base {
  static constexpr int lookback_windows = 2;
};
struct windows4 : adc::deterministic_tuning_base {
  static constexpr int lookback_windows = 4;
};
struct no_delays : adc::deterministic_tuning_base {  // polls at once, spins between polls
  static constexpr unsigned lookback_initial_delay_ns = 0;
  static constexpr unsigned lookback_first_sleep_ns = 0;
  static constexpr unsigned lookback_max_sleep_ns = 0;
  static constexpr unsigned lookback_small_first_sleep_ns = 0;
  static constexpr unsigned lookback_small_max_sleep_ns = 0;
};
struct plain_tile : adc::scan_tuning_base {};  // the default look-back's tuning (items not laundered)
struct threads256 : adc::deterministic_tuning_base {
  static constexpr int threads = 256;
};

template <class Tuning, class T, class Op>
void run_tuned(const T* in, T* out, std::int64_t n, Op op, adc::maybe_value<T> init, bool exclusive,
               cudaStream_t stream = nullptr) {
  using Acc = ad::accumulate_with<Op, T>;
  const adc::scan_problem<T, const T*, T*, Acc> p{in, out, n, Acc{op}, init, exclusive,
                                                   exclusive ? "exclusive_scan" : "inclusive_scan"};
  adc::run_deterministic_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, stream);
}


/// 20 scans of n random values: bitwise equal to each other, to the host emulation, to other
/// look-back tunings of the same tile shape, and to a graph replay.
template <class T>
void check_determinism(std::int64_t n, std::uint64_t seed) {
  INFO("type " << type_name_v<T> << ", n = " << n);
  const std::vector<T> h = uniform_vector<T>(static_cast<std::size_t>(n), seed);
  device_buffer<T> in(h), out(h.size());
  using K = adc::scan_tuning<T, T, T, adc::deterministic_tuning_base>;
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
    const std::vector<T> want = emulate(h, exclusive, init, exclusive, K::threads, K::items);
    std::vector<T> first;
    int differing_runs = 0;
    for (int run = 0; run < 20; ++run) {
      out.fill_sentinel();
      scan(det, out.begin());
      std::vector<T> got = out.download();
      if (run == 0) {
        first = std::move(got);
        INFO("first run vs the host emulation of the grouping: first bit difference at "
             << first_bit_difference(first, want));
        CHECK(bitwise_equal(first, want));
        // and within rounding of the plain sequential sum (the emulation itself is checked too)
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

    // The grouping must not depend on the look-back's tuning (same tile shape), nor on the warp
    // phase (same Kogge-Stone shape), nor on where the tile state comes from (graph capture).
    const adc::maybe_value<T> mv = exclusive ? adc::some(init) : adc::none<T>();
    auto tuned = [&](auto tag, const char* what) {
      using Tuning = decltype(tag);
      INFO("tuning: " << what);
      out.fill_sentinel();
      run_tuned<Tuning>(in.begin(), out.begin(), n, algo::plus<>{}, mv, exclusive);
      require_device_ok("tuned scan");
      const auto got = out.download();
      INFO("first bit difference at " << first_bit_difference(got, first));
      CHECK(bitwise_equal(got, first));
    };
    tuned(windows2{}, "2 windows per poll");
    tuned(windows4{}, "4 windows per poll");
    tuned(no_delays{}, "no delays, spinning polls");
    tuned(plain_tile{}, "items not laundered");
    {
      INFO("shared-memory warp phase");
      out.fill_sentinel();
      scan(det_smem, out.begin());
      CHECK(bitwise_equal(out.download(), first));
    }
    {
      INFO("captured into a CUDA graph, replayed 3 times");
      test_stream s;
      require_device_ok("before capture");
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      require_cuda(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      scan(det.on(s.get()), out.begin());
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

/// The same for the float affine maps (a custom, non-commutative float operator): runs bitwise
/// equal to each other (no host emulation: the device may contract a*b+c into an fma).
void check_determinism_affine(std::int64_t n, std::uint64_t seed) {
  INFO("affine (float), n = " << n);
  std::vector<affine> h = random_vector<affine>(static_cast<std::size_t>(n), seed);
  device_buffer<affine> in(h), out(h.size());
  std::vector<affine> first;
  int differing_runs = 0;
  for (int run = 0; run < 20; ++run) {
    algo::inclusive_scan(det, in.begin(), in.end(), out.begin(), compose_affine{});
    std::vector<affine> got = out.download();
    if (run == 0) {
      first = std::move(got);
    } else if (!bitwise_equal(got, first)) {
      ++differing_runs;
    }
  }
  INFO("runs 1..19 that differ from run 0 in any bit: " << differing_runs);
  CHECK(differing_runs == 0);
}
}  // namespace

// ---- correctness -----------------------------------------------------------------------------------------
TEST_CASE("cuda scans (deterministic look-back): int32", "[cuda][scan][deterministic]") {
  check_scans<std::int32_t>(det, sizes());
}
TEST_CASE("cuda scans (deterministic look-back): float", "[cuda][scan][deterministic]") { check_scans<float>(det, sizes()); }
TEST_CASE("cuda scans (default policy): float, the deterministic look-back's kernels", "[cuda][scan][deterministic]") {
  // the default policy's float battery (test_cuda_scan_lookback.cu runs it for the other types):
  // automatic picks this strategy for float, so it shares the kernels above
  check_scans<float>(algo::cuda, cuda_scan_test::for_this_run(device_sizes({1024, 1920, 2048, 3072, 4096, 8192, 16384})));
}
TEST_CASE("cuda scans (deterministic look-back): double", "[cuda][scan][deterministic]") { check_scans<double>(det, sizes()); }
TEST_CASE("cuda scans (deterministic look-back): affine maps (8 bytes, non-commutative)", "[cuda][scan][deterministic]") {
  check_scans<affine_i, affine>(det, sizes());
}
TEST_CASE("cuda scans (deterministic look-back): big32 (32 bytes, non-commutative, split tile state)",
          "[cuda][scan][deterministic]") {
  check_scans<big32>(det, sizes());
}
TEST_CASE("cuda scans: deterministic look-back, both warp phases", "[cuda][scan][deterministic]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(det, false);
  check_strategy<std::int32_t, float, affine_i>(det_smem, false);
}

TEST_CASE("cuda scans: deterministic look-back tunings (windows per poll, no delays, 256 threads)",
          "[cuda][scan][deterministic]") {
  const std::vector<std::int64_t> ns = cuda_scan_test::small_run()
                                           ? std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1}
                                           : std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1, 1100 * 2048 + 5,
                                                                       3000000};
  std::uint64_t seed = 700;
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
        require_device_ok("tuned deterministic look-back");
        expect_equal("vs host", out.download(), ref);
        CHECK(out.guard_intact());
      };
      one(windows2{}, "2 windows per poll");
      one(windows4{}, "4 windows per poll");
      one(no_delays{}, "no delays");
      one(threads256{}, "256 threads");
    }
  }
}

TEST_CASE("cuda scans: deterministic look-back, concurrent scans on several streams, back-to-back scans on one",
          "[cuda][scan][deterministic]") {
  cuda_scan_test::check_concurrent_scans(det, 300);
}

// ---- determinism -----------------------------------------------------------------------------------------
TEST_CASE("cuda scans: deterministic look-back is bitwise reproducible (float)", "[cuda][scan][deterministic]") {
  check_determinism<float>((1 << 20) + 3, 41);
  if (!cuda_scan_test::small_run()) check_determinism<float>((1 << 24) + 1, 42);
}
TEST_CASE("cuda scans: deterministic look-back is bitwise reproducible (double)", "[cuda][scan][deterministic]") {
  check_determinism<double>((1 << 20) + 3, 43);
  if (!cuda_scan_test::small_run()) check_determinism<double>((1 << 24) + 1, 44);
}
TEST_CASE("cuda scans: deterministic look-back is bitwise reproducible (float affine maps)", "[cuda][scan][deterministic]") {
  check_determinism_affine((1 << 20) + 3, 45);
  if (!cuda_scan_test::small_run()) check_determinism_affine((1 << 24) + 1, 46);
}

// ---- the default policy: float scans take the deterministic look-back -----------------------------------
TEST_CASE("cuda scans: the default algo::cuda float scan is the deterministic look-back, bit for bit",
          "[cuda][scan][deterministic]") {
  static_assert(std::is_same<decltype(algo::cuda)::scan_strategy, algo::scan_strategy::automatic_t>::value, "the default");
  std::vector<std::int64_t> ns = {4095, 8192 * 3 + 1, (1 << 20) + 3};
  if (!cuda_scan_test::small_run()) ns.push_back((1 << 23) + 5);
  for (const std::int64_t n : ns) {
    INFO("n = " << n);
    const std::vector<float> h = uniform_vector<float>(static_cast<std::size_t>(n), 500 + static_cast<std::uint64_t>(n));
    device_buffer<float> in(h), a(h.size()), b(h.size());
    for (bool exclusive : {false, true}) {
      INFO((exclusive ? "exclusive" : "inclusive"));
      auto scan = [&](const auto& policy, float* o) {
        if (exclusive) algo::exclusive_scan(policy, in.begin(), in.end(), o, 0.25f);
        else algo::inclusive_scan(policy, in.begin(), in.end(), o);
      };
      b.fill_sentinel();
      scan(det, b.begin());
      const std::vector<float> want = b.download();
      for (int run = 0; run < 5; ++run) {
        a.fill_sentinel();
        scan(algo::cuda, a.begin());
        const std::vector<float> got = a.download();
        INFO("run " << run << ": first bit difference at " << first_bit_difference(got, want));
        REQUIRE(bitwise_equal(got, want));
        CHECK(a.guard_intact());
      }
    }
  }
}
