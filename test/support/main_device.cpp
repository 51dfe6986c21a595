// Catch2 runner for the device tests: without a usable CUDA device it prints why and exits with 77,
// which CTest reports as SKIP (never as a pass).
#if !defined(ALGO_CATCH2_V3)
#  define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"
#if defined(ALGO_CATCH2_V3)
#  include <catch2/catch_session.hpp>
#endif

#include <cuda_runtime_api.h>

#include <cstdio>

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIP: no usable CUDA device on this machine (%s); device tests need a GPU\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
