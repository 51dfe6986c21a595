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

/// Accumulator type: init's type when there is one, else the input's value type (as std / Thrust).
template <class InIt, class Init>
using scan_accumulator_t =
    std::conditional_t<std::is_same<Init, no_init_t>::value, iter_value_t<InIt>, Init>;

}  // namespace algo::detail
