// Value types, operators, random data and host references shared by every test (host and device).
//
//   affine      float map x -> a*x + b           compose_affine: apply left, then right (non-commutative)
//   affine_i    the same over int32, wrapping     exact, so device results compare with ==
//   mat2i       2x2 int32 matrix, wrapping        mat2_mul: matrix product (non-commutative)
//   big32       2x2 uint64 matrix (32 bytes)      big32_mul: matrix product (non-commutative)
//   take_right  (a, b) -> b                       associative, not commutative: a fold gives the last
//
// Everything here is plain C++ (usable from test/host/*.cpp without CUDA); under nvcc the types
// and operators are __host__ __device__ through ALGO_HD. Wrapping arithmetic goes through unsigned
// integers (no signed-overflow UB).
//
// Random data never contains zeros, and the generators keep the structures "alive" over millions
// of elements: affine_i's a and mat2i/big32's determinants are odd (units mod 2^k), so products
// never collapse to 0 and a misordered or dropped element far from the end still changes the result.
#pragma once

#include <algo/detail/config.hpp>  // ALGO_HD

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <type_traits>
#include <vector>

namespace algo_test {

// ---- wrapping int32 arithmetic --------------------------------------------------------------
ALGO_HD inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
ALGO_HD inline std::int32_t wrap_sub(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
ALGO_HD inline std::int32_t wrap_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// ==== affine (float) ==========================================================================
/// The map x -> a*x + b.
struct affine {
  float a, b;
  ALGO_HD float operator()(float x) const { return a * x + b; }
};
ALGO_HD inline bool operator==(const affine& l, const affine& r) { return l.a == r.a && l.b == r.b; }
ALGO_HD inline bool operator!=(const affine& l, const affine& r) { return !(l == r); }
inline std::ostream& operator<<(std::ostream& os, const affine& f) {
  return os << "affine{" << f.a << ", " << f.b << "}";
}

/// compose_affine(f, g) = "apply f, then g": x -> g.a*(f.a*x + f.b) + g.b. Associative, not commutative.
struct compose_affine {
  ALGO_HD affine operator()(const affine& f, const affine& g) const { return affine{f.a * g.a, g.a * f.b + g.b}; }
};

// ==== affine_i (int32, wrapping) ==============================================================
struct affine_i {
  std::int32_t a, b;
};
ALGO_HD inline bool operator==(const affine_i& l, const affine_i& r) { return l.a == r.a && l.b == r.b; }
ALGO_HD inline bool operator!=(const affine_i& l, const affine_i& r) { return !(l == r); }
inline std::ostream& operator<<(std::ostream& os, const affine_i& f) {
  return os << "affine_i{" << f.a << ", " << f.b << "}";
}

/// Apply left, then right, modulo 2^32.
struct compose_affine_i {
  ALGO_HD affine_i operator()(const affine_i& f, const affine_i& g) const {
    return affine_i{wrap_mul(f.a, g.a), wrap_add(wrap_mul(g.a, f.b), g.b)};
  }
};

// ==== mat2i (2x2 int32 matrix, wrapping) ======================================================
/// Row-major [[m00, m01], [m10, m11]].
struct mat2i {
  std::int32_t m00, m01, m10, m11;
};
ALGO_HD inline bool operator==(const mat2i& l, const mat2i& r) {
  return l.m00 == r.m00 && l.m01 == r.m01 && l.m10 == r.m10 && l.m11 == r.m11;
}
ALGO_HD inline bool operator!=(const mat2i& l, const mat2i& r) { return !(l == r); }
inline std::ostream& operator<<(std::ostream& os, const mat2i& m) {
  return os << "mat2i{" << m.m00 << ", " << m.m01 << "; " << m.m10 << ", " << m.m11 << "}";
}

/// Matrix product l * r modulo 2^32.
struct mat2_mul {
  ALGO_HD mat2i operator()(const mat2i& l, const mat2i& r) const {
    return mat2i{wrap_add(wrap_mul(l.m00, r.m00), wrap_mul(l.m01, r.m10)),
                 wrap_add(wrap_mul(l.m00, r.m01), wrap_mul(l.m01, r.m11)),
                 wrap_add(wrap_mul(l.m10, r.m00), wrap_mul(l.m11, r.m10)),
                 wrap_add(wrap_mul(l.m10, r.m01), wrap_mul(l.m11, r.m11))};
  }
};

// ==== big32 (32 bytes: 2x2 uint64 matrix, wrapping) ===========================================
struct big32 {
  std::uint64_t m00, m01, m10, m11;
};
static_assert(sizeof(big32) == 32, "big32 must be 32 bytes");
ALGO_HD inline bool operator==(const big32& l, const big32& r) {
  return l.m00 == r.m00 && l.m01 == r.m01 && l.m10 == r.m10 && l.m11 == r.m11;
}
ALGO_HD inline bool operator!=(const big32& l, const big32& r) { return !(l == r); }
inline std::ostream& operator<<(std::ostream& os, const big32& m) {
  return os << "big32{" << m.m00 << ", " << m.m01 << "; " << m.m10 << ", " << m.m11 << "}";
}

/// Matrix product l * r modulo 2^64.
struct big32_mul {
  ALGO_HD big32 operator()(const big32& l, const big32& r) const {
    return big32{l.m00 * r.m00 + l.m01 * r.m10, l.m00 * r.m01 + l.m01 * r.m11,
                 l.m10 * r.m00 + l.m11 * r.m10, l.m10 * r.m01 + l.m11 * r.m11};
  }
};

// ==== take_right ==============================================================================
/// (a, b) -> b: associative, not commutative. A left fold yields the last element.
struct take_right {
  template <class T>
  ALGO_HD T operator()(const T&, const T& b) const { return b; }
};

// ==== function objects whose operator() is not const ==========================================
// Thrust's examples write their functors this way (bounding_box's bbox_union, monte_carlo's
// estimate_pi, max_abs_diff's abs_diff) and Thrust accepts them; these are the same kinds.

/// An axis-aligned integer box [x0, x1] x [y0, y1].
struct box {
  std::int32_t x0, y0, x1, y1;
};
ALGO_HD inline bool operator==(const box& l, const box& r) {
  return l.x0 == r.x0 && l.y0 == r.y0 && l.x1 == r.x1 && l.y1 == r.y1;
}
ALGO_HD inline bool operator!=(const box& l, const box& r) { return !(l == r); }
inline std::ostream& operator<<(std::ostream& os, const box& b) {
  return os << "box{" << b.x0 << ", " << b.y0 << ", " << b.x1 << ", " << b.y1 << "}";
}

/// The smallest box holding both (associative, commutative). operator() is not const.
struct box_union {
  ALGO_HD box operator()(const box& a, const box& b) {
    return box{a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 < b.x1 ? b.x1 : a.x1,
               a.y1 < b.y1 ? b.y1 : a.y1};
  }
};

/// The point an int32 stands for, as a box of one point. operator() is not const.
struct point_box {
  ALGO_HD box operator()(std::int32_t v) {
    const std::int32_t x = v % 1009, y = (v / 1009) % 1013;
    return box{x, y, x, y};
  }
};

/// 1 when the hashed point of index i in [0, 2^16)^2 lies in the quarter disc of radius 2^16, else 0
/// (estimate_pi's kind: sum over n indices ~ n*pi/4). operator() is not const.
struct in_quarter_disc {
  ALGO_HD std::int32_t operator()(std::int64_t i) {
    std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    const std::uint64_t x = h & 0xffff, y = (h >> 16) & 0xffff;
    return x * x + y * y < (std::uint64_t(1) << 32) ? 1 : 0;
  }
};

/// |a - b| in 64 bits (max_abs_diff's kind). operator() is not const.
struct abs_diff_i {
  ALGO_HD std::int64_t operator()(const std::int32_t& a, const std::int32_t& b) {
    const std::int64_t d = std::int64_t(a) - std::int64_t(b);
    return d < 0 ? -d : d;
  }
};

/// a + b in 64 bits, counting its calls in a member (a function object that changes itself).
struct counting_plus {
  std::int64_t calls = 0;
  ALGO_HD std::int64_t operator()(std::int64_t a, std::int64_t b) {
    ++calls;
    return a + b;
  }
};

/// compose_affine_i with a non-const operator() (associative, not commutative).
struct compose_affine_i_mutable {
  ALGO_HD affine_i operator()(const affine_i& f, const affine_i& g) { return compose_affine_i{}(f, g); }
};

// ==== names (for INFO / CAPTURE) ==============================================================
template <class T> struct type_name { static constexpr const char* value = "?"; };
template <> struct type_name<std::int8_t> { static constexpr const char* value = "int8"; };
template <> struct type_name<std::uint8_t> { static constexpr const char* value = "uint8"; };
template <> struct type_name<std::int16_t> { static constexpr const char* value = "int16"; };
template <> struct type_name<std::uint16_t> { static constexpr const char* value = "uint16"; };
template <> struct type_name<std::int32_t> { static constexpr const char* value = "int32"; };
template <> struct type_name<std::uint32_t> { static constexpr const char* value = "uint32"; };
template <> struct type_name<std::int64_t> { static constexpr const char* value = "int64"; };
template <> struct type_name<std::uint64_t> { static constexpr const char* value = "uint64"; };
template <> struct type_name<float> { static constexpr const char* value = "float"; };
template <> struct type_name<double> { static constexpr const char* value = "double"; };
template <> struct type_name<affine> { static constexpr const char* value = "affine"; };
template <> struct type_name<affine_i> { static constexpr const char* value = "affine_i"; };
template <> struct type_name<mat2i> { static constexpr const char* value = "mat2i"; };
template <> struct type_name<big32> { static constexpr const char* value = "big32"; };
template <> struct type_name<box> { static constexpr const char* value = "box"; };
template <class T>
inline constexpr const char* type_name_v = type_name<T>::value;

/// x as it should be printed: 1-byte integers as numbers, not characters.
template <class T>
auto show(const T& x) {
  if constexpr (std::is_integral<T>::value && sizeof(T) == 1) return static_cast<int>(x);
  else return x;
}

// ==== random data =============================================================================
using rng_t = std::mt19937_64;

/// One random value of T, never zero. Integers are small enough that int32 sums of a few million
/// stay in range (|x| <= 300); floats have magnitude in [0.25, 1] with either sign.
template <class T>
struct random_value;

template <class T>
T random_int_nonzero(rng_t& g, std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  for (;;) {
    const std::int64_t v = d(g);
    if (v != 0) return static_cast<T>(v);
  }
}

template <>
struct random_value<std::int32_t> {
  std::int32_t operator()(rng_t& g) const { return random_int_nonzero<std::int32_t>(g, -300, 300); }
};
template <>
struct random_value<std::int64_t> {
  std::int64_t operator()(rng_t& g) const { return random_int_nonzero<std::int64_t>(g, -(1 << 20), 1 << 20); }
};
template <>
struct random_value<std::uint32_t> {
  std::uint32_t operator()(rng_t& g) const { return random_int_nonzero<std::uint32_t>(g, 1, 1000); }
};
template <>
struct random_value<std::uint8_t> {
  std::uint8_t operator()(rng_t& g) const { return random_int_nonzero<std::uint8_t>(g, 1, 255); }
};
template <>
struct random_value<std::int8_t> {
  std::int8_t operator()(rng_t& g) const { return random_int_nonzero<std::int8_t>(g, -128, 127); }
};
template <>
struct random_value<std::uint16_t> {
  std::uint16_t operator()(rng_t& g) const { return random_int_nonzero<std::uint16_t>(g, 1, 65535); }
};
template <>
struct random_value<std::uint64_t> {
  std::uint64_t operator()(rng_t& g) const {
    for (;;) {
      const std::uint64_t v = g();
      if (v != 0) return v;
    }
  }
};

template <class F>
F random_magnitude_signed(rng_t& g) {
  std::uniform_real_distribution<F> mag(F(0.25), F(1));
  const F m = mag(g);
  return (g() & 1) ? m : -m;
}
template <>
struct random_value<float> {
  float operator()(rng_t& g) const { return random_magnitude_signed<float>(g); }
};
template <>
struct random_value<double> {
  double operator()(rng_t& g) const { return random_magnitude_signed<double>(g); }
};

/// Contractive maps (a in [0.5, 1), b in +-[0.25, 1]): compositions of millions stay bounded
/// (|b| <= ~2), so float round-off stays comparable across evaluation orders.
template <>
struct random_value<affine> {
  affine operator()(rng_t& g) const {
    std::uniform_real_distribution<float> da(0.5f, 1.0f);
    const float a = da(g);
    return affine{a, random_magnitude_signed<float>(g)};
  }
};

/// a odd (a unit mod 2^32, so products never collapse), b any non-zero.
template <>
struct random_value<affine_i> {
  affine_i operator()(rng_t& g) const {
    const auto a = static_cast<std::int32_t>(static_cast<std::uint32_t>(g()) | 1u);
    const auto b = static_cast<std::int32_t>(random_value<std::uint64_t>{}(g) | 2u);
    return affine_i{a, b};
  }
};

/// Diagonal odd, one off-diagonal even: odd determinant, so the matrix is invertible mod 2^32
/// and products never collapse. Which off-diagonal is even is random (keeps it non-triangular mod 2
/// over a product).
template <>
struct random_value<mat2i> {
  mat2i operator()(rng_t& g) const {
    auto r = [&] { return static_cast<std::uint32_t>(g()) | 0x100u; };  // never zero
    const std::uint32_t m00 = r() | 1u, m11 = r() | 1u;
    std::uint32_t m01 = r(), m10 = r();
    if (g() & 1) m01 &= ~1u; else m10 &= ~1u;
    return mat2i{static_cast<std::int32_t>(m00), static_cast<std::int32_t>(m01), static_cast<std::int32_t>(m10),
                 static_cast<std::int32_t>(m11)};
  }
};

template <>
struct random_value<big32> {
  big32 operator()(rng_t& g) const {
    auto r = [&] { return g() | 0x100u; };  // never zero
    big32 m{r() | 1u, r(), r(), r() | 1u};
    if (g() & 1) m.m01 &= ~std::uint64_t(1); else m.m10 &= ~std::uint64_t(1);
    return m;
  }
};

/// n random values of T from a seeded std::mt19937_64 (same seed, same data).
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  rng_t g(seed);
  random_value<T> rv;
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(rv(g));
  return v;
}

/// One random value of T from a seed (handy for init values).
template <class T>
T random_scalar(std::uint64_t seed) {
  rng_t g(seed);
  return random_value<T>{}(g);
}

/// `count` random sizes in [lo, hi], reproducible from the seed.
inline std::vector<std::int64_t> random_sizes(std::size_t count, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  rng_t g(seed);
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> s;
  for (std::size_t i = 0; i < count; ++i) s.push_back(d(g));
  return s;
}

/// 0, 1, 31, 32, 33, 1023, 1024, 1025, each tile size t in `tiles` and t-1, t+1, 2t+1 of it,
/// then `random_count` random sizes up to 100000 (all reproducible from the seed).
inline std::vector<std::int64_t> standard_sizes(const std::vector<std::int64_t>& tiles = {},
                                                std::size_t random_count = 3, std::uint64_t seed = 2024) {
  std::vector<std::int64_t> s{0, 1, 31, 32, 33, 1023, 1024, 1025};
  for (std::int64_t t : tiles) {
    for (std::int64_t v : {t - 1, t, t + 1, 2 * t + 1}) {
      if (v >= 0) s.push_back(v);
    }
  }
  for (std::int64_t v : random_sizes(random_count, 2, 100000, seed)) s.push_back(v);
  return s;
}

// ==== hashed values (host and device: fancy-iterator inputs) ===================================
/// splitmix64: a well-mixed 64-bit hash of x.
ALGO_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// hashed_value<T>{seed}(i): a pseudo-random T for index i, computed the same way on host and
/// device, with the same ranges as random_value<T> (never zero). Meant for
/// thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), hashed_value<T>{seed}).
template <class T>
struct hashed_value {
  std::uint64_t seed = 1;

