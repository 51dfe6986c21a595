// Segment layouts and sequential host references for the segmented and by-key algorithms
// (<algo/segmented.hpp>, issue 12), shared by test/host/test_host_segmented.cpp and the device
// tests (test/device/segmented_checks.cuh). Plain C++: no CUDA.
//
// Layouts are CSR offsets (num_segments + 1 non-decreasing integers) over n elements:
//   random(max_len)  random lengths in [0, max_len], about a quarter of them empty, with empty
//                    segments at the front and the back as well
//   giant            one segment of all n elements
//   ones             n segments of one element
//   fixed(L)         segments of L elements (the last one shorter)
// by_key_keys() turns a layout into keys for the by-key algorithms: one run per non-empty segment,
// adjacent runs with different keys, equal keys recurring in runs that are not adjacent.
//
// References (left to right, the order every policy must reproduce; Acc is the accumulator):
//   ref_inclusive_scan_by_key, ref_exclusive_scan_by_key, ref_reduce_by_key,
//   ref_segmented_reduce, ref_segmented_inclusive_scan, ref_segmented_exclusive_scan;
//   ref_exclusive_scan_by_key_in_init (Thrust's exclusive_scan_by_key: init's type, values
//   converted to it) over thrust_test_keys (the keys of Thrust's own scan-by-key tests).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "test_types.hpp"

namespace algo_test::seg {

// ==== layouts ====================================================================================
struct layout {
  std::string name;
  std::vector<std::int64_t> offsets;  // num_segments + 1 entries, offsets.front() == 0, back() == n

