// The selection family's shared pieces (select.hpp; host.hpp for algo::seq / algo::par,
// cuda/select/ for algo::cuda, cub/select.cuh for algo::cub): what decides whether element i is
// selected. Every call of the family is one selection over the input with one of these selectors:
//
//   by_value<Pred, Negate>      pred(in[i]) (copy_if, remove_copy_if: Negate, remove_copy)
//   by_stencil<S, Pred, Negate> pred(stencil[i]) (the stencil forms)
//   heads<Eq>                   i == 0 or !eq(in[i-1], in[i]): the first element of each run
//                               (unique_copy, unique, unique_count)
//
// Each selector answers on the host at(values, i) (random access: algo::par's flag pass) and
// next(state, value, i) (algo::seq's single walk, any iterator; for heads it keeps a copy of the
// previous element, so an in-place walk never compares with an element it has overwritten).
// The device kernels compute the same flags from a tile's items (cuda/select/select_tile.cuh).
// Predicates and equalities are held mutable: their operator() need not be const (Thrust's rule).
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../iterator.hpp"

namespace algo::detail::select {

/// pred(x) != Negate, as bool.
template <class Pred, bool Negate>
struct flag_of {
  mutable Pred pred;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD bool operator()(const V& v) const { return static_cast<bool>(pred(v)) != Negate; }
};

/// x == value (remove_copy, remove, count: value compared as Thrust does, element == value).
template <class T>
struct equals_value {
  T value;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD bool operator()(const V& v) const { return static_cast<bool>(v == value); }
};

/// The flag, widened to a count (count_if: a reduction of these).
template <class Count, class Flag>
struct count_of {
  mutable Flag flag;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD Count operator()(const V& v) const { return flag(v) ? Count(1) : Count(0); }
};

struct no_state {};

/// Selector kinds (the device backends switch on them).
enum class kind { value, stencil, heads };

template <class Pred, bool Negate>
struct by_value {
  static constexpr select::kind kind = select::kind::value;
  mutable flag_of<Pred, Negate> flag;
  template <class InIt>
  no_state start(const InIt&) const { return {}; }
  template <class V>
  bool next(no_state&, const V& v, std::int64_t) const { return flag(v); }
  template <class InIt>
  bool at(const InIt& in, std::int64_t i) const { return flag(in[i]); }
};

template <class StencilIt, class Pred, bool Negate>
struct by_stencil {
  static constexpr select::kind kind = select::kind::stencil;
  StencilIt stencil;
  mutable flag_of<Pred, Negate> flag;
  template <class InIt>
  StencilIt start(const InIt&) const { return stencil; }
  template <class V>
  bool next(StencilIt& s, const V&, std::int64_t) const {
    const bool f = flag(*s);
    ++s;
    return f;
  }
  template <class InIt>
  bool at(const InIt&, std::int64_t i) const { return flag(stencil[i]); }
};

/// The first element of each run of elements equal (under eq) to their predecessor in the input.
template <class Eq>
struct heads {
  static constexpr select::kind kind = select::kind::heads;
  using eq_t = Eq;
  mutable Eq eq;
  template <class InIt>
  std::optional<iter_value_t<InIt>> start(const InIt&) const { return std::nullopt; }
  template <class P, class V>
  bool next(std::optional<P>& prev, const V& v, std::int64_t) const {
    const bool head = !prev || !static_cast<bool>(eq(*prev, v));
    prev = v;  // a copy: the walk may overwrite the element (in place)
    return head;
  }
  template <class InIt>
  bool at(const InIt& in, std::int64_t i) const { return i == 0 || !static_cast<bool>(eq(in[i - 1], in[i])); }
};

/// Where the rejected elements go: nowhere (copy_if) or an output (partition_copy).
struct no_output {};
template <class O>
inline constexpr bool has_output_v = !std::is_same<O, no_output>::value;

/// What a selection returns: both output ends and the number selected.
template <class OutTrue, class OutFalse>
struct result {
  OutTrue out_true;
  OutFalse out_false;
  std::int64_t selected;
};

/// The head flag of element i as an input (unique_count: a count of these).
template <class InIt, class Eq>
struct head_at {
  InIt in;
  mutable Eq eq;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD std::int64_t operator()(std::int64_t i) const {
    return i == 0 || !static_cast<bool>(eq(in[i - 1], in[i])) ? 1 : 0;
  }
};

/// (a, b) -> a: keeps the first value of a run (unique_by_key as a reduce_by_key).
struct take_first {
  ALGO_EXEC_CHECK_DISABLE
  template <class A, class B>
  ALGO_HD A operator()(const A& a, const B&) const { return a; }
};

/// The constant C(1) at every position (run_length_encode's values).
template <class C>
struct one_of {
  ALGO_HD C operator()(std::int64_t) const { return C(1); }
};

/// The type run lengths are counted in and written as: counts_out's value type when it is a number
/// (a discard or other proxy output: int64).
template <class CountOut>
using run_count_t = std::conditional_t<std::is_arithmetic<iter_value_t<CountOut>>::value, iter_value_t<CountOut>,
                                       std::int64_t>;

}  // namespace algo::detail::select
