// Device checks of group_reduce / group_count (<algo/group_reduce.hpp>, issue 13), shared by
// test_cuda_group_reduce.cu and test_cuda_group_strategies.cu. Each takes the policy; value types
// are template arguments (nvcc is slow: instantiate only what is tested).
//
//   check_groups<V>(policy, repro)   int keys: all equal, all distinct, uniform over 10 / 1000 /
//                                    2^16 keys, skewed; sizes around the 4096-record tiles;
//                                    against the unordered_map reference (floats within a
//                                    tolerance; repro: the same bits when run again; exact: the
//                                    correctly rounded sum, bit for bit); nothing written past
//                                    the groups; on the policy's (non-blocking) stream
//   check_growth<V>(policy)          more distinct keys than the first table holds (2^23 records:
//                                    all distinct; uniform over 3 x 2^21 keys)
//   check_struct_keys(policy)        a struct key with a custom hash and key_equal; keys equal
//                                    modulo 10; group_count
//   check_empty_and_errors(policy)   empty input (0, nothing written), bad input (algo::error)
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "group_ref.hpp"

namespace group_test {

using namespace algo_test;
using namespace algo_test::group;

template <class V>
std::vector<V> make_values(std::int64_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point<V>::value) {
    const auto f = make_float_values(n, seed);
    return std::vector<V>(f.begin(), f.end());
  } else {
    const auto v = make_int_values(n, seed);
    std::vector<V> w(v.begin(), v.end());
    if constexpr (sizeof(V) == 8)
      for (auto& x : w) x *= (V(1) << 33);
    return w;
  }
}

/// Reference in R: double for float (and the exact sum's bits for exact checks), V otherwise.
template <class V>
using ref_r = std::conditional_t<std::is_floating_point<V>::value, double, V>;

/// The correctly rounded sum of each reference group (algo::detail::group::exact_sum on the host).
template <class V, class K>
std::vector<V> exact_group_sums(const std::vector<K>& keys, const std::vector<V>& vals, std::size_t groups,
                                const std::vector<K>& group_keys) {
  std::unordered_map<K, std::size_t> at;
  for (std::size_t j = 0; j < groups; ++j) at[group_keys[j]] = j;
  std::vector<algo::detail::group::exact_sum<V>> acc(groups);
  for (auto& a : acc) {
    std::memset(&a, 0, sizeof(a));
  }
  for (std::size_t i = 0; i < keys.size(); ++i) algo::detail::group::exact_add(acc[at[keys[i]]], vals[i]);
  std::vector<V> out(groups);
  for (std::size_t j = 0; j < groups; ++j) out[j] = algo::detail::group::exact_result(acc[j]);
  return out;
}

/// Runs group_reduce on the policy's stream into fresh outputs; returns (count, keys, values).
template <class V, class Policy, class K>
std::int64_t run_group(const Policy& p, const device_buffer<K>& keys, const device_buffer<V>& vals, std::int64_t n,
                       device_buffer<K>& ko, device_buffer<V>& vo, std::vector<K>& hk, std::vector<V>& hv) {
  ko.fill_sentinel();
  vo.fill_sentinel();
  test_stream s;
  const std::int64_t m = algo::group_reduce(p.on(s.get()), keys.begin(), keys.begin() + n, vals.begin(), ko.begin(),
                                            vo.begin());
  s.sync();
  hk = ko.download();
  hv = vo.download();
  return m;
}

template <class V, class K>
bool unwritten_after(const std::vector<V>& hv, const std::vector<K>& hk, std::size_t from) {
  for (std::size_t i = from; i < hk.size(); ++i) {
    const auto* a = reinterpret_cast<const unsigned char*>(&hk[i]);
    const auto* b = reinterpret_cast<const unsigned char*>(&hv[i]);
    for (std::size_t j = 0; j < sizeof(K); ++j)
      if (a[j] != sentinel_byte) return false;
    for (std::size_t j = 0; j < sizeof(V); ++j)
      if (b[j] != sentinel_byte) return false;
  }
  return true;
}

