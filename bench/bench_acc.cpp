// bench_acc: algo::acc (OpenACC directives) beside algo::cuda and algo::cub called through the
// OpenACC interop (an OpenACC data region, `host_data use_device`, the CUDA stream of async queue 1),
// a device copy of the same bytes and OpenACC's own loops, in one run on one GPU:
//   reduce, inclusive_scan of 2^26 floats, transpose of 8192 x 8192 floats.
// Built by the OpenACC compiler (g++ -fopenacc -foffload=nvptx-none) with the interop's nvcc
// translation unit (examples/openacc_algo_entry.cu) and bench_acc_cuda.cu (scripts/openacc.sh).
//
// Method: host steady_clock around batches of 10 calls queued on queue 1, then `wait(1)`; median
// of 7 batches after 3 warm-up calls. Async calls are timed back to back (GPU throughput); reduce
// returns its value to the host, so each of its calls includes that synchronization (for every
// policy alike; algo::cuda's reduce_into is the asynchronous row). GB/s counts bytes read + written.
//   bench_acc [csv-file]
#include <algo/acc.hpp>
#include <algo/openacc/interop.hpp>

#include <openacc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_acc_cuda.hpp"

namespace {

constexpr int q = 1;

template <class F>
double time_ms(F&& f) {
  for (int i = 0; i < 3; ++i) f();
  acc_wait(q);
  std::vector<double> ms;
  for (int b = 0; b < 7; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) f();
    acc_wait(q);
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / 10);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// OpenACC's own loops on present data, as an OpenACC program writes them.
void copy_loop(const float* x, float* y, std::int64_t n) {
#pragma acc parallel loop async(q) present(x[0:n], y[0:n])
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i];
}
float reduction_loop(const float* x, std::int64_t n) {
  float s = 0;
#pragma acc parallel loop async(q) present(x[0:n]) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += x[i];
  acc_wait(q);
  return s;
}

struct row {
  std::string group, name;
  double ms, bytes;
};
std::vector<row> rows;

void add(const std::string& group, const std::string& name, double bytes, double ms) {
  rows.push_back({group, name, ms, bytes});
  std::fprintf(stderr, "  %-10s %-52s %9.3f ms\n", group.c_str(), name.c_str(), ms);
}

}  // namespace

