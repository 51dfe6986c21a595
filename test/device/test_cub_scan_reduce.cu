// algo::cub scans against thrust::device and the host reference, and algo::cub reduce /
// transform_reduce: commutative operators (cub::DeviceReduce) against thrust::device and the host;
// non-commutative ones (the order-keeping path on cub::DeviceScan: integer affine maps, 2x2
// matrices, 32-byte matrices, take_right) against a sequential host fold only (thrust::reduce
// reorders operands and is wrong for those). Value types: int32 (4 bytes, xor), uint8 in with an
// int64 accumulator (mixed types), float (maximum), double (8 bytes), and the non-commutative ones
// at 8, 16 and 32 bytes. (Float affine maps took the same path as affine_i: 8 bytes,
// non-commutative; algo::cub has no floating-point case.) test/support/device_checks.cuh. One
// translation unit for the two (test/COMPILE_TIMES.md: nvcc's fixed cost per unit).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
// CUB's scan tiles on sm_90 hold a few thousand items; sizes straddle a couple of plausible ones.
const std::vector<std::int64_t> sizes = algo_test::device_sizes({1920, 2048, 4096, 8192});
}  // namespace

// ==== scans ========================================================================================
TEST_CASE("cub scans: int32", "[cub][scan]") { algo_test::check_scans<std::int32_t>(algo::cub, sizes); }
TEST_CASE("cub scans: uint8 in, int64 accumulator", "[cub][scan]") { algo_test::check_scans<std::uint8_t>(algo::cub, sizes); }
TEST_CASE("cub scans: float", "[cub][scan]") { algo_test::check_scans<float>(algo::cub, sizes); }
TEST_CASE("cub scans: double", "[cub][scan]") { algo_test::check_scans<double>(algo::cub, sizes); }
TEST_CASE("cub scans: affine_i (non-commutative)", "[cub][scan]") { algo_test::check_scans<algo_test::affine_i>(algo::cub, sizes); }
TEST_CASE("cub scans: big32 (non-commutative, 32 bytes)", "[cub][scan]") { algo_test::check_scans<algo_test::big32>(algo::cub, sizes); }

// ==== reduce and transform_reduce ==================================================================
TEST_CASE("cub reduces: int32", "[cub][reduce]") { algo_test::check_reduces<std::int32_t>(algo::cub, sizes); }
TEST_CASE("cub reduces: uint8 in, int64 accumulator", "[cub][reduce]") { algo_test::check_reduces<std::uint8_t>(algo::cub, sizes); }
TEST_CASE("cub reduces: float", "[cub][reduce]") { algo_test::check_reduces<float>(algo::cub, sizes); }
TEST_CASE("cub reduces: double", "[cub][reduce]") { algo_test::check_reduces<double>(algo::cub, sizes); }
TEST_CASE("cub reduces: affine_i (non-commutative)", "[cub][reduce]") { algo_test::check_reduces<algo_test::affine_i>(algo::cub, sizes); }
TEST_CASE("cub reduces: mat2i (non-commutative)", "[cub][reduce]") { algo_test::check_reduces<algo_test::mat2i>(algo::cub, sizes); }
TEST_CASE("cub reduces: big32 (non-commutative, 32 bytes)", "[cub][reduce]") { algo_test::check_reduces<algo_test::big32>(algo::cub, sizes); }
TEST_CASE("cub reduces: take_right over a counting iterator gives the last element", "[cub][reduce]") {
  algo_test::check_take_right_counting(algo::cub, {1, 2, 1000, 1023, 1024, 1025, 16777219});
}
