// algo::cub transpose: cublas<t>geam (C = A^T) for float / double / complex element types on raw
// pointers, a plain 32x32-tile (32x8 threads, padded) kernel for everything else.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"

namespace algo::detail::cub_backend {

inline void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw error(std::string("algo::transpose: ") + call + " failed: " + cublasGetStatusName(s) + " (" +
                cublasGetStatusString(s) + ")");
}

/// One cuBLAS handle per (host thread, device), created on first use.
inline cublasHandle_t cublas_handle() {
  struct handles {
    std::map<int, cublasHandle_t> by_device;
    ~handles() {
      for (auto& [d, h] : by_device) cublasDestroy(h);
    }
  };
  thread_local handles h;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "transpose", "cudaGetDevice");
  auto it = h.by_device.find(dev);
  if (it != h.by_device.end()) return it->second;
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  h.by_device[dev] = handle;
  return handle;
}

template <class T>
inline constexpr bool has_geam_v = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                   std::is_same<T, cuComplex>::value || std::is_same<T, cuDoubleComplex>::value;

inline cublasStatus_t geam(cublasHandle_t h, int m, int n, const float* a, int lda, float* c, int ldc) {
  const float one = 1.f, zero = 0.f;
  return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, const double* a, int lda, double* c, int ldc) {
  const double one = 1., zero = 0.;
  return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, const cuComplex* a, int lda, cuComplex* c, int ldc) {
  const cuComplex one{1.f, 0.f}, zero{0.f, 0.f};
  return cublasCgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, const cuDoubleComplex* a, int lda, cuDoubleComplex* c,
                           int ldc) {
  const cuDoubleComplex one{1., 0.}, zero{0., 0.};
  return cublasZgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}

/// The textbook kernel: a 32x32 tile through padded shared memory, 32x8 threads, 4 rows each.
/// Tiles are numbered in one grid dimension (grid-stride), so no shape hits the 65535 limit of y.
template <class InIt, class OutIt>
__global__ void transpose_tile_kernel(InIt in, std::int64_t rows, std::int64_t cols, OutIt out,
                                      std::int64_t tiles_c, std::int64_t tiles) {
  using T = iter_value_t<InIt>;
  __shared__ T tile[32][33];
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t r0 = (t / tiles_c) * 32, c0 = (t % tiles_c) * 32;
    for (int k = threadIdx.y; k < 32; k += 8) {
      const std::int64_t r = r0 + k, c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[k][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += 8) {
      const std::int64_t c = c0 + k, r = r0 + threadIdx.x;
      if (r < rows && c < cols) out[c * rows + r] = tile[threadIdx.x][k];
    }
    __syncthreads();
  }
}

}  // namespace algo::detail::cub_backend

namespace algo::detail {

template <class InIt, class OutIt>
OutIt transpose(const cub_policy& p, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  using T = iter_value_t<InIt>;
  auto src = raw_address(in);
  auto dst = raw_address(out);
  using S = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
  using D = std::remove_pointer_t<decltype(dst)>;
  if constexpr (cub_backend::has_geam_v<S> && std::is_same<S, D>::value) {
    if (rows <= INT_MAX && cols <= INT_MAX) {
      cublasHandle_t h = cub_backend::cublas_handle();
      cub_backend::check_cublas(cublasSetStream(h, p.stream), "cublasSetStream");
      // Row-major rows x cols is column-major cols x rows (ld = cols); the result, row-major
      // cols x rows, is column-major rows x cols (ld = rows): C(rows x cols) = A^T.
      cub_backend::check_cublas(cub_backend::geam(h, static_cast<int>(rows), static_cast<int>(cols), src,
                                                  static_cast<int>(cols), dst, static_cast<int>(rows)),
                                "cublas<t>geam");
      return out + rows * cols;
    }
  }
  (void)sizeof(T);
  const std::int64_t tiles_c = (cols + 31) / 32, tiles = ((rows + 31) / 32) * tiles_c;
  const int blocks = static_cast<int>(tiles < (1 << 30) ? tiles : (1 << 30));
  cub_backend::transpose_tile_kernel<<<blocks, dim3(32, 8), 0, p.stream>>>(in, rows, cols, out, tiles_c, tiles);
  cuda::check_launch("transpose", "transpose_tile_kernel");
  return out + rows * cols;
}

}  // namespace algo::detail
