// Segmented scans as ordinary scans (Blelloch's segmented scan; Schwartz's lifting): each element
// becomes a pair (head, value), head = "a segment starts here", and
//     (h1, a) (+) (h2, b) = (h1 | h2, h2 ? b : a op b)
// is associative whenever op is (not commutative: it keeps the order of op's operands). Any
// scan of the library, on any policy and with any strategy, then scans every segment at once.
// reduce_by_key also counts the heads (runs) so that the element ending a run knows where its
// result goes.
//
// The pieces here are index-based and __host__ __device__, shared by every backend:
//   heads        key_heads (runs of equal keys), mask_heads (a bit per element, built from
//                offsets), uniform_heads (segments of one length);
//   inputs       lifted_input: element i as (head(i), value), the per-segment init folded in
//                at heads (inclusive with init), or shifted by one for exclusive scans;
//   outputs      indexed_output + a writer: value_writer (scans), run_writer (reduce_by_key),
//                segment_writer (segmented_reduce over offsets).
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../config.hpp"
#include "../iterator.hpp"

namespace algo::detail::segmented {

// ---- lifted values and the segmented operator -------------------------------------------------
template <class Acc>
struct seg_value {
  Acc value;
  int head;  // non-zero: a segment starts in the span this value covers
};
/// reduce_by_key's lifted value: the number of runs started in the span instead of a flag (the
/// span holds a head exactly when runs > 0). R: int when the input has fewer than 2^31 elements
/// (an 8-byte value for float sums: the packed tile state, 16 items per thread), else long long.
template <class Acc, class R = long long>
struct run_value {
  Acc value;
  R runs;
};

/// (h1, a) (+) (h2, b) = (h1 | h2, h2 ? b : op(a, b)); Op returns the accumulator type.
template <class Op>
struct segmented_op {
  mutable Op op;
  ALGO_EXEC_CHECK_DISABLE
  template <class Acc>
  ALGO_HD seg_value<Acc> operator()(const seg_value<Acc>& a, const seg_value<Acc>& b) const {
    if (b.head) return b;
    return seg_value<Acc>{static_cast<Acc>(op(a.value, b.value)), a.head};
  }
  ALGO_EXEC_CHECK_DISABLE
  template <class Acc, class R>
  ALGO_HD run_value<Acc, R> operator()(const run_value<Acc, R>& a, const run_value<Acc, R>& b) const {
    if (b.runs) return run_value<Acc, R>{b.value, static_cast<R>(a.runs + b.runs)};
    return run_value<Acc, R>{static_cast<Acc>(op(a.value, b.value)), a.runs};
  }
};

// ---- heads --------------------------------------------------------------------------------------
/// Runs of equal keys: i starts one when i == 0 or !eq(keys[i-1], keys[i]).
template <class KeyIt, class Eq>
struct key_heads {
  KeyIt keys;
  mutable Eq eq;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD bool operator()(std::int64_t i) const { return i == 0 || !eq(keys[i - 1], keys[i]); }
};

/// One bit per element (bit i of word i / 32), set where a non-empty segment starts.
struct mask_heads {
  const std::uint32_t* mask;
  ALGO_HD bool operator()(std::int64_t i) const { return (mask[i >> 5] >> (i & 31)) & 1u; }
};

/// Segments of `length` elements (length > 0).
struct uniform_heads {
  std::int64_t length;
  ALGO_HD bool operator()(std::int64_t i) const {
    if ((static_cast<std::uint64_t>(i) | static_cast<std::uint64_t>(length)) >> 32 == 0)
      return static_cast<std::uint32_t>(i) % static_cast<std::uint32_t>(length) == 0;  // 32-bit division
    return i % length == 0;
  }
};

// ---- an iterator over f(i) ----------------------------------------------------------------------
/// Random-access iterator whose element i is f(base + i). f is held mutable (as transform_iterator).
template <class F>
class indexed_iterator {
 public:
  using value_type = std::decay_t<decltype(std::declval<F&>()(std::int64_t{}))>;
  using reference = value_type;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::random_access_iterator_tag;

