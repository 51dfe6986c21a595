// Bench section: reduce. For i32 / f32 / f64 at every size of opt.log2_sizes(), one group of rows:
//
//   cub                          cub::DeviceReduce::Sum, temporaries sized and allocated outside the
//                                timed region, result left on the device: the baseline (ratio 1)
//   thrust (to host)             thrust::reduce(thrust::device, ...), which returns to the host
//   memcpy D2D (copy bound)      cudaMemcpyAsync of the same bytes, GB/s counting read + written:
//                                the copy bandwidth a read-only reduce is held to (not a reduce)
//   algo::cub                    algo::reduce_into(algo::cub, ...), result on the device
//   algo::cuda <strategy>/<warp> algo::reduce_into(algo::cuda.with(...)), result on the device, for
//                                every reduce strategy x warp phase
//   algo::cuda reduce->host      algo::reduce(algo::cuda, ...): the value back on the host (its ratio
//                                is against thrust (to host), which does the same)
// and, at the largest size, transform_reduce as a dot product of two f32 arrays against a reduce over
// the same bytes (2n floats).
//
// GB/s counts the bytes the algorithm must move: n * sizeof(T) read (the copy row: read + written).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>
#include <thrust/reduce.h>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace bench {
namespace reduce_bench {

template <class T>
const char* type_label();
template <>
inline const char* type_label<std::int32_t>() { return "i32"; }
template <>
inline const char* type_label<float>() { return "f32"; }
template <>
inline const char* type_label<double>() { return "f64"; }

/// Keeps results observable (host-returning rows).
template <class T>
void sink(const T& v) {
  static volatile T s;
  s = v;
}

template <class Policy>
std::string strategy_label(const Policy&) {
  using S = typename Policy::reduce_strategy;
  using W = typename Policy::warp_phase;
  std::string s = "algo::cuda ";
  if (std::is_same<S, algo::reduce_strategy::two_pass_t>::value) s += "two_pass";
  if (std::is_same<S, algo::reduce_strategy::atomic_t>::value) s += "atomic";
  if (std::is_same<S, algo::reduce_strategy::retirement_count_t>::value) s += "retirement_count";
  if (std::is_same<S, algo::reduce_strategy::locked_t>::value) s += "locked";
  s += std::is_same<W, algo::warp_phase::smem_t>::value ? "/smem" : "/shfl";
  return s;
}

/// cub::DeviceReduce::Sum with its temporaries allocated once, outside the timed region.
template <class T>
struct cub_sum {
  void* temp = nullptr;
  std::size_t bytes = 0;
  cub_sum(const T* in, T* out, std::int64_t n) {
    check(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n), "cub::DeviceReduce::Sum (size)");
    check(cudaMalloc(&temp, bytes ? bytes : 1), "cudaMalloc");
  }
  ~cub_sum() { cudaFree(temp); }
  void operator()(const T* in, T* out, std::int64_t n) const {
    std::size_t b = bytes;
    check(cub::DeviceReduce::Sum(temp, b, in, out, n), "cub::DeviceReduce::Sum");
  }
};

/// Calls f with every strategy x warp phase of algo::cuda.
template <class F>
void for_each_policy(F&& f) {
  using namespace algo;
  const auto shfl = algo::cuda.with(warp_phase::shfl);
  const auto smem = algo::cuda.with(warp_phase::smem);
  f(shfl.with(reduce_strategy::retirement_count));
  f(smem.with(reduce_strategy::retirement_count));
  f(shfl.with(reduce_strategy::two_pass));
  f(smem.with(reduce_strategy::two_pass));
  f(shfl.with(reduce_strategy::atomic));
  f(smem.with(reduce_strategy::atomic));
  f(shfl.with(reduce_strategy::locked));
  f(smem.with(reduce_strategy::locked));
}

