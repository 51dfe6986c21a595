// The default algo::cuda policy's reduce / transform_reduce: commutative operators against
// thrust::device and the host; non-commutative ones against a sequential host fold only.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
const std::vector<std::int64_t> sizes = algo_test::device_sizes({1920, 2048, 4096, 8192, 16384});
}  // namespace

TEST_CASE("cuda reduces: int32", "[cuda][reduce]") { algo_test::check_reduces<std::int32_t>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: uint8 in, int64 accumulator", "[cuda][reduce]") { algo_test::check_reduces<std::uint8_t>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: float", "[cuda][reduce]") { algo_test::check_reduces<float>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: double", "[cuda][reduce]") { algo_test::check_reduces<double>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: affine (float, non-commutative)", "[cuda][reduce]") { algo_test::check_reduces<algo_test::affine>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: affine_i (non-commutative)", "[cuda][reduce]") { algo_test::check_reduces<algo_test::affine_i>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: mat2i (non-commutative)", "[cuda][reduce]") { algo_test::check_reduces<algo_test::mat2i>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: big32 (non-commutative, 32 bytes)", "[cuda][reduce]") { algo_test::check_reduces<algo_test::big32>(algo::cuda, sizes); }
TEST_CASE("cuda reduces: take_right over a counting iterator gives the last element", "[cuda][reduce]") {
  algo_test::check_take_right_counting(algo::cuda, {1, 2, 1000, 1023, 1024, 1025, 16777219});
}
