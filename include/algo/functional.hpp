// Function objects usable on host and device, and the traits the algorithms read off them.
#pragma once

#include <cstdint>
#include <functional>  // std::plus, ...: is_commutative recognizes them
#include <type_traits>
#include <utility>

#include "detail/config.hpp"

// libcu++'s function objects (cuda::std::plus, ...; cuda::maximum / cuda::minimum where this CCCL
// has them) when CCCL is on the include path, and Thrust's when Thrust is in use (every nvcc
// translation unit, or a C++ one that included Thrust first): Thrust 3.0 makes thrust::plus,
// thrust::maximum, ... aliases of libcu++'s, earlier versions have their own. Thrust's own headers
// are never pulled into a plain C++ translation unit that has not included Thrust itself (its
// configuration, e.g. THRUST_DEVICE_SYSTEM, is the user's to set first).
#if ALGO_HAS_CCCL
#  include <cuda/std/functional>
#  if __has_include(<cuda/__functional/maximum.h>)
#    include <cuda/functional>
#    define ALGO_HAS_CUDA_MINMAX 1
#  endif
#  if ALGO_HAS_CUDA || defined(THRUST_VERSION)
#    include <thrust/functional.h>
#    define ALGO_HAS_THRUST_FUNCTIONAL 1
#  endif
#endif
#if !defined(ALGO_HAS_CUDA_MINMAX)
#  define ALGO_HAS_CUDA_MINMAX 0
#endif
#if !defined(ALGO_HAS_THRUST_FUNCTIONAL)
#  define ALGO_HAS_THRUST_FUNCTIONAL 0
#endif

namespace algo {

#define ALGO_DEFINE_BINARY_OP(NAME, EXPR)                                                       \
  template <class T = void>                                                                     \
  struct NAME {                                                                                 \
    using result_type = T;                                                                      \
    ALGO_EXEC_CHECK_DISABLE                                                                     \
    ALGO_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(EXPR); } \
  };                                                                                            \
  template <>                                                                                   \
  struct NAME<void> {                                                                           \
    using is_transparent = void;                                                                \
    ALGO_EXEC_CHECK_DISABLE                                                                     \
    template <class A, class B>                                                                 \
    ALGO_HD constexpr auto operator()(A&& a, B&& b) const -> decltype(EXPR) {                   \
      return EXPR;                                                                              \
    }                                                                                           \
  };

// Each NAME<T> returns static_cast<T>(EXPR) for two T operands; NAME<> (NAME<void>) is transparent:
// EXPR on any operand types, in the type it has. Usable on host and device (operator() is ALGO_HD).
/// a + b (the default operator of the scans and reductions).
ALGO_DEFINE_BINARY_OP(plus, a + b)
/// a * b.
ALGO_DEFINE_BINARY_OP(multiplies, a * b)
/// a & b.
ALGO_DEFINE_BINARY_OP(bit_and, a & b)
/// a | b.
ALGO_DEFINE_BINARY_OP(bit_or, a | b)
/// a ^ b.
ALGO_DEFINE_BINARY_OP(bit_xor, a ^ b)
/// a && b.
ALGO_DEFINE_BINARY_OP(logical_and, a && b)
/// a || b.
ALGO_DEFINE_BINARY_OP(logical_or, a || b)
/// The smaller of a and b by operator<: (b < a) ? b : a (a when they compare equal).
ALGO_DEFINE_BINARY_OP(minimum, (b < a) ? b : a)
/// The larger of a and b by operator<: (a < b) ? b : a (a when they compare equal).
ALGO_DEFINE_BINARY_OP(maximum, (a < b) ? b : a)
#undef ALGO_DEFINE_BINARY_OP

/// Key equality, the default key_equal of the *_by_key algorithms (thrust::equal_to's role).
template <class T = void>
struct equal_to {
  /// a == b.
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD constexpr bool operator()(const T& a, const T& b) const { return a == b; }
};
/// equal_to for any operand types (transparent).
template <>
struct equal_to<void> {
  /// Marks the function object transparent.
  using is_transparent = void;
  /// a == b.
  ALGO_EXEC_CHECK_DISABLE
  template <class A, class B>
  ALGO_HD constexpr bool operator()(const A& a, const B& b) const { return a == b; }
};

