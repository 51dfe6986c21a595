// algo::cuda reduce, strategy two_pass, both warp phases (volatile shared memory, shuffles): the
// strategy checks of test_cuda_reduce_checks.cuh on int32, uint8 -> int64, float, double, a 2x2
// matrix product (the shared-memory phase: int32, uint8 -> int64, mat2i) and (a, b) -> b, at sizes
// around the kernels' units and up to 2^24 + 3.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_reduce_checks.cuh"

using namespace algo_test;
using cuda_reduce_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda reduce: two_pass, shuffle warp phase", "[cuda][reduce][two_pass]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(shfl);
}
TEST_CASE("cuda reduce: two_pass, shared-memory warp phase", "[cuda][reduce][two_pass]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(smem);
}
TEST_CASE("cuda reduce: two_pass, take_right over a counting iterator", "[cuda][reduce][two_pass]") {
  cuda_reduce_test::check_take_right_counting(shfl);
  cuda_reduce_test::check_take_right_counting(smem);
}
