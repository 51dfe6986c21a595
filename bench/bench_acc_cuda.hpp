// bench_acc's CUDA helpers (bench_acc_cuda.cu).
#pragma once

#include <cstddef>

struct CUstream_st;

namespace bench_cuda {
void copy(void* dst, const void* src, std::size_t bytes, CUstream_st* s);
void sync(CUstream_st* s);
const char* device_name();
}  // namespace bench_cuda
