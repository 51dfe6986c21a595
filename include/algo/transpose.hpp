// transpose: row-major rows x cols in, row-major cols x rows out.
//
//   transpose(policy, in, rows, cols, out)                          out[c * rows + r] = in[r * cols + c]
//   transpose(policy, in, rows, cols, ld_in, out, ld_out)           pitched: rows ld_in / ld_out elements apart
//   transpose(policy, in, rows, cols, out, batch{n})                n matrices, packed one after another
//   transpose(policy, in, rows, cols, ld_in, out, ld_out, batch{n, stride_in, stride_out})
//   transpose(policy, mdspan in, mdspan out)                        cuda::std::mdspan, layout_right,
//                                                                   rank 2 (rows x cols) or 3 (batch x rows x cols)
//
// The iterator forms return the iterator one past the last output element written
// (out + rows * cols for the first form). Input and output must not overlap. Bad input (a negative
// or overflowing shape, a leading dimension smaller than the row, null pointers, output matrices of a
// batch that overlap each other, output overlapping input, mismatched mdspan extents) raises
// algo::error before anything is written.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "detail/alias.hpp"
#include "detail/iterator.hpp"
#include "detail/transpose_shape.hpp"
#include "detail/validate.hpp"
#include "policy.hpp"

#include "detail/host/seq.hpp"
#include "detail/host/par.hpp"
#if ALGO_HAS_CUDA
#  include "detail/cuda/pointer.cuh"
#  include "detail/cub/transpose.cuh"
#  include "detail/cuda/transpose.cuh"
#endif
#if ALGO_HAS_OPENACC
#  include "detail/acc/transpose.hpp"
#endif

#if defined(__has_include)
#  if __has_include(<cuda/std/mdspan>)
#    include <cuda/std/mdspan>
#    define ALGO_HAS_MDSPAN 1
#  endif
#endif
#ifndef ALGO_HAS_MDSPAN
#  define ALGO_HAS_MDSPAN 0
#endif

namespace algo {

/// A batch of `count` equally shaped matrices. The strides (elements from one matrix to the next)
/// default to `packed`: the size of one matrix, rows * ld_in for the input and cols * ld_out for the
/// output. Any stride >= 0 works for the input (0 transposes one matrix `count` times); the output
/// matrices must not overlap, either one after another or side by side inside the output's pitch.
struct batch {
  /// A stride of `packed`: the matrices follow one another without a gap.
  static constexpr std::int64_t packed = -1;
  /// Number of matrices.
  std::int64_t count = 1;
  /// Elements from one input matrix to the next (default: packed, rows * ld_in).
  std::int64_t stride_in = packed;
  /// Elements from one output matrix to the next (default: packed, cols * ld_out).
  std::int64_t stride_out = packed;
};

namespace detail {

/// Elements from the first to one past the last element of the input and of the output.
struct transpose_extents {
  std::int64_t in = 0, out = 0;
};

/// a * b + c for non-negative operands, or an error naming `what` when it does not fit in int64.
inline std::int64_t checked_madd(const char* algorithm, const char* what, std::int64_t a, std::int64_t b,
                                 std::int64_t c) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  if ((b != 0 && a > max / b) || a * b > max - c)
    fail(algorithm, std::string(what) + " overflows a 64-bit element count");
  return a * b + c;
}

/// Checks a transpose shape (see transpose_shape.hpp) and returns the extents it spans.
inline transpose_extents checked_transpose_shape(const char* name, const transpose_shape& s) {
  const std::int64_t n = checked_matrix_size(name, s.rows, s.cols);
  if (s.ld_in < s.cols)
    fail(name, "leading dimension of the input (" + std::to_string(s.ld_in) + ") is smaller than cols (" +
                   std::to_string(s.cols) + ")");
  if (s.ld_out < s.rows)
    fail(name, "leading dimension of the output (" + std::to_string(s.ld_out) + ") is smaller than rows (" +
                   std::to_string(s.rows) + ")");
  if (s.count < 0) fail(name, "negative batch count " + std::to_string(s.count));
  if (s.stride_in < 0 || s.stride_out < 0)
    fail(name, "negative batch stride (" + std::to_string(s.stride_in) + ", " + std::to_string(s.stride_out) + ")");
  transpose_extents e;
  if (n == 0 || s.count == 0) return e;
  checked_madd(name, "rows * cols * batch count", n, s.count, 0);
  const std::int64_t span_in = checked_madd(name, "the input's extent", s.rows - 1, s.ld_in, s.cols);
  const std::int64_t span_out = checked_madd(name, "the output's extent", s.cols - 1, s.ld_out, s.rows);
  e.in = checked_madd(name, "the input batch's extent", s.count - 1, s.stride_in, span_in);
  e.out = checked_madd(name, "the output batch's extent", s.count - 1, s.stride_out, span_out);
  if (s.count > 1) {
    const bool one_after_another = s.stride_out >= span_out;
    const bool side_by_side = s.stride_out >= s.rows && (s.count - 1) * s.stride_out + s.rows <= s.ld_out;
    if (!one_after_another && !side_by_side)
      fail(name, "the output matrices of the batch overlap each other (stride_out " + std::to_string(s.stride_out) +
                     ", each output matrix spans " + std::to_string(span_out) + " elements)");
  }
  return e;
}

template <class Policy, class InIt, class OutIt>
OutIt transpose_entry(const Policy& policy, InIt in, OutIt out, const transpose_shape& s) {
  static_assert(is_random_access_v<InIt> && is_random_access_v<OutIt>, "algo::transpose needs random-access iterators");
  const char* name = "transpose";
  const transpose_extents e = checked_transpose_shape(name, s);
  check_iterator(name, "input", policy, in, e.in);
  check_iterator(name, "output", policy, out, e.out);
  if (e.out == 0) return out;
  // Memory the input reads that the output writes (alias.hpp: pointers, vector iterators, Thrust's
  // contiguous iterators, transform / zip iterators over them). Iterators the library cannot see
  // through (permutation iterators, unknown types) are not checked: not overlapping is then the
  // caller's promise, as documented above.
  if (e.in > 0 && access_traits<InIt>::known && access_traits<OutIt>::known &&
      alias_between(in, e.in, out, e.out) != alias_kind::none)
    fail(name, "output overlaps input (transpose is not in-place)");
  transpose(policy, in, out, s);
  return out + e.out;
}

}  // namespace detail

