// Inside your own kernel: a numerically stable softmax of each row of a matrix, and the running
// (cumulative) sum of each row, with algo's group policies. Every thread of the group calls the
// algorithm together, as a collective; a reduction returns its value to every thread of the group.
//
//   long rows:  one block a row, algo::this_block (any block size: 96 threads here)
//   short rows: one warp a row, algo::this_warp (no shared memory, no __syncthreads())
//
// The library declares the shared memory it needs (algo::this_block), or takes the caller's
// (algo::this_block.with(storage), used for the second reduction below).
#include <algo/cooperative.hpp>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gpu.cuh"

/// exp(x - m): the transform of transform_reduce, carrying the row's maximum.
struct shifted_exp {
  float m;
  __host__ __device__ float operator()(float x) const { return expf(x - m); }
};

/// One block a row: max, sum of exp(x - max), then each thread writes its share of the outputs.
__global__ void softmax_rows(const float* in, float* out, int cols) {
  const float* row = in + static_cast<long>(blockIdx.x) * cols;
  float* o = out + static_cast<long>(blockIdx.x) * cols;
  const float m = algo::reduce(algo::this_block, row, row + cols, -INFINITY, algo::maximum<>{});
  __shared__ algo::block_storage<float> storage;  // the caller's shared memory, for this call
  const float s = algo::transform_reduce(algo::this_block.with(storage), row, row + cols, 0.0f, algo::plus<>{},
                                         shifted_exp{m});
  for (int i = threadIdx.x; i < cols; i += blockDim.x) o[i] = expf(row[i] - m) / s;
}

/// One warp a row: the running sum of each row, in place.
__global__ void cumsum_rows(float* data, int rows, int cols) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (r >= rows) return;  // the whole warp leaves together (blockDim.x is a multiple of 32)
  float* row = data + static_cast<long>(r) * cols;
  algo::inclusive_scan(algo::this_warp, row, row + cols, row);
}

int main() {
  if (!example::have_gpu("row_softmax")) return example::skip_exit_code;
  const int rows = 300, cols = 1000;
  std::vector<float> h(static_cast<std::size_t>(rows) * cols);
  std::mt19937 g(5);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (auto& x : h) x = u(g);

  float *in = nullptr, *out = nullptr;
  const std::size_t bytes = h.size() * sizeof(float);
  if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&out, bytes) != cudaSuccess) return 1;
  cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice);

  softmax_rows<<<rows, 96>>>(in, out, cols);
  std::vector<float> soft(h.size());
  cudaMemcpy(soft.data(), out, bytes, cudaMemcpyDeviceToHost);

  cumsum_rows<<<(rows * 32 + 127) / 128, 128>>>(out, rows, cols);
  std::vector<float> cum(h.size());
  cudaMemcpy(cum.data(), out, bytes, cudaMemcpyDeviceToHost);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("row_softmax: kernel failed\n");
    return 1;
  }

  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    const float* x = h.data() + static_cast<std::size_t>(r) * cols;
    float m = x[0];
    for (int i = 1; i < cols; ++i) m = std::fmax(m, x[i]);
    double s = 0;
    for (int i = 0; i < cols; ++i) s += std::exp(double(x[i]) - m);
    double run = 0;
    for (int i = 0; i < cols; ++i) {
      const double p = std::exp(double(x[i]) - m) / s;
      run += soft[static_cast<std::size_t>(r) * cols + i];
      worst = std::fmax(worst, std::fabs(p - soft[static_cast<std::size_t>(r) * cols + i]));
      worst = std::fmax(worst, std::fabs(run - cum[static_cast<std::size_t>(r) * cols + i]));
    }
  }
  std::printf("softmax of %d rows of %d (one block a row), running sums (one warp a row): worst error %.3g\n", rows,
              cols, worst);
  cudaFree(in);
  cudaFree(out);
  return worst < 1e-4 ? 0 : 1;
}