  ALGO_HD T operator()(std::int64_t i) const {
    const std::uint64_t h = splitmix64(seed * 0x2545f4914f6cdd1dull + static_cast<std::uint64_t>(i));
    if constexpr (std::is_same<T, std::uint8_t>::value) {
      return static_cast<T>(1 + h % 255);
    } else if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
      const auto m = static_cast<T>(1 + (h >> 1) % 300);  // |x| in [1, 300]
      return (h & 1) ? m : static_cast<T>(-m);
    } else if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(1 + h % 1000);
    } else if constexpr (std::is_floating_point<T>::value) {
      const T u = static_cast<T>(static_cast<double>(h >> 11) * 0x1p-53);  // [0, 1)
      const T m = T(0.25) + T(0.75) * u;
      return (h & 1) ? m : -m;
    } else if constexpr (std::is_same<T, affine>::value) {
      const float u = static_cast<float>(static_cast<double>(h >> 40) * 0x1p-24);
      const float v = 0.25f + 0.75f * static_cast<float>(static_cast<double>((h >> 8) & 0xffffff) * 0x1p-24);
      return affine{0.5f + 0.5f * u, (h & 1) ? v : -v};
    } else if constexpr (std::is_same<T, affine_i>::value) {
      return affine_i{static_cast<std::int32_t>(static_cast<std::uint32_t>(h) | 1u),
                      static_cast<std::int32_t>(static_cast<std::uint32_t>(h >> 32) | 2u)};
    } else if constexpr (std::is_same<T, mat2i>::value) {
      const std::uint64_t h2 = splitmix64(h);
      std::uint32_t m00 = static_cast<std::uint32_t>(h) | 0x101u, m01 = static_cast<std::uint32_t>(h >> 32) | 0x100u;
      std::uint32_t m10 = static_cast<std::uint32_t>(h2) | 0x100u, m11 = static_cast<std::uint32_t>(h2 >> 32) | 0x101u;
      if (h2 & 2) m01 &= ~1u; else m10 &= ~1u;  // odd determinant
      return mat2i{static_cast<std::int32_t>(m00), static_cast<std::int32_t>(m01), static_cast<std::int32_t>(m10),
                   static_cast<std::int32_t>(m11)};
    } else {
      static_assert(std::is_same<T, big32>::value, "hashed_value: unsupported type");
      const std::uint64_t h2 = splitmix64(h), h3 = splitmix64(h2), h4 = splitmix64(h3);
      big32 m{h | 0x101u, h2 | 0x100u, h3 | 0x100u, h4 | 0x101u};
      if (h4 & 2) m.m01 &= ~std::uint64_t(1); else m.m10 &= ~std::uint64_t(1);
      return m;
    }
  }
};

