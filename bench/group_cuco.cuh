// The cuCollections row of `bench --only group_reduce` (issue 27 item 5): cuco::static_map's
// insert_or_apply, the GPU hash aggregation users know, timed in the same run as Thrust's sort +
// reduce_by_key and algo::group_reduce. Built only when CMake is given ALGO_CUCO_DIR (cuco's
// `include` directory; cuCollections is header-only and not part of the CUDA toolkit):
//   cmake -DALGO_CUCO_DIR=/path/to/cuCollections/include ...
// What the row does per call: clear the map, insert_or_apply every (key, value) with a relaxed
// atomic add (init = the empty value, cuco's fast path), retrieve_all (which synchronizes). The map
// is built once outside the timed region with capacity 2m (load factor 0.5): sized from the true
// number of distinct keys, which group_reduce is not told. Groups come out in the map's slot order
// (no first-appearance order, which group_reduce keeps), and float sums in atomic order.
#pragma once

#include <thrust/version.h>
#include <thrust/functional.h>

#include <cstdio>
#include <cstdint>
#include <string>
#include <utility>

// cuco releases before CCCL 3 name thrust::identity, which CCCL 3 removed: a stand-in of the same
// shape, only when Thrust lacks it.
#if THRUST_VERSION >= 300000 && !defined(ALGO_BENCH_CUCO_HAS_THRUST_IDENTITY)
namespace thrust {
template <class T = void>
struct identity {
  __host__ __device__ constexpr const T& operator()(const T& x) const { return x; }
};
template <>
struct identity<void> {
  template <class U>
  __host__ __device__ constexpr U&& operator()(U&& x) const noexcept {
    return std::forward<U>(x);
  }
};
}  // namespace thrust
#endif

#include <cuco/static_map.cuh>
#include <cuco/utility/reduction_functors.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

// float payloads compared bitwise against the empty sentinel (0.0f; the bench's values are never -0)
namespace cuco {
template <>
struct is_bitwise_comparable<float> : cuda::std::true_type {};
}  // namespace cuco

namespace bench::group_bench {

template <class V>
struct cuco_pair_at {
  const int* keys;
  const V* values;
  __device__ cuco::pair<int, V> operator()(std::int64_t i) const { return {keys[i], values[i]}; }
};

/// Times the cuco row into `add(impl, ms)`. `absent` is a key no record holds (the empty-key sentinel).
template <class V, class Add>
void cuco_row(const options& opt, const int* keys, const V* values, std::int64_t n, long long m, int absent,
              int* k_out, V* v_out, std::int64_t want_groups, Add&& add) {
  const std::string impl = "cuco::static_map insert_or_apply";
  if (!opt.wants_impl(impl)) return;
  using map_t = cuco::static_map<int, V>;
  map_t map{cuco::extent<std::size_t>{static_cast<std::size_t>(2 * m)}, cuco::empty_key<int>{absent},
            cuco::empty_value<V>{V{0}}};
  auto pairs = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), cuco_pair_at<V>{keys, values});
  auto run = [&] {
    map.clear_async();
    map.insert_or_apply_async(pairs, pairs + n, V{0}, cuco::reduce::plus{});
    return map.retrieve_all(k_out, v_out).first - k_out;  // synchronizes
  };
  const std::int64_t got = run();
  if (got != want_groups)
    std::printf("  !! %s: %lld groups, group_reduce found %lld\n", impl.c_str(), static_cast<long long>(got),
                static_cast<long long>(want_groups));
  add(impl, median_ms(opt, [&](int) { run(); }));
}

}  // namespace bench::group_bench
