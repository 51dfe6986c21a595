// The operator sees only real values: every in-house scan strategy and warp phase; every in-house
// reduce strategy that takes any operator (reduce_strategy::atomic takes only operators with a
// hardware atomic) and both warp phases (test/device/operator_values_checks.cuh; one unit for
// scans and reductions).
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

TEST_CASE("reductions call the operator only on real values", "[cuda][reduce]") {
  check_reduces<std::int32_t>(algo::cuda);
  check_reduces<algo_test::big32>(algo::cuda);
  check_reduces<std::int32_t>(algo::cuda.with(algo::warp_phase::smem));
  check_reduces<std::int32_t>(algo::cuda.with(algo::reduce_strategy::two_pass));
  check_reduces<algo_test::big32>(algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::smem));
  check_reduces<std::int32_t>(algo::cuda.with(algo::reduce_strategy::locked));
  check_reduces<pair8>(algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::smem));
}
