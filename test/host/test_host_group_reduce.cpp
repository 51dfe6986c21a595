// group_reduce and group_count on algo::seq and algo::par (<algo/group_reduce.hpp>, issue 13)
// against the std::unordered_map reference of test/support/group_ref.hpp: groups in order of first
// appearance, each folded left to right.
// Keys: all equal, all distinct, uniform over 10 / 1000 keys, skewed; struct keys with a custom
// hash and key_equal; keys equal modulo 10. Values: int32 (plus, minimum, maximum: exact), int64,
// float (plus, within a tolerance; par: the same bits run to run). Sizes around par's chunks
// (2^15) and past several of them. Empty input, outputs through std::vector iterators and raw
// pointers (nothing written past the groups), bad input (algo::error, nothing written).
#include <algo/algo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "group_ref.hpp"

using namespace algo_test::group;

namespace {

constexpr std::int64_t C = 1 << 15;

std::vector<std::int64_t> sizes() { return {1, 2, 33, 1000, C - 1, C, C + 1, 3 * C + 17, 9 * C + 1237}; }

template <class F>
void for_each_policy(F&& f) {
  f(algo::seq, "seq");
  f(algo::par, "par");
  f(algo::par.with_threads(3), "par(3)");
  f(algo::par.with_threads(7), "par(7)");
}

struct case_t {
  dist d;
  std::int64_t m;
};
std::vector<case_t> cases() {
  return {{dist::all_equal, 1}, {dist::all_distinct, 0}, {dist::uniform, 10}, {dist::uniform, 1000}, {dist::skewed, 5000}};
}

constexpr std::int32_t key_sentinel = 0x5a5a5a5a;

template <class V, class R, class Policy, class Op>
void check_one(const Policy& p, const std::string& what, const std::vector<std::int32_t>& keys, const std::vector<V>& vals,
               Op op) {
  const auto ref = ref_group_reduce<R>(keys, vals, op);
  const std::size_t n = keys.size();
  std::vector<std::int32_t> ko(n + 4, key_sentinel);
  std::vector<V> vo(n + 4, V(77));
  const std::int64_t m = algo::group_reduce(p, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin(), op);
  INFO(what);
  REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
  const std::size_t g = ref.keys.size();
  REQUIRE(std::vector<std::int32_t>(ko.begin(), ko.begin() + static_cast<std::ptrdiff_t>(g)) == ref.keys);
  bool values_ok = true;
  for (std::size_t j = 0; j < g && values_ok; ++j) {
    if constexpr (std::is_same<V, float>::value) values_ok = close_sum(vo[j], ref.values[j], static_cast<double>(n));
    else values_ok = vo[j] == ref.values[j];
  }
  REQUIRE(values_ok);
  bool tail_ok = true;
  for (std::size_t j = g; j < ko.size(); ++j) tail_ok = tail_ok && ko[j] == key_sentinel && vo[j] == V(77);
  REQUIRE(tail_ok);
}

}  // namespace

TEST_CASE("group_reduce host: int32 sums, minimum, maximum; int64; every key distribution", "[group][host]") {
  for_each_policy([](const auto& p, const char* pname) {
    for (const case_t& c : cases()) {
      for (const std::int64_t n : sizes()) {
        const auto keys = make_keys(c.d, n, c.m, 100 + static_cast<std::uint64_t>(n));
        const auto vals = make_int_values(n, 7 + static_cast<std::uint64_t>(n));
        const std::string what = std::string(pname) + ", " + dist_name(c.d, c.m) + ", n = " + std::to_string(n);
        check_one<std::int32_t, std::int32_t>(p, what + ", plus", keys, vals, algo::plus<>{});
        if (n > 3 * C + 17) continue;  // the largest size: plus only (test time)
        check_one<std::int32_t, std::int32_t>(p, what + ", minimum", keys, vals, algo::minimum<>{});
        check_one<std::int32_t, std::int32_t>(p, what + ", maximum", keys, vals, algo::maximum<>{});
        std::vector<std::int64_t> wide(vals.begin(), vals.end());
        for (auto& w : wide) w *= (std::int64_t(1) << 33);
        check_one<std::int64_t, std::int64_t>(p, what + ", int64 plus", keys, wide, std::plus<std::int64_t>{});
      }
    }
  });
}

TEST_CASE("group_reduce host: float sums within a tolerance, par reproducible", "[group][host][float]") {
  for_each_policy([](const auto& p, const char* pname) {
    for (const case_t& c : cases()) {
      for (const std::int64_t n : {std::int64_t(1000), 3 * C + 17}) {
        const auto keys = make_keys(c.d, n, c.m, 200 + static_cast<std::uint64_t>(n));
        const auto vals = make_float_values(n, 9 + static_cast<std::uint64_t>(n));
        const std::string what = std::string(pname) + ", " + dist_name(c.d, c.m) + ", n = " + std::to_string(n);
        check_one<float, double>(p, what, keys, vals, algo::plus<>{});
        // the same bits when run again
        std::vector<std::int32_t> k1(keys.size()), k2(keys.size());
        std::vector<float> v1(keys.size()), v2(keys.size());
        const auto m1 = algo::group_reduce(p, keys.begin(), keys.end(), vals.begin(), k1.begin(), v1.begin());
        const auto m2 = algo::group_reduce(p, keys.data(), keys.data() + n, vals.data(), k2.data(), v2.data());
        REQUIRE(m1 == m2);
        REQUIRE(std::memcmp(v1.data(), v2.data(), sizeof(float) * static_cast<std::size_t>(m1)) == 0);
      }
    }
  });
}

