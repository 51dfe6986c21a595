// A custom, non-commutative operator: solving the linear recurrence
//
//     x[i] = a[i] * x[i-1] + b[i],   x[-1] = x0
//
// in parallel. Each step is the affine map f_i(x) = a[i] * x + b[i], and x[i] = f_i(...f_0(x0)).
// Composing affine maps is associative but not commutative, so an inclusive scan with composition
// as the operator yields every prefix composition at once; algo keeps the left-to-right order on
// every policy. Seeding the scan with the constant map x -> x0 (as `init`) makes the scanned map's
// offset the answer itself: (f_i o ... o f_0 o const_x0)(anything) = x[i].
#include <algo/algo.hpp>

#include <thrust/device_vector.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gpu.cuh"

/// The map x -> a * x + b.
struct affine {
  double a, b;
};

/// then(f, g) = g o f: apply f first, then g. Operators for device policies are __host__ __device__.
struct then {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};
// No algo::is_commutative specialization for `then`: it is not commutative, so every backend
// (algo::cub included) keeps the operands in order.

int main() {
  if (!example::have_gpu("linear_recurrence")) return example::skip_exit_code;

  // ---- the recurrence's coefficients: |a| < 1 keeps x bounded ----
  const int n = 1'000'003;
  const double x0 = 1.5;
  std::vector<affine> steps(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coeff(-0.99, 0.99), offset(-1.0, 1.0);
  for (auto& s : steps) s = {coeff(rng), offset(rng)};

  // ---- the sequential loop: the reference ----
  std::vector<double> expect(n);
  double x = x0;
  for (int i = 0; i < n; ++i) expect[i] = x = steps[i].a * x + steps[i].b;

  // ---- the scan: init is the constant map x -> x0, so the accumulator type is `affine` ----
  const affine start{0.0, x0};
  thrust::device_vector<affine> d_steps(steps.begin(), steps.end()), d_prefix(n);
  std::vector<affine> prefix(n);
  bool ok = true;
  auto check = [&](const char* policy) {
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(prefix[i].b - expect[i]));
    const bool good = worst <= 1e-9;
    std::printf("%-12s x[%d] = %.12f (loop: %.12f), largest difference %.2e: %s\n", policy, n - 1,
                prefix[n - 1].b, expect[n - 1], worst, good ? "ok" : "WRONG");
    ok = ok && good;
  };

  algo::inclusive_scan(algo::cuda, d_steps.begin(), d_steps.end(), d_prefix.begin(), then{}, start);
  thrust::copy(d_prefix.begin(), d_prefix.end(), prefix.begin());
  check("algo::cuda");

  algo::inclusive_scan(algo::cub, d_steps.begin(), d_steps.end(), d_prefix.begin(), then{}, start);
  thrust::copy(d_prefix.begin(), d_prefix.end(), prefix.begin());
  check("algo::cub");

  algo::inclusive_scan(algo::par, steps.begin(), steps.end(), prefix.begin(), then{}, start);
  check("algo::par");

  // ---- the final state alone: a reduce with the same operator (also order-preserving) ----
  const affine last = algo::reduce(algo::cuda, d_steps.begin(), d_steps.end(), start, then{});
  const bool good = std::fabs(last.b - expect[n - 1]) <= 1e-9;
  std::printf("%-12s reduce gives x[%d] = %.12f: %s\n", "algo::cuda", n - 1, last.b, good ? "ok" : "WRONG");
  ok = ok && good;

  return ok ? 0 : 1;
}
