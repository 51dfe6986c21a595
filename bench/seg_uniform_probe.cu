// seg_uniform_probe: segmented_reduce over algo::uniform_offsets(L) against cuBLAS gemv row sums
// (issue 27 item 3: "at or ahead of gemv at every L"), L over the group-of-lanes kernel's range
// (reduce_groups.cuh, L < 2048) and the first block-per-segment lengths. A development tool, like
// seg_reduce_probe: claims come from `bench --only segmented`. 2^26 f32 (segments = 2^26 / L, the
// matrix's rows), every segment checked against a host sum in double.
//
// rows, each timed two ways (three rounds, median of medians):
//   event  events around each call, the GPU idle before it (the bench's number: bench::median_ms)
//   gpu    the call queued behind a 50 us spin kernel: the GPU's side alone
// Two builds of this file against two trees of the headers, run in turn, compare kernels.
//   seg_uniform_probe [--L 4,32,256,1024] [--reps 50]
#include <cuda_runtime_api.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <algo/algo.hpp>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void spin_kernel(long long ns) {
  const long long t0 = clock64();
  while (clock64() - t0 < ns * 2) {
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct row {
  std::string name;
  std::function<void()> call;
  std::vector<double> event, gpu;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<long long> Ls{4, 8, 16, 32, 64, 128, 256, 512, 1024, 1536, 4096};
  int reps = 50;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--L") && i + 1 < argc) {
      Ls.clear();
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ",")) Ls.push_back(std::atoll(t));
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    }
  }
  const long long n = 1ll << 26;
  std::vector<float> h(static_cast<std::size_t>(n));
  unsigned s = 12345;
  for (auto& x : h) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  float *v, *out, *ones;
  check(cudaMalloc(&v, n * 4), "cudaMalloc");
  check(cudaMalloc(&out, n * 4), "cudaMalloc");
  check(cudaMalloc(&ones, (1 << 20) * 4), "cudaMalloc");
  check(cudaMemcpy(v, h.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  {
    const std::vector<float> o(1 << 20, 1.0f);
    check(cudaMemcpy(ones, o.data(), o.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  cublasHandle_t blas = nullptr;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "probe: cublasCreate failed\n");
    return 1;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  const auto ms = [&] {
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    return static_cast<double>(t);
  };
  std::printf("%s, 2^26 f32 (segments = 2^26 / L); ms, median of 3 rounds of %d\n", prop.name, reps);
  std::printf("%6s %-34s %9s %9s %9s\n", "L", "row", "event", "gpu", "gemv/ev");
  for (const long long L : Ls) {
    const long long segments = n / L;
    const float one = 1.0f, zero = 0.0f;
    std::vector<row> rows;
    rows.push_back({"cublas gemv (row sums)", [&] {
                      cublasSgemv(blas, CUBLAS_OP_T, static_cast<int>(L), static_cast<int>(segments), &one, v,
                                  static_cast<int>(L), ones, 1, &zero, out, 1);
                    }});
    rows.push_back({"algo uniform_offsets", [&] {
                      const auto u = algo::uniform_offsets(L);
                      algo::segmented_reduce(algo::cuda, v, u, u + segments + 1, out, 0.0f);
                    }});
    // every segment against the host's sum in double
    std::vector<double> want(static_cast<std::size_t>(segments)), mag(static_cast<std::size_t>(segments));
    for (long long i = 0; i < segments * L; ++i) {
      want[static_cast<std::size_t>(i / L)] += h[static_cast<std::size_t>(i)];
      mag[static_cast<std::size_t>(i / L)] += std::fabs(h[static_cast<std::size_t>(i)]);
    }
    std::vector<float> got(static_cast<std::size_t>(segments));
    for (auto& r : rows) {
      check(cudaMemset(out, 0xff, segments * 4), "cudaMemset");  // NaN: a segment left unwritten shows
      r.call();
      check(cudaDeviceSynchronize(), r.name.c_str());
      check(cudaMemcpy(got.data(), out, segments * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      long long bad = 0;
      for (long long k = 0; k < segments; ++k) {
        const double err = std::fabs(got[static_cast<std::size_t>(k)] - want[static_cast<std::size_t>(k)]) /
                           (1 + mag[static_cast<std::size_t>(k)]);
        if (!(err < 1e-5)) ++bad;
      }
      if (bad) std::printf("%6lld %-34s %lld segments off [WRONG]\n", L, r.name.c_str(), bad);
      // the output's bits (FNV-1a), to compare two builds' kernels bit for bit
      unsigned long long fnv = 1469598103934665603ull;
      for (const float x : got) {
        unsigned u = 0;
        std::memcpy(&u, &x, 4);
        fnv = (fnv ^ u) * 1099511628211ull;
      }
      std::printf("%6lld %-34s bits %016llx\n", L, r.name.c_str(), fnv);
    }
    for (int round = 0; round < 3; ++round) {
      for (auto& r : rows) {
        for (int w = 0; w < 3; ++w) r.call();
        check(cudaDeviceSynchronize(), "warm-up");
        std::vector<double> ev, gp;
        for (int i = 0; i < reps; ++i) {
          check(cudaEventRecord(a), "rec");
          r.call();
          check(cudaEventRecord(b), "rec");
          check(cudaEventSynchronize(b), "sync");
          ev.push_back(ms());
        }
        for (int i = 0; i < reps; ++i) {
          spin_kernel<<<1, 1>>>(50000);
          check(cudaEventRecord(a), "rec");
          r.call();
          check(cudaEventRecord(b), "rec");
          check(cudaEventSynchronize(b), "sync");
          gp.push_back(ms());
        }
        r.event.push_back(median(ev));
        r.gpu.push_back(median(gp));
      }
    }
    const double gemv_ev = median(rows[0].event);
    for (auto& r : rows)
      std::printf("%6lld %-34s %9.4f %9.4f %9.3f\n", L, r.name.c_str(), median(r.event), median(r.gpu),
                  gemv_ev / median(r.event));
  }
  cublasDestroy(blas);
  return 0;
}
