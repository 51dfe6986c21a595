// The default algo::cuda policy's transpose against a host reference, element sizes 1 to 32 bytes.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {
const algo_test::shape_list shapes = algo_test::standard_shapes({32, 64});
}  // namespace

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