  std::int64_t segments() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t size() const { return offsets.back(); }
};

/// Random lengths in [0, max_len] (a quarter of them 0), two empty segments first and last.
inline layout random_layout(std::int64_t n, std::int64_t max_len, std::uint64_t seed) {
  rng_t g(seed);
  std::uniform_int_distribution<std::int64_t> len(1, max_len < 1 ? 1 : max_len);
  layout l{"random lengths in [0, " + std::to_string(max_len) + "] with empties", {0, 0, 0}};
  std::int64_t at = 0;
  while (at < n) {
    const std::int64_t k = (g() % 4 == 0) ? 0 : std::min(len(g), n - at);
    at += k;
    l.offsets.push_back(at);
  }
  l.offsets.push_back(n);
  l.offsets.push_back(n);
  return l;
}

inline layout giant_layout(std::int64_t n) { return layout{"one giant segment", {0, n}}; }

inline layout ones_layout(std::int64_t n) {
  layout l{"all segments of length 1", {}};
  for (std::int64_t i = 0; i <= n; ++i) l.offsets.push_back(i);
  return l;
}

inline layout fixed_layout(std::int64_t n, std::int64_t len) {
  layout l{"segments of length " + std::to_string(len), {0}};
  for (std::int64_t at = len; at < n; at += len) l.offsets.push_back(at);
  if (n > 0) l.offsets.push_back(n);
  return l;
}

/// Clumps of thousands of empty segments (whole tiles of segment ends and no elements) between
/// segments of thousands of elements (tiles of elements and no ends), then short ones.
inline layout clumps_layout(std::int64_t n) {
  layout l{"clumps of 5000 empty segments between long ones", {0}};
  std::int64_t at = 0;
  for (int round = 0; at < n; ++round) {
    for (int e = 0; e < 5000; ++e) l.offsets.push_back(at);
    at = std::min(n, at + 7000 + 1000 * (round % 3));
    l.offsets.push_back(at);
    for (int s = 0; s < 50 && at < n; ++s) {
      at = std::min(n, at + 1 + s % 5);
      l.offsets.push_back(at);
    }
  }
  if (l.offsets.back() != n) l.offsets.push_back(n);
  return l;
}

/// The layouts every size is tested with.
inline std::vector<layout> standard_layouts(std::int64_t n, std::uint64_t seed) {
  std::vector<layout> v;
  v.push_back(random_layout(n, 8, seed));
  v.push_back(random_layout(n, 3000, seed + 1));
  v.push_back(giant_layout(n));
  v.push_back(ones_layout(n));
  v.push_back(fixed_layout(n, 4));
  v.push_back(fixed_layout(n, 32));
  v.push_back(fixed_layout(n, 1000));
  v.push_back(clumps_layout(n));
  return v;
}

/// Converts offsets to another integer type (int32 offsets, size_t offsets, ...).
template <class I>
std::vector<I> offsets_as(const std::vector<std::int64_t>& o) {
  return std::vector<I>(o.begin(), o.end());
}

// ==== keys =======================================================================================
/// Keys for the runs of `l` (empty segments dropped): each run's key is in [0, distinct) and
/// differs from the previous run's, so equal keys recur in runs that are not adjacent.
inline std::vector<std::int32_t> by_key_keys(const layout& l, std::uint64_t seed, std::int32_t distinct = 5) {
  rng_t g(seed);
  std::vector<std::int32_t> keys;
  keys.reserve(static_cast<std::size_t>(l.size()));
  std::int32_t key = 0;
  for (std::int64_t s = 0; s < l.segments(); ++s) {
    const std::int64_t len = l.offsets[s + 1] - l.offsets[s];
    if (len == 0) continue;
    key = static_cast<std::int32_t>((key + 1 + static_cast<std::int32_t>(g() % (distinct - 1))) % distinct);
    for (std::int64_t i = 0; i < len; ++i) keys.push_back(key);
  }
  return keys;
}

/// Keys equal modulo 10 within each run but otherwise different (non-negative), for a key_equal
/// that compares modulo 10: every run starts a new residue, and the raw keys vary inside a run.
inline std::vector<std::int32_t> mod10_keys(const layout& l, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::int32_t> keys;
  keys.reserve(static_cast<std::size_t>(l.size()));
  std::int32_t residue = 0;
  for (std::int64_t s = 0; s < l.segments(); ++s) {
    const std::int64_t len = l.offsets[s + 1] - l.offsets[s];
    if (len == 0) continue;
    residue = static_cast<std::int32_t>((residue + 1 + g() % 9) % 10);
    for (std::int64_t i = 0; i < len; ++i) keys.push_back(residue + 10 * static_cast<std::int32_t>(g() % 1000));
  }
  return keys;
}

/// Keys equal when equal modulo 10.
struct equal_mod10 {
  ALGO_HD bool operator()(std::int32_t a, std::int32_t b) const { return a % 10 == b % 10; }
};

/// A key struct compared by one field only (the other field varies inside a run).
struct rec {
  std::int32_t id;
  std::int32_t payload;
};
ALGO_HD inline bool operator==(const rec& a, const rec& b) { return a.id == b.id && a.payload == b.payload; }
ALGO_HD inline bool operator!=(const rec& a, const rec& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& os, const rec& r) { return os << "rec{" << r.id << ", " << r.payload << "}"; }
struct same_id {
  ALGO_HD bool operator()(const rec& a, const rec& b) const { return a.id == b.id; }
};

/// rec keys for `l`: id as by_key_keys, payload random.
inline std::vector<rec> rec_keys(const layout& l, std::uint64_t seed) {
  const auto ids = by_key_keys(l, seed);
  rng_t g(seed + 99);
  std::vector<rec> r;
  r.reserve(ids.size());
  for (std::int32_t id : ids) r.push_back(rec{id, static_cast<std::int32_t>(g() % 100000)});
  return r;
}

// ==== references ===================================================================================
/// out[i] = op-fold of values[start(i) .. i], accumulated in Acc (a segment starts where
/// !eq(keys[i-1], keys[i])).
template <class Acc, class K, class V, class Eq, class Op>
std::vector<Acc> ref_inclusive_scan_by_key(const std::vector<K>& keys, const std::vector<V>& v, Eq eq, Op op) {
  std::vector<Acc> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) out.push_back(static_cast<Acc>(v[i]));
    else out.push_back(static_cast<Acc>(op(out.back(), v[i])));
  }
  return out;
}

/// out[i] = init at a segment's first element, else op(out[i-1], v[i-1]); accumulated in Acc.
template <class Acc, class K, class V, class Eq, class Op>
std::vector<Acc> ref_exclusive_scan_by_key(const std::vector<K>& keys, const std::vector<V>& v, Acc init, Eq eq, Op op) {
  std::vector<Acc> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) out.push_back(init);
    else out.push_back(static_cast<Acc>(op(out.back(), v[i - 1])));
  }
  return out;
}

/// exclusive_scan_by_key as Thrust computes it on every backend, in init's type T with each value
/// converted to T first: out[i] = init at a run's first element, else T(op(out[i-1], T(v[i-1]))).
template <class T, class K, class V, class Op>
std::vector<T> ref_exclusive_scan_by_key_in_init(const std::vector<K>& keys, const std::vector<V>& v, T init, Op op) {
  std::vector<T> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !(keys[i - 1] == keys[i])) out.push_back(init);
    else out.push_back(static_cast<T>(op(out.back(), static_cast<T>(v[i - 1]))));
  }
  return out;
}

/// The keys of Thrust's scan-by-key tests (TestExclusiveScanByKeyInPlace): ints 0, 0, ..., 1, 1, ...,
/// a new key after about one element in ten.
inline std::vector<std::int32_t> thrust_test_keys(std::size_t n, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::int32_t> k(n);
  std::int32_t key = 0;
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = key;
    if (g() % 10 == 0) ++key;
  }
  return k;
}

