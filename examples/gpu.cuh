// Shared by the device examples: is there a GPU to run on? Without one an example prints why and
// exits with 77, which CTest reports as SKIP.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

namespace example {

constexpr int skip_exit_code = 77;

/// True when a CUDA device is usable; otherwise prints why (the caller then exits 77).
inline bool have_gpu(const char* example_name) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIP %s: no usable CUDA device (%s)\n", example_name,
                e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return false;
  }
  return true;
}

}  // namespace example
