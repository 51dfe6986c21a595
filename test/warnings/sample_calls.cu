// Built with nvcc's default warnings as errors (`--Werror all-warnings`, no suppressions, no
// --expt-relaxed-constexpr): a sample of documented calls, as a user's .cu file makes them, must
// compile without a single warning. Host policies over std::vector with host-only lambdas, device
// policies over thrust::device_vector with __host__ __device__ functors, the Thrust-style calls.
// Compiled only (an object library in test/CMakeLists.txt): nothing here runs.
#include <algo/algo.hpp>

#include <thrust/device_vector.h>

#include <functional>
#include <vector>

namespace {
struct square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};
struct is_odd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
struct mutable_count {  // operator() not const, as Thrust's example functors
  int calls = 0;
  __host__ __device__ int operator()(int a, int b) {
    ++calls;
    return a + b;
  }
};
}  // namespace

double host_calls(std::vector<int>& v, std::vector<int>& o, std::vector<float>& m, std::vector<float>& t) {
  double r = 0;
  algo::inclusive_scan(algo::seq, v.begin(), v.end(), o.begin());
  algo::inclusive_scan(algo::par, v.begin(), v.end(), o.begin(), std::plus<int>{}, 3);
  algo::exclusive_scan(algo::par, v.begin(), v.end(), o.begin(), 0);
  algo::exclusive_scan(algo::seq, v.begin(), v.end(), o.begin());
  algo::transform_inclusive_scan(algo::par, v.begin(), v.end(), o.begin(), std::plus<>{}, [](int x) { return 2 * x; });
  r += algo::reduce(algo::par, v.begin(), v.end());
  r += algo::reduce(algo::seq, v.begin(), v.end(), 0L, mutable_count{});
  r += algo::transform_reduce(algo::par, v.begin(), v.end(), 0.0, std::plus<>{}, [](int x) { return x * 0.5; });
  r += algo::transform_reduce(algo::seq, v.begin(), v.end(), o.begin(), 0);
  r += algo::inner_product(algo::par, m.begin(), m.end(), m.begin(), 0.0f);
  algo::transpose(algo::par, m.data(), 4, static_cast<std::int64_t>(m.size() / 4), t.data());
  r += static_cast<double>(algo::group_reduce(algo::par, v.begin(), v.end(), m.begin(), o.begin(), t.begin()));
  return r;
}

double device_calls(thrust::device_vector<int>& v, thrust::device_vector<long long>& o, thrust::device_vector<int>& r) {
  double s = 0;
  algo::inclusive_scan(algo::cuda, v.begin(), v.end(), r.begin());
  algo::exclusive_scan(algo::cub, v.begin(), v.end(), r.begin(), 1);
  algo::transform_inclusive_scan(algo::cuda, v.begin(), v.end(), o.begin(), algo::plus<>{}, square{});
  // keyed forms (reduce_by_key's float values: the ordered look-back with its kept keys and staged
  // runs; int values: the classic one)
  thrust::device_vector<float> f(v.size()), fo(v.size());
  algo::inclusive_scan(algo::cuda, f.begin(), f.end(), fo.begin());  // the deterministic look-back
  algo::inclusive_scan_by_key(algo::cuda, v.begin(), v.end(), f.begin(), fo.begin());
  algo::exclusive_scan_by_key(algo::cuda, v.begin(), v.end(), v.begin(), r.begin());
  s += static_cast<double>(algo::reduce_by_key(algo::cuda, v.begin(), v.end(), f.begin(), r.begin(), fo.begin()).second -
                           fo.begin());
  s += static_cast<double>(algo::reduce_by_key(algo::cuda, v.begin(), v.end(), v.begin(), r.begin(), o.begin()).second -
                           o.begin());
  // segmented forms over offsets in memory and uniform_offsets, float and int
  thrust::device_vector<long long> off(3, 0);
  algo::segmented_inclusive_scan(algo::cuda, f.begin(), off.begin(), off.end(), fo.begin());
  algo::segmented_exclusive_scan(algo::cuda, v.begin(), off.begin(), off.end(), r.begin(), 0);
  algo::segmented_reduce(algo::cuda, f.begin(), off.begin(), off.end(), fo.begin(), 0.0f);
  algo::segmented_reduce(algo::cuda, v.begin(), off.begin(), off.end(), r.begin(), 0);
  const auto u = algo::uniform_offsets(4);
  algo::segmented_reduce(algo::cuda, f.begin(), u, u + 2, fo.begin(), 0.0f);
  algo::segmented_reduce(algo::cuda, f.begin(), algo::uniform_offsets(4096), algo::uniform_offsets(4096) + 2, fo.begin(), 0.0f);
  algo::segmented_inclusive_scan(algo::cuda, f.begin(), u, u + 2, fo.begin());
  // selection, group-by over float values, a transpose
  s += static_cast<double>(algo::copy_if(algo::cuda, v.begin(), v.end(), r.begin(), is_odd{}) - r.begin());
  s += static_cast<double>(algo::unique_copy(algo::cuda, v.begin(), v.end(), r.begin()) - r.begin());
  s += static_cast<double>(algo::count_if(algo::cuda, v.begin(), v.end(), is_odd{}));
  s += static_cast<double>(algo::run_length_encode(algo::cuda, v.begin(), v.end(), r.begin(), o.begin()));
  s += static_cast<double>(algo::group_reduce(algo::cuda, v.begin(), v.end(), f.begin(), r.begin(), fo.begin()));
  algo::transpose(algo::cuda, thrust::raw_pointer_cast(f.data()), 2, static_cast<std::int64_t>(f.size() / 2),
                  thrust::raw_pointer_cast(fo.data()));
  s += static_cast<double>(algo::reduce(algo::cuda, f.begin(), f.end(), 0.0f));
  algo::reduce_into(algo::cuda, v.begin(), v.end(), r.begin(), 0, mutable_count{});
  s += algo::reduce(algo::cuda, v.begin(), v.end(), 0LL);
  s += algo::reduce(algo::cub, v.begin(), v.end(), 0, thrust::maximum<int>{});
  s += algo::transform_reduce(algo::cuda, v.begin(), v.end(), 0LL, algo::plus<>{}, square{});
  s += algo::inner_product(algo::cub, v.begin(), v.end(), v.begin(), 0LL);
  s += static_cast<double>(algo::group_reduce(algo::cuda, v.begin(), v.end(), v.begin(), r.begin(), o.begin()));
  return s;
}
