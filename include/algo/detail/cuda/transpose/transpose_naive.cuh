// The seed's transposes without shared memory (Professional CUDA C, "naive", "unrolled",
// "diagonal"), one element per thread access, 32x8-thread blocks:
//
//   naive_row   threads walk the input: reads coalesced, writes strided by a column
//   naive_col   threads walk the output: writes coalesced, reads strided by a row (the strided
//               reads of neighbouring warps hit the same L1 lines, so this one is the faster)
//   unrolled    naive_col, each thread moving `transpose_tuning::unroll` elements block_x apart, all loads issued before
//               the first store (more bytes in flight)
//   diagonal    naive_col with the blocks taken in diagonal order (block_grid::locate_diagonal), so
//               that blocks running together spread over DRAM partitions
//
// Blocks of every matrix of the batch are numbered in grid x (grid-stride), never grid y.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../../iterator.hpp"
#include "../runtime.cuh"
#include "transpose_common.cuh"

namespace algo::detail::cuda::transpose_kernels {

// ---- naive_row ------------------------------------------------------------------------------------
/// Blocks of block_y input rows x block_x input columns.
template <class InIt, class OutIt>
__global__ void naive_row_kernel(InIt in, OutIt out, transpose_shape s, block_grid g) {
  for (std::int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const auto blk = g.locate(t);
    const std::int64_t r = blk.r0 + threadIdx.y, c = blk.c0 + threadIdx.x;
    if (r < s.rows && c < s.cols) out[blk.b * s.stride_out + c * s.ld_out + r] = in[blk.b * s.stride_in + r * s.ld_in + c];
  }
}

// ---- naive_col, unrolled, diagonal ----------------------------------------------------------------
/// Blocks of block_y output rows x (Unroll * block_x) output columns; output row c is input
/// column c. Diagonal: blocks in diagonal order.
template <int Unroll, bool Diagonal, class InIt, class OutIt>
__global__ void naive_col_kernel(InIt in, OutIt out, transpose_shape s, block_grid g) {
  using T = iter_value_t<InIt>;
  constexpr int BX = transpose_tuning::naive_block_x;
  for (std::int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const auto blk = Diagonal ? g.locate_diagonal(t) : g.locate(t);
    const std::int64_t c = blk.r0 + threadIdx.y;               // output row = input column
    const std::int64_t r = blk.c0 + threadIdx.x;               // output column = input row
    const InIt src = in + blk.b * s.stride_in;
    const OutIt dst = out + blk.b * s.stride_out;
    if (c >= s.cols) continue;
    if constexpr (Unroll == 1) {
      if (r < s.rows) dst[c * s.ld_out + r] = src[r * s.ld_in + c];
    } else {
      // Phase 1: every load of the thread in flight.  Phase 2: the stores.
      T v[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (r + u * BX < s.rows) v[u] = src[(r + u * BX) * s.ld_in + c];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (r + u * BX < s.rows) dst[c * s.ld_out + r + u * BX] = v[u];
    }
  }
}

// ---- launchers ------------------------------------------------------------------------------------
template <class InIt, class OutIt>
void naive_row(cudaStream_t stream, InIt in, OutIt out, const transpose_shape& s) {
  const block_grid g(s.rows, s.cols, s.count, transpose_tuning::naive_block_y, transpose_tuning::naive_block_x);
  naive_row_kernel<<<grid_for(g.total), dim3(transpose_tuning::naive_block_x, transpose_tuning::naive_block_y), 0, stream>>>(in, out, s, g);
  check_launch("transpose", "naive_row_kernel");
}

/// naive_col (Unroll 1), unrolled (Unroll transpose_tuning::unroll), diagonal (Diagonal).
template <int Unroll, bool Diagonal, class InIt, class OutIt>
void naive_col(cudaStream_t stream, InIt in, OutIt out, const transpose_shape& s) {
  // The block grid walks the output: cols output rows by rows output columns.
  const block_grid g(s.cols, s.rows, s.count, transpose_tuning::naive_block_y, std::int64_t(transpose_tuning::naive_block_x) * Unroll);
  naive_col_kernel<Unroll, Diagonal>
      <<<grid_for(g.total), dim3(transpose_tuning::naive_block_x, transpose_tuning::naive_block_y), 0, stream>>>(in, out, s, g);
  check_launch("transpose", "naive_col_kernel");
}

}  // namespace algo::detail::cuda::transpose_kernels
