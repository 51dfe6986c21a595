// algo::cuda scans with the two_level strategy: both warp phases (the value types of each:
// test_cuda_scan_checks.cuh) at sizes around its tiles; the full overload / iterator / stream
// battery (device_checks.cuh) for int32 (fancy iterators in and out, discard output).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::scan_strategy::two_level);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda scans: two_level, shuffle warp phase", "[cuda][scan][two_level]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(shfl, false);
}
TEST_CASE("cuda scans: two_level, shared-memory warp phase", "[cuda][scan][two_level]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(smem, false);
}
TEST_CASE("cuda scans: two_level, every overload and iterator kind (int32)", "[cuda][scan][two_level]") {
  check_scans<std::int32_t>(shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}
