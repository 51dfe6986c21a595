// The algorithms over range-v3 ranges (needs range-v3 on the include path; not part of
// <algo/algo.hpp>). A range stands for a (first, last) pair; views are used in place, never copied
// into memory:
//
//   algo::reduce(algo::par, ranges::views::iota(0, n) | ranges::views::transform(f));
//   algo::inclusive_scan(algo::seq, rng, out);                    // out: an output iterator
//   algo::transform_reduce(algo::par, xs, ys, 0.0);               // inner product of two ranges
//
//   OutIt inclusive_scan(policy, rng, d_first [, op [, init]]);
//   OutIt exclusive_scan(policy, rng, d_first, init [, op]);
//   T     reduce(policy, rng [, init [, op]]);                    // T = range_value_t, init T{}
//   T     transform_reduce(policy, rng, init, reduce_op, transform_op);
//   T     transform_reduce(policy, rng1, rng2, init [, reduce_op, transform_op]);
//
// A random-access sized range runs as [begin, begin + size) (so algo::par splits it, whatever its
// sentinel); other ranges as [begin, end) when they are common, else through views::common
// (sequentially: algo::par runs algo::seq code on iterators that are not random access).
// In the two-range transform_reduce, a sized second range shorter than the first is an algo::error.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <range/v3/range/access.hpp>
#include <range/v3/range/concepts.hpp>
#include <range/v3/range/primitives.hpp>
#include <range/v3/range/traits.hpp>
#include <range/v3/view/common.hpp>

#include "algo.hpp"