/// rows x cols (row-major, packed) -> cols x rows.
template <class Policy, class InIt, class OutIt, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt transpose(const Policy& policy, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  return detail::transpose_entry(policy, in, out, detail::transpose_shape{rows, cols, cols, rows, 1, 0, 0});
}

/// Pitched: input row r starts at in + r * ld_in (ld_in >= cols), output row c at out + c * ld_out
/// (ld_out >= rows). Elements between a row's end and the next row's start are left alone.
template <class Policy, class InIt, class OutIt, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt transpose(const Policy& policy, InIt in, std::int64_t rows, std::int64_t cols, std::int64_t ld_in, OutIt out,
                std::int64_t ld_out) {
  return detail::transpose_entry(policy, in, out, detail::transpose_shape{rows, cols, ld_in, ld_out, 1, 0, 0});
}

/// A batch of packed matrices.
template <class Policy, class InIt, class OutIt, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt transpose(const Policy& policy, InIt in, std::int64_t rows, std::int64_t cols, OutIt out, batch b) {
  return transpose(policy, in, rows, cols, cols, out, rows, b);
}

/// A batch of pitched matrices.
template <class Policy, class InIt, class OutIt, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt transpose(const Policy& policy, InIt in, std::int64_t rows, std::int64_t cols, std::int64_t ld_in, OutIt out,
                std::int64_t ld_out, batch b) {
  // Packed strides; negative shapes get their own message from transpose_entry.
  auto packed = [](const char* what, std::int64_t x, std::int64_t y) {
    return detail::checked_madd("transpose", what, x < 0 ? 0 : x, y < 0 ? 0 : y, 0);
  };
  detail::transpose_shape s{rows, cols, ld_in, ld_out, b.count, b.stride_in, b.stride_out};
  if (b.stride_in == batch::packed) s.stride_in = packed("the packed input stride (rows * ld_in)", rows, ld_in);
  if (b.stride_out == batch::packed) s.stride_out = packed("the packed output stride (cols * ld_out)", cols, ld_out);
  return detail::transpose_entry(policy, in, out, s);
}

#if ALGO_HAS_MDSPAN
/// mdspan forms: rank 2 (rows x cols -> cols x rows) or rank 3 (a batch: n x rows x cols ->
/// n x cols x rows), layout_right, the default accessor (data_handle() is a pointer).
template <class Policy, class TI, class EI, class TO, class EO, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void transpose(const Policy& policy, cuda::std::mdspan<TI, EI, cuda::std::layout_right> in,
               cuda::std::mdspan<TO, EO, cuda::std::layout_right> out) {
  static_assert(EI::rank() == EO::rank() && (EI::rank() == 2 || EI::rank() == 3),
                "algo::transpose: mdspans of rank 2 (rows x cols) or 3 (batch x rows x cols), both the same rank");
  constexpr std::size_t k = EI::rank() - 2;  // index of the row extent
  const auto ext = [](const auto& m, std::size_t i) { return static_cast<std::int64_t>(m.extent(i)); };
  const std::int64_t rows = ext(in, k), cols = ext(in, k + 1), count = k ? ext(in, 0) : 1;
  const bool ok = ext(out, k) == cols && ext(out, k + 1) == rows && (k == 0 || ext(out, 0) == count);
  if (!ok) {
    auto shape = [&](const auto& m) {
      std::string t;
      for (std::size_t i = 0; i < EI::rank(); ++i) t += (i ? " x " : "") + std::to_string(ext(m, i));
      return t;
    };
    detail::fail("transpose", "output mdspan extents (" + shape(out) + ") are not the transposed input extents (" +
                                  shape(in) + ")");
  }
  transpose(policy, in.data_handle(), rows, cols, cols, out.data_handle(), rows, batch{count});
}
#endif

}  // namespace algo
