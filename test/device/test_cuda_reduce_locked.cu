// algo::cuda reduce, strategy locked, both warp phases (volatile shared memory, shuffles): the
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
const auto shfl = algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda reduce: locked, shuffle warp phase", "[cuda][reduce][locked]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(shfl);
}
TEST_CASE("cuda reduce: locked, shared-memory warp phase", "[cuda][reduce][locked]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(smem);
}
TEST_CASE("cuda reduce: locked, take_right over a counting iterator", "[cuda][reduce][locked]") {
  cuda_reduce_test::check_take_right_counting(shfl);
  cuda_reduce_test::check_take_right_counting(smem);
}