namespace algo {
namespace detail {

/// Rng (used as an lvalue) is an input range and Policy an execution policy.
template <class Policy, class Rng>
using enable_range = std::enable_if_t<is_execution_policy_v<Policy> && ranges::input_range<Rng&>, int>;

/// Calls f(first, last) with an iterator pair of one type over rng, without copying elements.
template <class Rng, class F>
decltype(auto) with_iterators(Rng& rng, F&& f) {
  if constexpr (ranges::random_access_range<Rng&> && ranges::sized_range<Rng&>) {
    auto first = ranges::begin(rng);
    return f(first, first + static_cast<ranges::range_difference_t<Rng&>>(ranges::size(rng)));
  } else if constexpr (ranges::common_range<Rng&>) {
    return f(ranges::begin(rng), ranges::end(rng));
  } else {
    auto common = ranges::views::common(rng);
    return f(ranges::begin(common), ranges::end(common));
  }
}

/// The two-range transform_reduce: checks the second range is long enough (when both are sized).
template <class Rng1, class Rng2>
void check_second_range(Rng1& rng1, Rng2& rng2) {
  if constexpr (ranges::sized_range<Rng1&> && ranges::sized_range<Rng2&>) {
    const auto n1 = static_cast<std::int64_t>(ranges::size(rng1)), n2 = static_cast<std::int64_t>(ranges::size(rng2));
    if (n2 < n1)
      fail("transform_reduce", "the second range is shorter than the first (" + std::to_string(n2) + " < " +
                                   std::to_string(n1) + " elements)");
  }
}

}  // namespace detail

// ---- inclusive_scan ---------------------------------------------------------------------------
/// inclusive_scan over the elements of `rng` (out[i] = rng[0] + ... + rng[i]); returns the end of
/// the output.
template <class Policy, class Rng, class OutIt, detail::enable_range<Policy, Rng> = 0>
OutIt inclusive_scan(const Policy& policy, Rng&& rng, OutIt d_first) {
  return detail::with_iterators(rng, [&](auto first, auto last) { return algo::inclusive_scan(policy, first, last, d_first); });
}
/// inclusive_scan of `rng` with op.
template <class Policy, class Rng, class OutIt, class Op, detail::enable_range<Policy, Rng> = 0>
OutIt inclusive_scan(const Policy& policy, Rng&& rng, OutIt d_first, Op op) {
  return detail::with_iterators(rng, [&](auto first, auto last) { return algo::inclusive_scan(policy, first, last, d_first, op); });
}
/// inclusive_scan of `rng` with op after init.
template <class Policy, class Rng, class OutIt, class Op, class T, detail::enable_range<Policy, Rng> = 0>
OutIt inclusive_scan(const Policy& policy, Rng&& rng, OutIt d_first, Op op, T init) {
  return detail::with_iterators(rng, [&](auto first, auto last) {
    return algo::inclusive_scan(policy, first, last, d_first, op, init);
  });
}

// ---- exclusive_scan ---------------------------------------------------------------------------
/// exclusive_scan of `rng` from init, with plus<T>; returns the end of the output.
template <class Policy, class Rng, class OutIt, class T, detail::enable_range<Policy, Rng> = 0>
OutIt exclusive_scan(const Policy& policy, Rng&& rng, OutIt d_first, T init) {
  return detail::with_iterators(rng, [&](auto first, auto last) { return algo::exclusive_scan(policy, first, last, d_first, init); });
}
/// exclusive_scan of `rng` from init, with op.
template <class Policy, class Rng, class OutIt, class T, class Op, detail::enable_range<Policy, Rng> = 0>
OutIt exclusive_scan(const Policy& policy, Rng&& rng, OutIt d_first, T init, Op op) {
  return detail::with_iterators(rng, [&](auto first, auto last) {
    return algo::exclusive_scan(policy, first, last, d_first, init, op);
  });
}

// ---- reduce -----------------------------------------------------------------------------------
/// The sum of `rng` from the value type's T{}, with plus<T> (T = range_value_t).
template <class Policy, class Rng, detail::enable_range<Policy, Rng> = 0>
ranges::range_value_t<Rng&> reduce(const Policy& policy, Rng&& rng) {
  return detail::with_iterators(rng, [&](auto first, auto last) {
    using T = ranges::range_value_t<Rng&>;
    return algo::reduce(policy, first, last, T{}, plus<T>{});
  });
}
/// init + the sum of `rng`, with plus<T>.
template <class Policy, class Rng, class T, detail::enable_range<Policy, Rng> = 0>
T reduce(const Policy& policy, Rng&& rng, T init) {
  return detail::with_iterators(rng, [&](auto first, auto last) { return algo::reduce(policy, first, last, init); });
}
/// init op rng[0] op rng[1] ..., left to right.
template <class Policy, class Rng, class T, class Op, detail::enable_range<Policy, Rng> = 0>
T reduce(const Policy& policy, Rng&& rng, T init, Op op) {
  return detail::with_iterators(rng, [&](auto first, auto last) { return algo::reduce(policy, first, last, init, op); });
}

// ---- transform_reduce -------------------------------------------------------------------------
/// reduce_op-fold of transform_op(x) over the elements x of `rng`, onto init.
template <class Policy, class Rng, class T, class ReduceOp, class TransformOp, detail::enable_range<Policy, Rng> = 0>
T transform_reduce(const Policy& policy, Rng&& rng, T init, ReduceOp reduce_op, TransformOp transform_op) {
  return detail::with_iterators(rng, [&](auto first, auto last) {
    return algo::transform_reduce(policy, first, last, init, reduce_op, transform_op);
  });
}
/// Inner product of two ranges: init + sum of rng1[i] * rng2[i].
template <class Policy, class Rng1, class Rng2, class T, detail::enable_range<Policy, Rng1> = 0,
          detail::enable_range<Policy, Rng2> = 0>
T transform_reduce(const Policy& policy, Rng1&& rng1, Rng2&& rng2, T init) {
  detail::check_second_range(rng1, rng2);
  return detail::with_iterators(rng1, [&](auto first1, auto last1) {
    return detail::with_iterators(rng2, [&](auto first2, auto) { return algo::transform_reduce(policy, first1, last1, first2, init); });
  });
}
/// reduce_op-fold of transform_op(rng1[i], rng2[i]) onto init, over the length of rng1 (a sized
/// rng2 shorter than rng1 is an algo::error).
template <class Policy, class Rng1, class Rng2, class T, class ReduceOp, class TransformOp,
          detail::enable_range<Policy, Rng1> = 0, detail::enable_range<Policy, Rng2> = 0>
T transform_reduce(const Policy& policy, Rng1&& rng1, Rng2&& rng2, T init, ReduceOp reduce_op, TransformOp transform_op) {
  detail::check_second_range(rng1, rng2);
  return detail::with_iterators(rng1, [&](auto first1, auto last1) {
    return detail::with_iterators(rng2, [&](auto first2, auto) {
      return algo::transform_reduce(policy, first1, last1, first2, init, reduce_op, transform_op);
    });
  });
}

}  // namespace algo