  indexed_iterator() = default;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD indexed_iterator(F f, std::int64_t i) : f_(f), i_(i) {}

  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator*() const { return f_(i_); }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD reference operator[](difference_type d) const { return f_(i_ + d); }
  ALGO_HD indexed_iterator& operator++() { ++i_; return *this; }
  ALGO_HD indexed_iterator operator++(int) { auto t = *this; ++i_; return t; }
  ALGO_HD indexed_iterator& operator--() { --i_; return *this; }
  ALGO_HD indexed_iterator& operator+=(difference_type d) { i_ += d; return *this; }
  ALGO_HD indexed_iterator& operator-=(difference_type d) { i_ -= d; return *this; }
  ALGO_HD friend indexed_iterator operator+(indexed_iterator a, difference_type d) { a.i_ += d; return a; }
  ALGO_HD friend indexed_iterator operator+(difference_type d, indexed_iterator a) { a.i_ += d; return a; }
  ALGO_HD friend indexed_iterator operator-(indexed_iterator a, difference_type d) { a.i_ -= d; return a; }
  ALGO_HD friend difference_type operator-(const indexed_iterator& a, const indexed_iterator& b) {
    return static_cast<difference_type>(a.i_ - b.i_);
  }
  ALGO_HD friend bool operator==(const indexed_iterator& a, const indexed_iterator& b) { return a.i_ == b.i_; }
  ALGO_HD friend bool operator!=(const indexed_iterator& a, const indexed_iterator& b) { return a.i_ != b.i_; }
  ALGO_HD friend bool operator<(const indexed_iterator& a, const indexed_iterator& b) { return a.i_ < b.i_; }
  ALGO_HD std::int64_t index() const { return i_; }
  ALGO_HD F& functor() const { return f_; }

 private:
  mutable F f_{};
  std::int64_t i_ = 0;
};

/// Output iterator whose element i, assigned v, calls w(base + i, v).
template <class W>
class indexed_output {
 public:
  struct proxy {
    W* w;
    std::int64_t i;
    ALGO_EXEC_CHECK_DISABLE
    template <class V>
    ALGO_HD const proxy& operator=(const V& v) const {
      (*w)(i, v);
      return *this;
    }
  };
  using value_type = void;
  using reference = proxy;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::random_access_iterator_tag;

  indexed_output() = default;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD indexed_output(W w, std::int64_t i) : w_(w), i_(i) {}
  ALGO_HD proxy operator*() const { return proxy{&w_, i_}; }
  ALGO_HD proxy operator[](difference_type d) const { return proxy{&w_, i_ + d}; }
  ALGO_HD indexed_output& operator++() { ++i_; return *this; }
  ALGO_HD indexed_output operator++(int) { auto t = *this; ++i_; return t; }
  ALGO_HD indexed_output& operator+=(difference_type d) { i_ += d; return *this; }
  ALGO_HD friend indexed_output operator+(indexed_output a, difference_type d) { a.i_ += d; return a; }
  ALGO_HD friend indexed_output operator+(difference_type d, indexed_output a) { a.i_ += d; return a; }
  ALGO_HD friend difference_type operator-(const indexed_output& a, const indexed_output& b) {
    return static_cast<difference_type>(a.i_ - b.i_);
  }
  ALGO_HD friend bool operator==(const indexed_output& a, const indexed_output& b) { return a.i_ == b.i_; }
  ALGO_HD friend bool operator!=(const indexed_output& a, const indexed_output& b) { return a.i_ != b.i_; }
  ALGO_HD std::int64_t index() const { return i_; }
  ALGO_HD W& writer() const { return w_; }

