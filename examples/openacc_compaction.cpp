// A prefix sum and a stream compaction inside an OpenACC program (g++ -fopenacc).
//
//   keep the values of x that are multiples of 3, in order:
//     flag[i] = x[i] % 3 == 0          an OpenACC loop
//     pos     = exclusive_scan(flag)   algo
//     out[pos[i]] = x[i] if flag[i]    an OpenACC loop
//     count   = pos[n-1] + flag[n-1]   an OpenACC serial region
//
// Twice: with algo::acc (directives only: runs anywhere OpenACC runs, on the host fallback too),
// and with algo::cuda through <algo/openacc/interop.hpp> on the device addresses that
// `host_data use_device` gives, on the CUDA stream of async queue 1, so the loops and the scan run
// in order on the GPU with no host synchronization until the final `wait`. The interop half needs
// an NVIDIA GPU (without one the program says so and exits 77).
//
// Build: g++ -fopenacc -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80 this file, and
// examples/openacc_algo_entry.cu (nvcc), linked with the CUDA runtime (CMake: example_openacc_compaction).
#include <algo/acc.hpp>
#include <algo/openacc/interop.hpp>

#include <openacc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

/// The compaction with the scan done by scan(flag, pos, n) on device data; returns the count.
template <class Scan>
std::int64_t compact(const std::vector<int>& xs, std::vector<int>& out_v, Scan scan) {
  const std::int64_t n = static_cast<std::int64_t>(xs.size());
  const int* x = xs.data();
  int* out = out_v.data();
  std::vector<int> flag_v(n), pos_v(n);
  int* flag = flag_v.data();
  int* pos = pos_v.data();
  int count = 0;
#pragma acc data copyin(x[0:n]) create(flag[0:n], pos[0:n]) copyout(out[0:n]) copy(count)
  {
#pragma acc parallel loop async(1) present(x[0:n], flag[0:n])
    for (std::int64_t i = 0; i < n; ++i) flag[i] = x[i] % 3 == 0;

    scan(flag, pos, n);  // queued on async queue 1 (algo::acc) or on its CUDA stream (interop)

#pragma acc parallel loop async(1) present(x[0:n], flag[0:n], pos[0:n], out[0:n])
    for (std::int64_t i = 0; i < n; ++i)
      if (flag[i]) out[pos[i]] = x[i];
#pragma acc parallel num_gangs(1) async(1) present(flag[0:n], pos[0:n], count)
    count = pos[n - 1] + flag[n - 1];
#pragma acc wait(1)
  }
  return count;
}

bool check(const std::vector<int>& xs, const std::vector<int>& out, std::int64_t count, const char* how) {
  std::vector<int> want;
  for (int v : xs)
    if (v % 3 == 0) want.push_back(v);
  const bool ok = count == static_cast<std::int64_t>(want.size()) && std::equal(want.begin(), want.end(), out.begin());
  std::printf("%-44s kept %lld of %zu: %s\n", how, static_cast<long long>(count), xs.size(), ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main() {
  const std::int64_t n = 10000019;
  std::vector<int> xs(n), out(n);
  for (std::int64_t i = 0; i < n; ++i) xs[i] = static_cast<int>((i * 2654435761u) % 1000);
  const bool device = acc_get_device_type() != acc_device_host;
  std::printf("OpenACC device: %s\n", device ? "NVIDIA GPU" : "none (host fallback)");

  // 1. algo::acc: the scan is directives too; present() because the data region made them present.
  std::int64_t count = compact(xs, out, [](int* flag, int* pos, std::int64_t n) {
    algo::exclusive_scan(algo::acc.present().async(1), flag, flag + n, pos, 0);
  });
  bool ok = check(xs, out, count, "algo::acc (directives)");

  // 2. algo::cuda through the interop, on queue 1's CUDA stream.
  if (!device) {
    std::printf("SKIP: the interop half needs an NVIDIA GPU (algo::cuda runs on device memory)\n");
    return ok ? 77 : 1;
  }
  std::fill(out.begin(), out.end(), 0);
  count = compact(xs, out, [](int* flag, int* pos, std::int64_t n) {
#pragma acc host_data use_device(flag, pos)
    algo::interop::exclusive_scan(algo::interop::cuda.on_queue(1), flag, flag + n, pos, 0);
  });
  ok &= check(xs, out, count, "algo::cuda via host_data, on queue 1's stream");
  return ok ? 0 : 1;
}