/// The default hash of group_reduce / group_count (<algo/group_reduce.hpp>), usable on host and
/// device: integers and enumerations, mixed with MurmurHash3's 64-bit finalizer. Struct keys take
/// a hash of your own (any function object returning an integer; the table mixes it again).
template <class T = void>
struct hash {
  /// The key converted to 64 bits and mixed (integer and enumeration keys only: a compile-time
  /// error otherwise).
  ALGO_HD constexpr std::uint64_t operator()(const T& key) const {
    static_assert(std::is_integral<T>::value || std::is_enum<T>::value,
                  "algo::hash covers integer and enumeration keys; pass your own hash function object for other "
                  "key types (group_reduce(policy, ..., op, hash, key_equal))");
    std::uint64_t h = static_cast<std::uint64_t>(key);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
  }
};
/// hash for any key type (transparent): hash<T> of the key's type T.
template <>
struct hash<void> {
  /// Marks the function object transparent.
  using is_transparent = void;
  /// hash<T>{}(key).
  template <class T>
  ALGO_HD constexpr std::uint64_t operator()(const T& key) const {
    return hash<T>{}(key);
  }
};

/// is_commutative<Op, T>: true when op(a, b) == op(b, a) for all a, b of type T. Only then may a
/// backend reorder operands (e.g. hand the reduction to cub::DeviceReduce or use atomics).
/// Anything not listed is treated as merely associative: its left-to-right order is preserved.
/// Specialize it for your own commutative operators to unlock the faster paths.
template <class Op, class T, class = void>
struct is_commutative : std::false_type {};

namespace detail {
/// Op<U> is one of the commutative function-object templates algo knows, over U = void
/// (transparent) or an arithmetic U: plus, multiplies, bit_and, bit_or, bit_xor, logical_and,
/// logical_or from algo::, std::, cuda::std:: and thrust::, and minimum / maximum from algo::,
/// cuda:: and thrust::.
template <template <class> class Op, class U>
struct is_known_commutative_op {
  template <template <class> class X>
  static constexpr bool is = std::is_same<Op<U>, X<U>>::value;
  static constexpr bool algo_op = is<plus> || is<multiplies> || is<bit_and> || is<bit_or> || is<bit_xor> ||
                                  is<logical_and> || is<logical_or> || is<minimum> || is<maximum>;
  static constexpr bool std_op = is<std::plus> || is<std::multiplies> || is<std::bit_and> || is<std::bit_or> ||
                                 is<std::bit_xor> || is<std::logical_and> || is<std::logical_or>;
#if ALGO_HAS_CCCL
  static constexpr bool cccl_op = is<::cuda::std::plus> || is<::cuda::std::multiplies> || is<::cuda::std::bit_and> ||
                                  is<::cuda::std::bit_or> || is<::cuda::std::bit_xor> ||
                                  is<::cuda::std::logical_and> || is<::cuda::std::logical_or>
#  if ALGO_HAS_CUDA_MINMAX
                                  || is<::cuda::minimum> || is<::cuda::maximum>
#  endif
      ;
#else
  static constexpr bool cccl_op = false;
#endif
#if ALGO_HAS_THRUST_FUNCTIONAL
  static constexpr bool thrust_op = is<::thrust::plus> || is<::thrust::multiplies> || is<::thrust::bit_and> ||
                                    is<::thrust::bit_or> || is<::thrust::bit_xor> || is<::thrust::logical_and> ||
                                    is<::thrust::logical_or> || is<::thrust::minimum> || is<::thrust::maximum>;
#else
  static constexpr bool thrust_op = false;
#endif
  static constexpr bool value =
      (std::is_void<U>::value || std::is_arithmetic<U>::value) && (algo_op || std_op || cccl_op || thrust_op);
};

/// Op is a plus (algo's, std's, libcu++'s or Thrust's) over void or Acc: backends may hand it to
/// libraries as ::cuda::std::plus<Acc> (CUB's primitive sum).
template <class Op, class Acc>
struct is_plus_on : std::false_type {};
template <template <class> class Op, class U, class Acc>
struct is_plus_on<Op<U>, Acc>
    : std::bool_constant<(std::is_void<U>::value || std::is_same<U, Acc>::value) &&
                         (std::is_same<Op<U>, plus<U>>::value || std::is_same<Op<U>, std::plus<U>>::value
#if ALGO_HAS_CCCL
                          || std::is_same<Op<U>, ::cuda::std::plus<U>>::value
#endif
#if ALGO_HAS_THRUST_FUNCTIONAL
                          || std::is_same<Op<U>, ::thrust::plus<U>>::value
#endif
                          )> {
};
template <class Op, class Acc>
inline constexpr bool is_plus_on_v = is_plus_on<Op, Acc>::value;
}  // namespace detail

/// The known operators on arithmetic types are commutative (floating-point + and * are commutative,
/// only not associative; backends that reassociate them document it).
template <template <class> class Op, class U, class T>
struct is_commutative<Op<U>, T,
                      std::enable_if_t<std::is_arithmetic<T>::value && detail::is_known_commutative_op<Op, U>::value>>
    : std::true_type {};

/// is_commutative<Op, T>::value.
template <class Op, class T>
inline constexpr bool is_commutative_v = is_commutative<Op, T>::value;

}  // namespace algo
