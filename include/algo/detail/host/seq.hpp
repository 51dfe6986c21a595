// algo::seq: plain sequential loops. Also the building blocks algo::par runs on each thread's block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <type_traits>

#include "../../policy.hpp"
#include "../iterator.hpp"
#include "../scan_kind.hpp"

namespace algo::detail::host {

/// Scans n elements starting at `first` into `out`, with an optional running prefix `carry`
/// (empty means "no prefix yet": the first element starts the scan). Returns the advanced output.
/// Each input element is read before its output is written, so in-place scans work.
template <bool Inclusive, class Acc, class InIt, class OutIt, class Op>
OutIt scan_block(InIt first, std::int64_t n, OutIt out, Op op, std::optional<Acc> carry) {
  std::int64_t i = 0;
  if (!carry) {
    if (n == 0) return out;
    // Only inclusive scans start without a prefix (exclusive ones always carry init).
    Acc acc = static_cast<Acc>(*first);
    ++first;
    *out = acc;
    ++out;
    i = 1;
    carry.emplace(acc);
  }
  Acc acc = *carry;
  for (; i < n; ++i, ++first, ++out) {
    if constexpr (Inclusive) {
      acc = static_cast<Acc>(op(acc, *first));
      *out = acc;
    } else {
      Acc next = static_cast<Acc>(op(acc, *first));
      *out = acc;
      acc = next;
    }
  }
  return out;
}

/// Left fold of n elements onto acc.
template <class Acc, class It, class Op>
Acc fold(It first, std::int64_t n, Acc acc, Op op) {
  for (std::int64_t i = 0; i < n; ++i, ++first) acc = static_cast<Acc>(op(acc, *first));
  return acc;
}

/// Left fold of n >= 1 elements, starting from the first one. Random-access inputs are folded as
/// four contiguous quarters in lockstep (independent dependency chains, same left-to-right result
/// for any associative op), then the quarters are combined in order.
template <class Acc, class It, class Op>
Acc fold_nonempty(It first, std::int64_t n, Op op) {
  if constexpr (is_random_access_v<It>) {
    if (n >= 64) {
      const std::int64_t q = n / 4;
      It p0 = first, p1 = first + q, p2 = first + 2 * q, p3 = first + 3 * q;
      Acc a0 = static_cast<Acc>(*p0), a1 = static_cast<Acc>(*p1), a2 = static_cast<Acc>(*p2),
          a3 = static_cast<Acc>(*p3);
      for (std::int64_t i = 1; i < q; ++i) {
        a0 = static_cast<Acc>(op(a0, p0[i]));
        a1 = static_cast<Acc>(op(a1, p1[i]));
        a2 = static_cast<Acc>(op(a2, p2[i]));
        a3 = static_cast<Acc>(op(a3, p3[i]));
      }
      a3 = fold(p3 + q, n - 4 * q, a3, op);  // the remainder belongs to the last quarter
      return static_cast<Acc>(op(static_cast<Acc>(op(a0, a1)), static_cast<Acc>(op(a2, a3))));
    }
  }
  Acc acc = static_cast<Acc>(*first);
  ++first;
  return fold(first, n - 1, acc, op);
}

/// Cache-blocked transpose of rows x cols (row-major, leading dimensions ld_in / ld_out) for the
/// block rows [r0, r1) and block columns [c0, c1).
template <class InIt, class OutIt>
void transpose_tiles(InIt in, std::int64_t ld_in, OutIt out, std::int64_t ld_out, std::int64_t r0,
                     std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  constexpr std::int64_t tile = 32;
  for (std::int64_t rb = r0; rb < r1; rb += tile) {
    const std::int64_t re = std::min(rb + tile, r1);
    for (std::int64_t cb = c0; cb < c1; cb += tile) {
      const std::int64_t ce = std::min(cb + tile, c1);
      for (std::int64_t c = cb; c < ce; ++c)
        for (std::int64_t r = rb; r < re; ++r) out[c * ld_out + r] = in[r * ld_in + c];
    }
  }
}

}  // namespace algo::detail::host

namespace algo::detail {

template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const seq_policy&, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op, Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  std::optional<Acc> carry;
  if constexpr (!std::is_same<Init, no_init_t>::value) carry.emplace(init);
  return host::scan_block<Inclusive, Acc>(first, n, out, op, carry);
}

template <class It, class T, class Op>
T reduce(const seq_policy&, It first, std::int64_t n, T init, Op op) {
  return static_cast<T>(op(init, host::fold_nonempty<T>(first, n, op)));
}

template <class InIt, class OutIt>
OutIt transpose(const seq_policy&, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  host::transpose_tiles(in, cols, out, rows, 0, rows, 0, cols);
  return out + rows * cols;
}

}  // namespace algo::detail
