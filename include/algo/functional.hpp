// Function objects usable on host and device, and the traits the algorithms read off them.
#pragma once

#include <type_traits>
#include <utility>

#include "detail/config.hpp"

namespace algo {

#define ALGO_DEFINE_BINARY_OP(NAME, EXPR)                                                       \
  template <class T = void>                                                                     \
  struct NAME {                                                                                 \
    using result_type = T;                                                                      \
    ALGO_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(EXPR); } \
  };                                                                                            \
  template <>                                                                                   \
  struct NAME<void> {                                                                           \
    using is_transparent = void;                                                                \
    template <class A, class B>                                                                 \
    ALGO_HD constexpr auto operator()(A&& a, B&& b) const -> decltype(EXPR) {                   \
      return EXPR;                                                                              \
    }                                                                                           \
  };

ALGO_DEFINE_BINARY_OP(plus, a + b)
ALGO_DEFINE_BINARY_OP(multiplies, a * b)
ALGO_DEFINE_BINARY_OP(bit_and, a & b)
ALGO_DEFINE_BINARY_OP(bit_or, a | b)
ALGO_DEFINE_BINARY_OP(bit_xor, a ^ b)
ALGO_DEFINE_BINARY_OP(logical_and, a && b)
ALGO_DEFINE_BINARY_OP(logical_or, a || b)
ALGO_DEFINE_BINARY_OP(minimum, (b < a) ? b : a)
ALGO_DEFINE_BINARY_OP(maximum, (a < b) ? b : a)
#undef ALGO_DEFINE_BINARY_OP

/// is_commutative<Op, T>: true when op(a, b) == op(b, a) for all a, b of type T. Only then may a
/// backend reorder operands (e.g. hand the reduction to cub::DeviceReduce or use atomics).
/// Anything not listed is treated as merely associative: its left-to-right order is preserved.
/// Specialize it for your own commutative operators to unlock the faster paths.
template <class Op, class T, class = void>
struct is_commutative : std::false_type {};

namespace detail {
template <template <class> class Op, class T>
struct is_builtin_commutative
    : std::bool_constant<(std::is_same<Op<void>, plus<void>>::value ||
                          std::is_same<Op<void>, multiplies<void>>::value ||
                          std::is_same<Op<void>, minimum<void>>::value ||
                          std::is_same<Op<void>, maximum<void>>::value ||
                          std::is_same<Op<void>, bit_and<void>>::value ||
                          std::is_same<Op<void>, bit_or<void>>::value ||
                          std::is_same<Op<void>, bit_xor<void>>::value ||
                          std::is_same<Op<void>, logical_and<void>>::value ||
                          std::is_same<Op<void>, logical_or<void>>::value) &&
                         std::is_arithmetic<T>::value> {};
}  // namespace detail

// algo's own operators on arithmetic types are commutative (floating-point + and * are commutative,
// only not associative; backends that reassociate them document it).
template <template <class> class Op, class U, class T>
struct is_commutative<Op<U>, T, std::enable_if_t<detail::is_builtin_commutative<Op, T>::value>>
    : std::true_type {};

template <class Op, class T>
inline constexpr bool is_commutative_v = is_commutative<Op, T>::value;

}  // namespace algo
