// Inputs and the host reference for group_reduce / group_count (<algo/group_reduce.hpp>, issue 13),
// shared by test/host/test_host_group_reduce.cpp and the device tests. Plain C++: no CUDA.
//
// Key distributions over n records (int keys, never all zero):
//   all_equal        one key
//   all_distinct     n distinct keys, shuffled (negative ones too)
//   uniform(m)       m distinct keys drawn uniformly (spread over the int range)
//   skewed(m)        m keys, key rank r drawn with weight about 1 / r (Zipf-like): a few hot keys
//                    and a long tail
// The reference: std::unordered_map from key to group number (first-appearance order), each
// group folded left to right in R (double for float values: a tolerance is then needed).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <algo/functional.hpp>

#include "test_types.hpp"

namespace algo_test::group {

/// A struct key: equal when both fields are equal (`pad` is ignored by equality and hash).
struct pair_key {
  std::int32_t a;
  std::int16_t b;
  std::int16_t pad;
};
struct pair_key_hash {
  ALGO_HD std::uint64_t operator()(const pair_key& k) const {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.a)) * 1000003u + static_cast<std::uint16_t>(k.b);
  }
};
struct pair_key_equal {
  ALGO_HD bool operator()(const pair_key& x, const pair_key& y) const { return x.a == y.a && x.b == y.b; }
};

/// Keys equal when equal modulo 10 (with a hash that agrees): a group's key is its first key.
struct mod10_hash {
  ALGO_HD std::uint64_t operator()(std::int32_t k) const { return static_cast<std::uint64_t>(((k % 10) + 10) % 10); }
};
struct mod10_equal {
  ALGO_HD bool operator()(std::int32_t x, std::int32_t y) const { return ((x % 10) + 10) % 10 == ((y % 10) + 10) % 10; }
};

/// A key spread over the int range (distinct ranks give distinct keys; sign flips on odd ranks).
inline std::int32_t spread_key(std::int64_t rank) {
  const std::uint32_t x = static_cast<std::uint32_t>(rank) * 2654435761u + 12345u;
  return static_cast<std::int32_t>(x);
}

enum class dist { all_equal, all_distinct, uniform, skewed };
inline std::string dist_name(dist d, std::int64_t m) {
  switch (d) {
    case dist::all_equal: return "all keys equal";
    case dist::all_distinct: return "all keys distinct";
    case dist::uniform: return "uniform over " + std::to_string(m) + " keys";
    default: return "skewed (Zipf-like) over " + std::to_string(m) + " keys";
  }
}

inline std::vector<std::int32_t> make_keys(dist d, std::int64_t n, std::int64_t m, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::int32_t> k(static_cast<std::size_t>(n));
  if (d == dist::all_equal) {
    std::fill(k.begin(), k.end(), spread_key(static_cast<std::int64_t>(seed % 1000)));
  } else if (d == dist::all_distinct) {
    for (std::int64_t i = 0; i < n; ++i) k[static_cast<std::size_t>(i)] = spread_key(i);
    std::shuffle(k.begin(), k.end(), g);
  } else if (d == dist::uniform) {
    std::uniform_int_distribution<std::int64_t> u(0, m - 1);
    for (auto& x : k) x = spread_key(u(g));
  } else {
    // rank = floor(m^u) - 1 for u uniform in [0, 1): P(rank = r) ~ 1 / (r + 1)
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double lm = std::log(static_cast<double>(m));
    for (auto& x : k) {
      const auto r = static_cast<std::int64_t>(std::exp(u(g) * lm)) - 1;
      x = spread_key(std::min<std::int64_t>(std::max<std::int64_t>(r, 0), m - 1));
    }
  }
  return k;
}

template <class K, class R>
struct ref_result {
  std::vector<K> keys;
  std::vector<R> values;
};

/// Groups in first-appearance order, each folded left to right: values as R, op(R, R).
template <class R, class K, class V, class Op, class Hash = algo::hash<>, class Eq = algo::equal_to<>>
ref_result<K, R> ref_group_reduce(const std::vector<K>& keys, const std::vector<V>& values, Op op, Hash hash = {},
                                  Eq eq = {}) {
  struct H {
    Hash h;
    std::size_t operator()(const K& k) const { return static_cast<std::size_t>(h(k)); }
  };
  struct E {
    Eq e;
    bool operator()(const K& a, const K& b) const { return e(a, b); }
  };
  std::unordered_map<K, std::size_t, H, E> index(16, H{hash}, E{eq});
  ref_result<K, R> r;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto it = index.try_emplace(keys[i], r.keys.size());
    if (it.second) {
      r.keys.push_back(keys[i]);
      r.values.push_back(static_cast<R>(values[i]));
    } else {
      R& a = r.values[it.first->second];
      a = static_cast<R>(op(a, static_cast<R>(values[i])));
    }
  }
  return r;
}

/// Values for the tests: ints in [-300, 300] without 0, floats in [0.5, 2) with random signs.
inline std::vector<std::int32_t> make_int_values(std::int64_t n, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = random_int_nonzero<std::int32_t>(g, -300, 300);
  return v;
}
inline std::vector<float> make_float_values(std::int64_t n, std::uint64_t seed) {
  rng_t g(seed);
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = (g() & 1) ? u(g) : -u(g);
  return v;
}

/// |got - want| within a tolerance for a float sum of `count` terms of magnitude <= 2.
inline bool close_sum(double got, double want, double count) {
  return std::fabs(got - want) <= 1e-5 * (std::fabs(want) + 2.0 * count) + 1e-6;
}

}  // namespace algo_test::group
