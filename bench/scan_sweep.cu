// Tuning sweep of the look-back scan (a development tool beside the bench program, which alone makes
// performance claims): times look-back variants against cub::DeviceScan::InclusiveSum and a
// device-to-device copy in the same run, and checks every variant's output against CUB's.
//
//   scan_sweep [--min-log2 K] [--max-log2 K] [--reps R] [--csv FILE] [--commit SHA] [--reduce]
//
// --reduce times reduce at 2^16..2^22 int32 instead: single calls (events) and the host's own cost
// per call (back-to-back calls, wall clock).
//
// Variants are tunings (scan_config.cuh) passed to run_lookback_tuned. Two are timing experiments
// whose results are wrong on purpose (marked "timing only"): they leave a stage out so that the
// difference to the default prices that stage.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <chrono>
#include <cub/device/device_reduce.cuh>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace sweep {
namespace adc = algo::detail::cuda;
using base = adc::scan_tuning_base;

struct dflt : base {};
struct block_index : base {  // CUB's tile order (no ticket)
  static constexpr bool ticket = false;
};
struct skip_lookback : base {  // timing only
  static constexpr bool timing_skip_lookback = true;
};
struct block_index_skip : base {  // timing only: neither ticket nor look-back
  static constexpr bool ticket = false;
  static constexpr bool timing_skip_lookback = true;
};
struct spread8 : base {
  static constexpr int tile_state_spread = 8;
};
struct spread1 : base {
  static constexpr int tile_state_spread = 1;
};
struct w2 : base {
  static constexpr int lookback_windows = 2;
};
struct initial900 : base {
  static constexpr unsigned lookback_initial_delay_ns = 900;
};
struct initial1600 : base {
  static constexpr unsigned lookback_initial_delay_ns = 1600;
};
struct poll400 : base {
  static constexpr unsigned lookback_first_sleep_ns = 400;
  static constexpr unsigned lookback_max_sleep_ns = 400;
};
struct no_delays : base {  // the polling of the first runs: no initial delay, 32..512 ns
  static constexpr unsigned lookback_initial_delay_ns = 0;
  static constexpr unsigned lookback_first_sleep_ns = 32;
  static constexpr unsigned lookback_max_sleep_ns = 512;
};
struct items24 : base {
  static constexpr int items_override = 24;
};
struct min_tiles_100 : base {
  static constexpr int lookback_delay_min_tiles = 100;
};

template <class T>
struct type_name;
template <> struct type_name<int> { static constexpr const char* value = "i32"; };
template <> struct type_name<double> { static constexpr const char* value = "f64"; };

template <class T>
struct runner {
  const bench::options& opt;
  bench::report& rep;
  const bench::rotating_buffers<T>& in;
  T* out;
  const T* want;  // CUB's result for in[0]
  std::int64_t n;

  double bytes() const { return 2.0 * static_cast<double>(n) * sizeof(T); }

  template <class Tuning>
  void variant(const std::string& name, bool check = true) {
    using Op = algo::detail::accumulate_with<algo::plus<>, T>;
    auto call = [&](int r) {
      const adc::scan_problem<T, const T*, T*, Op> p{in[r], out, n, Op{}, adc::none<T>(), false, "inclusive_scan"};
      adc::run_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, 0);
    };
    const double ms = bench::median_ms(opt, call);
    std::string label = "lookback " + name;
    if (check) {
      call(0);
      bench::check(cudaDeviceSynchronize(), "variant");
      const bool ok = thrust::equal(thrust::device, thrust::device_pointer_cast(out), thrust::device_pointer_cast(out) + n,
                                    thrust::device_pointer_cast(want));
      if (!ok) label += " [WRONG]";
    } else {
      label += " (timing only)";
    }
    rep.add({"inclusive_scan", type_name<T>::value, n, label, ms, bytes(), "cub"});
  }
};

template <class T>
void run(const bench::options& opt, bench::report& rep, std::int64_t n) {
  bench::rotating_buffers<T> in(n, bench::rotation_count(static_cast<std::size_t>(n) * sizeof(T)));
  T *out = nullptr, *want = nullptr;
  bench::check(cudaMalloc(&out, sizeof(T) * n), "cudaMalloc");
  bench::check(cudaMalloc(&want, sizeof(T) * n), "cudaMalloc");
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const char* type = type_name<T>::value;
  {
    std::size_t temp_bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in[0], out, n);
    void* temp = nullptr;
    bench::check(cudaMalloc(&temp, temp_bytes + 1), "cudaMalloc");
    const double ms = bench::median_ms(opt, [&](int r) { cub::DeviceScan::InclusiveSum(temp, temp_bytes, in[r], out, n); });
    rep.add({"inclusive_scan", type, n, "cub", ms, bytes, "cub"});
    cub::DeviceScan::InclusiveSum(temp, temp_bytes, in[0], want, n);
    bench::check(cudaDeviceSynchronize(), "cub");
    cudaFree(temp);
  }
  {
    const double ms = bench::median_ms(opt, [&](int r) {
      cudaMemcpyAsync(out, in[r], sizeof(T) * static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice);
    });
    rep.add({"inclusive_scan", type, n, "memcpy", ms, bytes, "cub"});
  }
  {
    const double ms = bench::median_ms(opt, [&](int r) {
      algo::inclusive_scan(algo::cuda.with(algo::scan_strategy::reduce_then_scan), in[r], in[r] + n, out);
    });
    rep.add({"inclusive_scan", type, n, "reduce_then_scan", ms, bytes, "cub"});
  }
  runner<T> r{opt, rep, in, out, want, n};
  r.template variant<dflt>("default");
  r.template variant<block_index>("blockIdx order");
  r.template variant<skip_lookback>("no look-back", false);
  r.template variant<block_index_skip>("blockIdx, no look-back", false);
  r.template variant<spread8>("spread 8");
  r.template variant<spread1>("spread 1");
  r.template variant<w2>("W=2");
  r.template variant<initial900>("initial delay 900");
  r.template variant<initial1600>("initial delay 1600");
  r.template variant<poll400>("poll every 400");
  r.template variant<no_delays>("no initial delay, polls 32..512");
  if (sizeof(T) == 4) r.template variant<items24>("items 24");
  r.template variant<min_tiles_100>("initial delay from 100 tiles");
  cudaFree(out);
  cudaFree(want);
}

