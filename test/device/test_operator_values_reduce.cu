// The operator sees only real values: every in-house reduce strategy that takes any operator
// (reduce_strategy::atomic takes only operators with a hardware atomic) and both warp phases
// (test/device/operator_values_checks.cuh).
#include "operator_values_checks.cuh"

using namespace algo_test::opvals;

TEST_CASE("reductions call the operator only on real values", "[cuda][reduce]") {
  check_reduces<std::int32_t>(algo::cuda);
  check_reduces<algo_test::big32>(algo::cuda);
  check_reduces<std::int32_t>(algo::cuda.with(algo::warp_phase::smem));
  check_reduces<std::int32_t>(algo::cuda.with(algo::reduce_strategy::two_pass));
  check_reduces<algo_test::big32>(algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::smem));
  check_reduces<std::int32_t>(algo::cuda.with(algo::reduce_strategy::locked));
  check_reduces<pair8>(algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::smem));
}
