// transform_inclusive_scan / transform_exclusive_scan, exclusive_scan without init and
// inner_product on the device policies, against thrust::transform_*_scan / exclusive_scan /
// inner_product with thrust::device on the same data (int64 results: exact), at sizes around the
// look-back's tiles; and in place through the transform (Thrust's TestTransformScan).
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include "device_checks.cuh"

namespace {

struct square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};
struct negate_int {
  __host__ __device__ int operator()(int x) const { return -x; }
};

template <class Policy>
void check_policy(const Policy& policy) {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(8191), std::int64_t(8193),
                         (std::int64_t(1) << 20) + 3, std::int64_t(3999971)}) {
    if (algo_test::small_run() && n > 70000) continue;
    INFO(algo_test::policy_name<Policy>() << ", n = " << n);
    const auto h = algo_test::random_vector<int>(static_cast<std::size_t>(n), 90 + n);
    thrust::device_vector<int> in(h.begin(), h.end());
    thrust::device_vector<long long> want(n), got(n);
    thrust::transform_inclusive_scan(thrust::device, in.begin(), in.end(), want.begin(), square{}, thrust::plus<long long>{});
    CHECK(algo::transform_inclusive_scan(policy, in.begin(), in.end(), got.begin(), algo::plus<>{}, square{}) == got.end());
    CHECK(got == want);
    thrust::transform_inclusive_scan(thrust::device, in.begin(), in.end(), want.begin(), square{}, 5LL, thrust::plus<long long>{});
    algo::transform_inclusive_scan(policy, in.begin(), in.end(), got.begin(), algo::plus<>{}, square{}, 5LL);
    CHECK(got == want);
    thrust::transform_exclusive_scan(thrust::device, in.begin(), in.end(), want.begin(), square{}, -9LL, thrust::plus<long long>{});
    algo::transform_exclusive_scan(policy, in.begin(), in.end(), got.begin(), -9LL, algo::plus<>{}, square{});
    CHECK(got == want);

    thrust::device_vector<int> iwant(n), igot(n);
    thrust::exclusive_scan(thrust::device, in.begin(), in.end(), iwant.begin());
    algo::exclusive_scan(policy, in.begin(), in.end(), igot.begin());
    CHECK(igot == iwant);

    // in place through the transform: TestTransformScan
    thrust::device_vector<int> a = in, b = in;
    thrust::transform_inclusive_scan(thrust::device, a.begin(), a.end(), a.begin(), negate_int{}, thrust::plus<int>{});
    algo::transform_inclusive_scan(policy, b.begin(), b.end(), b.begin(), algo::plus<>{}, negate_int{});
    CHECK(b == a);

    thrust::device_vector<float> x(h.begin(), h.end());
    CHECK(algo::inner_product(policy, x.begin(), x.end(), in.begin(), 2LL) ==
          thrust::inner_product(thrust::device, x.begin(), x.end(), in.begin(), 2LL));
  }
}

}  // namespace

TEST_CASE("transform scans, exclusive_scan without init, inner_product: algo::cuda vs thrust::device", "[cuda][scan]") {
  check_policy(algo::cuda);
}
TEST_CASE("transform scans, exclusive_scan without init, inner_product: algo::cub vs thrust::device", "[cub][scan]") {
  check_policy(algo::cub);
}
