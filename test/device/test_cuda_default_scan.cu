// The default algo::cuda policy's scans (whatever strategies it defaults to) against
// thrust::device and the host reference (test/support/device_checks.cuh).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
// Tile sizes of plausible in-house scan kernels (256-1024 threads x 4-16 items) and CUB's.
const std::vector<std::int64_t> sizes = algo_test::device_sizes({1920, 2048, 4096, 8192, 16384});
}  // namespace

TEST_CASE("cuda scans: int32", "[cuda][scan]") { algo_test::check_scans<std::int32_t>(algo::cuda, sizes); }
TEST_CASE("cuda scans: uint8 in, int64 accumulator", "[cuda][scan]") { algo_test::check_scans<std::uint8_t>(algo::cuda, sizes); }
TEST_CASE("cuda scans: float", "[cuda][scan]") { algo_test::check_scans<float>(algo::cuda, sizes); }
TEST_CASE("cuda scans: double", "[cuda][scan]") { algo_test::check_scans<double>(algo::cuda, sizes); }
TEST_CASE("cuda scans: affine_i (non-commutative)", "[cuda][scan]") { algo_test::check_scans<algo_test::affine_i>(algo::cuda, sizes); }
TEST_CASE("cuda scans: big32 (non-commutative, 32 bytes)", "[cuda][scan]") { algo_test::check_scans<algo_test::big32>(algo::cuda, sizes); }
