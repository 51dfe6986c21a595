// Shared by the host tests (test/host/*.cpp, test/host_thrust/*.cpp): the policies and sizes every
// check runs over, what each value type is tested with, and comparison helpers. Plain C++: no CUDA.
//
// Policies: algo::seq, algo::par (OpenMP's default team) and algo::par.with_threads(k) for
// k = 1, 2, 3, 7 (7 oversubscribes a small machine: threads lose their core in the middle of a
// tile, which exercises par's look-back when a tile's owner is late).
// Sizes: 0, 1, 2, 31, 32, 33, 1023, 1024, 1025, and m*T-1, m*T, m*T+1 for par's tile T
// (detail::host::scan_block_elements) with m = 1, 2, 3, 7, 14 (the thread counts times one or two
// tiles; par's reduce tile is 2T), and random sizes up to 8 tiles; large_sizes() adds a few million
// (run for a few types and policies, to keep the tests quick).
#pragma once

#include <algo/algo.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "specs.hpp"
#include "test_types.hpp"

namespace host_test {
using namespace algo_test;

// ==== a user struct with operator+ (the overloads without an operator use plus) ===============
struct pt {
  std::int64_t x, y;
};
inline pt operator+(const pt& a, const pt& b) { return pt{a.x + b.x, a.y + b.y}; }
inline bool operator==(const pt& a, const pt& b) { return a.x == b.x && a.y == b.y; }
inline bool operator!=(const pt& a, const pt& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& os, const pt& p) { return os << "pt{" << p.x << ", " << p.y << "}"; }

}  // namespace host_test

namespace algo_test {
template <>
struct random_value<host_test::pt> {
  host_test::pt operator()(rng_t& g) const {
    return host_test::pt{random_int_nonzero<std::int64_t>(g, -1000, 1000), random_int_nonzero<std::int64_t>(g, -1000, 1000)};
  }
};
template <>
struct type_name<host_test::pt> {
  static constexpr const char* value = "pt";
};
}  // namespace algo_test

namespace host_test {

// ==== what each value type is tested with =====================================================
/// Changes a value visibly (a transform for transform_reduce).
struct tweak {
  std::int64_t operator()(std::int32_t x) const { return 3 * std::int64_t(x) + 1; }
  std::int64_t operator()(std::uint8_t x) const { return std::int64_t(x) * x; }
  float operator()(float x) const { return 2.0f * x - 0.5f; }
  double operator()(double x) const { return 2.0 * x - 0.5; }
  pt operator()(const pt& p) const { return pt{p.y, -p.x}; }
  mat2i operator()(const mat2i& m) const { return mat2i{m.m00, m.m10, m.m01, m.m11}; }  // transposed
  affine_i operator()(const affine_i& f) const { return affine_i{f.a, wrap_add(f.b, 7)}; }
  affine operator()(const affine& f) const { return affine{f.a, -f.b}; }
  big32 operator()(const big32& m) const { return big32{m.m00, m.m10, m.m01, m.m11}; }
};

/// spec<T>: acc, the accumulator of the forms with init; op, the custom operator (non-commutative
/// for the user types); plus, whether the forms without an operator apply (spec_row, specs.hpp).
/// The user types (affine, affine_i, mat2i, big32) as in every table; one row for each other type.
template <class T>
struct spec : user_spec<T> {};
template <> struct spec<std::int32_t> : spec_row<std::int32_t, take_right, true> {};
template <> struct spec<std::uint8_t> : spec_row<std::int64_t, algo::plus<>, true> {};  // int64 acc (through init)
template <> struct spec<float> : spec_row<float, algo::plus<>, true> {};
template <> struct spec<double> : spec_row<double, algo::plus<>, true> {};
template <> struct spec<pt> : spec_row<pt, std::plus<pt>, true> {};

/// The type host references accumulate in: wider for floating point.
template <class T>
using ref_t = std::conditional_t<std::is_same<T, float>::value, double,
                                 std::conditional_t<std::is_same<T, double>::value, long double, T>>;

// ==== policies and sizes ========================================================================
/// Calls f(policy) for seq, par and par.with_threads(t) for each t in `threads` (INFO names the policy).
template <class F>
void for_seq_par_and_threads(std::initializer_list<int> threads, F&& f) {
  {
    INFO("policy: algo::seq");
    f(algo::seq);
  }
  {
    INFO("policy: algo::par");
    f(algo::par);
  }
  for (int t : threads) {
    INFO("policy: algo::par.with_threads(" << t << ")");
    f(algo::par.with_threads(t));
  }
}

/// Calls f(policy) for seq, par and par with 1, 2, 3, 7 threads (INFO names the policy).
template <class F>
void for_each_policy(F&& f) {
  for_seq_par_and_threads({1, 2, 3, 7}, f);
}

/// Fewer policies: seq, par, par with 3 threads (large sizes, the comparisons against Thrust).
template <class F>
void for_each_policy_few(F&& f) {
  for_seq_par_and_threads({3}, f);
}

inline std::vector<std::int64_t> host_sizes(std::uint64_t seed = 7) {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  std::vector<std::int64_t> s{0, 1, 2, 31, 32, 33, 1023, 1024, 1025};
  for (std::int64_t m : {1, 2, 3, 7, 14})
    for (std::int64_t d : {-1, 0, 1}) s.push_back(m * T + d);
  for (std::int64_t v : random_sizes(4, 2, 8 * T, seed)) s.push_back(v);
  return s;
}

/// Fewer sizes, for the slow types (float affine maps: their products sink into denormals).
inline std::vector<std::int64_t> few_sizes() {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  return {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, T - 1, T, T + 1, 2 * T + 1, 3 * T - 1};
}

inline std::vector<std::int64_t> large_sizes() { return {(std::int64_t(1) << 22) + 1, 3000017}; }

// ==== a fancy iterator: 0, 1, 2, ... without memory ============================================
/// Random-access iterator over the integers (its reference is a value, like thrust's).
class counting_iterator {
 public:
  using value_type = std::int64_t;
  using reference = std::int64_t;
  using pointer = void;
  using difference_type = std::int64_t;
  using iterator_category = std::random_access_iterator_tag;

