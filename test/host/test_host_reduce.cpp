// reduce (3 forms) and transform_reduce (unary and binary forms) of algo::seq and algo::par,
// against a sequential left fold: arithmetic types (int32, uint8 in with an int64 accumulator,
// float, double), a user struct with operator+, non-commutative user types (2x2 matrices, affine
// maps) and (a, b) -> b; std::list and a counting iterator as inputs.
#include "host_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <list>
#include <numeric>

using namespace host_test;

namespace {

/// |init| + sum of |f(x)| in double: the scale float results are compared at (1 for user types).
template <class T, class F, class I>
double abs_sum(const std::vector<T>& a, F f, I init) {
  if constexpr (std::is_arithmetic<decltype(f(a[0]))>::value) {
    double s = std::fabs(static_cast<double>(init));
    for (const T& x : a) s += std::fabs(static_cast<double>(f(x)));
    return s;
  } else {
    return 1.0;
  }
}

struct identity {
  template <class T>
  T operator()(const T& x) const { return x; }
};

/// The forms every type supports: reduce(first, last, init, op), transform_reduce(first, last,
/// init, op, tweak) and transform_reduce(first1, last1, first2, init, op, op) (pairwise op, then fold).
template <class T, class Policy>
void check_op_forms(const Policy& policy, const std::vector<T>& a, const std::vector<T>& b) {
  using Acc = typename spec<T>::acc;
  using Op = typename spec<T>::op;
  using R = ref_t<Acc>;
  const Op op{};
  const auto n = static_cast<std::int64_t>(a.size());
  const Acc init = random_scalar<Acc>(0x1217);
  constexpr bool arith = std::is_arithmetic<Acc>::value;

  const Acc want_op = static_cast<Acc>(ref_fold<R>(a, static_cast<R>(init), op));
  const double scale_op = abs_sum(a, identity{}, init);
  require_value(algo::reduce(policy, a.begin(), a.end(), init, op), want_op, scale_op, n, "reduce(first, last, init, op)");
  require_value(algo::reduce(policy, a.data(), a.data() + n, init, op), want_op, scale_op, n,
                "reduce(first, last, init, op) [pointers]");

  if constexpr (!arith) {  // user types: the transform keeps the type
    const Acc want_tr = ref_fold<Acc>(a.begin(), a.end(), init, [&](const Acc& acc, const T& x) { return op(acc, tweak{}(x)); });
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), init, op, tweak{}), want_tr, 1.0, n,
                  "transform_reduce(first, last, init, op, tweak)");
    Acc want_tr2 = init;
    for (std::size_t i = 0; i < a.size(); ++i) want_tr2 = op(want_tr2, op(a[i], b[i]));
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), init, op, op), want_tr2, 1.0, n,
                  "transform_reduce(first1, last1, first2, init, op, op)");
  }
}