template <class T>
void run_type(const options& opt, report& rep) {
  const std::string type = type_label<T>();
  T* d_out = nullptr;
  check(cudaMalloc(&d_out, sizeof(T)), "cudaMalloc");
  for (int k : opt.log2_sizes()) {
    const std::int64_t n = std::int64_t(1) << k;
    const double bytes = static_cast<double>(n) * sizeof(T);
    rotating_buffers<T> in(n, rotation_count(static_cast<std::size_t>(bytes)));
    auto add = [&](const std::string& impl, double ms, double b = -1, const std::string& base = "cub") {
      rep.add(row{"reduce", type, n, impl, ms, b < 0 ? bytes : b, base});
    };

    // ---- baselines -----------------------------------------------------------------------------------
    {
      cub_sum<T> sum(in[0], d_out, n);
      add("cub", median_ms(opt, [&](int r) { sum(in[r], d_out, n); }));
    }
    add("thrust (to host)", median_ms(opt, [&](int r) { sink(thrust::reduce(thrust::device, in[r], in[r] + n)); }));
    {
      rotating_buffers<T> dst(n, rotation_count(static_cast<std::size_t>(bytes)), false);
      add("memcpy D2D (copy bound, r+w bytes)",
          median_ms(opt, [&](int r) {
            check(cudaMemcpyAsync(dst[r], in[r], static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice),
                  "cudaMemcpyAsync");
          }),
          2 * bytes);
    }
    add("algo::cub", median_ms(opt, [&](int r) { algo::reduce_into(algo::cub, in[r], in[r] + n, d_out, T{}, algo::plus<>{}); }));

    // ---- algo::cuda: every strategy x warp phase, result on the device ----------------------------------
    auto variant = [&](auto policy) {
      add(strategy_label(policy),
          median_ms(opt, [&](int r) { algo::reduce_into(policy, in[r], in[r] + n, d_out, T{}, algo::plus<>{}); }));
    };
    for_each_policy([&](auto policy) { variant(policy); });

    // ---- algo::cuda returning to the host ------------------------------------------------------------
    add("algo::cuda reduce->host",
        median_ms(opt, [&](int r) { sink(algo::reduce(algo::cuda, in[r], in[r] + n)); }), -1, "thrust (to host)");
  }
  cudaFree(d_out);
}

/// transform_reduce as a dot product of two f32 arrays of n, against reduces over the same 2n floats.
inline void run_dot(const options& opt, report& rep) {
  const std::int64_t n = std::int64_t(1) << opt.max_log2;
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  const std::string type = "f32 dot (2 arrays)";
  rotating_buffers<float> ab(2 * n, rotation_count(static_cast<std::size_t>(bytes)));
  float* d_out = nullptr;
  check(cudaMalloc(&d_out, sizeof(float)), "cudaMalloc");
  auto add = [&](const std::string& impl, double ms) {
    rep.add(row{"transform_reduce", type, n, impl, ms, bytes, "algo::cuda reduce over 2n (same bytes)"});
  };
  add("algo::cuda reduce over 2n (same bytes)", median_ms(opt, [&](int r) {
        algo::reduce_into(algo::cuda, ab[r], ab[r] + 2 * n, d_out, 0.0f, algo::plus<>{});
      }));
  add("algo::cuda transform_reduce (dot)", median_ms(opt, [&](int r) {
        algo::transform_reduce_into(algo::cuda, ab[r], ab[r] + n, ab[r] + n, d_out, 0.0f);
      }));
  {
    cub_sum<float> sum(ab[0], d_out, 2 * n);
    add("cub reduce over 2n (same bytes)", median_ms(opt, [&](int r) { sum(ab[r], d_out, 2 * n); }));
  }
  add("algo::cub transform_reduce (dot)", median_ms(opt, [&](int r) {
        algo::transform_reduce_into(algo::cub, ab[r], ab[r] + n, ab[r] + n, d_out, 0.0f);
      }));
  add("thrust::inner_product (to host)", median_ms(opt, [&](int r) {
        sink(thrust::inner_product(thrust::device, ab[r], ab[r] + n, ab[r] + n, 0.0f));
      }));
  cudaFree(d_out);
}

}  // namespace reduce_bench

inline void run_reduce(const options& opt, report& rep) {
  reduce_bench::run_type<std::int32_t>(opt, rep);
  reduce_bench::run_type<float>(opt, rep);
  reduce_bench::run_type<double>(opt, rep);
  reduce_bench::run_dot(opt, rep);
}

}  // namespace bench
