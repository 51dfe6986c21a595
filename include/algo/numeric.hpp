// inclusive_scan, exclusive_scan, reduce, transform_reduce: the C++17 <numeric> signatures with an
// algo execution policy in front. Each entry point checks its input (algo::error, nothing written),
// then hands the call to the backend that the policy's type selects (detail::scan / detail::reduce
// are overloaded on the policy type in detail/host, detail/cub and detail/cuda).
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

#include "detail/config.hpp"
#include "detail/iterator.hpp"
#include "detail/scan_kind.hpp"
#include "detail/validate.hpp"
#include "functional.hpp"
#include "policy.hpp"

#include "detail/host/seq.hpp"
#include "detail/host/par.hpp"
#if ALGO_HAS_CUDA
#  include "detail/cuda/pointer.cuh"
#  include "detail/cub/numeric.cuh"
#  include "detail/cuda/numeric.cuh"
#endif
#if ALGO_HAS_OPENACC
#  include "detail/acc/numeric.hpp"
#endif

namespace algo {
namespace detail {

template <class P>
using enable_policy = std::enable_if_t<is_execution_policy_v<P>, int>;

/// It is an iterator (has std::iterator_traits). Keeps the iterator overloads from matching
/// ranges, whose overloads (<algo/ranges.hpp>) take as many arguments.
template <class It, class = void>
struct is_iterator : std::false_type {};
template <class It>
struct is_iterator<It, std::void_t<typename std::iterator_traits<It>::iterator_category>> : std::true_type {};
template <class It>
using enable_iterator = std::enable_if_t<is_iterator<It>::value, int>;

// ---- accumulator types ------------------------------------------------------------------------
// With an init, every algorithm accumulates in accumulator_t<Op, Init, value type> (scan_kind.hpp):
// the type op returns for (accumulator, element), as Thrust and CUB do. The entry points convert
// init to it before calling a backend; reductions convert the result back to init's type.

template <class Op, class Init, class It>
constexpr void check_fold() {
  static_assert(can_fold_v<Op, Init, iter_value_t<It>>,
                "algo: op(init, x) must be valid for init and an element x (the accumulator type is what it returns)");
}

/// reduce of n >= 1 elements, in the accumulator type; returns the result as T (init's type).
template <class Policy, class It, class T, class Op>
T reduce_nonempty(const Policy& policy, It first, std::int64_t n, const T& init, Op op) {
  using Acc = accumulator_t<Op, T, iter_value_t<It>>;
  if constexpr (std::is_same<Acc, T>::value) return reduce(policy, first, n, init, op);
  else return static_cast<T>(reduce(policy, first, n, static_cast<Acc>(init), op));
}

template <bool Inclusive, class Policy, class InIt, class OutIt, class Op, class Init>
OutIt scan_entry(const char* name, const Policy& policy, InIt first, InIt last, OutIt d_first, Op op, Init init) {
  const std::int64_t n = checked_distance(name, first, last);
  check_iterator(name, "input", policy, first, n);
  check_iterator(name, "output", policy, d_first, n);
  if (n == 0) return d_first;
  if constexpr (std::is_same<Init, no_init_t>::value) {
    return scan(policy, scan_kind<Inclusive>{}, first, n, d_first, op, init);
  } else {
    check_fold<Op, Init, InIt>();
    using Acc = accumulator_t<Op, Init, iter_value_t<InIt>>;
    return scan(policy, scan_kind<Inclusive>{}, first, n, d_first, op, static_cast<Acc>(init));
  }
}

template <class Policy, class It, class T, class Op>
T reduce_entry(const char* name, const Policy& policy, It first, It last, T init, Op op) {
  check_fold<Op, T, It>();
  const std::int64_t n = checked_distance(name, first, last);
  check_iterator(name, "input", policy, first, n);
  if (n == 0) return init;
  return reduce_nonempty(policy, first, n, init, op);
}

template <class Policy, class It1, class It2, class T, class ReduceOp, class TransformOp>
T transform_reduce2_entry(const char* name, const Policy& policy, It1 first1, It1 last1, It2 first2, T init,
                          ReduceOp reduce_op, TransformOp transform_op) {
  const std::int64_t n = checked_distance(name, first1, last1);
  check_iterator(name, "first input", policy, first1, n);
  check_iterator(name, "second input", policy, first2, n);
  using Z = zip_transform_iterator<It1, It2, TransformOp>;
  check_fold<ReduceOp, T, Z>();
  if (n == 0) return init;
  return reduce_nonempty(policy, Z(first1, first2, transform_op), n, init, reduce_op);
}
template <class Policy, class It1, class It2, class T, class ReduceOp, class TransformOp>
T transform_reduce2_entry(const Policy& policy, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                          TransformOp transform_op) {
  return transform_reduce2_entry("transform_reduce", policy, first1, last1, first2, init, reduce_op, transform_op);
}

/// Host policies: reduce_into is reduce written through the output iterator (n == 0 writes init).
template <class Policy, class It, class OutIt, class T, class Op, std::enable_if_t<is_host_policy<Policy>::value, int> = 0>
void reduce_into(const Policy& policy, It first, std::int64_t n, OutIt out, T init, Op op) {
  *out = n == 0 ? init : reduce(policy, first, n, init, op);
}

/// reduce_into / transform_reduce_into, once the inputs are checked: the fold goes to *out (device
/// policies: on the policy's stream, without synchronizing the host). An empty range writes init.
/// Accumulates in the accumulator type; *out receives the result as T (init's type), as reduce
/// returns it.
template <class Policy, class It, class OutIt, class T, class Op>
void reduce_into_entry(const char* name, const Policy& policy, It first, std::int64_t n, OutIt out, T init, Op op) {
  check_fold<Op, T, It>();
  check_iterator(name, "output", policy, out, 1);
  using Acc = accumulator_t<Op, T, iter_value_t<It>>;
  if constexpr (std::is_same<Acc, T>::value) {
    reduce_into(policy, first, n, out, init, op);
  } else {
    reduce_into(policy, first, n, reduce_result_iterator<T, OutIt>(out, init, n == 0), static_cast<Acc>(init), op);
  }
}

}  // namespace detail

// ---- inclusive_scan ---------------------------------------------------------------------------
/// out[i] = in[0] + ... + in[i], accumulated in the input's value type.
template <class Policy, class InIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first) {
  return detail::scan_entry<true>("inclusive_scan", policy, first, last, d_first, plus<>{}, detail::no_init_t{});
}
/// out[i] = op(...op(in[0], in[1])..., in[i]), accumulated in the input's value type.
template <class Policy, class InIt, class OutIt, class Op, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, Op op) {
  return detail::scan_entry<true>("inclusive_scan", policy, first, last, d_first, op, detail::no_init_t{});
}
/// out[i] = op(init, in[0], ..., in[i]) left to right, accumulated in the type op(init, in[0])
/// returns (detail::accumulator_t; Thrust's and CUB's rule).
template <class Policy, class InIt, class OutIt, class Op, class T, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, Op op, T init) {
  return detail::scan_entry<true>("inclusive_scan", policy, first, last, d_first, op, init);
}

