// What group_reduce needs to know about an operator and an accumulator type, shared by every
// backend (plain C++: the host tests include it):
//   op_family_of<Op, Acc>     plus / minimum / maximum / bit_and / bit_or / bit_xor (algo's, std's,
//                             libcu++'s and Thrust's function objects, transparent or on Acc), or other
//   combine_kind_of<...>      how the device table combines a value into a slot (native atomic,
//                             compare-and-swap loop, exact fixed-point sum, per-slot lock)
//   exact_sum<F>              the exact accumulator of the deterministic strategy: a float or
//                             double sum kept as fixed-point integer limbs covering the whole
//                             exponent range, so that adding in any order gives the same bits,
//                             rounded once (to nearest, ties to even) at the end
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

#include "../../functional.hpp"
#include "../config.hpp"

namespace algo::detail::group {

// ---- operator families -------------------------------------------------------------------------
enum class op_family { plus, minimum, maximum, bit_and, bit_or, bit_xor, other };

template <template <class> class Want, class Op, class Acc>
struct is_op_on : std::false_type {};
template <template <class> class Want, template <class> class Op, class U, class Acc>
struct is_op_on<Want, Op<U>, Acc>
    : std::bool_constant<std::is_same<Op<U>, Want<U>>::value && (std::is_void<U>::value || std::is_same<U, Acc>::value)> {};

template <class Op, class Acc, template <class> class... Want>
inline constexpr bool any_op_on_v = (is_op_on<Want, Op, Acc>::value || ...);

template <class Op, class Acc>
ALGO_HD constexpr op_family op_family_of() {
  if constexpr (is_plus_on_v<Op, Acc>) {
    return op_family::plus;
  } else if constexpr (any_op_on_v<Op, Acc, algo::minimum
#if ALGO_HAS_CUDA_MINMAX
                                   , ::cuda::minimum
#endif
#if ALGO_HAS_THRUST_FUNCTIONAL
                                   , ::thrust::minimum
#endif
                                   >) {
    return op_family::minimum;
  } else if constexpr (any_op_on_v<Op, Acc, algo::maximum
#if ALGO_HAS_CUDA_MINMAX
                                   , ::cuda::maximum
#endif
#if ALGO_HAS_THRUST_FUNCTIONAL
                                   , ::thrust::maximum
#endif
                                   >) {
    return op_family::maximum;
  } else if constexpr (any_op_on_v<Op, Acc, algo::bit_and, std::bit_and
#if ALGO_HAS_CCCL
                                   , ::cuda::std::bit_and
#endif
                                   >) {
    return op_family::bit_and;
  } else if constexpr (any_op_on_v<Op, Acc, algo::bit_or, std::bit_or
#if ALGO_HAS_CCCL
                                   , ::cuda::std::bit_or
#endif
                                   >) {
    return op_family::bit_or;
  } else if constexpr (any_op_on_v<Op, Acc, algo::bit_xor, std::bit_xor
#if ALGO_HAS_CCCL
                                   , ::cuda::std::bit_xor
#endif
                                   >) {
    return op_family::bit_xor;
  } else {
    return op_family::other;
  }
}

// ---- how the device table combines values ---------------------------------------------------------
/// native      atomicAdd / atomicMin / atomicMax / atomicAnd / atomicOr / atomicXor on the slot
/// cas_ident   a compare-and-swap loop from a known identity (minimum / maximum of float, double)
/// exact       exact_sum<Acc> with integer atomics on its limbs (deterministic float / double sums)
/// cas         a compare-and-swap loop on a 4- or 8-byte accumulator; the first value is written by
///             the thread that claims the slot (no identity needed)
/// locked      a per-slot lock around op (accumulators of other sizes)
enum class combine_kind { native, cas_ident, exact, cas, locked };

template <class Acc>
inline constexpr bool is_word_integer_v =
    std::is_integral<Acc>::value && !std::is_same<Acc, bool>::value && (sizeof(Acc) == 4 || sizeof(Acc) == 8);
template <class Acc>
inline constexpr bool is_word_float_v = std::is_same<Acc, float>::value || std::is_same<Acc, double>::value;

template <class Op, class Acc, bool Deterministic>
ALGO_HD constexpr combine_kind combine_kind_of() {
  constexpr op_family f = op_family_of<Op, Acc>();
  if constexpr (f == op_family::plus && is_word_float_v<Acc>) {
    return Deterministic ? combine_kind::exact : combine_kind::native;
  } else if constexpr (f != op_family::other && is_word_integer_v<Acc>) {
    return combine_kind::native;
  } else if constexpr ((f == op_family::minimum || f == op_family::maximum) && is_word_float_v<Acc>) {
    return combine_kind::cas_ident;
  } else if constexpr (std::is_trivially_copyable<Acc>::value && (sizeof(Acc) == 4 || sizeof(Acc) == 8) &&
                       alignof(Acc) >= sizeof(Acc) / 2) {
    return combine_kind::cas;
  } else {
    return combine_kind::locked;
  }
}

/// The deterministic strategy's promise holds when every combination is exact: integer
/// accumulators (any commutative operator), floating-point sums (exact_sum), minimum / maximum.
template <class Op, class Acc>
inline constexpr bool deterministic_supported_v =
    std::is_integral<Acc>::value || (is_word_float_v<Acc> && (op_family_of<Op, Acc>() == op_family::plus ||
                                                              op_family_of<Op, Acc>() == op_family::minimum ||
                                                              op_family_of<Op, Acc>() == op_family::maximum));

/// The largest value of T (+inf for floating point) and the lowest (-inf), usable in device code
/// without --expt-relaxed-constexpr (std::numeric_limits' functions are host functions there).
template <class T>
ALGO_HD inline T largest_of() {
  if constexpr (std::is_floating_point<T>::value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
    using B = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const B bits = sizeof(T) == 4 ? B(0x7f800000u) : B(0x7ff0000000000000ull);
    T t;
    memcpy(&t, &bits, sizeof(T));
    return t;
  } else if constexpr (std::is_signed<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(~U(0)) >> 1);
  } else {
    return static_cast<T>(~T(0));
  }
}
template <class T>
ALGO_HD inline T lowest_of() {
  if constexpr (std::is_floating_point<T>::value) return -largest_of<T>();
  else if constexpr (std::is_signed<T>::value) return static_cast<T>(-largest_of<T>() - 1);
  else return T(0);
}

