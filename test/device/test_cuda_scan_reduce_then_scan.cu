// algo::cuda scans with the reduce_then_scan strategy: both warp phases (the value types of each:
// test_cuda_scan_checks.cuh) at sizes around its tiles; the full overload / iterator / stream
// battery (device_checks.cuh) for int32 (fancy iterators in and out, discard output).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::scan_strategy::reduce_then_scan);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda scans: reduce_then_scan, shuffle warp phase", "[cuda][scan][reduce_then_scan]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(shfl, true);
}
TEST_CASE("cuda scans: reduce_then_scan, shared-memory warp phase", "[cuda][scan][reduce_then_scan]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(smem, true);
}
TEST_CASE("cuda scans: reduce_then_scan, every overload and iterator kind (int32)", "[cuda][scan][reduce_then_scan]") {
  check_scans<std::int32_t>(shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}