/// Reduce at mid sizes: event-timed single calls (as the bench), plus the host's own cost per call
/// (wall time of 2000 calls issued back to back, one sync at the end), which bounds a small call.
template <class T>
void reduce_rows(const bench::options& opt, bench::report& rep, std::int64_t n) {
  bench::rotating_buffers<T> in(n, bench::rotation_count(static_cast<std::size_t>(n) * sizeof(T)));
  T* d_out = nullptr;
  bench::check(cudaMalloc(&d_out, sizeof(T)), "cudaMalloc");
  const double bytes = static_cast<double>(n) * sizeof(T);
  const char* type = type_name<T>::value;
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, in[0], d_out, n);
  void* temp = nullptr;
  bench::check(cudaMalloc(&temp, temp_bytes + 1), "cudaMalloc");
  auto cub_call = [&](int r) { cub::DeviceReduce::Sum(temp, temp_bytes, in[r], d_out, n); };
  auto algo_into = [&](int r) { algo::reduce_into(algo::cuda, in[r], in[r] + n, d_out, T{}, algo::plus<>{}); };
  volatile T sink{};
  auto algo_host = [&](int r) { sink = algo::reduce(algo::cuda, in[r], in[r] + n); };
  auto thrust_host = [&](int r) { sink = thrust::reduce(thrust::device, in[r], in[r] + n); };
  auto host_us = [&](auto call) {
    for (int i = 0; i < 20; ++i) call(i);
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) call(i);
    const auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / 2000;
  };
  rep.add({"reduce", type, n, "cub", bench::median_ms(opt, cub_call), bytes, "cub"});
  rep.add({"reduce", type, n, "algo::cuda reduce_into", bench::median_ms(opt, algo_into), bytes, "cub"});
  rep.add({"reduce", type, n, "thrust (to host)", bench::median_ms(opt, thrust_host), bytes, "cub"});
  rep.add({"reduce", type, n, "algo::cuda reduce (to host)", bench::median_ms(opt, algo_host), bytes, "thrust (to host)"});
  // host cost per call, reported in the ms column (as ms)
  rep.add({"reduce host cost", type, n, "cub (issue only)", host_us(cub_call) / 1000, bytes, "cub (issue only)"});
  rep.add({"reduce host cost", type, n, "algo::cuda reduce_into (issue only)", host_us(algo_into) / 1000, bytes, "cub (issue only)"});
  rep.add({"reduce host cost", type, n, "algo::cuda reduce (to host, whole call)", host_us(algo_host) / 1000, bytes, "cub (issue only)"});
  rep.add({"reduce host cost", type, n, "thrust (to host, whole call)", host_us(thrust_host) / 1000, bytes, "cub (issue only)"});
  cudaFree(temp);
  cudaFree(d_out);
}

}  // namespace sweep

int main(int argc, char** argv) {
  bench::options opt;
  opt.min_log2 = 20;
  opt.max_log2 = 28;
  opt.csv = "scan_sweep.csv";
  std::string commit = "unknown";
  bool reduce_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--min-log2") opt.min_log2 = std::stoi(next());
    else if (a == "--max-log2") opt.max_log2 = std::stoi(next());
    else if (a == "--reps") opt.reps = std::stoi(next());
    else if (a == "--csv") opt.csv = next();
    else if (a == "--commit") commit = next();
    else if (a == "--reduce") reduce_only = true;
  }
  cudaDeviceProp prop{};
  bench::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s\n", prop.name);
  bench::report rep(opt);
  if (reduce_only) {
    for (int k = 16; k <= 22; k += 2) sweep::reduce_rows<int>(opt, rep, std::int64_t(1) << k);
    rep.finish(prop.name, commit);
    return 0;
  }
  for (int k = opt.min_log2; k <= opt.max_log2; k += 2) sweep::run<int>(opt, rep, std::int64_t(1) << k);
  sweep::run<double>(opt, rep, std::int64_t(1) << (opt.max_log2 - 1));
  sweep::run<double>(opt, rep, std::int64_t(1) << (opt.max_log2 - 5));
  rep.finish(prop.name, commit);
  return 0;
}
