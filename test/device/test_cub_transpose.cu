// algo::cub transpose (cublas<t>geam for float / double on raw pointers, a tiled kernel otherwise)
// against a host reference, for element sizes 1, 2, 4, 8, 16 and 32 bytes.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
const algo_test::shape_list shapes = algo_test::standard_shapes({32, 64});
}  // namespace

TEST_CASE("cub transpose: 1 and 2 byte elements", "[cub][transpose]") {
  algo_test::check_transposes<std::uint8_t, std::uint16_t>(algo::cub, shapes);
}
TEST_CASE("cub transpose: 4 byte elements (float through cuBLAS, int32 through the kernel)", "[cub][transpose]") {
  algo_test::check_transposes<float, std::int32_t>(algo::cub, shapes);
}
TEST_CASE("cub transpose: 8 byte elements (double through cuBLAS, int64 through the kernel)", "[cub][transpose]") {
  algo_test::check_transposes<double, std::int64_t>(algo::cub, shapes);
}
TEST_CASE("cub transpose: 16 and 32 byte elements", "[cub][transpose]") {
  algo_test::check_transposes<algo_test::mat2i, algo_test::big32>(algo::cub, shapes);
}
