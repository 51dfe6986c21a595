// Bench section: the host-side cost of a call, and the memory resources.
//
// host cost   back-to-back asynchronous calls on 1024 int32 (the GPU work is tiny: what is
//             measured is what the CPU spends per call: argument checks, temporaries, launch),
//             milliseconds per call on the host clock: the median of 40 batches of 50 calls,
//             the stream drained before each batch, so the launch queue never fills and the
//             GPU's own time stays out. Rows: raw CUB (temporaries allocated once, outside
//             the loop, as a hand-tuned caller does: the baseline), raw CUB with its size query
//             and a cudaMallocAsync / cudaFreeAsync per call, algo::cub, algo::cuda, and algo::cuda
//             with algo::async_pool_resource. The "ms" column holds milliseconds per call.
// resources   GPU time (events) of algo::cuda inclusive_scan with the default caching resource and
//             with async_pool_resource, at 2^10 (latency) and 2^24 (steady state): the ratio is
//             against the caching resource.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace bench {

/// Milliseconds of host time per call of fn(): batches of `batch` back-to-back calls, the stream
/// drained before each batch (so the launch queue never fills and the GPU's own time never enters),
/// the median batch over `batches` after warm-ups.
template <class F>
double host_ms_per_call(cudaStream_t s, F&& fn, int batches = 40, int batch = 50) {
  for (int i = 0; i < 100; ++i) fn();
  check(cudaStreamSynchronize(s), "warm-up");
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    check(cudaStreamSynchronize(s), "host cost");
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / batch);
  }
  check(cudaStreamSynchronize(s), "host cost");
  check(cudaGetLastError(), "host cost");
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

inline void run_host_cost(const options& opt, report& rep) {
  std::printf("host cost of a call (1024 x i32, back-to-back asynchronous calls)\n");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  const int n = 1024;
  rotating_buffers<std::int32_t> in(n, 1);
  rotating_buffers<std::int32_t> out(n, 1, false);
  rotating_buffers<std::int64_t> res(1, 1, false);
  algo::async_pool_resource pool;

  // ---- inclusive_scan -------------------------------------------------------------------------
  {
    std::size_t bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, bytes, in[0], out[0], n, s);
    void* tmp = nullptr;
    check(cudaMalloc(&tmp, bytes ? bytes : 1), "cudaMalloc");
    const std::string t = "i32 scan";
    rep.add({"host_cost", t, n, "cub", host_ms_per_call(s, [&] { cub::DeviceScan::InclusiveSum(tmp, bytes, in[0], out[0], n, s); }), 0, "cub"});
    rep.add({"host_cost", t, n, "cub (size query + cudaMallocAsync)", host_ms_per_call(s, [&] {
               std::size_t b = 0;
               cub::DeviceScan::InclusiveSum(nullptr, b, in[0], out[0], n, s);
               void* p = nullptr;
               cudaMallocAsync(&p, b, s);
               cub::DeviceScan::InclusiveSum(p, b, in[0], out[0], n, s);
               cudaFreeAsync(p, s);
             }), 0, "cub"});
    rep.add({"host_cost", t, n, "algo::cub", host_ms_per_call(s, [&] { algo::inclusive_scan(algo::cub.on(s), in[0], in[0] + n, out[0]); }), 0, "cub"});
    rep.add({"host_cost", t, n, "algo::cuda", host_ms_per_call(s, [&] { algo::inclusive_scan(algo::cuda.on(s), in[0], in[0] + n, out[0]); }), 0, "cub"});
    // 2^16 elements: several tiles, so the look-back's tile state is drawn from its pool
    const int m = 1 << 16;
    rotating_buffers<std::int32_t> in2(m, 1), out2(m, 1, false);
    std::size_t bytes2 = 0;
    cub::DeviceScan::InclusiveSum(nullptr, bytes2, in2[0], out2[0], m, s);
    void* tmp2 = nullptr;
    check(cudaMalloc(&tmp2, bytes2 ? bytes2 : 1), "cudaMalloc");
    rep.add({"host_cost", "i32 scan", m, "cub", host_ms_per_call(s, [&] { cub::DeviceScan::InclusiveSum(tmp2, bytes2, in2[0], out2[0], m, s); }), 0, "cub"});
    rep.add({"host_cost", "i32 scan", m, "algo::cub", host_ms_per_call(s, [&] { algo::inclusive_scan(algo::cub.on(s), in2[0], in2[0] + m, out2[0]); }), 0, "cub"});
    rep.add({"host_cost", "i32 scan", m, "algo::cuda", host_ms_per_call(s, [&] { algo::inclusive_scan(algo::cuda.on(s), in2[0], in2[0] + m, out2[0]); }), 0, "cub"});
    cudaFree(tmp);
    cudaFree(tmp2);
  }
  // ---- reduce_into ------------------------------------------------------------------------------
  {
    std::size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, in[0], res[0], n, s);
    void* tmp = nullptr;
    check(cudaMalloc(&tmp, bytes ? bytes : 1), "cudaMalloc");
    const std::string t = "i32 reduce_into";
    rep.add({"host_cost", t, n, "cub", host_ms_per_call(s, [&] { cub::DeviceReduce::Sum(tmp, bytes, in[0], res[0], n, s); }), 0, "cub"});
    rep.add({"host_cost", t, n, "algo::cub", host_ms_per_call(s, [&] { algo::reduce_into(algo::cub.on(s), in[0], in[0] + n, res[0], std::int64_t{0}); }), 0, "cub"});
    rep.add({"host_cost", t, n, "algo::cuda", host_ms_per_call(s, [&] { algo::reduce_into(algo::cuda.on(s), in[0], in[0] + n, res[0], std::int64_t{0}); }), 0, "cub"});
    rep.add({"host_cost", t, n, "algo::cuda (async_pool_resource)", host_ms_per_call(s, [&] { algo::reduce_into(algo::cuda.on(s).with(pool), in[0], in[0] + n, res[0], std::int64_t{0}); }), 0, "cub"});
    cudaFree(tmp);
  }

  // ---- the two resources, GPU time --------------------------------------------------------------
  std::printf("memory resources: algo::cuda inclusive_scan i32, caching vs stream-ordered pool\n");
  for (int k : {10, 16, 24}) {
    const std::int64_t m = std::int64_t(1) << k;
    const int copies = rotation_count(m * 4);
    rotating_buffers<std::int32_t> a(m, copies), b(m, copies, false);
    const double bytes = 2.0 * m * 4;
    rep.add({"resource", "i32 scan", m, "caching (default)",
             median_ms(opt, [&](int r) { algo::inclusive_scan(algo::cuda.on(s), a[r], a[r] + m, b[r]); }, s), bytes,
             "caching (default)"});
    rep.add({"resource", "i32 scan", m, "async_pool_resource",
             median_ms(opt, [&](int r) { algo::inclusive_scan(algo::cuda.on(s).with(pool), a[r], a[r] + m, b[r]); }, s),
             bytes, "caching (default)"});
    rep.add({"resource", "i32 reduce_into", m, "caching (default)",
             median_ms(opt, [&](int r) { algo::reduce_into(algo::cuda.on(s), a[r], a[r] + m, res[0], std::int64_t{0}); }, s),
             m * 4.0, "caching (default)"});
    rep.add({"resource", "i32 reduce_into", m, "async_pool_resource",
             median_ms(opt, [&](int r) { algo::reduce_into(algo::cuda.on(s).with(pool), a[r], a[r] + m, res[0], std::int64_t{0}); }, s),
             m * 4.0, "caching (default)"});
  }
  cudaStreamDestroy(s);
}

}  // namespace bench
