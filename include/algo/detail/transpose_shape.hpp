// What every transpose backend receives: the shape of one matrix, its leading dimensions, and a
// batch of equally shaped matrices a fixed stride apart. All counts are elements, not bytes.
//
//   input  matrix b, element (r, c):  in [b * stride_in  + r * ld_in  + c]   0 <= r < rows, 0 <= c < cols
//   output matrix b, element (c, r):  out[b * stride_out + c * ld_out + r]
//
// The public entry points (transpose.hpp) validate it (ld_in >= cols, ld_out >= rows, no overflow,
// output matrices disjoint) before any backend sees it.
#pragma once

#include <cstdint>

namespace algo::detail {

struct transpose_shape {
  std::int64_t rows = 0, cols = 0;      // of each input matrix (the output is cols x rows)
  std::int64_t ld_in = 0, ld_out = 0;   // elements between consecutive rows
  std::int64_t count = 1;               // matrices in the batch
  std::int64_t stride_in = 0, stride_out = 0;  // elements between consecutive matrices

  /// rows x cols, densely packed, one matrix.
  static constexpr transpose_shape dense(std::int64_t rows, std::int64_t cols) {
    return transpose_shape{rows, cols, cols, rows, 1, rows * cols, rows * cols};
  }
  constexpr bool is_dense() const {
    return ld_in == cols && ld_out == rows && (count == 1 || (stride_in == rows * cols && stride_out == rows * cols));
  }
  constexpr std::int64_t elements() const { return rows * cols * count; }
};

}  // namespace algo::detail
