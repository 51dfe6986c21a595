// Compile-time checks of algo::is_commutative: the standard, libcu++ and Thrust function objects
// over arithmetic types, typed and transparent, count as commutative as algo's own do; std::minus,
// std::divides, a user operator, and the known operators on non-arithmetic types do not.
//
//   ALGO_TEST_COMMUTATIVE_STD()      algo:: and std:: (any translation unit)
//   ALGO_TEST_COMMUTATIVE_CCCL()     cuda::std:: and, where this CCCL has them, cuda::minimum/maximum
//   ALGO_TEST_COMMUTATIVE_THRUST()   thrust:: (include <thrust/functional.h> first)
//
// Each expands to static_asserts; test/host, test/host_thrust and test/device each use what their
// translation unit can see.
#pragma once

#include <algo/functional.hpp>

#include <cstdint>
#include <functional>

namespace algo_test::commutative {

/// A commutative user operator algo cannot know about (no is_commutative specialization).
struct user_plus {
  ALGO_HD int operator()(int a, int b) const { return a + b; }
};
struct not_arithmetic {
  int v;
};

/// Op<void> and Op<T> are commutative on T.
template <template <class> class Op, class T>
inline constexpr bool typed_and_transparent = algo::is_commutative_v<Op<void>, T> && algo::is_commutative_v<Op<T>, T>;

/// ... on every integer type (bitwise operators).
template <template <class> class Op>
inline constexpr bool on_integers =
    typed_and_transparent<Op, int> && typed_and_transparent<Op, unsigned char> &&
    typed_and_transparent<Op, std::int64_t> && typed_and_transparent<Op, std::uint32_t> && typed_and_transparent<Op, bool>;

/// ... on integer and floating-point types (arithmetic operators, min / max, logical operators).
template <template <class> class Op>
inline constexpr bool on_arithmetic =
    on_integers<Op> && typed_and_transparent<Op, float> && typed_and_transparent<Op, double>;

/// Op<void> on a non-arithmetic type, and Op<not_arithmetic> on int, are not.
template <template <class> class Op>
inline constexpr bool not_on_other_types =
    !algo::is_commutative_v<Op<void>, not_arithmetic> && !algo::is_commutative_v<Op<not_arithmetic>, int>;

}  // namespace algo_test::commutative

#define ALGO_TEST_COMMUTATIVE_FAMILY(NS)                                                          \
  static_assert(algo_test::commutative::on_arithmetic<NS::plus>, #NS "::plus");                   \
  static_assert(algo_test::commutative::on_arithmetic<NS::multiplies>, #NS "::multiplies");       \
  static_assert(algo_test::commutative::on_integers<NS::bit_and>, #NS "::bit_and");               \
  static_assert(algo_test::commutative::on_integers<NS::bit_or>, #NS "::bit_or");                 \
  static_assert(algo_test::commutative::on_integers<NS::bit_xor>, #NS "::bit_xor");               \
  static_assert(algo_test::commutative::on_arithmetic<NS::logical_and>, #NS "::logical_and");     \
  static_assert(algo_test::commutative::on_arithmetic<NS::logical_or>, #NS "::logical_or");       \
  static_assert(algo_test::commutative::not_on_other_types<NS::plus>, #NS "::plus on a struct");

#define ALGO_TEST_COMMUTATIVE_MINMAX(NS)                                                          \
  static_assert(algo_test::commutative::on_arithmetic<NS::minimum>, #NS "::minimum");             \
  static_assert(algo_test::commutative::on_arithmetic<NS::maximum>, #NS "::maximum");             \
  static_assert(algo_test::commutative::not_on_other_types<NS::maximum>, #NS "::maximum on a struct");

#define ALGO_TEST_COMMUTATIVE_STD()                                                               \
  ALGO_TEST_COMMUTATIVE_FAMILY(algo)                                                              \
  ALGO_TEST_COMMUTATIVE_MINMAX(algo)                                                              \
  ALGO_TEST_COMMUTATIVE_FAMILY(std)                                                               \
  static_assert(!algo::is_commutative_v<std::minus<>, int> && !algo::is_commutative_v<std::minus<int>, int>, \
                "std::minus");                                                                    \
  static_assert(!algo::is_commutative_v<std::divides<>, double>, "std::divides");                \
  static_assert(!algo::is_commutative_v<algo_test::commutative::user_plus, int>, "a user operator");

#define ALGO_TEST_COMMUTATIVE_CCCL()                                                              \
  ALGO_TEST_COMMUTATIVE_FAMILY(::cuda::std)                                                       \
  static_assert(!algo::is_commutative_v<::cuda::std::minus<>, int>, "cuda::std::minus");          \
  ALGO_TEST_COMMUTATIVE_CUDA_MINMAX()

#if ALGO_HAS_CUDA_MINMAX
#  define ALGO_TEST_COMMUTATIVE_CUDA_MINMAX() ALGO_TEST_COMMUTATIVE_MINMAX(::cuda)
#else
#  define ALGO_TEST_COMMUTATIVE_CUDA_MINMAX()
#endif

#define ALGO_TEST_COMMUTATIVE_THRUST()                                                            \
  ALGO_TEST_COMMUTATIVE_FAMILY(::thrust)                                                          \
  ALGO_TEST_COMMUTATIVE_MINMAX(::thrust)                                                          \
  static_assert(!algo::is_commutative_v<::thrust::minus<>, int>, "thrust::minus");
