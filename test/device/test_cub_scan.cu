// algo::cub scans against thrust::device and the host reference (test/support/device_checks.cuh).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
// CUB's scan tiles on sm_90 hold a few thousand items; sizes straddle a couple of plausible ones.
const std::vector<std::int64_t> sizes = algo_test::device_sizes({1920, 2048, 4096, 8192});
}  // namespace

TEST_CASE("cub scans: int32", "[cub][scan]") { algo_test::check_scans<std::int32_t>(algo::cub, sizes); }
TEST_CASE("cub scans: uint8 in, int64 accumulator", "[cub][scan]") { algo_test::check_scans<std::uint8_t>(algo::cub, sizes); }
TEST_CASE("cub scans: float", "[cub][scan]") { algo_test::check_scans<float>(algo::cub, sizes); }
TEST_CASE("cub scans: double", "[cub][scan]") { algo_test::check_scans<double>(algo::cub, sizes); }
TEST_CASE("cub scans: affine_i (non-commutative)", "[cub][scan]") { algo_test::check_scans<algo_test::affine_i>(algo::cub, sizes); }
TEST_CASE("cub scans: big32 (non-commutative, 32 bytes)", "[cub][scan]") { algo_test::check_scans<algo_test::big32>(algo::cub, sizes); }
