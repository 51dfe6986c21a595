// The default policies' transposes against a host reference, element sizes 1 to 32 bytes: algo::cuda
// (its default strategy) and algo::cub (cublas<t>geam for float / double on raw pointers, a tiled
// kernel otherwise). One translation unit for the two (test/COMPILE_TIMES.md: nvcc's fixed cost per
// unit); test_cuda_transpose_strategies and test_cuda_transpose_forms hold algo::cuda's strategies
// and forms.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
const algo_test::shape_list shapes = algo_test::standard_shapes({32, 64});
}  // namespace

// ==== algo::cuda ===================================================================================
TEST_CASE("cuda transpose: 1 and 2 byte elements", "[cuda][transpose]") {
  algo_test::check_transposes<std::uint8_t, std::uint16_t>(algo::cuda, shapes);
}
TEST_CASE("cuda transpose: 4 byte elements", "[cuda][transpose]") {
  algo_test::check_transposes<float, std::int32_t>(algo::cuda, shapes);
}
TEST_CASE("cuda transpose: 8 byte elements", "[cuda][transpose]") {
  algo_test::check_transposes<double, std::int64_t>(algo::cuda, shapes);
}
TEST_CASE("cuda transpose: 16 and 32 byte elements", "[cuda][transpose]") {
  algo_test::check_transposes<algo_test::mat2i, algo_test::big32>(algo::cuda, shapes);
}

// ==== algo::cub ====================================================================================
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
