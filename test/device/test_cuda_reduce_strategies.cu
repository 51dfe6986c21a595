// algo::cuda reduce, strategies atomic, locked and two_pass, both warp phases (volatile shared
// memory, shuffles): the strategy checks of test_cuda_reduce_checks.cuh on int32, uint8 -> int64,
// float, double, a 2x2 matrix product (the shared-memory phase: int32, uint8 -> int64, mat2i) and
// (a, b) -> b, at sizes around the kernels' units and up to 2^24 + 3. (The atomic strategy runs only
// the operator/type pairs with hardware atomics: the others are a compile-time error, so the checks
// leave them out.) One translation unit for the three (test/COMPILE_TIMES.md: nvcc's fixed cost per
// unit); test_cuda_reduce_retirement and test_cuda_reduce_default hold the others.
#include <algo/algo.hpp>

#include <thrust/iterator/counting_iterator.h>

#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_reduce_checks.cuh"

using namespace algo_test;
using cuda_reduce_test::check_strategy;

// ==== atomic ========================================================================================
namespace atomic_policies {
const auto shfl = algo::cuda.with(algo::reduce_strategy::atomic).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::atomic).with(algo::warp_phase::smem);
}  // namespace atomic_policies

TEST_CASE("cuda reduce: atomic, shuffle warp phase", "[cuda][reduce][atomic]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(atomic_policies::shfl);
}
TEST_CASE("cuda reduce: atomic, shared-memory warp phase", "[cuda][reduce][atomic]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(atomic_policies::smem);
}
TEST_CASE("cuda reduce: atomic, a counting iterator (plus, maximum, bit_or on int64)", "[cuda][reduce][atomic]") {
  std::vector<std::int64_t> ns{1, 1000, std::int64_t(1) << 20, (std::int64_t(1) << 24) + 3};
  if (cuda_reduce_test::small_run()) ns = {1, 1000, 20000};
  for (std::int64_t n : ns) {
    INFO("n = " << n);
    const thrust::counting_iterator<std::int64_t> first(1);
    CHECK(algo::reduce(atomic_policies::shfl, first, first + n, std::int64_t{5}) == 5 + n * (n + 1) / 2);
    CHECK(algo::reduce(atomic_policies::smem, first, first + n, std::int64_t{-7}, algo::maximum<>{}) == n);
    std::int64_t ors = 0;
    for (std::int64_t b = 1; b <= n; b <<= 1) ors |= b;
    CHECK(algo::reduce(atomic_policies::shfl, first, first + n, std::int64_t{0}, algo::bit_or<>{}) == ors);
  }
}

// ==== locked ========================================================================================
namespace locked_policies {
const auto shfl = algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::smem);
}  // namespace locked_policies

TEST_CASE("cuda reduce: locked, shuffle warp phase", "[cuda][reduce][locked]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(locked_policies::shfl);
}
TEST_CASE("cuda reduce: locked, shared-memory warp phase", "[cuda][reduce][locked]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(locked_policies::smem);
}
TEST_CASE("cuda reduce: locked, take_right over a counting iterator", "[cuda][reduce][locked]") {
  cuda_reduce_test::check_take_right_counting(locked_policies::shfl);
  cuda_reduce_test::check_take_right_counting(locked_policies::smem);
}

// ==== two_pass ======================================================================================
namespace two_pass_policies {
const auto shfl = algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::two_pass).with(algo::warp_phase::smem);
}  // namespace two_pass_policies

TEST_CASE("cuda reduce: two_pass, shuffle warp phase", "[cuda][reduce][two_pass]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(two_pass_policies::shfl);
}
TEST_CASE("cuda reduce: two_pass, shared-memory warp phase", "[cuda][reduce][two_pass]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(two_pass_policies::smem);
}
TEST_CASE("cuda reduce: two_pass, take_right over a counting iterator", "[cuda][reduce][two_pass]") {
  cuda_reduce_test::check_take_right_counting(two_pass_policies::shfl);
  cuda_reduce_test::check_take_right_counting(two_pass_policies::smem);
}