/// The forms that use plus (and *): reduce(first, last), reduce(first, last, init), the inner
/// product transform_reduce(first1, last1, first2, init), and transform_reduce with plus and a
/// widening transform; for arithmetic types also maximum and a two-input transform.
template <class T, class Policy>
void check_plus_forms(const Policy& policy, const std::vector<T>& a, const std::vector<T>& b) {
  using Acc = typename spec<T>::acc;
  using R = ref_t<Acc>;
  const auto n = static_cast<std::int64_t>(a.size());
  constexpr bool arith = std::is_arithmetic<T>::value;

  // reduce(first, last): T{} + x0 + x1 ..., in T
  const T want_plain = static_cast<T>(ref_fold<ref_t<T>>(a, ref_t<T>{}, algo::plus<>{}));
  require_value(algo::reduce(policy, a.begin(), a.end()), want_plain, abs_sum(a, identity{}, 0), n, "reduce(first, last)");

  // reduce(first, last, init): in init's type (uint8 -> int64)
  const Acc init = random_scalar<Acc>(0x7171);
  const Acc want_init = static_cast<Acc>(ref_fold<R>(a, static_cast<R>(init), algo::plus<>{}));
  require_value(algo::reduce(policy, a.begin(), a.end(), init), want_init, abs_sum(a, identity{}, init), n,
                "reduce(first, last, init)");

  // transform_reduce(first, last, init, plus, tweak): tweak widens int32 / uint8 to int64
  using W = std::decay_t<decltype(tweak{}(a[0]))>;
  const W winit = static_cast<W>(init);
  W want_tr = winit;
  for (const T& x : a) want_tr = want_tr + tweak{}(x);
  if constexpr (std::is_floating_point<W>::value) {  // the reference in the wider type
    ref_t<W> r = winit;
    for (const T& x : a) r += tweak{}(x);
    want_tr = static_cast<W>(r);
  }
  const double scale_tr = abs_sum(a, tweak{}, winit);
  require_value(algo::transform_reduce(policy, a.begin(), a.end(), winit, algo::plus<>{}, tweak{}), want_tr, scale_tr, n,
                "transform_reduce(first, last, init, plus, tweak)");

  if constexpr (arith) {
    // inner product, init in the wide type
    ref_t<W> r = winit;
    double s = std::fabs(static_cast<double>(winit));
    for (std::size_t i = 0; i < a.size(); ++i) {
      r += static_cast<ref_t<W>>(static_cast<W>(a[i]) * static_cast<W>(b[i]));
      s += std::fabs(static_cast<double>(a[i]) * static_cast<double>(b[i]));
    }
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), winit), static_cast<W>(r), s, n,
                  "transform_reduce(first1, last1, first2, init) [inner product]");
    require_value(algo::transform_reduce(policy, a.data(), a.data() + n, b.data(), winit), static_cast<W>(r), s, n,
                  "transform_reduce(first1, last1, first2, init) [inner product, pointers]");

    // maximum (exact for every type), and max |a - b| through the two-input form
    const T lowest = std::numeric_limits<T>::lowest();
    require_value(algo::reduce(policy, a.begin(), a.end(), lowest, algo::maximum<>{}),
                  a.empty() ? lowest : *std::max_element(a.begin(), a.end()), 1.0, n,
                  "reduce(first, last, lowest, maximum)");
    W want_md = W(-1);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const W d = static_cast<W>(a[i]) - static_cast<W>(b[i]);
      want_md = std::max(want_md, d < 0 ? static_cast<W>(-d) : d);
    }
    auto absdiff = [](T x, T y) {
      const W d = static_cast<W>(x) - static_cast<W>(y);
      return d < 0 ? static_cast<W>(-d) : d;
    };
    require_value(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), W(-1), algo::maximum<>{}, absdiff),
                  want_md, 1.0, n, "transform_reduce(first1, last1, first2, -1, maximum, |a - b|)");
  }
}

template <class T>
void check_reduces_over(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& large,
                        std::uint64_t seed) {
  auto run = [&](std::int64_t n, auto&& for_policies) {
    INFO("type " << type_name_v<T> << ", n = " << n);
    const auto a = random_vector<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n));
    const auto b = random_vector<T>(static_cast<std::size_t>(n), ~seed - static_cast<std::uint64_t>(n));
    for_policies([&](const auto& policy) {
      check_op_forms<T>(policy, a, b);
      if constexpr (spec<T>::plus) check_plus_forms<T>(policy, a, b);
    });
  };
  for (std::int64_t n : sizes) run(n, [](auto&& f) { for_each_policy(f); });
  for (std::int64_t n : large) run(n, [](auto&& f) { for_each_policy_few(f); });
}

}  // namespace

TEST_CASE("host reduces of int32 (plus, maximum, (a, b) -> b)", "[reduce][int32]") {
  check_reduces_over<std::int32_t>(host_sizes(31), large_sizes(), 31);
}

TEST_CASE("host reduces of uint8 accumulate in the type of init (int64)", "[reduce][uint8]") {
  check_reduces_over<std::uint8_t>(host_sizes(32), {}, 32);
}

TEST_CASE("host reduces of float within tolerance", "[reduce][float]") {
  check_reduces_over<float>(host_sizes(33), {}, 33);
}

TEST_CASE("host reduces of double within tolerance", "[reduce][double]") {
  check_reduces_over<double>(host_sizes(34), {}, 34);
}

TEST_CASE("host reduces of a user struct with operator+ (pt)", "[reduce][struct]") {
  check_reduces_over<pt>(host_sizes(35), {}, 35);
}

TEST_CASE("host reduces of 2x2 matrices keep the order of the product", "[reduce][struct][noncommutative]") {
  check_reduces_over<mat2i>(host_sizes(36), large_sizes(), 36);
}

TEST_CASE("host reduces of integer affine maps keep the order of composition", "[reduce][struct][noncommutative]") {
  check_reduces_over<affine_i>(host_sizes(37), {}, 37);
}

