// algo::cuda transpose, 2-byte elements: every strategy x the issue's shapes against the host
// reference, back and forth (test_cuda_transpose_common.cuh).
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

TEST_CASE("cuda transpose: uint16, every strategy", "[cuda][transpose]") {
  check_strategies<std::uint16_t>(standard_shapes(21), 21);
}

TEST_CASE("cuda transpose: uint16, 4097 x 513, 8191 x 8193, 16384 x 16384", "[cuda][transpose][big]") {
  check_strategies<std::uint16_t>(big_shapes(), 22);
  check_strategies<std::uint16_t>({{16384, 16384}}, 23);
}
