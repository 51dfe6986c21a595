// algo::cub transpose: cublas<t>geam (C = A^T, lda / ldc for pitched matrices, one call per matrix
// of a batch) for float / double / complex element types on raw pointers, a plain 32x32-tile
// (32x8 threads, padded) kernel for everything else.
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
#include "../cuda/pointer.cuh"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"
#include "../transpose_shape.hpp"

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
  // cublasCreate allocates device memory, which a capture in global or thread-local mode forbids on
  // this thread; the handle is process state, not work of the graph, so allow it for this call.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "transpose", "cudaThreadExchangeStreamCaptureMode");
  cublasHandle_t handle;
  const cublasStatus_t created = cublasCreate(&handle);
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "transpose", "cudaThreadExchangeStreamCaptureMode");
  check_cublas(created, "cublasCreate");
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
/// Tiles (of every matrix of the batch) are numbered in one grid dimension (grid-stride), so no
/// shape hits the 65535 limit of grid y.
template <class InIt, class OutIt>
__global__ void transpose_tile_kernel(InIt in, OutIt out, transpose_shape s, std::int64_t tiles_c,
                                      std::int64_t tiles_per_matrix) {
  using T = iter_value_t<InIt>;
  __shared__ alignas(T) unsigned char raw[sizeof(T) * 32 * 33];
  T(*tile)[33] = reinterpret_cast<T(*)[33]>(raw);
  const std::int64_t tiles = tiles_per_matrix * s.count;
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t b = t / tiles_per_matrix, k = t % tiles_per_matrix;
    const std::int64_t r0 = (k / tiles_c) * 32, c0 = (k % tiles_c) * 32;
    const InIt src = in + b * s.stride_in;
    const OutIt dst = out + b * s.stride_out;
    for (int i = threadIdx.y; i < 32; i += 8) {
      const std::int64_t r = r0 + i, c = c0 + threadIdx.x;
      if (r < s.rows && c < s.cols) tile[i][threadIdx.x] = src[r * s.ld_in + c];
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += 8) {
      const std::int64_t c = c0 + i, r = r0 + threadIdx.x;
      if (r < s.rows && c < s.cols) dst[c * s.ld_out + r] = tile[threadIdx.x][i];
    }
    __syncthreads();
  }
}

}  // namespace algo::detail::cub_backend

namespace algo::detail {

template <class InIt, class OutIt>
void transpose(const cub_policy& p, InIt in, OutIt out, const transpose_shape& s) {
  auto src = raw_address(in);
  auto dst = raw_address(out);
  using S = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
  using D = std::remove_pointer_t<decltype(dst)>;
  if constexpr (cub_backend::has_geam_v<S> && std::is_same<S, D>::value) {
    if (s.rows <= INT_MAX && s.cols <= INT_MAX && s.ld_in <= INT_MAX && s.ld_out <= INT_MAX) {
      cublasHandle_t h = cub_backend::cublas_handle();
      cub_backend::check_cublas(cublasSetStream(h, p.stream), "cublasSetStream");
      // Row-major rows x cols (pitch ld_in) is column-major cols x rows (lda = ld_in); the result,
      // row-major cols x rows (pitch ld_out), is column-major rows x cols (ldc = ld_out): C = A^T.
      // cuBLAS has no strided-batched geam: one call per matrix of the batch.
      for (std::int64_t b = 0; b < s.count; ++b)
        cub_backend::check_cublas(
            cub_backend::geam(h, static_cast<int>(s.rows), static_cast<int>(s.cols), src + b * s.stride_in,
                              static_cast<int>(s.ld_in), dst + b * s.stride_out, static_cast<int>(s.ld_out)),
            "cublas<t>geam");
      return;
    }
  }
  const std::int64_t tiles_c = (s.cols + 31) / 32, per_matrix = ((s.rows + 31) / 32) * tiles_c;
  const std::int64_t tiles = per_matrix * s.count;
  const int blocks = static_cast<int>(tiles < (1 << 30) ? tiles : (1 << 30));
  cub_backend::transpose_tile_kernel<<<blocks, dim3(32, 8), 0, p.stream>>>(in, out, s, tiles_c, per_matrix);
  cuda::check_launch("transpose", "transpose_tile_kernel");
}

}  // namespace algo::detail