/// One (first key, op-fold of the values) per run, accumulated in Acc.
template <class Acc, class K, class V, class Eq, class Op>
std::pair<std::vector<K>, std::vector<Acc>> ref_reduce_by_key(const std::vector<K>& keys, const std::vector<V>& v, Eq eq,
                                                              Op op) {
  std::pair<std::vector<K>, std::vector<Acc>> r;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) {
      r.first.push_back(keys[i]);
      r.second.push_back(static_cast<Acc>(v[i]));
    } else {
      r.second.back() = static_cast<Acc>(op(r.second.back(), v[i]));
    }
  }
  return r;
}

/// out[k] = init op x[o[k]] op ... op x[o[k+1]-1] (init for an empty segment).
template <class Acc, class T, class O, class Op>
std::vector<Acc> ref_segmented_reduce(const std::vector<T>& x, const std::vector<O>& o, Acc init, Op op) {
  std::vector<Acc> out;
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    Acc acc = init;
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i)
      acc = static_cast<Acc>(op(acc, x[static_cast<std::size_t>(i)]));
    out.push_back(acc);
  }
  return out;
}

/// `base` (the output before the call) with out[i] = x[start] op ... op x[i] for i in each segment.
template <class Acc, class T, class O, class Op>
std::vector<Acc> ref_segmented_inclusive_scan(const std::vector<T>& x, const std::vector<O>& o, Op op, std::vector<Acc> base) {
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i) {
      const auto u = static_cast<std::size_t>(i);
      base[u] = i == static_cast<std::int64_t>(o[k]) ? static_cast<Acc>(x[u]) : static_cast<Acc>(op(base[u - 1], x[u]));
    }
  }
  return base;
}

/// The same with init: out[i] = init op x[start] op ... op x[i].
template <class Acc, class T, class O, class Op>
std::vector<Acc> ref_segmented_inclusive_scan(const std::vector<T>& x, const std::vector<O>& o, Op op, Acc init,
                                              std::vector<Acc> base) {
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    Acc acc = init;
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i) {
      acc = static_cast<Acc>(op(acc, x[static_cast<std::size_t>(i)]));
      base[static_cast<std::size_t>(i)] = acc;
    }
  }
  return base;
}

/// out[i] = init at a segment's first element, then init op x[start] op ... op x[i-1].
template <class Acc, class T, class O, class Op>
std::vector<Acc> ref_segmented_exclusive_scan(const std::vector<T>& x, const std::vector<O>& o, Acc init, Op op,
                                              std::vector<Acc> base) {
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    Acc acc = init;
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i) {
      base[static_cast<std::size_t>(i)] = acc;
      acc = static_cast<Acc>(op(acc, x[static_cast<std::size_t>(i)]));
    }
  }
  return base;
}

// ==== float tolerance scales ======================================================================
/// Per position: |init| + sum of |v| over the segment up to i (segments start where
/// !eq(keys[i-1], keys[i])): the scale a float scan by key is compared with.
template <class K, class V, class Eq>
std::vector<double> by_key_scale(const std::vector<K>& keys, const std::vector<V>& v, Eq eq, double init_abs = 0.0) {
  std::vector<double> s(v.size());
  double acc = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) acc = init_abs;
    acc += std::fabs(static_cast<double>(v[i]));
    s[i] = acc;
  }
  return s;
}

/// Per position (the whole output, 1.0 outside the segments): |init| + sum of |x| over the segment up to i.
template <class T, class O>
std::vector<double> segmented_scale(const std::vector<T>& x, const std::vector<O>& o, std::size_t out_size,
                                    double init_abs = 0.0) {
  std::vector<double> s(out_size, 1.0);
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    double acc = init_abs;
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i) {
      acc += std::fabs(static_cast<double>(x[static_cast<std::size_t>(i)]));
      s[static_cast<std::size_t>(i)] = acc;
    }
  }
  return s;
}

/// Per segment: |init| + sum of |x| over the segment (segmented_reduce of floats).
template <class T, class O>
std::vector<double> segment_sums_scale(const std::vector<T>& x, const std::vector<O>& o, double init_abs = 0.0) {
  std::vector<double> s;
  for (std::size_t k = 0; k + 1 < o.size(); ++k) {
    double acc = init_abs;
    for (auto i = static_cast<std::int64_t>(o[k]); i < static_cast<std::int64_t>(o[k + 1]); ++i)
      acc += std::fabs(static_cast<double>(x[static_cast<std::size_t>(i)]));
    s.push_back(acc);
  }
  return s;
}

}  // namespace algo_test::seg
