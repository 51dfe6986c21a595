// algo::cuda transpose, 4-byte elements (float): every strategy x the issue's shapes against the host
// reference and against cublasSgeam (through algo::cub), back and forth
// (test_cuda_transpose_common.cuh); the bench's degenerate and skinny shapes, whose 67108864 rows
// break any kernel that puts a shape-dependent count in grid y.
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

TEST_CASE("cuda transpose: float, every strategy, against the host and cublasSgeam", "[cuda][transpose]") {
  check_strategies<float>(standard_shapes(31), 31);
}

TEST_CASE("cuda transpose: float, 4097 x 513, 8191 x 8193, against the host and cublasSgeam", "[cuda][transpose][big]") {
  check_strategies<float>(big_shapes(), 33);
}

TEST_CASE("cuda transpose: float, 67108864 x 1, 1 x 67108864, 2097120 x 32, 32 x 2097120", "[cuda][transpose][big]") {
  check_strategies<float>({{67108864, 1}, {1, 67108864}, {2097120, 32}, {32, 2097120}}, 32);
}
