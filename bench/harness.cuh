// Benchmark harness: CUDA-event timing (warm-up, median of many repetitions), input buffers rotated
// so the 50 MB L2 is not what gets measured, and a report that prints a table (time, GB/s, ratio to
// the baseline row of the same group) and writes CSV. Timed tests are not benchmarks: this is.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct options {
  int min_log2 = 10;
  int max_log2 = 28;
  int reps = 30;
  bool quick = false;                  // fewer sizes and repetitions
  std::string only;                    // "", "scan", "reduce", "transpose", "host"
  std::string csv = "bench.csv";
  std::string case_filter;             // --case: only the cases whose name contains it (group_reduce)
  std::string impl_filter;             // --impl: only the implementations whose name contains it, or one of a|b (group_reduce)
  bool wants(const std::string& section) const { return only.empty() || only == section; }
  bool wants_case(const std::string& name) const { return case_filter.empty() || name.find(case_filter) != std::string::npos; }
  bool wants_impl(const std::string& name) const {  // --impl "a|b": either substring
    if (impl_filter.empty()) return true;
    for (std::size_t b = 0;;) {
      const std::size_t e = impl_filter.find('|', b);
      if (name.find(impl_filter.substr(b, e == std::string::npos ? std::string::npos : e - b)) != std::string::npos)
        return true;
      if (e == std::string::npos) return false;
      b = e + 1;
    }
  }
  std::vector<int> log2_sizes() const {
    std::vector<int> v;
    for (int k = min_log2; k <= max_log2; k += quick ? 6 : 2) v.push_back(k);
    if (v.empty() || v.back() != max_log2) v.push_back(max_log2);
    return v;
  }
};

/// Median time in milliseconds of `fn(rep)` over opt.reps repetitions after 3 warm-ups.
/// `fn` gets the repetition index so it can rotate among input buffers.
template <class F>
double median_ms(const options& opt, F&& fn, cudaStream_t stream = nullptr) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) fn(i);
  check(cudaStreamSynchronize(stream), "warm-up");
  std::vector<float> t;
  const int reps = opt.quick ? std::max(5, opt.reps / 3) : opt.reps;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(a, stream), "cudaEventRecord");
    fn(i);
    check(cudaEventRecord(b, stream), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  check(cudaGetLastError(), "kernel");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

/// How many copies of a buffer of `bytes` to rotate through so the set is at least 4x the L2.
inline int rotation_count(std::size_t bytes) {
  int dev = 0, l2 = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  const std::size_t want = 4 * static_cast<std::size_t>(l2);
  const std::size_t k = bytes == 0 ? 1 : (want + bytes - 1) / bytes;
  return static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(k, 1), 64));
}

struct row {
  std::string algorithm;  // "inclusive_scan", "reduce", ...
  std::string type;       // "i32", "f32", "8191x8193 f32", ...
  std::int64_t n;         // elements
  std::string impl;       // "cub", "thrust", "memcpy", "algo::cuda", "algo::cuda scan_then_fan/shfl", ...
  double ms;
  double bytes;           // bytes read + written (the fewest the algorithm must move)
  std::string baseline;   // impl this row's ratio is taken against ("cub" unless said otherwise)
};

class report {
 public:
  explicit report(const options& opt) : opt_(opt) {}
  void add(row r) {
    std::printf("  %-16s %-16s %12lld  %-34s %10.4f ms %9.1f GB/s\n", r.algorithm.c_str(), r.type.c_str(),
                static_cast<long long>(r.n), r.impl.c_str(), r.ms, r.bytes / (r.ms * 1e6));
    std::fflush(stdout);
    rows_.push_back(std::move(r));
  }
  /// Writes the CSV and prints the summary table (ratio = baseline time / this time: >1 is faster).
  void finish(const std::string& device, const std::string& commit) const {
    FILE* f = std::fopen(opt_.csv.c_str(), "w");
    if (f) {
      std::fprintf(f, "device,commit,algorithm,type,n,impl,ms,GBps,baseline,speedup_vs_baseline\n");
    }
    std::printf("\n%-16s %-16s %12s %-34s %10s %9s %8s\n", "algorithm", "type", "n", "impl", "ms", "GB/s",
                "x base");
    for (const auto& r : rows_) {
      const double base = baseline_ms(r);
      const double ratio = base > 0 ? base / r.ms : 0.0;
      std::printf("%-16s %-16s %12lld %-34s %10.4f %9.1f %8.3f\n", r.algorithm.c_str(), r.type.c_str(),
                  static_cast<long long>(r.n), r.impl.c_str(), r.ms, r.bytes / (r.ms * 1e6), ratio);
      if (f)
        std::fprintf(f, "\"%s\",%s,%s,%s,%lld,\"%s\",%.6f,%.2f,%s,%.4f\n", device.c_str(), commit.c_str(),
                     r.algorithm.c_str(), r.type.c_str(), static_cast<long long>(r.n), r.impl.c_str(), r.ms,
                     r.bytes / (r.ms * 1e6), r.baseline.c_str(), ratio);
    }
    if (f) std::fclose(f);
  }

 private:
  double baseline_ms(const row& r) const {
    for (const auto& b : rows_)
      if (b.algorithm == r.algorithm && b.type == r.type && b.n == r.n && b.impl == r.baseline) return b.ms;
    return 0;
  }
  const options& opt_;
  std::vector<row> rows_;
};

/// Fills n elements at d with pseudo-random values (never zeros: they hide unwritten outputs).
template <class T>
__global__ void fill_random_kernel(T* d, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    d[i] = static_cast<T>((x % 61u) + 1u);
  }
}
template <class T>
void fill_random(T* d, std::int64_t n, std::uint32_t seed = 1) {
  fill_random_kernel<<<1024, 256>>>(d, n, seed);
  check(cudaGetLastError(), "fill_random");
}

/// A device buffer and `copies` rotated copies of it.
template <class T>
struct rotating_buffers {
  std::vector<T*> ptrs;
  std::int64_t n = 0;
  rotating_buffers(std::int64_t n_, int copies, bool fill = true) : n(n_) {
    for (int i = 0; i < copies; ++i) {
      T* p = nullptr;
      check(cudaMalloc(&p, sizeof(T) * std::max<std::int64_t>(n, 1)), "cudaMalloc");
      if (fill) fill_random(p, n, 17u + i);
      ptrs.push_back(p);
    }
    check(cudaDeviceSynchronize(), "fill");
  }
  ~rotating_buffers() {
    for (auto p : ptrs) cudaFree(p);
  }
  T* operator[](int rep) const { return ptrs[rep % ptrs.size()]; }
};

}  // namespace bench
