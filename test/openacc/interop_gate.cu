// The gate of interop_gate.hpp: flags in pinned, device-mapped host memory.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "interop_gate.hpp"

namespace {

volatile int* flags = nullptr;  // [0]: open, [1]: timed out

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void gate_kernel(volatile int* f, unsigned long long timeout_ns) {
  const unsigned long long start = now_ns();
  while (f[0] == 0) {
    if (now_ns() - start > timeout_ns) {
      f[1] = 1;
      return;
    }
    __nanosleep(1000);
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gate: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

}  // namespace

namespace gate {

bool cuda_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

void close(CUstream_st* s, int timeout_ms) {
  if (flags == nullptr) {
    void* p = nullptr;
    check(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    flags = static_cast<volatile int*>(p);
  }
  flags[0] = 0;
  flags[1] = 0;
  int* d = nullptr;
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), const_cast<int*>(flags), 0), "cudaHostGetDevicePointer");
  gate_kernel<<<1, 1, 0, s>>>(d, 1000000ull * static_cast<unsigned long long>(timeout_ms));
  check(cudaGetLastError(), "gate launch");
}

void open() { flags[0] = 1; }

bool timed_out() { return flags[1] != 0; }

}  // namespace gate
