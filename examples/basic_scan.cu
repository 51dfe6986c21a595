// Prefix sums on the GPU: inclusive and exclusive scans of device data, a max-scan with one of
// algo's operators, and a scan on a stream of your own. Checked against std:: on the host.
#include <algo/algo.hpp>

#include <thrust/device_vector.h>

#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "gpu.cuh"

int main() {
  if (!example::have_gpu("basic_scan")) return example::skip_exit_code;

  // ---- data: a million random ints on the host, copied to the GPU ----
  const int n = 1 << 20;
  std::vector<int> h(n);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> dist(-100, 100);
  for (auto& v : h) v = dist(rng);
  thrust::device_vector<int> in(h.begin(), h.end()), out(n);

  bool ok = true;
  std::vector<int> got(n), want(n);
  auto check = [&](const char* what) {
    thrust::copy(out.begin(), out.end(), got.begin());
    const bool same = got == want;
    std::printf("%-34s %s (last = %d)\n", what, same ? "ok" : "WRONG", got.back());
    ok = ok && same;
  };

  // ---- out[i] = in[0] + ... + in[i] ----
  algo::inclusive_scan(algo::cuda, in.begin(), in.end(), out.begin());
  std::inclusive_scan(h.begin(), h.end(), want.begin());
  check("inclusive_scan (algo::cuda)");

  // ---- out[0] = 10, out[i] = 10 + in[0] + ... + in[i-1] ----
  algo::exclusive_scan(algo::cub, in.begin(), in.end(), out.begin(), 10);
  std::exclusive_scan(h.begin(), h.end(), want.begin(), 10);
  check("exclusive_scan init 10 (algo::cub)");

  // ---- running maximum, on a stream of our own (raw device pointers work too) ----
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const int* first = thrust::raw_pointer_cast(in.data());
  algo::inclusive_scan(algo::cuda.on(stream), first, first + n, thrust::raw_pointer_cast(out.data()),
                       algo::maximum<>{});
  cudaStreamSynchronize(stream);  // the scan is asynchronous with respect to the host
  cudaStreamDestroy(stream);
  std::inclusive_scan(h.begin(), h.end(), want.begin(), [](int a, int b) { return a < b ? b : a; });
  check("running maximum (algo::cuda.on)");

  return ok ? 0 : 1;
}
