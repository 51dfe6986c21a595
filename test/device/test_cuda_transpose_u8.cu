// algo::cuda transpose, 1-byte elements: every strategy x the issue's shapes against the host
// reference, back and forth (test_cuda_transpose_common.cuh); a matrix of more than 2^31 elements
// ([large]: 64-bit indexing).
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

TEST_CASE("cuda transpose: uint8, every strategy", "[cuda][transpose]") {
  check_strategies<std::uint8_t>(standard_shapes(11), 11);
}

TEST_CASE("cuda transpose: uint8, 4097 x 513, 8191 x 8193, 16384 x 16384, 16400 x 16", "[cuda][transpose][big]") {
  check_strategies<std::uint8_t>(big_shapes(), 12);
  check_strategies<std::uint8_t>({{16384, 16384}, {16400, 16}, {16, 16400}}, 14);
}

TEST_CASE("cuda transpose: uint8, more than 2^31 elements", "[cuda][transpose][large]") {
  check_shape<std::uint8_t>(46341, 46349, 13);
}