TEST_CASE("group_count host", "[group][host][count]") {
  for_each_policy([](const auto& p, const char* pname) {
    for (const case_t& c : cases()) {
      const std::int64_t n = 3 * C + 17;
      const auto keys = make_keys(c.d, n, c.m, 300);
      const std::vector<std::int64_t> ones(static_cast<std::size_t>(n), 1);
      const auto ref = ref_group_reduce<std::int64_t>(keys, ones, algo::plus<>{});
      std::vector<std::int32_t> ko(static_cast<std::size_t>(n));
      std::vector<std::int64_t> co(static_cast<std::size_t>(n));
      const auto m = algo::group_count(p, keys.begin(), keys.end(), ko.begin(), co.begin());
      INFO(std::string(pname) + ", " + dist_name(c.d, c.m));
      REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
      REQUIRE(std::vector<std::int32_t>(ko.begin(), ko.begin() + m) == ref.keys);
      REQUIRE(std::vector<std::int64_t>(co.begin(), co.begin() + m) == ref.values);
    }
  });
}

TEST_CASE("group_reduce host: struct keys with a custom hash, keys equal modulo 10", "[group][host][struct]") {
  for_each_policy([](const auto& p, const char* pname) {
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(1000), 3 * C + 17}) {
      const auto base = make_keys(dist::skewed, n, 3000, 400 + static_cast<std::uint64_t>(n));
      std::vector<pair_key> keys(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < keys.size(); ++i)
        keys[i] = pair_key{base[i] / 7, static_cast<std::int16_t>(base[i] % 7), static_cast<std::int16_t>(i)};
      const auto vals = make_int_values(n, 11);
      const auto ref = ref_group_reduce<std::int32_t>(keys, vals, algo::plus<>{}, pair_key_hash{}, pair_key_equal{});
      std::vector<pair_key> ko(static_cast<std::size_t>(n));
      std::vector<std::int32_t> vo(static_cast<std::size_t>(n));
      const auto m = algo::group_reduce(p, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin(), algo::plus<>{},
                                        pair_key_hash{}, pair_key_equal{});
      INFO(std::string(pname) + ", struct keys, n = " + std::to_string(n));
      REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
      bool ok = true;
      for (std::size_t j = 0; j < static_cast<std::size_t>(m) && ok; ++j)
        ok = pair_key_equal{}(ko[j], ref.keys[j]) && ko[j].pad == ref.keys[j].pad  // the first record's key
             && vo[j] == ref.values[j];
      REQUIRE(ok);
      // modulo 10: at most 10 groups, each keyed by its first key
      const auto ik = make_keys(dist::uniform, n, 1000, 500);
      const auto r10 = ref_group_reduce<std::int32_t>(ik, vals, algo::plus<>{}, mod10_hash{}, mod10_equal{});
      std::vector<std::int32_t> k10(static_cast<std::size_t>(n)), v10(static_cast<std::size_t>(n));
      const auto m10 = algo::group_reduce(p, ik.begin(), ik.end(), vals.begin(), k10.begin(), v10.begin(), algo::plus<>{},
                                          mod10_hash{}, mod10_equal{});
      REQUIRE(m10 == static_cast<std::int64_t>(r10.keys.size()));
      REQUIRE(std::vector<std::int32_t>(k10.begin(), k10.begin() + m10) == r10.keys);
      REQUIRE(std::vector<std::int32_t>(v10.begin(), v10.begin() + m10) == r10.values);
    }
  });
}

TEST_CASE("group_reduce host: empty input, bad input", "[group][host][errors]") {
  for_each_policy([](const auto& p, const char*) {
    std::vector<std::int32_t> keys{3, 1, 3}, ko(3, key_sentinel), vals{1, 2, 3}, vo(3, 77);
    REQUIRE(algo::group_reduce(p, keys.begin(), keys.begin(), vals.begin(), ko.begin(), vo.begin()) == 0);
    REQUIRE(algo::group_count(p, keys.begin(), keys.begin(), ko.begin(), vo.begin()) == 0);
    REQUIRE(ko == std::vector<std::int32_t>(3, key_sentinel));
    bool thrown = false;
    try {
      algo::group_reduce(p, keys.data() + 2, keys.data(), vals.data(), ko.data(), vo.data());
    } catch (const algo::error& e) {
      thrown = std::string(e.what()).find("algo::group_reduce") != std::string::npos;
    }
    REQUIRE(thrown);
    thrown = false;
    try {
      algo::group_reduce(p, keys.data(), keys.data() + 3, vals.data(), vals.data() + 1, vo.data());
    } catch (const algo::error& e) {
      thrown = std::string(e.what()).find("overlaps") != std::string::npos;
    }
    REQUIRE(thrown);
    REQUIRE(vals == std::vector<std::int32_t>{1, 2, 3});
    REQUIRE(ko == std::vector<std::int32_t>(3, key_sentinel));
    // a small case by hand: first appearance order
    std::vector<std::int32_t> k{5, 2, 5, 9, 2, 5}, v{1, 2, 3, 4, 5, 6}, kk(6), vv(6);
    REQUIRE(algo::group_reduce(p, k.begin(), k.end(), v.begin(), kk.begin(), vv.begin()) == 3);
    REQUIRE(std::vector<std::int32_t>(kk.begin(), kk.begin() + 3) == std::vector<std::int32_t>{5, 2, 9});
    REQUIRE(std::vector<std::int32_t>(vv.begin(), vv.begin() + 3) == std::vector<std::int32_t>{10, 7, 4});
  });
}