int main(int argc, char** argv) {
  if (acc_get_num_devices(acc_device_nvidia) == 0) {
    std::printf("SKIP: bench_acc needs an NVIDIA GPU for OpenACC (found none: host fallback)\n");
    return 77;
  }
  const std::int64_t n = std::int64_t(1) << 26, side = 8192;
  const double b4 = 4.0 * n;
  std::vector<float> xs(n), ys(n);
  for (std::int64_t i = 0; i < n; ++i) xs[i] = static_cast<float>((i * 2654435761u) % 1024) / 1024.0f - 0.5f;
  float* x = xs.data();
  float* y = ys.data();
  float sink = 0;
  const auto cuda = algo::interop::cuda.on_queue(q);
  const auto cub = algo::interop::cub.on_queue(q);
  const auto acc = algo::acc.present().async(q);
  const auto acc_gp = algo::acc.present().async(q).with(algo::acc_reduce::gang_partials);
  std::printf("bench_acc: %s, n = 2^26 floats, transpose %lld x %lld\n", bench_cuda::device_name(),
              static_cast<long long>(side), static_cast<long long>(side));

#pragma acc data copyin(x[0:n]) create(y[0:n])
  {
    // The device addresses, for the calls through the interop (lambdas capture these by value).
    float *dx = nullptr, *dy = nullptr;
#pragma acc host_data use_device(x, y)
    {
      dx = x;
      dy = y;
    }
    // ---- references: a device copy of the bytes, OpenACC's own loops ----
    add("copy", "cudaMemcpyAsync D2D (read n + write n)", 2 * b4, time_ms([=] { bench_cuda::copy(dy, dx, n * 4, cuda.stream); }));
    add("copy", "acc parallel loop y[i] = x[i]", 2 * b4, time_ms([=] { copy_loop(x, y, n); }));
    add("reduce", "acc parallel loop reduction(+:s), GCC's launch", b4,
        time_ms([&] { sink += reduction_loop(x, n); }));

    // ---- reduce ----
    add("reduce", "algo::acc (vector reduction clause, gang partials)", b4, time_ms([&] { sink += algo::reduce(acc, x, x + n, 0.0f); }));
    add("reduce", "algo::acc gang_partials (lane tree)", b4, time_ms([&] { sink += algo::reduce(acc_gp, x, x + n, 0.0f); }));
    {
      add("reduce", "algo::cuda via host_data (returns to host)", b4,
          time_ms([&] { sink += algo::interop::reduce(cuda, dx, dx + n, 0.0f); }));
      add("reduce", "algo::cub via host_data (returns to host)", b4,
          time_ms([&] { sink += algo::interop::reduce(cub, dx, dx + n, 0.0f); }));
      add("reduce", "algo::cuda reduce_into via host_data (async)", b4,
          time_ms([&] { algo::interop::reduce_into(cuda, dx, dx + n, dy, 0.0f); }));
    }

    // ---- inclusive_scan ----
    add("scan", "algo::acc", 2 * b4, time_ms([&] { algo::inclusive_scan(acc, x, x + n, y); }));
    {
      add("scan", "algo::cuda via host_data", 2 * b4, time_ms([&] { algo::interop::inclusive_scan(cuda, dx, dx + n, dy); }));
      add("scan", "algo::cub via host_data", 2 * b4, time_ms([&] { algo::interop::inclusive_scan(cub, dx, dx + n, dy); }));
    }

    // ---- transpose 8192 x 8192 ----
    add("transpose", "algo::acc (32x32 tiles, a gang each)", 2 * b4, time_ms([&] { algo::transpose(acc, x, side, side, y); }));
    {
      add("transpose", "algo::cuda via host_data", 2 * b4, time_ms([&] { algo::interop::transpose(cuda, dx, side, side, dy); }));
      add("transpose", "algo::cub (cuBLAS geam) via host_data", 2 * b4,
          time_ms([&] { algo::interop::transpose(cub, dx, side, side, dy); }));
    }
  }

  // ---- the table: ratios to algo::cuda's row of the group and to the D2D copy ----
  auto find = [](const std::string& g, const std::string& prefix) {
    for (const row& r : rows)
      if (r.group == g && r.name.rfind(prefix, 0) == 0) return r.ms;
    return double(NAN);
  };
  const double copy_ms = find("copy", "cudaMemcpyAsync");
  std::printf("%-10s %-52s %10s %9s %10s %9s\n", "group", "implementation", "ms", "GB/s", "/algo::cuda", "/copy");
  FILE* csv = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
  if (csv) std::fprintf(csv, "group,implementation,ms,GBps,vs_algo_cuda,vs_copy\n");
  for (const row& r : rows) {
    const double cuda_ms = find(r.group, "algo::cuda");
    const double gbs = r.bytes / (r.ms * 1e-3) / 1e9;
    const double copy_equiv = copy_ms * r.bytes / (2 * b4);  // a copy of the bytes this row moves
    std::printf("%-10s %-52s %10.3f %9.0f %10.2f %9.2f\n", r.group.c_str(), r.name.c_str(), r.ms, gbs, r.ms / cuda_ms,
                r.ms / copy_equiv);
    if (csv)
      std::fprintf(csv, "%s,\"%s\",%.4f,%.1f,%.3f,%.3f\n", r.group.c_str(), r.name.c_str(), r.ms, gbs, r.ms / cuda_ms,
                   r.ms / copy_equiv);
  }
  if (csv) std::fclose(csv);
  std::printf("(checksum %g)\n", static_cast<double>(sink));
  return 0;
}