TEST_CASE("host reduces of float affine maps keep the order of composition", "[reduce][struct][noncommutative]") {
  check_reduces_over<affine>(few_sizes(), {}, 38);
}

TEST_CASE("host reduces of 32-byte matrices keep the order of the product", "[reduce][struct][noncommutative]") {
  check_reduces_over<big32>({0, 1, 33, 3 * algo::detail::host::scan_block_elements + 1}, {1000003}, 39);
}

TEST_CASE("host reduce with (a, b) -> b returns the last element", "[reduce][noncommutative]") {
  for (std::int64_t n : host_sizes(40)) {
    if (n == 0) continue;
    INFO("n = " << n);
    const auto a = random_vector<std::int32_t>(static_cast<std::size_t>(n), 40);
    for_each_policy([&](const auto& policy) {
      CHECK(algo::reduce(policy, a.begin(), a.end(), std::int32_t(7), take_right{}) == a.back());
      CHECK(algo::transform_reduce(policy, a.begin(), a.end(), std::int64_t(7), take_right{}, tweak{}) == tweak{}(a.back()));
    });
  }
}

TEST_CASE("host reduces agree with std::reduce / std::transform_reduce on int32", "[reduce][std]") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(2000003)}) {
    INFO("n = " << n);
    const auto a = random_vector<std::int32_t>(static_cast<std::size_t>(n), 41);
    const auto b = random_vector<std::int32_t>(static_cast<std::size_t>(n), 42);
    const auto sum = std::reduce(a.begin(), a.end(), std::int64_t(3));
    const auto dot = std::transform_reduce(a.begin(), a.end(), b.begin(), std::int64_t(3));
    for_each_policy([&](const auto& policy) {
      CHECK(algo::reduce(policy, a.begin(), a.end(), std::int64_t(3)) == sum);
      CHECK(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), std::int64_t(3)) == dot);
    });
  }
}

TEST_CASE("host reduces over std::list and a counting iterator", "[reduce][list][fancy]") {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(33), 5 * T + 3, std::int64_t(3000017)}) {
    INFO("n = " << n);
    const auto v = random_vector<mat2i>(static_cast<std::size_t>(std::min<std::int64_t>(n, 100000)), 43);
    const std::list<mat2i> l(v.begin(), v.end());
    const mat2i init = random_scalar<mat2i>(44);
    const mat2i want_l = ref_fold(v, init, mat2_mul{});
    // sum of i*i + 1 over 0..n-1, and a non-commutative fold over a transformed counting range
    const auto sq = [](std::int64_t i) { return i * i + 1; };
    std::int64_t want_sq = 0;
    for (std::int64_t i = 0; i < n; ++i) want_sq += sq(i);
    const auto to_map = [](std::int64_t i) { return affine_i{static_cast<std::int32_t>(2 * i + 1), static_cast<std::int32_t>(i ^ 0x55)}; };
    affine_i want_map{1, 0};
    for (std::int64_t i = 0; i < n; ++i) want_map = compose_affine_i{}(want_map, to_map(i));
    for_each_policy([&](const auto& policy) {
      CHECK(algo::reduce(policy, l.begin(), l.end(), init, mat2_mul{}) == want_l);
      CHECK(algo::transform_reduce(policy, l.begin(), l.end(), init, mat2_mul{}, tweak{}) ==
            ref_fold<mat2i>(l.begin(), l.end(), init, [](const mat2i& acc, const mat2i& x) { return mat2_mul{}(acc, tweak{}(x)); }));
      CHECK(algo::transform_reduce(policy, l.begin(), l.end(), v.begin(), init, mat2_mul{}, mat2_mul{}) ==
            ref_fold<mat2i>(v.begin(), v.end(), init, [](const mat2i& acc, const mat2i& x) { return mat2_mul{}(acc, mat2_mul{}(x, x)); }));
      CHECK(algo::transform_reduce(policy, counting_iterator(0), counting_iterator(n), std::int64_t(0), algo::plus<>{}, sq) == want_sq);
      CHECK(algo::transform_reduce(policy, counting_iterator(0), counting_iterator(n), affine_i{1, 0}, compose_affine_i{}, to_map) ==
            want_map);
      CHECK(algo::reduce(policy, counting_iterator(0), counting_iterator(n)) == n * (n - 1) / 2);
    });
  }
}
