// The operator sees only real values: every in-house scan strategy and warp phase
// (test/device/operator_values_checks.cuh).
#include "operator_values_checks.cuh"

using namespace algo_test::opvals;

TEST_CASE("scans call the operator only on real values: decoupled look-back", "[cuda][scan]") {
  check_scans<std::int32_t>(algo::cuda);
  check_scans<pair8>(algo::cuda);
  check_scans<algo_test::big32>(algo::cuda);
  check_scans<std::int32_t>(algo::cuda.with(algo::warp_phase::smem));
}
TEST_CASE("scans call the operator only on real values: the multi-pass strategies", "[cuda][scan]") {
  check_scans<std::int32_t>(algo::cuda.with(algo::scan_strategy::scan_then_fan));
  check_scans<std::int32_t>(algo::cuda.with(algo::scan_strategy::reduce_then_scan));
  check_scans<std::int32_t>(algo::cuda.with(algo::scan_strategy::two_level));
  check_scans<algo_test::big32>(algo::cuda.with(algo::scan_strategy::two_level).with(algo::warp_phase::smem));
}
