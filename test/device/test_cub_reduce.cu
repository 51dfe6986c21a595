// algo::cub reduce / transform_reduce: commutative operators against thrust::device and the host;
// non-commutative ones (affine maps, 2x2 matrices, 32-byte matrices, take_right) against a
// sequential host fold only (thrust::reduce reorders operands and is wrong for those).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
const std::vector<std::int64_t> sizes = algo_test::device_sizes({1920, 2048, 4096, 8192});
}  // namespace

TEST_CASE("cub reduces: int32", "[cub][reduce]") { algo_test::check_reduces<std::int32_t>(algo::cub, sizes); }
TEST_CASE("cub reduces: uint8 in, int64 accumulator", "[cub][reduce]") { algo_test::check_reduces<std::uint8_t>(algo::cub, sizes); }
TEST_CASE("cub reduces: float", "[cub][reduce]") { algo_test::check_reduces<float>(algo::cub, sizes); }
TEST_CASE("cub reduces: double", "[cub][reduce]") { algo_test::check_reduces<double>(algo::cub, sizes); }
TEST_CASE("cub reduces: affine (float, non-commutative)", "[cub][reduce]") { algo_test::check_reduces<algo_test::affine>(algo::cub, sizes); }
TEST_CASE("cub reduces: affine_i (non-commutative)", "[cub][reduce]") { algo_test::check_reduces<algo_test::affine_i>(algo::cub, sizes); }
TEST_CASE("cub reduces: mat2i (non-commutative)", "[cub][reduce]") { algo_test::check_reduces<algo_test::mat2i>(algo::cub, sizes); }
TEST_CASE("cub reduces: big32 (non-commutative, 32 bytes)", "[cub][reduce]") { algo_test::check_reduces<algo_test::big32>(algo::cub, sizes); }
TEST_CASE("cub reduces: take_right over a counting iterator gives the last element", "[cub][reduce]") {
  algo_test::check_take_right_counting(algo::cub, {1, 2, 1000, 1023, 1024, 1025, 16777219});
}
