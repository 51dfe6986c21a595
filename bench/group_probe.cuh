// What the group_reduce probes (group_cluster_probe.cu, group_onepass_probe.cu) share: the error
// check, the records' mixer, event timing (median of `reps` after a warm-up), and the reference
// groups from Thrust (sort the (key, value, index) records by key, then per run the sum of the
// values and the smallest index), sorted by key. Development tools: no claim comes from them.
#pragma once

#include <cuda_runtime.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace group_probe {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The median of `reps` timings of f() by CUDA events, after one warm-up call (ms).
template <class F>
double time_ms(F&& f, int reps) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  f();  // warm
  check(cudaDeviceSynchronize(), "warm");
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a), "record");
    f();
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

/// The baseline users run today, timed as time_ms does: Thrust sort_by_key + reduce_by_key of
/// copies of the records (the copies counted, as the bench's group_reduce rows count them).
inline double time_thrust_sort_reduce(const thrust::device_vector<std::uint32_t>& keys,
                                      const thrust::device_vector<float>& vals, int reps) {
  const std::size_t n = keys.size();
  thrust::device_vector<std::uint32_t> rk(n), rout_k(n);
  thrust::device_vector<float> rv(n), rout_v(n);
  return time_ms(
      [&] {
        thrust::copy(keys.begin(), keys.end(), rk.begin());
        thrust::copy(vals.begin(), vals.end(), rv.begin());
        thrust::sort_by_key(thrust::device, rk.begin(), rk.end(), rv.begin());
        thrust::reduce_by_key(thrust::device, rk.begin(), rk.end(), rv.begin(), rout_k.begin(), rout_v.begin());
      },
      reps);
}

/// The groups of records (keys[i], vals[i], idx[i]), sorted by key: each key, the sum of its values
/// and its smallest index.
struct reference {
  std::vector<std::uint32_t> k, first;
  std::vector<float> v;
};

/// Sum and smaller index of two (value, index) pairs.
struct sum_and_first {
  __host__ __device__ thrust::tuple<float, std::uint32_t> operator()(const thrust::tuple<float, std::uint32_t>& a,
                                                                     const thrust::tuple<float, std::uint32_t>& b) const {
    return thrust::make_tuple(thrust::get<0>(a) + thrust::get<0>(b),
                              thrust::get<1>(a) < thrust::get<1>(b) ? thrust::get<1>(a) : thrust::get<1>(b));
  }
};

inline reference thrust_reference(const thrust::device_vector<std::uint32_t>& keys,
                                  const thrust::device_vector<float>& vals,
                                  const thrust::device_vector<std::uint32_t>& idx) {
  const std::size_t n = keys.size();
  thrust::device_vector<std::uint32_t> sk = keys, si = idx, out_k(n), out_i(n);
  thrust::device_vector<float> sv = vals, out_v(n);
  thrust::sort_by_key(thrust::device, sk.begin(), sk.end(),
                      thrust::make_zip_iterator(thrust::make_tuple(sv.begin(), si.begin())));
  const auto end = thrust::reduce_by_key(
      thrust::device, sk.begin(), sk.end(), thrust::make_zip_iterator(thrust::make_tuple(sv.begin(), si.begin())),
      out_k.begin(), thrust::make_zip_iterator(thrust::make_tuple(out_v.begin(), out_i.begin())),
      thrust::equal_to<std::uint32_t>(), sum_and_first{});
  const auto groups = static_cast<std::size_t>(end.first - out_k.begin());
  reference r;
  r.k.resize(groups);
  r.first.resize(groups);
  r.v.resize(groups);
  thrust::copy(out_k.begin(), out_k.begin() + groups, r.k.begin());
  thrust::copy(out_v.begin(), out_v.begin() + groups, r.v.begin());
  thrust::copy(out_i.begin(), out_i.begin() + groups, r.first.begin());
  return r;
}

}  // namespace group_probe
