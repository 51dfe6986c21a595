// algo::cuda from many host threads and inside CUDA graphs: the tests are in concurrency_tests.cuh.
#define ALGO_TEST_POLICY algo::cuda
#define ALGO_TEST_POLICY_NAME "cuda"
#include "concurrency_tests.cuh"
