// algo::cuda transpose, 16-byte elements (a struct of four uint32, 4-byte aligned, moved as 16-byte
// words where the addresses allow): every strategy x the issue's shapes against the host reference,
// back and forth (test_cuda_transpose_common.cuh).
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

TEST_CASE("cuda transpose: 16-byte struct, every strategy", "[cuda][transpose]") {
  check_strategies<b16>(standard_shapes(51), 51);
}

TEST_CASE("cuda transpose: 16-byte struct, 4097 x 513, 8191 x 8193", "[cuda][transpose][big]") {
  check_strategies<b16>(big_shapes(), 52);
}
