// algo::cuda scans, default strategy (decoupled look-back): the full battery of
// test/support/device_checks.cuh (every overload, in place, device_vector, fancy iterators in and
// out, discard output, a non-blocking stream) on the default policy, against thrust::device and the
// host, at sizes around the look-back's tiles and CUB's (the only unit that runs this battery on
// algo::cuda; the default's float scans, which take the deterministic look-back, run it in
// test_cuda_scan_deterministic.cu, next to that strategy's kernels); the strategy checks with
// both warp phases; concurrent scans on several streams and back-to-back scans on one (the tile
// state's epochs); and scans over 2^31 elements with every strategy ([large]).
#include <algo/algo.hpp>

#include <memory>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

namespace {
const auto lookback = algo::cuda.with(algo::scan_strategy::decoupled_lookback);
const auto lookback_smem = lookback.with(algo::warp_phase::smem);
// The look-back's tiles (1024-4096 items) and those of plausible other kernels and CUB's (1920-16384).
const std::vector<std::int64_t> sizes =
    cuda_scan_test::for_this_run(device_sizes({1024, 1920, 2048, 3072, 4096, 8192, 16384}));
}  // namespace

TEST_CASE("cuda scans (default policy): int32", "[cuda][scan][lookback]") { check_scans<std::int32_t>(algo::cuda, sizes); }
TEST_CASE("cuda scans (default policy): uint8 in, int64 accumulator", "[cuda][scan][lookback]") { check_scans<std::uint8_t>(algo::cuda, sizes); }
TEST_CASE("cuda scans (default policy): double", "[cuda][scan][lookback]") { check_scans<double>(algo::cuda, sizes); }
TEST_CASE("cuda scans (default policy): affine maps (8 bytes, non-commutative)", "[cuda][scan][lookback]") {
  check_scans<affine_i, affine>(algo::cuda, sizes);
}
TEST_CASE("cuda scans (default policy): big32 (32 bytes, non-commutative)", "[cuda][scan][lookback]") { check_scans<big32>(algo::cuda, sizes); }

TEST_CASE("cuda scans: decoupled look-back, shuffle warp phase", "[cuda][scan][lookback]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(lookback, false);
}
TEST_CASE("cuda scans: decoupled look-back, shared-memory warp phase", "[cuda][scan][lookback]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(lookback_smem, false);
}

TEST_CASE("cuda scans: concurrent scans on several streams, back-to-back scans on one", "[cuda][scan][lookback]") {
  // Each stream gets its own tile state; repeated calls on one stream reuse one with a new epoch,
  // over state that earlier, larger calls left behind.
  const std::vector<std::int64_t> ns = cuda_scan_test::small_run()
                                           ? std::vector<std::int64_t>{20000, 4097, 7777, 3 * 3072 + 1}
                                           : std::vector<std::int64_t>{5000000, 1 << 20, 777777, 3 * 3072 + 1, 4000000, 100003};
  std::vector<std::vector<affine_i>> h(ns.size());
  std::vector<std::unique_ptr<device_buffer<affine_i>>> in, out;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    h[i] = random_vector<affine_i>(static_cast<std::size_t>(ns[i]), 100 + i);
    in.push_back(std::make_unique<device_buffer<affine_i>>(h[i]));
    out.push_back(std::make_unique<device_buffer<affine_i>>(h[i].size()));
  }
  const compose_affine_i op{};
  auto run_one = [&](cudaStream_t s, std::size_t i, int /*round*/) {
    algo::inclusive_scan(algo::cuda.on(s), in[i]->begin(), in[i]->end(), out[i]->begin(), op);
  };
  SECTION("one stream per scan, all in flight at once") { launch_on_own_streams(ns.size(), 3, run_one); }
  SECTION("one stream, back to back, no host synchronization in between") { launch_back_to_back(ns.size(), 3, run_one); }
  for (std::size_t i = 0; i < ns.size(); ++i) {
    INFO("scan " << i << ", n = " << ns[i]);
    expect_equal("vs host", out[i]->download(), ref_inclusive_scan<affine_i>(h[i], op));
  }
}

namespace {
// Look-back tunings that the policy does not pick for these types: several windows of 32
// predecessors per poll (the multi-window fold must keep left-to-right order: checked with the
// non-commutative affine composition) and 256-thread tiles. The bench times the same ones.
struct windows4 : algo::detail::cuda::scan_tuning_base {
  static constexpr int lookback_windows = 4;
};
struct windows2_t256 : algo::detail::cuda::scan_tuning_base {
  static constexpr int lookback_windows = 2;
  static constexpr int threads = 256;
};

/// The look-back with `Tuning` and the default block scan (warp scans).
template <class Tuning, class T, class Op>
void check_tuned(std::int64_t n, bool exclusive, Op op, std::uint64_t seed) {
  cuda_scan_test::check_lookback_tuned<algo::block_scan::warp_scans_t, Tuning, T>("tuned look-back", n, exclusive, op, seed);
}
}  // namespace

TEST_CASE("cuda scans: look-back with 4 windows per poll, and with 256-thread tiles", "[cuda][scan][lookback]") {
  const std::vector<std::int64_t> ns = cuda_scan_test::small_run()
                                           ? std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1}
                                           : std::vector<std::int64_t>{2049, 3 * 2048 + 1, 70 * 2048 - 1, 300 * 2048 + 5,
                                                                       (1 << 20) + 7, 3000000};
  std::uint64_t seed = 900;
  for (std::int64_t n : ns) {
    for (bool exclusive : {false, true}) {
      check_tuned<windows4, affine_i>(n, exclusive, compose_affine_i{}, ++seed);
      check_tuned<windows2_t256, affine_i>(n, exclusive, compose_affine_i{}, ++seed);
      check_tuned<windows4, std::int32_t>(n * 3 / 2, exclusive, algo::plus<>{}, ++seed);
    }
  }
}

TEST_CASE("cuda scans: every strategy over 2^31 uint8 -> int64", "[cuda][scan][large]") {
  // One [large] test (about 20 GB of device memory), the strategies one after the other on one input.
  cuda_scan_test::check_large(lookback, algo::cuda.with(algo::scan_strategy::two_level),
                              algo::cuda.with(algo::scan_strategy::reduce_then_scan),
                              algo::cuda.with(algo::scan_strategy::scan_then_fan));
}