/// The host copy of what hashed_value<T>{seed} yields for 0 .. n-1.
template <class T>
std::vector<T> hashed_vector(std::size_t n, std::uint64_t seed) {
  hashed_value<T> f{seed};
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(f(static_cast<std::int64_t>(i)));
  return v;
}

// ==== host references (sequential, left to right) =============================================
/// init op in[0] op in[1] ... (the order every algo policy must reproduce).
template <class Acc, class It, class Op>
Acc ref_fold(It first, It last, Acc init, Op op) {
  for (; first != last; ++first) init = static_cast<Acc>(op(init, *first));
  return init;
}
template <class Acc, class T, class Op>
Acc ref_fold(const std::vector<T>& in, Acc init, Op op) {
  return ref_fold(in.begin(), in.end(), init, op);
}

/// out[i] = in[0] op ... op in[i], accumulated in Acc.
template <class Acc, class T, class Op>
std::vector<Acc> ref_inclusive_scan(const std::vector<T>& in, Op op) {
  std::vector<Acc> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    out.push_back(i == 0 ? static_cast<Acc>(in[0]) : static_cast<Acc>(op(out.back(), in[i])));
  return out;
}
/// out[i] = init op in[0] op ... op in[i], accumulated in Acc.
template <class Acc, class T, class Op>
std::vector<Acc> ref_inclusive_scan(const std::vector<T>& in, Op op, Acc init) {
  std::vector<Acc> out;
  out.reserve(in.size());
  Acc acc = init;
  for (const T& x : in) {
    acc = static_cast<Acc>(op(acc, x));
    out.push_back(acc);
  }
  return out;
}
/// out[0] = init, out[i] = init op in[0] op ... op in[i-1], accumulated in Acc.
template <class Acc, class T, class Op>
std::vector<Acc> ref_exclusive_scan(const std::vector<T>& in, Acc init, Op op) {
  std::vector<Acc> out;
  out.reserve(in.size());
  Acc acc = init;
  for (const T& x : in) {
    out.push_back(acc);
    acc = static_cast<Acc>(op(acc, x));
  }
  return out;
}

