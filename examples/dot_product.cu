// Dot product and norm with transform_reduce: the two-range form (inner product) and the
// one-range form with a transform written as an extended __host__ __device__ lambda.
// Checked against a double-precision loop on the host.
#include <algo/algo.hpp>

#include <thrust/device_vector.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gpu.cuh"

int main() {
  if (!example::have_gpu("dot_product")) return example::skip_exit_code;

  // ---- data: two random float vectors ----
  const int n = 5'000'011;
  std::vector<float> hx(n), hy(n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) {
    hx[i] = dist(rng);
    hy[i] = dist(rng);
  }
  thrust::device_vector<float> x(hx.begin(), hx.end()), y(hy.begin(), hy.end());

  // ---- host reference in double ----
  double dot_ref = 0, norm2_ref = 0, magnitude = 0;
  for (int i = 0; i < n; ++i) {
    dot_ref += static_cast<double>(hx[i] * hy[i]);
    magnitude += std::fabs(static_cast<double>(hx[i] * hy[i]));
    norm2_ref += static_cast<double>(hx[i]) * hx[i];
  }
  // Different summation orders differ by at most n roundings of the largest partial sum.
  const double tolerance = n * 0x1p-52 * std::max(magnitude, norm2_ref);

  bool ok = true;
  auto report = [&](const char* what, double got, double want) {
    const bool good = std::fabs(got - want) <= tolerance;
    std::printf("%-42s %.12f (host loop %.12f): %s\n", what, got, want, good ? "ok" : "WRONG");
    ok = ok && good;
  };

  // ---- inner product: init 0.0 is a double, so the sum is accumulated in double ----
  const double dot = algo::transform_reduce(algo::cuda, x.begin(), x.end(), y.begin(), 0.0);
  report("x . y (algo::cuda)", dot, dot_ref);

  // ---- |x|^2 = sum of transform(x[i]) with algo::plus, through CUB's DeviceReduce ----
  auto square = [] __host__ __device__(float v) { return static_cast<double>(v) * v; };
  const double norm2 = algo::transform_reduce(algo::cub, x.begin(), x.end(), 0.0, algo::plus<>{}, square);
  report("|x|^2 (algo::cub, extended lambda)", norm2, norm2_ref);

  std::printf("|x| = %.6f, cos(x, y) = %.6f\n", std::sqrt(norm2), dot / std::sqrt(norm2 * norm2_ref));
  return ok ? 0 : 1;
}
