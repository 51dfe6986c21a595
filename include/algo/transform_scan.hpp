// The <numeric> and Thrust calls beyond numeric.hpp's set, every policy:
//
//   transform_inclusive_scan(policy, first, last, d_first, binary_op, unary_op [, init])
//   transform_exclusive_scan(policy, first, last, d_first, init, binary_op, unary_op)
//       C++17 argument order (Thrust puts unary_op first: see docs/thrust.md).
//       One fused pass: the scan reads unary_op(in[i]) through a transform iterator, so algo::cuda
//       runs its own scan kernel over it (nothing is materialized), algo::cub hands CUB the same.
//   exclusive_scan(policy, first, last, d_first)
//       Thrust's form without init: starts from the input value type's T{}, with plus.
//   inner_product(policy, first1, last1, first2, init [, op1, op2])
//       Thrust's rules: init op1 op2(a_0, b_0) op1 ... left to right; the form without operators
//       is plus<T> and multiplies<T> in init's type T (each product is taken in T), the same as
//       transform_reduce's inner-product form.
//
// Each checks its input as the scans and reductions of numeric.hpp do (algo::error, nothing written)
// under its own name, then runs the same backends.
#pragma once

#include <cstdint>

#include "detail/iterator.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"

namespace algo {
namespace detail {

template <bool Inclusive, class Policy, class InIt, class OutIt, class BinaryOp, class UnaryOp, class Init>
OutIt transform_scan_entry(const char* name, const Policy& policy, InIt first, InIt last, OutIt d_first,
                           BinaryOp binary_op, UnaryOp unary_op, Init init) {
  const std::int64_t n = checked_distance(name, first, last);
  check_iterator(name, "input", policy, first, n);
  check_iterator(name, "output", policy, d_first, n);
  if (n == 0) return d_first;
  return scan(policy, scan_kind<Inclusive>{}, transform_iterator<InIt, UnaryOp>(first, unary_op), n, d_first,
              binary_op, init);
}

}  // namespace detail

// ---- transform_inclusive_scan ------------------------------------------------------------------
/// out[i] = binary_op(...binary_op(unary_op(in[0]), unary_op(in[1]))..., unary_op(in[i])),
/// accumulated in unary_op's result type.
template <class Policy, class InIt, class OutIt, class BinaryOp, class UnaryOp, detail::enable_policy<Policy> = 0>
OutIt transform_inclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, BinaryOp binary_op,
                               UnaryOp unary_op) {
  return detail::transform_scan_entry<true>("transform_inclusive_scan", policy, first, last, d_first, binary_op,
                                            unary_op, detail::no_init_t{});
}
/// The same after init: out[i] = init binary_op unary_op(in[0]) ... binary_op unary_op(in[i]).
template <class Policy, class InIt, class OutIt, class BinaryOp, class UnaryOp, class T,
          detail::enable_policy<Policy> = 0>
OutIt transform_inclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, BinaryOp binary_op,
                               UnaryOp unary_op, T init) {
  return detail::transform_scan_entry<true>("transform_inclusive_scan", policy, first, last, d_first, binary_op,
                                            unary_op, init);
}

// ---- transform_exclusive_scan ------------------------------------------------------------------
/// out[0] = init, out[i] = init binary_op unary_op(in[0]) ... binary_op unary_op(in[i-1]).
template <class Policy, class InIt, class OutIt, class T, class BinaryOp, class UnaryOp,
          detail::enable_policy<Policy> = 0>
OutIt transform_exclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, T init, BinaryOp binary_op,
                               UnaryOp unary_op) {
  return detail::transform_scan_entry<false>("transform_exclusive_scan", policy, first, last, d_first, binary_op,
                                             unary_op, init);
}

// ---- exclusive_scan without init (Thrust) --------------------------------------------------------
/// out[0] = T{}, out[i] = T{} + in[0] + ... + in[i-1] with plus<T>, T the input's value type (Thrust).
template <class Policy, class InIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first) {
  using T = detail::iter_value_t<InIt>;
  return detail::scan_entry<false>("exclusive_scan", policy, first, last, d_first, plus<T>{}, T{});
}

// ---- inner_product (Thrust) ----------------------------------------------------------------------
/// init + a_0 * b_0 + a_1 * b_1 + ..., every step in init's type T (plus<T>, multiplies<T>).
template <class Policy, class It1, class It2, class T, detail::enable_policy<Policy> = 0>
T inner_product(const Policy& policy, It1 first1, It1 last1, It2 first2, T init) {
  return detail::transform_reduce2_entry("inner_product", policy, first1, last1, first2, init, plus<T>{},
                                         multiplies<T>{});
}
/// init op1 op2(a_0, b_0) op1 op2(a_1, b_1) ..., left to right (op1 need only be associative).
template <class Policy, class It1, class It2, class T, class Op1, class Op2, detail::enable_policy<Policy> = 0>
T inner_product(const Policy& policy, It1 first1, It1 last1, It2 first2, T init, Op1 op1, Op2 op2) {
  return detail::transform_reduce2_entry("inner_product", policy, first1, last1, first2, init, op1, op2);
}

}  // namespace algo
