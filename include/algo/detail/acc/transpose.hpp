// algo::acc transpose: one construct of 32 x 32 tiles over every matrix of the batch (kernels.hpp,
// transpose_tiles), behind transpose.hpp's checks of the shape and of overlap.
#pragma once

#include <cstdint>

#include "../../policy.hpp"
#include "../transpose_shape.hpp"
#include "kernels.hpp"
#include "numeric.hpp"
#include "runtime.hpp"

namespace algo::detail {

template <class D, class R, class InIt, class OutIt>
void transpose(const acc_policy<D, R>& policy, InIt in, OutIt out, const transpose_shape& s) {
  // the extents transpose.hpp checked: from the first element to one past the last, in and out
  const std::int64_t span_in = (s.count - 1) * s.stride_in + (s.rows - 1) * s.ld_in + s.cols;
  const std::int64_t span_out = (s.count - 1) * s.stride_out + (s.cols - 1) * s.ld_out + s.rows;
  acc::mapping<D> map(policy.queue);
  auto din = map.in(in, span_in);
  // a pitched output (ld_out > rows, or gaps between the matrices of a batch) is not written whole:
  // mapped, it is copied in too, so that copying it back leaves the gaps as they were
  const bool dense_out = span_out == s.rows * s.cols * s.count;
  auto dout = dense_out ? map.out(out, span_out) : map.out_partial(out, span_out);
  acc::transpose_tiles(din, dout, s.rows, s.cols, s.ld_in, s.ld_out, s.count, s.stride_in, s.stride_out, policy.queue);
}

}  // namespace algo::detail
