// algo::cuda scans with the scan_then_fan strategy: both warp phases on every value type at sizes around
// its tiles; the full overload / iterator / stream battery (device_checks.cuh) for int32 (fancy
// iterators in and out, discard output); and one scan over 2^31 elements ([large]).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::scan_strategy::scan_then_fan);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda scans: scan_then_fan, shuffle warp phase", "[cuda][scan][scan_then_fan]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(shfl, true);
}
TEST_CASE("cuda scans: scan_then_fan, shared-memory warp phase", "[cuda][scan][scan_then_fan]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(smem, true);
}
TEST_CASE("cuda scans: scan_then_fan, every overload and iterator kind (int32)", "[cuda][scan][scan_then_fan]") {
  check_scans<std::int32_t>(shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}
TEST_CASE("cuda scans: scan_then_fan over 2^31 uint8 -> int64", "[cuda][scan][scan_then_fan][large]") {
  cuda_scan_test::check_large(shfl);
}