 private:
  mutable W w_{};
  std::int64_t i_ = 0;
};

// ---- lifted inputs ------------------------------------------------------------------------------
/// Element i (an index into the values, from 0) as (head(i), value):
///   inclusive, no init   (h, v[i])
///   inclusive, init      (h, h ? op(init, v[i]) : v[i])        every segment starts from init
///   exclusive            (h, h ? init : v[i-1])                the scan of these is the exclusive
///                                                              scan by segment, init first
template <class Acc, class Heads, class ValIt, class Op, int Mode>
struct lift {
  using value_type = seg_value<Acc>;
  static constexpr bool needs_previous = Mode == 2;  // reads value i - 1
  Heads heads;
  ValIt values;
  mutable Op op;  // returns Acc
  Acc init;
  /// The lifted element from its head flag, its value and (exclusive) the value before it.
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD seg_value<Acc> make(bool h, const V& cur, const V& prev) const {
    if constexpr (Mode == 0) {
      (void)prev;
      return seg_value<Acc>{static_cast<Acc>(cur), h};
    } else if constexpr (Mode == 1) {
      (void)prev;
      if (h) return seg_value<Acc>{static_cast<Acc>(op(init, cur)), 1};
      return seg_value<Acc>{static_cast<Acc>(cur), 0};
    } else {
      (void)cur;
      if (h) return seg_value<Acc>{init, 1};
      return seg_value<Acc>{static_cast<Acc>(prev), 0};
    }
  }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD seg_value<Acc> operator()(std::int64_t i) const {
    const bool h = heads(i);
    if constexpr (Mode == 2) {
      if (h) return seg_value<Acc>{init, 1};
      return seg_value<Acc>{static_cast<Acc>(values[i - 1]), 0};
    } else {
      const auto v = values[i];
      return make(h, v, v);
    }
  }
};
inline constexpr int lift_plain = 0, lift_init = 1, lift_exclusive = 2;

/// reduce_by_key: (value, 1 if a run starts here). `n`: the number of elements (algo::cuda's tile
/// load also reads the key after a full tile, when there is one: detail/segmented/tile.cuh).
template <class Acc, class Heads, class ValIt, class R>
struct lift_runs {
  using value_type = run_value<Acc, R>;
  static constexpr bool needs_previous = false;
  Heads heads;
  ValIt values;
  std::int64_t n;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD run_value<Acc, R> make(bool h, const V& cur, const V&) const {
    return run_value<Acc, R>{static_cast<Acc>(cur), static_cast<R>(h ? 1 : 0)};
  }
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD run_value<Acc, R> operator()(std::int64_t i) const {
    const auto v = values[i];
    return make(heads(i), v, v);
  }
};

// ---- writers ------------------------------------------------------------------------------------
/// Scans: out[i] = value.
template <class OutIt>
struct value_writer {
  OutIt out;
  ALGO_EXEC_CHECK_DISABLE
  template <class Acc>
  ALGO_HD void operator()(std::int64_t i, const seg_value<Acc>& v) const {
    out[i] = v.value;
  }
};

template <class W>
struct is_value_writer_to_pointer : std::false_type {};
template <class T>
struct is_value_writer_to_pointer<value_writer<T*>> : std::true_type {};
/// (the entry points hold their output as `const auto o = kernel_view(...)`: a const pointer)
template <class T>
struct is_value_writer_to_pointer<value_writer<T* const>> : std::true_type {};

/// reduce_by_key: the first element of a run writes its key, the last one the run's fold, both to
/// position runs - 1 of the outputs; the last element also stores the number of runs in *count
/// (CountIt: a temporary of the call, or reduce_by_key_into's count output itself).
template <class Acc, class KeyIt, class Eq, class KeyOut, class ValOut, class CountIt = long long*>
struct run_writer {
  KeyIt keys;
  mutable Eq eq;
  KeyOut keys_out;
  ValOut values_out;
  std::int64_t n;
  CountIt count;
  ALGO_EXEC_CHECK_DISABLE
  template <class R>
  ALGO_HD void operator()(std::int64_t i, const run_value<Acc, R>& v) const {
    // the run's first key (as thrust::reduce_by_key: keys equal under eq need not be identical)
    if (i == 0 || !eq(keys[i - 1], keys[i])) keys_out[v.runs - 1] = keys[i];
    const bool last = i + 1 == n;
    if (last || !eq(keys[i], keys[i + 1])) {
      values_out[v.runs - 1] = v.value;
      if (last) *count = v.runs;
    }
  }
};

/// segmented_reduce: at the last element of a non-empty segment (i + 1 == n or the next element
/// starts one), the segment's index k (binary search in the offsets) and out[k] = value.
template <class Heads, class OffIt, class OutIt>
struct segment_writer {
  Heads heads;
  OffIt offsets;  // offsets[0 .. segments], relative to the first element (offsets[0] may be > 0)
  std::int64_t segments;
  std::int64_t base;  // offsets[0]
  std::int64_t n;     // offsets[segments] - base
  OutIt out;
  ALGO_EXEC_CHECK_DISABLE
  template <class Acc>
  ALGO_HD void operator()(std::int64_t i, const seg_value<Acc>& v) const {
    if (i + 1 != n && !heads(i + 1)) return;
    // the last k with offsets[k] <= base + i (then offsets[k + 1] > base + i: segment k holds i)
    const std::int64_t x = base + i;
    std::int64_t lo = 0, hi = segments;  // answer in [lo, hi)
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(offsets[mid]) <= x) lo = mid;
      else hi = mid;
    }
    out[lo] = v.value;
  }
};

}  // namespace algo::detail::segmented
