// algo::cuda transpose, 8-byte elements (double): every strategy x the issue's shapes against the
// host reference and against cublasDgeam (through algo::cub), back and forth
// (test_cuda_transpose_common.cuh).
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

TEST_CASE("cuda transpose: double, every strategy, against the host and cublasDgeam", "[cuda][transpose]") {
  check_strategies<double>(standard_shapes(41), 41);
}

TEST_CASE("cuda transpose: double, 4097 x 513, 8191 x 8193, against the host and cublasDgeam", "[cuda][transpose][big]") {
  check_strategies<double>(big_shapes(), 42);
}
