// Copy kernels of the transpose family.
//
//   copy_row / copy_col   the seed's bounds for the transpose table: a rows x cols matrix copied (not
//                         transposed) with the naive kernels' 32x8 blocks, reading and writing rows
//                         (every access coalesced: the upper bound) or columns (every access
//                         strided: the lower bound). Bench only.
//   copy_flat             a contiguous copy with 16-byte accesses, four vectors in flight per
//                         thread: what a 1 x n or n x 1 transpose is.
//   copy_strided          out[k * so] = in[k * si] for each matrix of a batch: degenerate shapes whose
//                         single row or column is not contiguous.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstdint>

#include "../runtime.cuh"
#include "transpose_common.cuh"

namespace algo::detail::cuda::transpose_kernels {

// ---- copy_row / copy_col (bench bounds) ------------------------------------------------------------
/// Rows: thread x walks a row (both accesses coalesced).
template <class T>
__global__ void copy_row_kernel(const T* __restrict__ in, std::int64_t rows, std::int64_t cols, T* __restrict__ out,
                                block_grid g) {
  for (std::int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const auto blk = g.locate(t);
    const std::int64_t r = blk.r0 + threadIdx.y, c = blk.c0 + threadIdx.x;
    if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
  }
}

/// Columns: thread x walks a column (both accesses strided by a row).
template <class T>
__global__ void copy_col_kernel(const T* __restrict__ in, std::int64_t rows, std::int64_t cols, T* __restrict__ out,
                                block_grid g) {
  for (std::int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const auto blk = g.locate(t);  // blocks of the grid are block_x rows by block_y columns
    const std::int64_t r = blk.r0 + threadIdx.x, c = blk.c0 + threadIdx.y;
    if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
  }
}

template <class T>
void copy_row(cudaStream_t stream, const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  const block_grid g(rows, cols, 1, transpose_tuning::naive_block_y, transpose_tuning::naive_block_x);
  if (g.total == 0) return;
  copy_row_kernel<<<grid_for(g.total), dim3(transpose_tuning::naive_block_x, transpose_tuning::naive_block_y), 0, stream>>>(in, rows, cols,
                                                                                                      out, g);
  check_launch("transpose", "copy_row_kernel");
}

template <class T>
void copy_col(cudaStream_t stream, const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  const block_grid g(rows, cols, 1, transpose_tuning::naive_block_x, transpose_tuning::naive_block_y);
  if (g.total == 0) return;
  copy_col_kernel<<<grid_for(g.total), dim3(transpose_tuning::naive_block_x, transpose_tuning::naive_block_y), 0, stream>>>(in, rows, cols,
                                                                                                      out, g);
  check_launch("transpose", "copy_col_kernel");
}

// ---- copy_flat ------------------------------------------------------------------------------------
/// n elements; `head` elements before the first 16-byte boundary of both buffers, then `vectors`
/// 16-byte vectors, then the tail. Each thread loads its vectors_per_thread vectors before storing.
template <class W>
__global__ void __launch_bounds__(transpose_tuning::copy_threads) copy_flat_kernel(const W* __restrict__ in,
                                                                         W* __restrict__ out, std::int64_t n,
                                                                         std::int64_t head, std::int64_t vectors) {
  constexpr int U = transpose_tuning::copy_vectors_per_thread;
  constexpr std::int64_t EV = 16 / sizeof(W);
  const std::int64_t tid = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const uint4* vin = reinterpret_cast<const uint4*>(in + head);
  uint4* vout = reinterpret_cast<uint4*>(out + head);
  for (std::int64_t base = tid; base < vectors; base += threads * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * threads < vectors) v[u] = load16(vin + base + u * threads);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * threads < vectors) store16(vout + base + u * threads, v[u]);
  }
  const std::int64_t tail = head + vectors * EV;
  if (tid < head) out[tid] = in[tid];
  if (tid < n - tail) out[tail + tid] = in[tail + tid];
}

/// Element by element (buffers whose addresses differ modulo 16).
template <class W>
__global__ void copy_elements_kernel(const W* __restrict__ in, W* __restrict__ out, std::int64_t n) {
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += threads)
    out[i] = in[i];
}

template <class W>
void copy_flat(cudaStream_t stream, const W* in, W* out, std::int64_t n) {
  constexpr int T = transpose_tuning::copy_threads;
  if (n <= 0) return;
  if constexpr (sizeof(W) < 16) {
    if (misalignment16(in) != misalignment16(out)) {
      copy_elements_kernel<<<grid_for((n + T - 1) / T), T, 0, stream>>>(in, out, n);
      check_launch("transpose", "copy_elements_kernel");
      return;
    }
  }
  constexpr std::int64_t E = sizeof(W), EV = 16 / E;
  std::int64_t head = ((16 - misalignment16(in)) & 15) / E;  // `in` is E-aligned: exact
  if (head > n) head = n;
  const std::int64_t vectors = (n - head) / EV;
  const std::int64_t edge = head + (n - head - vectors * EV);  // threads needed for head and tail
  const std::int64_t per_block = static_cast<std::int64_t>(T) * transpose_tuning::copy_vectors_per_thread;
  std::int64_t blocks = (vectors + per_block - 1) / per_block;
  if (blocks * T < edge) blocks = (edge + T - 1) / T;
  copy_flat_kernel<<<grid_for(blocks), T, 0, stream>>>(in, out, n, head, vectors);
  check_launch("transpose", "copy_flat_kernel");
}

// ---- copy_strided ---------------------------------------------------------------------------------
/// Element k of matrix b: out[b * bso + k * so] = in[b * bsi + k * si], 0 <= k < n.
template <class W>
__global__ void copy_strided_kernel(const W* __restrict__ in, std::int64_t si, std::int64_t bsi, W* __restrict__ out,
                                    std::int64_t so, std::int64_t bso, std::int64_t n, std::int64_t count) {
  const std::int64_t total = n * count, threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total; i += threads) {
    const std::int64_t b = i / n, k = i - b * n;
    out[b * bso + k * so] = in[b * bsi + k * si];
  }
}

template <class W>
void copy_strided(cudaStream_t stream, const W* in, std::int64_t si, std::int64_t bsi, W* out, std::int64_t so,
                  std::int64_t bso, std::int64_t n, std::int64_t count) {
  constexpr int T = transpose_tuning::copy_threads;
  const std::int64_t total = n * count;
  if (total <= 0) return;
  copy_strided_kernel<<<grid_for((total + T - 1) / T), T, 0, stream>>>(in, si, bsi, out, so, bso, n, count);
  check_launch("transpose", "copy_strided_kernel");
}

}  // namespace algo::detail::cuda::transpose_kernels
