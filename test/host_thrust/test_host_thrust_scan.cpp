// algo::seq and algo::par scans against thrust::inclusive_scan / thrust::exclusive_scan with
// thrust::host (built by the C++ compiler with the toolkit's CCCL headers: no CUDA needed), over
// std::vector iterators and Thrust's fancy iterators.
#include "../host/host_checks.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

using namespace host_test;

namespace {

/// Every scan form of `policy` on `in` against thrust::host with the same arguments.
template <class T, class Acc, class Op, class Policy>
void check_against_thrust(const Policy& policy, const std::vector<T>& in, Acc init, Op op) {
  const auto n = static_cast<std::int64_t>(in.size());
  std::vector<double> scale = scan_scale(in, 0.0);
  double init_abs = 0;
  if constexpr (std::is_arithmetic<Acc>::value) init_abs = init < 0 ? -double(init) : double(init);
  std::vector<double> scale_init = scan_scale(in, init_abs);
  for (auto* s : {&scale, &scale_init})
    for (double& x : *s) x *= 2;  // both results carry round-off

  if constexpr (std::is_same<Acc, T>::value) {
    std::vector<T> want(in.size()), got(in.size());
    thrust::inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), op);
    algo::inclusive_scan(policy, in.begin(), in.end(), got.begin(), op);
    require_equal(got, want, &scale, "inclusive_scan(first, last, out, op) vs thrust");
  }
  {
    std::vector<Acc> want(in.size()), got(in.size());
    thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init, op);
    algo::exclusive_scan(policy, in.begin(), in.end(), got.begin(), init, op);
    require_equal(got, want, &scale_init, "exclusive_scan(first, last, out, init, op) vs thrust");
  }
  if constexpr (std::is_arithmetic<T>::value) {
    std::vector<T> want(in.size()), got(in.size());
    thrust::inclusive_scan(thrust::host, in.begin(), in.end(), want.begin());
    algo::inclusive_scan(policy, in.begin(), in.end(), got.begin());
    require_equal(got, want, &scale, "inclusive_scan(first, last, out) vs thrust");

    std::vector<Acc> want_e(in.size()), got_e(in.size());
    thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want_e.begin(), init);
    algo::exclusive_scan(policy, in.begin(), in.end(), got_e.begin(), init);
    require_equal(got_e, want_e, &scale_init, "exclusive_scan(first, last, out, init) vs thrust");
  }
  (void)n;
}

template <class T>
void check_type(std::uint64_t seed) {
  using Acc = typename spec<T>::acc;
  for (std::int64_t n : host_sizes(seed)) {
    INFO("type " << type_name_v<T> << ", n = " << n);
    const auto in = random_vector<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n));
    const Acc init = random_scalar<Acc>(seed);
    for_each_policy_few([&](const auto& policy) { check_against_thrust<T>(policy, in, init, typename spec<T>::op{}); });
  }
}

}  // namespace

TEST_CASE("host scans of int32 match thrust::host", "[thrust][scan]") { check_type<std::int32_t>(71); }
TEST_CASE("host scans of uint8 into int64 match thrust::host", "[thrust][scan]") { check_type<std::uint8_t>(72); }
TEST_CASE("host scans of float match thrust::host", "[thrust][scan]") { check_type<float>(73); }
TEST_CASE("host scans of double match thrust::host", "[thrust][scan]") { check_type<double>(74); }
TEST_CASE("host scans of 2x2 matrices match thrust::host", "[thrust][scan][noncommutative]") { check_type<mat2i>(75); }
TEST_CASE("host scans of affine maps match thrust::host", "[thrust][scan][noncommutative]") { check_type<affine_i>(76); }

TEST_CASE("host scans of thrust fancy iterators (counting, transform) match thrust::host", "[thrust][scan][fancy]") {
  const auto to_map = [](std::int64_t i) {
    return affine_i{static_cast<std::int32_t>(2 * i + 1), static_cast<std::int32_t>(i * 7 + 3)};
  };
  for (std::int64_t n : {std::int64_t(1000), 7 * algo::detail::host::scan_block_elements + 5, std::int64_t(3000017)}) {
    INFO("n = " << n);
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_map);
    auto last = first + n;
    std::vector<affine_i> want(static_cast<std::size_t>(n));
    thrust::inclusive_scan(thrust::host, first, last, want.begin(), compose_affine_i{});
    std::vector<std::int64_t> want_sum(static_cast<std::size_t>(n));
    thrust::exclusive_scan(thrust::host, thrust::counting_iterator<std::int64_t>(1), thrust::counting_iterator<std::int64_t>(n + 1),
                           want_sum.begin(), std::int64_t(-5));
    for_each_policy_few([&](const auto& policy) {
      std::vector<affine_i> got(static_cast<std::size_t>(n));
      algo::inclusive_scan(policy, first, last, got.begin(), compose_affine_i{});
      require_equal(got, want, nullptr, "inclusive_scan over transform_iterator(counting_iterator)");
      std::vector<std::int64_t> got_sum(static_cast<std::size_t>(n));
      algo::exclusive_scan(policy, thrust::counting_iterator<std::int64_t>(1), thrust::counting_iterator<std::int64_t>(n + 1),
                           got_sum.begin(), std::int64_t(-5));
      require_equal(got_sum, want_sum, nullptr, "exclusive_scan over counting_iterator");
    });
  }
}