/// The identity of a native / cas_ident combination (the value a fresh slot starts from).
template <class Op, class Acc>
ALGO_HD inline Acc identity_of() {
  constexpr op_family f = op_family_of<Op, Acc>();
  if constexpr (f == op_family::minimum) {
    return largest_of<Acc>();
  } else if constexpr (f == op_family::maximum) {
    return lowest_of<Acc>();
  } else if constexpr (f == op_family::bit_and) {
    return static_cast<Acc>(~static_cast<Acc>(0));
  } else {
    return Acc{};
  }
}

// ---- the exact sum ----------------------------------------------------------------------------------
/// IEEE binary32 / binary64 layout.
template <class F>
struct float_layout;
template <>
struct float_layout<float> {
  using bits = std::uint32_t;
  static constexpr int mant = 24;  // with the implicit bit
  static constexpr int exp_bits = 8;
  static constexpr int base = -149;  // the weight of the smallest subnormal
};
template <>
struct float_layout<double> {
  using bits = std::uint64_t;
  static constexpr int mant = 53;
  static constexpr int exp_bits = 11;
  static constexpr int base = -1074;
};

/// sum = (sum of limb[k] * 2^(32 k)) * 2^base, limbs signed 64-bit, each receiving 32-bit (float) or
/// 33-bit (double) pieces: at least 2^30 additions fit without overflow (group_reduce's
/// deterministic strategy refuses inputs of more records). `special`: 1 = +inf seen, 2 = -inf seen,
/// 4 = NaN seen.
template <class F>
struct exact_sum {
  using L = float_layout<F>;
  static constexpr int max_shift = (1 << L::exp_bits) - 3;  // the largest finite exponent field - 1
  static constexpr int limbs = (max_shift + L::mant + 31) / 32 + 1;
  long long limb[limbs];
  unsigned special;
};

/// The pieces one value adds: up to three consecutive limbs from `first` (deltas signed), or a
/// special flag.
struct exact_parts {
  int first;          // limb index of delta[0]; -1: nothing to add (zero or special)
  long long delta[3];
  unsigned special;
};

template <class F>
ALGO_HD inline exact_parts exact_split(F x) {
  using L = float_layout<F>;
  using B = typename L::bits;
  B u;
  memcpy(&u, &x, sizeof(F));
  constexpr int frac_bits = L::mant - 1;
  constexpr B exp_mask = (B(1) << L::exp_bits) - 1;
  const bool neg = (u >> (sizeof(F) * 8 - 1)) != 0;
  const int e = static_cast<int>((u >> frac_bits) & exp_mask);
  std::uint64_t m = static_cast<std::uint64_t>(u & ((B(1) << frac_bits) - 1));
  exact_parts p{-1, {0, 0, 0}, 0u};
  if (e == static_cast<int>(exp_mask)) {
    p.special = m != 0 ? 4u : (neg ? 2u : 1u);
    return p;
  }
  int shift = 0;
  if (e != 0) {
    m |= std::uint64_t(1) << frac_bits;
    shift = e - 1;
  }
  if (m == 0) return p;
  const int k = shift / 32, o = shift % 32;
  const std::uint64_t lo = m & 0xffffffffull, hi = m >> 32;  // hi < 2^21
  const std::uint64_t a = lo << o, b = hi << o;               // a < 2^63, b < 2^52
  std::uint64_t d0 = a & 0xffffffffull;
  std::uint64_t d1 = (a >> 32) + (b & 0xffffffffull);
  std::uint64_t d2 = b >> 32;
  p.first = k;
  p.delta[0] = neg ? -static_cast<long long>(d0) : static_cast<long long>(d0);
  p.delta[1] = neg ? -static_cast<long long>(d1) : static_cast<long long>(d1);
  p.delta[2] = neg ? -static_cast<long long>(d2) : static_cast<long long>(d2);
  return p;
}

