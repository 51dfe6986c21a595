// How the public scan overloads describe a scan to a backend.
#pragma once

#include <type_traits>

#include "iterator.hpp"

namespace algo::detail {

/// The `init` of an inclusive scan that was given none.
struct no_init_t {};

template <bool Inclusive>
using scan_kind = std::bool_constant<Inclusive>;
using inclusive_t = scan_kind<true>;
using exclusive_t = scan_kind<false>;

/// The accumulator of a fold of values of type V onto an init of type Init with op: the type op
/// returns for (accumulator, element), decayed. The rule of Thrust and CUB (cuda::std::__accumulator_t,
/// P2322) and C++23 std::ranges::fold_left. Every algorithm with an init uses it (numeric.hpp): the
/// entry points convert init to it, so the backends see an init of the accumulator's type.
template <class Op, class Init, class V>
using accumulator_t = std::decay_t<std::invoke_result_t<Op&, Init, V>>;

/// Whether op can start a fold: op(init, x) is valid for init of type Init and x of type V.
template <class Op, class Init, class V>
inline constexpr bool can_fold_v = std::is_invocable<Op&, Init, V>::value;

/// Accumulator type of a scan as the backends receive it: init's type when there is one (the entry
/// points have made it accumulator_t), else the input's value type (inclusive_scan without init,
/// as Thrust: P0571).
template <class InIt, class Init>
using scan_accumulator_t =
    std::conditional_t<std::is_same<Init, no_init_t>::value, iter_value_t<InIt>, Init>;

}  // namespace algo::detail
