// group_reduce on the host policies.
//   algo::seq  one std::unordered_map from key to group number; groups numbered in order of first
//              appearance; each group folds its values left to right.
//   algo::par  the input cut into one contiguous chunk per thread; each thread groups its chunk
//              as seq does; the chunks' groups are then merged in chunk order. A key's first chunk
//              is where it first appears, and its partials are combined in input order, so the
//              result equals seq's for any associative operator (floating-point sums are grouped
//              per chunk: they differ from seq's in rounding, and are the same run to run for a
//              given thread count).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../policy.hpp"
#include "../host/par.hpp"
#include "../iterator.hpp"
#include "../scan_kind.hpp"

namespace algo::detail::group {

/// The user's hash and key_equal as std::unordered_map wants them (const call operators).
template <class Hash>
struct host_hash {
  mutable Hash h;
  template <class K>
  std::size_t operator()(const K& k) const { return static_cast<std::size_t>(h(k)); }
};
template <class Eq>
struct host_equal {
  mutable Eq e;
  template <class K>
  bool operator()(const K& a, const K& b) const { return static_cast<bool>(e(a, b)); }
};

/// Keys and aggregates of one range's groups, in order of first appearance.
template <class K, class Acc, class Hash, class Eq>
struct host_groups {
  std::unordered_map<K, std::size_t, host_hash<Hash>, host_equal<Eq>> index;
  std::vector<K> keys;
  std::vector<Acc> values;
  host_groups(Hash hash, Eq eq) : index(16, host_hash<Hash>{hash}, host_equal<Eq>{eq}) {}

  template <class AOp>
  void add(const K& key, const Acc& v, AOp& op) {
    const auto r = index.try_emplace(key, keys.size());
    if (r.second) {
      keys.push_back(key);
      values.push_back(v);
    } else {
      Acc& a = values[r.first->second];
      a = op(a, v);
    }
  }
};

template <class G, class KeyIt, class ValIt, class AOp>
void group_range(G& g, KeyIt keys, ValIt values, std::int64_t count, AOp op) {
  using Acc = typename decltype(g.values)::value_type;
  for (std::int64_t i = 0; i < count; ++i, ++keys, ++values) g.add(*keys, static_cast<Acc>(*values), op);
}

template <class G, class KeyOut, class ValOut>
std::int64_t write_groups(const G& g, KeyOut keys_out, ValOut values_out) {
  for (std::size_t j = 0; j < g.keys.size(); ++j, ++keys_out, ++values_out) {
    *keys_out = g.keys[j];
    *values_out = g.values[j];
  }
  return static_cast<std::int64_t>(g.keys.size());
}

}  // namespace algo::detail::group

namespace algo::detail {

template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce(const seq_policy&, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq eq) {
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  group::host_groups<K, Acc, Hash, Eq> g(hash, eq);
  group::group_range(g, keys, values, n, accumulate_with<Op, Acc>{op});
  return group::write_groups(g, keys_out, values_out);
}

template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce(const par_policy& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq eq) {
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  using AOp = accumulate_with<Op, Acc>;
  const int threads = host::thread_count(p);
  constexpr std::int64_t min_chunk = 1 << 15;
  if constexpr (!(is_random_access_v<KeyIt> && is_random_access_v<ValIt>)) {
    return detail::group_reduce(seq, keys, values, n, keys_out, values_out, op, hash, eq);
  } else {
    const int chunks = static_cast<int>(std::min<std::int64_t>(threads, n / min_chunk));
    if (chunks <= 1) return detail::group_reduce(seq, keys, values, n, keys_out, values_out, op, hash, eq);
    std::vector<group::host_groups<K, Acc, Hash, Eq>> parts;
    parts.reserve(static_cast<std::size_t>(chunks));
    for (int c = 0; c < chunks; ++c) parts.emplace_back(hash, eq);
#if defined(_OPENMP)
#  pragma omp parallel for num_threads(chunks) schedule(static, 1)
#endif
    for (int c = 0; c < chunks; ++c) {
      const std::int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
      group::group_range(parts[static_cast<std::size_t>(c)], keys + b, values + b, e - b, AOp{op});
    }
    // merge in chunk order: first appearances stay first, partials combine left to right
    group::host_groups<K, Acc, Hash, Eq>& all = parts[0];
    AOp aop{op};
    for (int c = 1; c < chunks; ++c) {
      const auto& g = parts[static_cast<std::size_t>(c)];
      for (std::size_t j = 0; j < g.keys.size(); ++j) all.add(g.keys[j], g.values[j], aop);
    }
    return group::write_groups(all, keys_out, values_out);
  }
}

}  // namespace algo::detail
