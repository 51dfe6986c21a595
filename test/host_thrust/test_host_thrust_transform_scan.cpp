// transform_inclusive_scan / transform_exclusive_scan (C++17 argument order), exclusive_scan without
// init and inner_product on the host policies, against Thrust's own calls with thrust::host (Thrust
// takes unary_op before binary_op / init) and a sequential reference; every size past several of
// par's tiles; bad input named after the algorithm.
#include "../host/host_checks.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>

#include <string>

using namespace host_test;

namespace {

struct square {
  long long operator()(int x) const { return static_cast<long long>(x) * x; }
};
struct negate_aff {  // a non-commutative transform target: x -> affine map (x, 1)
  algo_test::affine_i operator()(int x) const { return algo_test::affine_i{2 * x + 1, x}; }
};

template <class Policy>
void check_policy(const Policy& policy) {
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(3 * 32768 + 5), (std::size_t(1) << 20) + 3}) {
    const std::vector<int> in = algo_test::random_vector<int>(n, 40 + n);
    INFO("n = " << n);
    {
      std::vector<long long> want(n), got(n, -1);
      thrust::transform_inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), square{}, thrust::plus<long long>{});
      CHECK(algo::transform_inclusive_scan(policy, in.begin(), in.end(), got.begin(), algo::plus<>{}, square{}) == got.end());
      CHECK(got == want);
      thrust::transform_inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), square{}, 7LL, thrust::plus<long long>{});
      algo::transform_inclusive_scan(policy, in.begin(), in.end(), got.begin(), algo::plus<>{}, square{}, 7LL);
      CHECK(got == want);
      thrust::transform_exclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), square{}, -3LL, thrust::plus<long long>{});
      algo::transform_exclusive_scan(policy, in.begin(), in.end(), got.begin(), -3LL, algo::plus<>{}, square{});
      CHECK(got == want);
    }
    {  // non-commutative: against a sequential fold
      std::vector<algo_test::affine_i> want(n), got(n);
      algo_test::affine_i acc{1, 0};
      for (std::size_t i = 0; i < n; ++i) want[i] = acc = algo_test::compose_affine_i{}(acc, negate_aff{}(in[i]));
      algo::transform_inclusive_scan(policy, in.begin(), in.end(), got.begin(), algo_test::compose_affine_i{}, negate_aff{},
                                     algo_test::affine_i{1, 0});
      CHECK(got == want);
    }
    {
      std::vector<int> want(n), got(n, -1);
      thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want.begin());
      CHECK(algo::exclusive_scan(policy, in.begin(), in.end(), got.begin()) == got.end());
      CHECK(got == want);
    }
    {
      const std::vector<float> a = algo_test::random_vector<float>(n, 7 + n), b = algo_test::random_vector<float>(n, 9 + n);
      // int init: every product and sum in int, as Thrust does
      CHECK(algo::inner_product(policy, a.begin(), a.end(), b.begin(), 3) ==
            thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), 3));
      const std::vector<long long> x(in.begin(), in.end());
      CHECK(algo::inner_product(policy, x.begin(), x.end(), x.begin(), 1LL, algo::plus<>{}, algo::multiplies<>{}) ==
            thrust::inner_product(thrust::host, x.begin(), x.end(), x.begin(), 1LL, thrust::plus<long long>{},
                                  thrust::multiplies<long long>{}));
    }
  }
}

}  // namespace

TEST_CASE("transform scans, exclusive_scan without init, inner_product: algo::seq vs thrust::host", "[host][thrust]") {
  check_policy(algo::seq);
}
TEST_CASE("transform scans, exclusive_scan without init, inner_product: algo::par vs thrust::host", "[host][thrust]") {
  check_policy(algo::par);
  check_policy(algo::par.with_threads(4));
}
TEST_CASE("transform scans and inner_product: bad input named after the algorithm", "[host][errors]") {
  std::vector<int> v(10), o(10);
  auto msg = [](auto f) {
    try {
      f();
    } catch (const algo::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(msg([&] { algo::transform_inclusive_scan(algo::seq, v.end(), v.begin(), o.begin(), algo::plus<>{}, square{}); })
            .rfind("algo::transform_inclusive_scan: ", 0) == 0);
  CHECK(msg([&] { algo::transform_exclusive_scan(algo::par, v.end(), v.begin(), o.begin(), 0, algo::plus<>{}, square{}); })
            .rfind("algo::transform_exclusive_scan: ", 0) == 0);
  CHECK(msg([&] { (void)algo::inner_product(algo::seq, v.end(), v.begin(), o.begin(), 0); }).rfind("algo::inner_product: ", 0) == 0);
}
