// The CUDA side of bench_acc (nvcc): a device-to-device copy on a stream, and stream sync. The
// algo::cuda / algo::cub calls themselves go through the interop layer
// (examples/openacc_algo_entry.cu), as an OpenACC program calls them.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "bench_acc_cuda.hpp"

namespace bench_cuda {

void copy(void* dst, const void* src, std::size_t bytes, CUstream_st* s) {
  const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cudaMemcpyAsync: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

void sync(CUstream_st* s) { cudaStreamSynchronize(s); }

const char* device_name() {
  static cudaDeviceProp p;
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || cudaGetDeviceProperties(&p, d) != cudaSuccess) return "?";
  return p.name;
}

}  // namespace bench_cuda
