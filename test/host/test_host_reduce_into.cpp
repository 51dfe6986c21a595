// reduce_into and transform_reduce_into (both forms) of algo::seq and algo::par: the fold written
// through the output iterator, equal to what reduce / transform_reduce return; an empty range
// writes init; a non-commutative operator keeps its order; a null output pointer is bad input
// (algo::error, nothing written).
#include <algo/algo.hpp>

#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "test_types.hpp"

using namespace algo_test;

namespace {

template <class Policy>
void check_policy(const Policy& policy) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
    INFO("n = " << n);
    const std::vector<std::int32_t> a = random_vector<std::int32_t>(n, 11 + n);
    const std::vector<std::int32_t> b = random_vector<std::int32_t>(n, 12 + n);
    std::int64_t out = -1;
    algo::reduce_into(policy, a.begin(), a.end(), &out, std::int64_t{7}, algo::plus<>{});
    CHECK(out == ref_fold(a, std::int64_t{7}, algo::plus<>{}));
    std::int32_t out32 = -1;
    algo::reduce_into(policy, a.begin(), a.end(), &out32);
    CHECK(out32 == ref_fold(a, std::int32_t{0}, algo::plus<>{}));
    algo::reduce_into(policy, a.begin(), a.end(), &out32, std::int32_t{3});
    CHECK(out32 == ref_fold(a, std::int32_t{3}, algo::plus<>{}));

    std::int64_t sq = -1;
    algo::transform_reduce_into(policy, a.begin(), a.end(), &sq, std::int64_t{1}, algo::plus<>{},
                                [](std::int32_t x) { return std::int64_t{x} * x; });
    std::int64_t want_sq = 1;
    for (std::int32_t x : a) want_sq += std::int64_t{x} * x;
    CHECK(sq == want_sq);

    std::int64_t dot = -1;
    algo::transform_reduce_into(policy, a.begin(), a.end(), b.begin(), &dot, std::int64_t{2});
    std::int64_t want_dot = 2;
    for (std::size_t i = 0; i < n; ++i) want_dot += std::int64_t{a[i]} * b[i];
    CHECK(dot == want_dot);

    const std::vector<mat2i> m = random_vector<mat2i>(n, 13 + n), m2 = random_vector<mat2i>(n, 14 + n);
    const mat2i one{1, 0, 0, 1};
    mat2i mo{};
    algo::reduce_into(policy, m.begin(), m.end(), &mo, one, mat2_mul{});
    CHECK(mo == ref_fold(m, one, mat2_mul{}));
    algo::transform_reduce_into(policy, m.begin(), m.end(), m2.begin(), &mo, one, mat2_mul{}, mat2_mul{});
    mat2i want = one;
    for (std::size_t i = 0; i < n; ++i) want = mat2_mul{}(want, mat2_mul{}(m[i], m2[i]));
    CHECK(mo == want);

    std::int32_t last = -1;
    algo::reduce_into(policy, a.begin(), a.end(), &last, std::int32_t{-5}, take_right{});
    CHECK(last == (n ? a.back() : -5));
  }
}

}  // namespace

TEST_CASE("reduce_into / transform_reduce_into: seq", "[reduce_into]") { check_policy(algo::seq); }
TEST_CASE("reduce_into / transform_reduce_into: par", "[reduce_into]") { check_policy(algo::par); }

TEST_CASE("reduce_into: a null output pointer is bad input", "[reduce_into][errors]") {
  const std::vector<int> a{1, 2, 3};
  int* null = nullptr;
  CHECK_THROWS_AS(algo::reduce_into(algo::seq, a.begin(), a.end(), null, 0, algo::plus<>{}), algo::error);
  CHECK_THROWS_AS(algo::transform_reduce_into(algo::par, a.begin(), a.end(), a.begin(), null, 0), algo::error);
  const int* nin = nullptr;
  int out = 42;
  CHECK_THROWS_AS(algo::reduce_into(algo::seq, nin, nin + 3, &out, 0, algo::plus<>{}), algo::error);
  CHECK_THROWS_AS(algo::reduce_into(algo::seq, a.end(), a.begin(), &out, 0, algo::plus<>{}), algo::error);
  CHECK(out == 42);
}