/// Row-major rows x cols -> row-major cols x rows.
template <class T>
std::vector<T> ref_transpose(const std::vector<T>& in, std::int64_t rows, std::int64_t cols) {
  std::vector<T> out(in.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out[static_cast<std::size_t>(c * rows + r)] = in[static_cast<std::size_t>(r * cols + c)];
  return out;
}

// ==== comparisons =============================================================================
/// Relative tolerance for a floating-point result built from n terms in an unknown order:
/// round-off of a tree or blocked evaluation grows about like sqrt(n) ulps on random data, with a
/// floor for small n. Compare |got - want| <= tolerance<F>(n) * scale, where scale bounds the
/// magnitudes involved (e.g. the running sum of |x|, see abs_scan_scale).
template <class F>
double tolerance(std::int64_t n) {
  const double eps = std::numeric_limits<F>::epsilon();
  return eps * (16.0 + 4.0 * std::sqrt(static_cast<double>(n < 1 ? 1 : n)));
}

/// True when got and want agree within tolerance<F>(n) relative to max(scale, |want|, tiny).
template <class F>
bool approx_equal(double got, double want, double scale, std::int64_t n) {
  const double s = std::fmax(std::fmax(std::fabs(scale), std::fabs(want)), 1e-30);
  return std::fabs(got - want) <= tolerance<F>(n) * s;
}

/// Integers and user types compare exactly; float/double within tolerance<F>(n) * scale;
/// affine compares both coefficients with the float tolerance (scale 1: random affine maps are bounded).
template <class T>
bool same_value(const T& got, const T& want, double scale, std::int64_t n) {
  if constexpr (std::is_floating_point<T>::value) {
    return approx_equal<T>(static_cast<double>(got), static_cast<double>(want), scale, n);
  } else if constexpr (std::is_same<T, affine>::value) {
    return approx_equal<float>(got.a, want.a, 1.0, n) && approx_equal<float>(got.b, want.b, 1.0, n);
  } else {
    (void)scale;
    (void)n;
    return got == want;
  }
}

/// Running sum of |x| (in double), a scale for comparing float scans: out[i] ~ sum_{k<=i} |x_k| (+|init|).
template <class T>
std::vector<double> abs_scan_scale(const std::vector<T>& in, double init_abs = 0.0) {
  std::vector<double> s;
  s.reserve(in.size());
  double acc = init_abs;
  for (const T& x : in) {
    if constexpr (std::is_arithmetic<T>::value) acc += std::fabs(static_cast<double>(x));
    else acc += 1.0;
    s.push_back(acc);
  }
  return s;
}

/// Index of the first element where got and want differ (same_value; scale[i] when given), or -1.
template <class T>
std::int64_t first_mismatch(const std::vector<T>& got, const std::vector<T>& want,
                            const std::vector<double>* scale = nullptr) {
  const std::size_t n = got.size() < want.size() ? got.size() : want.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double s = scale ? (*scale)[i] : 1.0;
    if (!same_value(got[i], want[i], s, static_cast<std::int64_t>(want.size()))) return static_cast<std::int64_t>(i);
  }
  if (got.size() != want.size()) return static_cast<std::int64_t>(n);
  return -1;
}

}  // namespace algo_test
