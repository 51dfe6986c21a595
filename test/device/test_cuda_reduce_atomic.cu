// algo::cuda reduce, strategy atomic, both warp phases (volatile shared memory, shuffles): the
// strategy checks of test_cuda_reduce_checks.cuh on int32, uint8 -> int64, float, double, a 2x2
// matrix product (the shared-memory phase: int32, uint8 -> int64, mat2i) and (a, b) -> b, at sizes
// around the kernels' units and up to 2^24 + 3. (The atomic strategy runs only the operator/type
// pairs with hardware atomics: the others are a compile-time error, so the checks leave them out.)
#include <algo/algo.hpp>

#include <thrust/iterator/counting_iterator.h>

#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_reduce_checks.cuh"

using namespace algo_test;
using cuda_reduce_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::reduce_strategy::atomic).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::atomic).with(algo::warp_phase::smem);
}  // namespace

TEST_CASE("cuda reduce: atomic, shuffle warp phase", "[cuda][reduce][atomic]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(shfl);
}
TEST_CASE("cuda reduce: atomic, shared-memory warp phase", "[cuda][reduce][atomic]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(smem);
}
TEST_CASE("cuda reduce: atomic, a counting iterator (plus, maximum, bit_or on int64)", "[cuda][reduce][atomic]") {
  std::vector<std::int64_t> ns{1, 1000, std::int64_t(1) << 20, (std::int64_t(1) << 24) + 3};
  if (cuda_reduce_test::small_run()) ns = {1, 1000, 20000};
  for (std::int64_t n : ns) {
    INFO("n = " << n);
    const thrust::counting_iterator<std::int64_t> first(1);
    CHECK(algo::reduce(shfl, first, first + n, std::int64_t{5}) == 5 + n * (n + 1) / 2);
    CHECK(algo::reduce(smem, first, first + n, std::int64_t{-7}, algo::maximum<>{}) == n);
    std::int64_t ors = 0;
    for (std::int64_t b = 1; b <= n; b <<= 1) ors |= b;
    CHECK(algo::reduce(shfl, first, first + n, std::int64_t{0}, algo::bit_or<>{}) == ors);
  }
}