/// Adds x to s (not atomic: the host reference and tests; the device adds with atomics).
template <class F>
ALGO_HD inline void exact_add(exact_sum<F>& s, F x) {
  const exact_parts p = exact_split(x);
  s.special |= p.special;
  if (p.first < 0) return;
  for (int j = 0; j < 3; ++j)
    if (p.first + j < exact_sum<F>::limbs) s.limb[p.first + j] += p.delta[j];
}

/// The correctly rounded value (to nearest, ties to even) of the exact sum; NaN when a NaN was
/// added or both infinities, +-inf when one was or the sum overflows.
template <class F>
ALGO_HD inline F exact_result(const exact_sum<F>& s) {
  using L = float_layout<F>;
  using B = typename L::bits;
  constexpr int N = exact_sum<F>::limbs;
  constexpr int frac_bits = L::mant - 1;
  constexpr B exp_max = (B(1) << L::exp_bits) - 1;
  const auto make = [](bool neg, B exp_field, B frac) {
    const B u = (B(neg ? 1 : 0) << (sizeof(F) * 8 - 1)) | (exp_field << frac_bits) | frac;
    F f;
    memcpy(&f, &u, sizeof(F));
    return f;
  };
  if ((s.special & 4u) || (s.special & 3u) == 3u) return make(false, exp_max, B(1) << (frac_bits - 1));  // NaN
  if (s.special & 1u) return make(false, exp_max, 0);
  if (s.special & 2u) return make(true, exp_max, 0);
  // carries: 32-bit digits and a signed top
  std::uint32_t d[N + 1];
  long long carry = 0;
  for (int k = 0; k < N; ++k) {
    const long long v = s.limb[k];
    // v + carry without overflow: split v into its low 32 bits and the rest
    const long long low = static_cast<long long>(static_cast<std::uint64_t>(v) & 0xffffffffull);
    const long long t = low + carry;  // |t| < 2^33
    d[k] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(t) & 0xffffffffull);
    carry = (v >> 32) + (t >> 32);  // arithmetic shifts
  }
  // the top digit holds the sign (|carry| < 2^32 given the limits above)
  const bool neg = carry < 0;
  d[N] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(carry) & 0xffffffffull);
  if (neg) {  // two's complement negate over N + 1 digits
    std::uint64_t c = 1;
    for (int k = 0; k <= N; ++k) {
      const std::uint64_t t = static_cast<std::uint64_t>(static_cast<std::uint32_t>(~d[k])) + c;
      d[k] = static_cast<std::uint32_t>(t);
      c = t >> 32;
    }
  }
  int top = -1;  // highest set bit
  for (int k = N; k >= 0 && top < 0; --k)
    if (d[k] != 0) {
      int b = 31;
      while (!((d[k] >> b) & 1u)) --b;
      top = 32 * k + b;
    }
  if (top < 0) return make(false, 0, 0);
  const auto bit = [&](int i) -> std::uint64_t { return i < 0 ? 0u : (d[i / 32] >> (i % 32)) & 1u; };
  if (top < L::mant) {  // exact: the bit pattern is the integer itself (subnormal or the first binade)
    std::uint64_t v = 0;
    for (int i = top; i >= 0; --i) v = (v << 1) | bit(i);
    return make(neg, B(v >> frac_bits), B(v & ((std::uint64_t(1) << frac_bits) - 1)));
  }
  int r = top - (L::mant - 1);  // bits dropped
  std::uint64_t m = 0;
  for (int i = top; i >= r; --i) m = (m << 1) | bit(i);
  const bool guard = bit(r - 1) != 0;
  bool sticky = false;
  for (int i = r - 2; i >= 0 && !sticky; --i) {
    if (i % 32 == 31 && d[i / 32] == 0) {  // whole zero digit: skip it
      i -= 31;
      continue;
    }
    sticky = bit(i) != 0;
  }
  if (guard && (sticky || (m & 1u))) {
    ++m;
    if (m == (std::uint64_t(1) << L::mant)) {
      m >>= 1;
      ++r;
    }
  }
  const long long e = static_cast<long long>(r) + 1;  // exponent field
  if (e >= static_cast<long long>(exp_max)) return make(neg, exp_max, 0);
  return make(neg, B(e), B(m & ((std::uint64_t(1) << frac_bits) - 1)));
}

}  // namespace algo::detail::group
