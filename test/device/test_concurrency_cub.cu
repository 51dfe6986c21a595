// algo::cub from many host threads and inside CUDA graphs: the tests are in concurrency_tests.cuh.
#define ALGO_TEST_POLICY algo::cub
#define ALGO_TEST_POLICY_NAME "cub"
#include "concurrency_tests.cuh"