  counting_iterator() = default;
  explicit counting_iterator(std::int64_t i) : i_(i) {}
  std::int64_t operator*() const { return i_; }
  std::int64_t operator[](std::int64_t k) const { return i_ + k; }
  counting_iterator& operator++() { ++i_; return *this; }
  counting_iterator operator++(int) { auto t = *this; ++i_; return t; }
  counting_iterator& operator--() { --i_; return *this; }
  counting_iterator& operator+=(std::int64_t k) { i_ += k; return *this; }
  counting_iterator& operator-=(std::int64_t k) { i_ -= k; return *this; }
  friend counting_iterator operator+(counting_iterator a, std::int64_t k) { return a += k; }
  friend counting_iterator operator+(std::int64_t k, counting_iterator a) { return a += k; }
  friend counting_iterator operator-(counting_iterator a, std::int64_t k) { return a -= k; }
  friend std::int64_t operator-(const counting_iterator& a, const counting_iterator& b) { return a.i_ - b.i_; }
  friend bool operator==(const counting_iterator& a, const counting_iterator& b) { return a.i_ == b.i_; }
  friend bool operator!=(const counting_iterator& a, const counting_iterator& b) { return a.i_ != b.i_; }
  friend bool operator<(const counting_iterator& a, const counting_iterator& b) { return a.i_ < b.i_; }

 private:
  std::int64_t i_ = 0;
};

// ==== comparisons ===============================================================================
/// REQUIREs that one value matches (floats within tolerance<F>(n) of `scale`).
template <class T>
void require_value(const T& got, const T& want, double scale, std::int64_t n, const std::string& what) {
  INFO(what << ": got " << show(got) << ", want " << show(want) << " (n = " << n << ")");
  REQUIRE(same_value(got, want, scale, n));
}

/// REQUIREs that got equals want element by element (floats within tolerance scaled by scale[i]);
/// on failure says where and what.
template <class T>
void require_equal(const std::vector<T>& got, const std::vector<T>& want, const std::vector<double>* scale,
                   const std::string& what) {
  const std::int64_t i = first_mismatch(got, want, scale);
  if (i >= 0 && i < static_cast<std::int64_t>(got.size()) && i < static_cast<std::int64_t>(want.size())) {
    INFO(what << ": first mismatch at index " << i << " of " << want.size() << ": got " << show(got[i])
              << ", want " << show(want[i]));
    REQUIRE(i == -1);
  }
  INFO(what << ": sizes " << got.size() << " vs " << want.size());
  REQUIRE(i == -1);
}

/// A reference computed in R (wider), converted back to T.
template <class T, class R>
std::vector<T> narrow(const std::vector<R>& r) {
  std::vector<T> out;
  out.reserve(r.size());
  for (const R& x : r) out.push_back(static_cast<T>(x));
  return out;
}

/// Scale for comparing scans of T: running sum of |x| for arithmetic types (floats), none otherwise.
template <class T>
std::vector<double> scan_scale(const std::vector<T>& in, double init_abs) {
  if constexpr (std::is_arithmetic<T>::value) return abs_scan_scale(in, init_abs);
  else return std::vector<double>(in.size(), 1.0);
}

}  // namespace host_test