/// repro: check that a second run gives the same bits; exact: the deterministic strategy's float
/// sums, compared bit for bit with the correctly rounded sums.
template <class V, class Policy>
void check_case(const Policy& p, const std::string& what, const std::vector<std::int32_t>& hkeys,
                const std::vector<V>& hvals, bool repro, bool exact) {
  using K = std::int32_t;
  const auto n = static_cast<std::int64_t>(hkeys.size());
  const device_buffer<K> keys(hkeys);
  const device_buffer<V> vals(hvals);
  device_buffer<K> ko(hkeys.size());
  device_buffer<V> vo(hkeys.size());
  std::vector<K> gk;
  std::vector<V> gv;
  const std::int64_t m = run_group<V>(p, keys, vals, n, ko, vo, gk, gv);
  const auto ref = ref_group_reduce<ref_r<V>>(hkeys, hvals, algo::plus<>{});
  INFO(what);
  REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
  const auto g = static_cast<std::size_t>(m);
  REQUIRE(std::vector<K>(gk.begin(), gk.begin() + m) == ref.keys);
  bool ok = true;
  std::size_t bad = 0;
  if constexpr (std::is_floating_point<V>::value) {
    if (exact) {
      const auto want = exact_group_sums<V>(hkeys, hvals, g, ref.keys);
      for (std::size_t j = 0; j < g && ok; ++j) ok = std::memcmp(&gv[j], &want[j], sizeof(V)) == 0, bad = j;
    } else {
      for (std::size_t j = 0; j < g && ok; ++j) ok = close_sum(gv[j], ref.values[j], static_cast<double>(n)), bad = j;
    }
  } else {
    for (std::size_t j = 0; j < g && ok; ++j) ok = gv[j] == ref.values[j], bad = j;
  }
  INFO("first bad group " << bad);
  REQUIRE(ok);
  REQUIRE(unwritten_after(gv, gk, g));
  REQUIRE(ko.guard_intact());
  REQUIRE(vo.guard_intact());
  if (repro) {
    std::vector<K> gk2;
    std::vector<V> gv2;
    REQUIRE(run_group<V>(p, keys, vals, n, ko, vo, gk2, gv2) == m);
    REQUIRE(gk2 == gk);
    REQUIRE(std::memcmp(gv2.data(), gv.data(), sizeof(V) * g) == 0);
  }
}

inline std::vector<std::int64_t> group_sizes() { return {1, 33, 4095, 4096, 4097, 3 * 4096 + 5, 65536 + 17, (1 << 20) + 3}; }

/// max_n: the largest size run (locked_chaining takes every record through a lock: it is kept
/// smaller there, so the sanitizer's runs stay short).
template <class V, class Policy>
void check_groups(const Policy& p, const char* pname, bool repro, bool exact = false,
                  std::int64_t max_n = std::int64_t(1) << 21) {
  struct c_t {
    dist d;
    std::int64_t m;
  };
  const c_t cs[] = {{dist::all_equal, 1}, {dist::all_distinct, 0}, {dist::uniform, 10},
                    {dist::uniform, 1000}, {dist::uniform, 1 << 16}, {dist::skewed, 5000}};
  for (const c_t& c : cs)
    for (const std::int64_t n : group_sizes()) {
      if (n > max_n) continue;
      const auto keys = make_keys(c.d, n, c.m, 1000 + static_cast<std::uint64_t>(n));
      const auto vals = make_values<V>(n, 77 + static_cast<std::uint64_t>(n));
      check_case<V>(p, std::string(pname) + ", " + dist_name(c.d, c.m) + ", n = " + std::to_string(n), keys, vals, repro,
                    exact);
    }
}

/// More distinct keys than the first table (2^22 slots, grown past 85 %) holds.
template <class V, class Policy>
void check_growth(const Policy& p, const char* pname, bool repro = false, bool exact = false) {
  const std::int64_t n = std::int64_t(1) << 23;
  check_case<V>(p, std::string(pname) + ", 2^23 records, all distinct", make_keys(dist::all_distinct, n, 0, 5),
                make_values<V>(n, 6), repro, exact);
  check_case<V>(p, std::string(pname) + ", 2^23 records uniform over 3 x 2^21 keys",
                make_keys(dist::uniform, n, 3 << 21, 7), make_values<V>(n, 8), repro, exact);
}

