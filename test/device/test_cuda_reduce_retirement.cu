// algo::cuda reduce, strategy retirement_count: the default policy's strategy (shuffle warp phase).
//   - the full battery of test/support/device_checks.cuh on the default policy: every reduce /
//     transform_reduce overload, fancy inputs, device_ptr, a non-blocking stream; commutative
//     operators against thrust::device and the host, non-commutative ones against a sequential host
//     fold only (thrust::reduce reorders operands); in this unit because the default policy runs
//     this strategy's kernels (test_cuda_reduce_default.cu has the rest of the default policy:
//     bit-identity, concurrency, bad input, inputs past 2^31 elements);
//   - the strategy checks of test_cuda_reduce_checks.cuh with both warp phases (volatile shared
//     memory, shuffles) on int32, uint8 -> int64, float, double, a 2x2 matrix product (the
//     shared-memory phase: int32, uint8 -> int64, mat2i) and (a, b) -> b, at sizes around the
//     kernels' units and up to 2^24 + 3.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_reduce_checks.cuh"

using namespace algo_test;
using cuda_reduce_test::check_strategy;

namespace {
const auto shfl = algo::cuda.with(algo::reduce_strategy::retirement_count).with(algo::warp_phase::shfl);
const auto smem = algo::cuda.with(algo::reduce_strategy::retirement_count).with(algo::warp_phase::smem);
const std::vector<std::int64_t> sizes = device_sizes({1920, 2048, 4096, 8192, 16384});
}  // namespace

// ---- the default policy: every overload -----------------------------------------------------------
// Value types: int32 (4 bytes, xor), uint8 in with an int64 accumulator (mixed types), float (4-byte
// floating point, maximum), double (8 bytes), then the non-commutative user types at 8, 16 and 32
// bytes: affine_i (integer affine maps), mat2i (2x2 matrices), big32. (The float affine maps took
// the same path as affine_i: 8 bytes, ordered, no floating-point special case in the reduce.)
TEST_CASE("cuda reduces (default policy): int32", "[cuda][reduce]") { check_reduces<std::int32_t>(algo::cuda, sizes); }
TEST_CASE("cuda reduces (default policy): uint8 in, int64 accumulator", "[cuda][reduce]") {
  check_reduces<std::uint8_t>(algo::cuda, sizes);
}
TEST_CASE("cuda reduces (default policy): float", "[cuda][reduce]") { check_reduces<float>(algo::cuda, sizes); }
TEST_CASE("cuda reduces (default policy): double", "[cuda][reduce]") { check_reduces<double>(algo::cuda, sizes); }
TEST_CASE("cuda reduces (default policy): affine_i (non-commutative)", "[cuda][reduce]") {
  check_reduces<affine_i>(algo::cuda, sizes);
}
TEST_CASE("cuda reduces (default policy): mat2i (non-commutative)", "[cuda][reduce]") { check_reduces<mat2i>(algo::cuda, sizes); }
TEST_CASE("cuda reduces (default policy): big32 (non-commutative, 32 bytes)", "[cuda][reduce]") {
  check_reduces<big32>(algo::cuda, sizes);
}

// ---- the strategy, both warp phases ------------------------------------------------------------------
TEST_CASE("cuda reduce: retirement_count, shuffle warp phase", "[cuda][reduce][retirement]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, mat2i>(shfl);
}
TEST_CASE("cuda reduce: retirement_count, shared-memory warp phase", "[cuda][reduce][retirement]") {
  check_strategy<std::int32_t, std::uint8_t, mat2i>(smem);
}
TEST_CASE("cuda reduce: retirement_count, take_right over a counting iterator", "[cuda][reduce][retirement]") {
  cuda_reduce_test::check_take_right_counting(shfl);
  cuda_reduce_test::check_take_right_counting(smem);
}