// ---- the exact accumulator of group_strategy::deterministic (detail/group/ops.hpp), on the host ----
namespace {
template <class F>
F exact_of(const std::vector<F>& xs) {
  algo::detail::group::exact_sum<F> s;
  std::memset(&s, 0, sizeof(s));
  for (F x : xs) algo::detail::group::exact_add(s, x);
  return algo::detail::group::exact_result(s);
}
template <class F>
bool same_bits(F a, F b) {
  return std::memcmp(&a, &b, sizeof(F)) == 0;
}
}  // namespace

TEST_CASE("exact sum: correctly rounded, independent of order, specials", "[group][host][exact]") {
  algo_test::rng_t g(42);
  // float: terms in [0.5, 2) with random signs; their sum is exact in double, rounded once to float
  for (const int n : {1, 2, 10, 1000, 100000}) {
    const auto xs = make_float_values(n, static_cast<std::uint64_t>(n));
    double d = 0;
    for (float x : xs) d += x;
    const float got = exact_of(xs);
    REQUIRE(same_bits(got, static_cast<float>(d)));
    auto ys = xs;
    std::shuffle(ys.begin(), ys.end(), g);
    REQUIRE(same_bits(exact_of(ys), got));
  }
  // float: wide exponent ranges, compared with the sum in long double where that is exact enough
  REQUIRE(exact_of<float>({1e30f, 1e-30f, -1e30f}) == 1e-30f);
  REQUIRE(exact_of<float>({1.0f, -1.0f}) == 0.0f);
  const float tiny = std::numeric_limits<float>::denorm_min();
  REQUIRE(exact_of<float>({tiny, tiny, tiny}) == 3.0f * tiny);              // subnormals
  REQUIRE(exact_of<float>({1.17549435e-38f, -1e-45f}) == 1.17549421e-38f);  // across the normal boundary
  REQUIRE(exact_of<float>({3.0e38f, 3.0e38f}) == std::numeric_limits<float>::infinity());
  REQUIRE(exact_of<float>({3.0e38f, 3.0e38f, -3.0e38f}) == 3.0e38f);       // no overflow in between
  REQUIRE(exact_of<float>({-3.0e38f, -3.0e38f}) == -std::numeric_limits<float>::infinity());
  REQUIRE(exact_of<float>({1.0f, 1e-8f}) == 1.0f);                          // rounds down
  REQUIRE(exact_of<float>({1.0f, 5.9604645e-8f}) == 1.0f);                 // a tie: to even
  REQUIRE(exact_of<float>({1.0f, 5.9604645e-8f, 1e-20f}) == 1.00000012f);  // just above the tie: up
  REQUIRE(exact_of<float>({std::numeric_limits<float>::infinity(), 1.0f}) == std::numeric_limits<float>::infinity());
  REQUIRE(std::isnan(exact_of<float>({std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})));
  REQUIRE(std::isnan(exact_of<float>({1.0f, std::numeric_limits<float>::quiet_NaN()})));
  // double: k * 2^-10 for integers k < 2^40, summed exactly in 128 bits, rounded once
  for (const int n : {1, 1000, 100000}) {
    std::vector<double> xs(static_cast<std::size_t>(n));
    __int128 exact = 0;
    std::uniform_int_distribution<std::int64_t> k(-(std::int64_t(1) << 40), std::int64_t(1) << 40);
    for (auto& x : xs) {
      const std::int64_t v = k(g);
      exact += v;
      x = std::ldexp(static_cast<double>(v), -10);
    }
    const double want = std::ldexp(static_cast<double>(exact), -10);
    const double got = exact_of(xs);
    REQUIRE(same_bits(got, want));
    std::shuffle(xs.begin(), xs.end(), g);
    REQUIRE(same_bits(exact_of(xs), got));
  }
  REQUIRE(exact_of<double>({1e300, 1e-300, -1e300}) == 1e-300);
  REQUIRE(exact_of<double>({4.9e-324, 4.9e-324}) == 1e-323);
  REQUIRE(exact_of<double>({1.7e308, 1.7e308}) == std::numeric_limits<double>::infinity());
}