template <class Policy>
void check_struct_keys(const Policy& p, const char* pname) {
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(300000)}) {
    INFO(std::string(pname) + ", n = " + std::to_string(n));
    const auto base = make_keys(dist::skewed, n, 3000, 400 + static_cast<std::uint64_t>(n));
    std::vector<pair_key> hk(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < hk.size(); ++i)
      hk[i] = pair_key{base[i] / 7, static_cast<std::int16_t>(base[i] % 7), static_cast<std::int16_t>(i)};
    const auto hv = make_int_values(n, 11);
    const auto ref = ref_group_reduce<std::int32_t>(hk, hv, algo::plus<>{}, pair_key_hash{}, pair_key_equal{});
    const device_buffer<pair_key> keys(hk);
    const device_buffer<std::int32_t> vals(hv);
    device_buffer<pair_key> ko(hk.size());
    device_buffer<std::int32_t> vo(hk.size());
    const auto m = algo::group_reduce(p, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin(), algo::plus<>{},
                                      pair_key_hash{}, pair_key_equal{});
    REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
    const auto gk = ko.download();
    const auto gv = vo.download();
    bool ok = true;
    for (std::size_t j = 0; j < static_cast<std::size_t>(m) && ok; ++j)
      ok = pair_key_equal{}(gk[j], ref.keys[j]) && gk[j].pad == ref.keys[j].pad && gv[j] == ref.values[j];
    REQUIRE(ok);

    // keys equal modulo 10: each group keyed by its first key
    const auto ik = make_keys(dist::uniform, n, 1000, 500);
    const auto r10 = ref_group_reduce<std::int32_t>(ik, hv, algo::plus<>{}, mod10_hash{}, mod10_equal{});
    const device_buffer<std::int32_t> k10(ik);
    device_buffer<std::int32_t> ko10(ik.size()), vo10(ik.size());
    const auto m10 = algo::group_reduce(p, k10.begin(), k10.end(), vals.begin(), ko10.begin(), vo10.begin(),
                                        algo::plus<>{}, mod10_hash{}, mod10_equal{});
    REQUIRE(m10 == static_cast<std::int64_t>(r10.keys.size()));
    const auto g10k = ko10.download();
    const auto g10v = vo10.download();
    REQUIRE(std::vector<std::int32_t>(g10k.begin(), g10k.begin() + m10) == r10.keys);
    REQUIRE(std::vector<std::int32_t>(g10v.begin(), g10v.begin() + m10) == r10.values);

    // group_count
    const std::vector<std::int64_t> ones(ik.size(), 1);
    const auto rc = ref_group_reduce<std::int64_t>(ik, ones, algo::plus<>{});
    device_buffer<std::int64_t> co(ik.size());
    const auto mc = algo::group_count(p, k10.begin(), k10.end(), ko10.begin(), co.begin());
    REQUIRE(mc == static_cast<std::int64_t>(rc.keys.size()));
    const auto gck = ko10.download();
    const auto gcc = co.download();
    REQUIRE(std::vector<std::int32_t>(gck.begin(), gck.begin() + mc) == rc.keys);
    REQUIRE(std::vector<std::int64_t>(gcc.begin(), gcc.begin() + mc) == rc.values);
  }
}

template <class Policy>
void check_empty_and_errors(const Policy& p) {
  const device_buffer<std::int32_t> keys(make_keys(dist::uniform, 100, 10, 1));
  const device_buffer<std::int32_t> vals(make_int_values(100, 2));
  device_buffer<std::int32_t> ko(100), vo(100);
  REQUIRE(algo::group_reduce(p, keys.begin(), keys.begin(), vals.begin(), ko.begin(), vo.begin()) == 0);
  REQUIRE(algo::group_count(p, keys.begin(), keys.begin(), ko.begin(), vo.begin()) == 0);
  REQUIRE(ko.untouched());
  REQUIRE(vo.untouched());
  bool thrown = false;
  try {
    algo::group_reduce(p, keys.end(), keys.begin(), vals.begin(), ko.begin(), vo.begin());
  } catch (const algo::error& e) {
    thrown = std::string(e.what()).find("algo::group_reduce") != std::string::npos;
  }
  REQUIRE(thrown);
  thrown = false;
  try {
    algo::group_reduce(p, keys.begin(), keys.end(), vals.begin(), ko.begin(), keys.begin() + 1);
  } catch (const algo::error& e) {
    thrown = std::string(e.what()).find("overlaps") != std::string::npos;
  }
  REQUIRE(thrown);
  REQUIRE(ko.untouched());
  if (!algo::detail::cuda::current_device_info().pageable_access) {
    std::vector<std::int32_t> host_keys(100, 1);
    thrown = false;
    try {
      algo::group_reduce(p, host_keys.data(), host_keys.data() + 100, vals.begin(), ko.begin(), vo.begin());
    } catch (const algo::error& e) {
      thrown = std::string(e.what()).find("pageable") != std::string::npos;
    }
    REQUIRE(thrown);
    REQUIRE(ko.untouched());
  }
}

}  // namespace group_test
