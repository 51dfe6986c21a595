// algo::seq and algo::par reduce / transform_reduce against thrust::reduce, thrust::transform_reduce
// and thrust::inner_product with thrust::host (built by the C++ compiler with the toolkit's CCCL
// headers: no CUDA needed). Thrust's host backend folds sequentially, so it is a valid reference
// for non-commutative operators here too (not so thrust::device: see the issue).
#include "../host/host_checks.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>

#include <cmath>

using namespace host_test;

namespace {

template <class T>
double abs_total(const std::vector<T>& v) {
  double s = 1;
  if constexpr (std::is_arithmetic<T>::value)
    for (const T& x : v) s += std::fabs(static_cast<double>(x));
  return 2 * s;  // both results carry round-off
}

template <class T, class Policy>
void check_against_thrust(const Policy& policy, const std::vector<T>& a, const std::vector<T>& b, std::uint64_t seed) {
  using Acc = typename spec<T>::acc;
  using Op = typename spec<T>::op;
  const Op op{};
  const Acc init = random_scalar<Acc>(seed);
  const auto n = static_cast<std::int64_t>(a.size());
  const double scale = abs_total(a);

  require_value(algo::reduce(policy, a.begin(), a.end(), init, op), thrust::reduce(thrust::host, a.begin(), a.end(), init, op),
                scale, n, "reduce(first, last, init, op) vs thrust::reduce");
  if constexpr (std::is_arithmetic<T>::value) {
    using W = std::decay_t<decltype(tweak{}(a[0]))>;  // int32 / uint8 -> int64
    const W winit = static_cast<W>(init);
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), winit, algo::plus<>{}, tweak{}),
                  thrust::transform_reduce(thrust::host, a.begin(), a.end(), tweak{}, winit, thrust::plus<W>{}), 4 * scale + 1,
                  n, "transform_reduce(first, last, init, plus, tweak) vs thrust::transform_reduce");
    require_value(algo::reduce(policy, a.begin(), a.end()), thrust::reduce(thrust::host, a.begin(), a.end()), scale, n,
                  "reduce(first, last) vs thrust::reduce");
    require_value(algo::reduce(policy, a.begin(), a.end(), init), thrust::reduce(thrust::host, a.begin(), a.end(), init), scale, n,
                  "reduce(first, last, init) vs thrust::reduce");
    double s = 1;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::fabs(double(a[i]) * double(b[i]));
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), init),
                  thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), init), 2 * s, n,
                  "transform_reduce(first1, last1, first2, init) vs thrust::inner_product");
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), init, algo::maximum<>{}, algo::minimum<>{}),
                  thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), init, thrust::maximum<>{}, thrust::minimum<>{}),
                  1.0, n, "transform_reduce(first1, last1, first2, init, max, min) vs thrust::inner_product");
  } else {
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), init, op, tweak{}),
                  thrust::transform_reduce(thrust::host, a.begin(), a.end(), tweak{}, init, op), 1.0, n,
                  "transform_reduce(first, last, init, op, tweak) vs thrust::transform_reduce");
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), init, op, op),
                  thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), init, op, op), 1.0, n,
                  "transform_reduce(first1, last1, first2, init, op, op) vs thrust::inner_product");
  }
}

template <class T>
void check_type(std::uint64_t seed) {
  for (std::int64_t n : host_sizes(seed)) {
    INFO("type " << type_name_v<T> << ", n = " << n);
    const auto a = random_vector<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n));
    const auto b = random_vector<T>(static_cast<std::size_t>(n), ~seed + static_cast<std::uint64_t>(n));
    for_each_policy_few([&](const auto& policy) { check_against_thrust<T>(policy, a, b, seed); });
  }
}

}  // namespace

TEST_CASE("host reduces of int32 match thrust::host", "[thrust][reduce]") { check_type<std::int32_t>(81); }
TEST_CASE("host reduces of uint8 into int64 match thrust::host", "[thrust][reduce]") { check_type<std::uint8_t>(82); }
TEST_CASE("host reduces of float match thrust::host", "[thrust][reduce]") { check_type<float>(83); }
TEST_CASE("host reduces of double match thrust::host", "[thrust][reduce]") { check_type<double>(84); }
TEST_CASE("host reduces of 2x2 matrices match thrust::host", "[thrust][reduce][noncommutative]") { check_type<mat2i>(85); }
TEST_CASE("host reduces of affine maps match thrust::host", "[thrust][reduce][noncommutative]") { check_type<affine_i>(86); }

TEST_CASE("host reduces of thrust fancy iterators match thrust::host", "[thrust][reduce][fancy]") {
  const auto sq = [](std::int64_t i) { return (i % 1000) * (i % 1000) + 1; };
  for (std::int64_t n : {std::int64_t(1000), 7 * algo::detail::host::scan_block_elements + 5, std::int64_t(3000017)}) {
    INFO("n = " << n);
    const thrust::counting_iterator<std::int64_t> first(0), last(n);
    const auto want = thrust::transform_reduce(thrust::host, first, last, sq, std::int64_t(3), thrust::plus<std::int64_t>{});
    const auto want_dot = thrust::inner_product(thrust::host, first, last, thrust::make_transform_iterator(first, sq), std::int64_t(0));
    for_each_policy_few([&](const auto& policy) {
      CHECK(algo::transform_reduce(policy, first, last, std::int64_t(3), algo::plus<>{}, sq) == want);
      CHECK(algo::reduce(policy, thrust::make_transform_iterator(first, sq), thrust::make_transform_iterator(last, sq),
                         std::int64_t(3)) == want);
      CHECK(algo::transform_reduce(policy, first, last, thrust::make_transform_iterator(first, sq), std::int64_t(0)) == want_dot);
    });
  }
}
