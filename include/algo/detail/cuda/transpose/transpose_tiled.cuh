// The seed's shared-memory transposes: a 32x32 tile read row by row (coalesced), written back column
// by column (coalesced again, the transposition happens in shared memory).
//
//   tiled          tile[32][32]: reading a column of the tile puts all 32 lanes of a warp in the
//                  same bank (4-byte elements): a 32-way conflict
//   tiled_padded   tile[32][33]: one element of padding per row shifts each row by a bank, so a
//                  column falls in 32 different banks
//
// 32x8 threads, each moving 4 rows of the tile. Works on any iterator and element type; it is also
// the fallback of the `fast` strategy for what that one does not handle (fancy iterators, element
// types that differ between input and output or whose size is not 1, 2, 4, 8 or 16 bytes).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../../iterator.hpp"
#include "../runtime.cuh"
#include "transpose_common.cuh"

namespace algo::detail::cuda::transpose_kernels {

template <bool Padded, class InIt, class OutIt>
__global__ void __launch_bounds__(transpose_tuning::tile * transpose_tuning::tiled_block_y)
    tiled_kernel(InIt in, OutIt out, transpose_shape s, block_grid g) {
  using T = iter_value_t<InIt>;
  constexpr int N = transpose_tuning::tile, BY = transpose_tuning::tiled_block_y, W = N + (Padded ? 1 : 0);
  // Raw storage: T need not be default-constructible to live in shared memory.
  __shared__ alignas(alignof(T)) unsigned char storage[sizeof(T) * N * W];
  T(*tile)[W] = reinterpret_cast<T(*)[W]>(storage);

  for (std::int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const auto blk = g.locate(t);
    const InIt src = in + blk.b * s.stride_in;
    const OutIt dst = out + blk.b * s.stride_out;
    // Phase 1: rows of the input tile into rows of shared memory.
#pragma unroll
    for (int k = 0; k < N / BY; ++k) {
      const int i = threadIdx.y + k * BY;
      const std::int64_t r = blk.r0 + i, c = blk.c0 + threadIdx.x;
      if (r < s.rows && c < s.cols) tile[i][threadIdx.x] = src[r * s.ld_in + c];
    }
    __syncthreads();
    // Phase 2: columns of shared memory into rows of the output.
#pragma unroll
    for (int k = 0; k < N / BY; ++k) {
      const int i = threadIdx.y + k * BY;
      const std::int64_t c = blk.c0 + i, r = blk.r0 + threadIdx.x;
      if (r < s.rows && c < s.cols) dst[c * s.ld_out + r] = tile[threadIdx.x][i];
    }
    __syncthreads();
  }
}

template <bool Padded, class InIt, class OutIt>
void tiled(cudaStream_t stream, InIt in, OutIt out, const transpose_shape& s) {
  constexpr int N = transpose_tuning::tile;
  const block_grid g(s.rows, s.cols, s.count, N, N);
  tiled_kernel<Padded><<<grid_for(g.total), dim3(N, transpose_tuning::tiled_block_y), 0, stream>>>(in, out, s, g);
  check_launch("transpose", Padded ? "tiled_kernel<padded>" : "tiled_kernel");
}

}  // namespace algo::detail::cuda::transpose_kernels