// ---- exclusive_scan ---------------------------------------------------------------------------
/// out[0] = init, out[i] = init + in[0] + ... + in[i-1], with Thrust's operator plus<T>: each
/// element converted to T, accumulated in T.
template <class Policy, class InIt, class OutIt, class T, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, T init) {
  return detail::scan_entry<false>("exclusive_scan", policy, first, last, d_first, plus<T>{}, init);
}
/// The same with op, accumulated in the type op(init, in[0]) returns.
template <class Policy, class InIt, class OutIt, class T, class Op, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan(const Policy& policy, InIt first, InIt last, OutIt d_first, T init, Op op) {
  return detail::scan_entry<false>("exclusive_scan", policy, first, last, d_first, op, init);
}

// ---- reduce -----------------------------------------------------------------------------------
/// Left fold init op in[0] op in[1] ... in the order of the range (op need only be associative),
/// accumulated in the type op(init, in[0]) returns, returned as T. Without op, Thrust's plus<T>
/// (each element converted to T); without init, T{} of the value type.
template <class Policy, class It, detail::enable_policy<Policy> = 0>
detail::iter_value_t<It> reduce(const Policy& policy, It first, It last) {
  using T = detail::iter_value_t<It>;
  return detail::reduce_entry("reduce", policy, first, last, T{}, plus<T>{});
}
/// init + in[0] + in[1] + ..., with plus<T>: each element converted to T, accumulated in T.
template <class Policy, class It, class T, detail::enable_policy<Policy> = 0>
T reduce(const Policy& policy, It first, It last, T init) {
  return detail::reduce_entry("reduce", policy, first, last, init, plus<T>{});
}
/// init op in[0] op in[1] ..., left to right, accumulated in the type op(init, in[0]) returns,
/// returned as T.
template <class Policy, class It, class T, class Op, detail::enable_policy<Policy> = 0>
T reduce(const Policy& policy, It first, It last, T init, Op op) {
  return detail::reduce_entry("reduce", policy, first, last, init, op);
}

// ---- transform_reduce -------------------------------------------------------------------------
/// reduce_op-fold of transform_op(in[i]).
template <class Policy, class It, class T, class ReduceOp, class TransformOp, detail::enable_policy<Policy> = 0,
          detail::enable_iterator<It> = 0>
