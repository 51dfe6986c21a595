// Runner for the device tests: without a usable CUDA device it prints why and exits with 77,
// which CTest reports as SKIP (never as a pass). (Catch2's session: catch_session.cpp.)
#include <cuda_runtime_api.h>

#include <cstdio>

int algo_test_run(int argc, char** argv);

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIP: no usable CUDA device on this machine (%s); device tests need a GPU\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return 77;
  }
  return algo_test_run(argc, argv);
}
