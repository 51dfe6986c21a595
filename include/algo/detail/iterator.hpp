// Small iterator adaptors shared by every backend (host and device): they let transform_reduce be
// a reduce over transformed values, without a Thrust dependency on the host-only path.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>

#include "config.hpp"

namespace algo::detail {

template <class It>
using iter_value_t = typename std::iterator_traits<It>::value_type;
template <class It>
using iter_difference_t = typename std::iterator_traits<It>::difference_type;
template <class It>
inline constexpr bool is_random_access_v =
    std::is_base_of<std::random_access_iterator_tag, typename std::iterator_traits<It>::iterator_category>::value;

/// Yields f(*it). Random access when It is; its reference is a value (so it is an input iterator).
/// f is held mutable: its operator() need not be const (Thrust takes such function objects; each
/// copy of the iterator calls its own copy of f).
template <class It, class F>
class transform_iterator {
 public:
  using value_type = std::decay_t<decltype(std::declval<F&>()(*std::declval<It&>()))>;
  using reference = value_type;
  using pointer = void;
  using difference_type = iter_difference_t<It>;
  using iterator_category = std::conditional_t<is_random_access_v<It>, std::random_access_iterator_tag,
                                               std::input_iterator_tag>;

  transform_iterator() = default;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator(It it, F f) : it_(it), f_(f) {}

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator*() const { return f_(*it_); }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator[](difference_type i) const { return f_(it_[i]); }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator& operator++() { ++it_; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator operator++(int) { auto t = *this; ++it_; return t; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator& operator--() { --it_; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator& operator+=(difference_type n) { it_ += n; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD transform_iterator& operator-=(difference_type n) { it_ -= n; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend transform_iterator operator+(transform_iterator a, difference_type n) { a.it_ += n; return a; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend transform_iterator operator+(difference_type n, transform_iterator a) { a.it_ += n; return a; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend transform_iterator operator-(transform_iterator a, difference_type n) { a.it_ -= n; return a; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend difference_type operator-(const transform_iterator& a, const transform_iterator& b) { return a.it_ - b.it_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend bool operator==(const transform_iterator& a, const transform_iterator& b) { return a.it_ == b.it_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend bool operator!=(const transform_iterator& a, const transform_iterator& b) { return a.it_ != b.it_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend bool operator<(const transform_iterator& a, const transform_iterator& b) { return a.it_ < b.it_; }

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD It base() const { return it_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD F& functor() const { return f_; }  // f_ is mutable: callable from const paths

 private:
  It it_{};
  mutable F f_{};
};

/// Yields f(*a, *b) over two ranges walked in step (the inner-product form of transform_reduce).
/// f is held mutable, as in transform_iterator.
template <class It1, class It2, class F>
class zip_transform_iterator {
 public:
  using value_type = std::decay_t<decltype(std::declval<F&>()(*std::declval<It1&>(), *std::declval<It2&>()))>;
  using reference = value_type;
  using pointer = void;
  using difference_type = iter_difference_t<It1>;
  using iterator_category =
      std::conditional_t<is_random_access_v<It1> && is_random_access_v<It2>, std::random_access_iterator_tag,
                         std::input_iterator_tag>;

  zip_transform_iterator() = default;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD zip_transform_iterator(It1 a, It2 b, F f) : a_(a), b_(b), f_(f) {}

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator*() const { return f_(*a_, *b_); }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator[](difference_type i) const { return f_(a_[i], b_[i]); }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD zip_transform_iterator& operator++() { ++a_; ++b_; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD zip_transform_iterator operator++(int) { auto t = *this; ++*this; return t; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD zip_transform_iterator& operator+=(difference_type n) { a_ += n; b_ += n; return *this; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend zip_transform_iterator operator+(zip_transform_iterator z, difference_type n) { z += n; return z; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend zip_transform_iterator operator+(difference_type n, zip_transform_iterator z) { z += n; return z; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend difference_type operator-(const zip_transform_iterator& x, const zip_transform_iterator& y) { return x.a_ - y.a_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend bool operator==(const zip_transform_iterator& x, const zip_transform_iterator& y) { return x.a_ == y.a_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD friend bool operator!=(const zip_transform_iterator& x, const zip_transform_iterator& y) { return x.a_ != y.a_; }

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD It1 first_base() const { return a_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD It2 second_base() const { return b_; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD F& functor() const { return f_; }  // f_ is mutable: callable from const paths

 private:
  It1 a_{};
  It2 b_{};
  mutable F f_{};
};

/// Converts whatever it is given to T (used to fix the accumulator type of a scan).
template <class T>
struct cast_to {
  ALGO_EXEC_CHECK_DISABLE
  template <class U>
  ALGO_HD T operator()(const U& u) const { return static_cast<T>(u); }
};

/// op, with its result converted to the accumulator type Acc. op is held mutable, so an operator
/// whose operator() is not const works wherever accumulate_with is called through a const path
/// (the device kernels take it by value and pass it on by const reference).
template <class Op, class Acc>
struct accumulate_with {
  mutable Op op;
  ALGO_EXEC_CHECK_DISABLE
  template <class A, class B>
  ALGO_HD Acc operator()(const A& a, const B& b) const { return static_cast<Acc>(op(a, b)); }
};

/// The output of reduce_into when the accumulator differs from init's type T: stores what the
/// backend writes as static_cast<T>(accumulator) through `out` (the result reduce would return),
/// or, for an empty range, `init` itself (not init converted to the accumulator and back).
template <class T, class OutIt>
class reduce_result_iterator {
 public:
  struct proxy {
    OutIt out;
    T init;
    bool empty;
    ALGO_EXEC_CHECK_DISABLE
    template <class A>
    ALGO_HD const proxy& operator=(const A& acc) const {
      if (empty) *out = init;
      else *out = static_cast<T>(acc);
      return *this;
    }
  };
  using value_type = T;
  using reference = proxy;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::random_access_iterator_tag;

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reduce_result_iterator(OutIt out, T init, bool empty) : out_(out), init_(init), empty_(empty) {}
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD proxy operator*() const { return proxy{out_, init_, empty_}; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD proxy operator[](difference_type i) const { return proxy{out_ + i, init_, empty_}; }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reduce_result_iterator operator+(difference_type i) const { return {out_ + i, init_, empty_}; }

 private:
  OutIt out_;
  T init_;
  bool empty_;
};

}  // namespace algo::detail