T transform_reduce(const Policy& policy, It first, It last, T init, ReduceOp reduce_op, TransformOp transform_op) {
  using X = detail::transform_iterator<It, TransformOp>;
  detail::check_fold<ReduceOp, T, X>();
  const std::int64_t n = detail::checked_distance("transform_reduce", first, last);
  detail::check_iterator("transform_reduce", "input", policy, first, n);
  if (n == 0) return init;
  return detail::reduce_nonempty(policy, X(first, transform_op), n, init, reduce_op);
}
/// Inner product: init + sum of first1[i] * first2[i], with Thrust's (thrust::inner_product's)
/// operators plus<T> and multiplies<T>: products in T.
template <class Policy, class It1, class It2, class T, detail::enable_policy<Policy> = 0>
T transform_reduce(const Policy& policy, It1 first1, It1 last1, It2 first2, T init) {
  return detail::transform_reduce2_entry(policy, first1, last1, first2, init, plus<T>{}, multiplies<T>{});
}
/// reduce_op-fold of transform_op(first1[i], first2[i]).
template <class Policy, class It1, class It2, class T, class ReduceOp, class TransformOp,
          detail::enable_policy<Policy> = 0>
T transform_reduce(const Policy& policy, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                   TransformOp transform_op) {
  return detail::transform_reduce2_entry(policy, first1, last1, first2, init, reduce_op, transform_op);
}

// ---- reduce_into / transform_reduce_into ------------------------------------------------------------
/// *out = the fold of reduce(policy, first, last, ...); device policies write it on the policy's
/// stream without synchronizing the host (stream pipelines). An empty range writes init.
template <class Policy, class It, class OutIt, detail::enable_policy<Policy> = 0>
void reduce_into(const Policy& policy, It first, It last, OutIt out) {
  using T = detail::iter_value_t<It>;
  const std::int64_t n = detail::checked_distance("reduce_into", first, last);
  detail::check_iterator("reduce_into", "input", policy, first, n);
  detail::reduce_into_entry("reduce_into", policy, first, n, out, T{}, plus<T>{});
}
/// *out = init + in[0] + ... with plus<T>, as reduce(policy, first, last, init) returns it (device
/// policies: on the policy's stream, no host synchronization). An empty range writes init.
template <class Policy, class It, class OutIt, class T, detail::enable_policy<Policy> = 0>
void reduce_into(const Policy& policy, It first, It last, OutIt out, T init) {
  const std::int64_t n = detail::checked_distance("reduce_into", first, last);
  detail::check_iterator("reduce_into", "input", policy, first, n);
  detail::reduce_into_entry("reduce_into", policy, first, n, out, init, plus<T>{});
}
/// *out = init op in[0] op ..., as reduce(policy, first, last, init, op) returns it (device
/// policies: on the policy's stream, no host synchronization). An empty range writes init.
template <class Policy, class It, class OutIt, class T, class Op, detail::enable_policy<Policy> = 0>
void reduce_into(const Policy& policy, It first, It last, OutIt out, T init, Op op) {
  const std::int64_t n = detail::checked_distance("reduce_into", first, last);
  detail::check_iterator("reduce_into", "input", policy, first, n);
  detail::reduce_into_entry("reduce_into", policy, first, n, out, init, op);
}
/// *out = reduce_op-fold of transform_op(in[i]) onto init.
template <class Policy, class It, class OutIt, class T, class ReduceOp, class TransformOp,
          detail::enable_policy<Policy> = 0>
void transform_reduce_into(const Policy& policy, It first, It last, OutIt out, T init, ReduceOp reduce_op,
                           TransformOp transform_op) {
  const std::int64_t n = detail::checked_distance("transform_reduce_into", first, last);
  detail::check_iterator("transform_reduce_into", "input", policy, first, n);
  detail::reduce_into_entry("transform_reduce_into", policy, detail::transform_iterator<It, TransformOp>(first, transform_op),
                            n, out, init, reduce_op);
}
/// *out = init + sum of first1[i] * first2[i] (plus<T>, multiplies<T>, as transform_reduce).
template <class Policy, class It1, class It2, class OutIt, class T, detail::enable_policy<Policy> = 0>
void transform_reduce_into(const Policy& policy, It1 first1, It1 last1, It2 first2, OutIt out, T init) {
  transform_reduce_into(policy, first1, last1, first2, out, init, plus<T>{}, multiplies<T>{});
}
/// *out = reduce_op-fold of transform_op(first1[i], first2[i]) onto init.
template <class Policy, class It1, class It2, class OutIt, class T, class ReduceOp, class TransformOp,
          detail::enable_policy<Policy> = 0>
void transform_reduce_into(const Policy& policy, It1 first1, It1 last1, It2 first2, OutIt out, T init,
                           ReduceOp reduce_op, TransformOp transform_op) {
  const char* name = "transform_reduce_into";
  const std::int64_t n = detail::checked_distance(name, first1, last1);
  detail::check_iterator(name, "first input", policy, first1, n);
  detail::check_iterator(name, "second input", policy, first2, n);
  detail::reduce_into_entry(name, policy, detail::zip_transform_iterator<It1, It2, TransformOp>(first1, first2, transform_op),
                            n, out, init, reduce_op);
}

}  // namespace algo
