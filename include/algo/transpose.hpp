// transpose(policy, in, rows, cols, out): row-major rows x cols in, row-major cols x rows out,
// i.e. out[c * rows + r] = in[r * cols + c]. Input and output must not overlap.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detail/iterator.hpp"
#include "detail/validate.hpp"
#include "policy.hpp"

#include "detail/host/seq.hpp"
#include "detail/host/par.hpp"
#if ALGO_HAS_CUDA
#  include "detail/cuda/pointer.cuh"
#  include "detail/cub/transpose.cuh"
#  include "detail/cuda/transpose.cuh"
#endif

namespace algo {

template <class Policy, class InIt, class OutIt, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt transpose(const Policy& policy, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  static_assert(detail::is_random_access_v<InIt> && detail::is_random_access_v<OutIt>,
                "algo::transpose needs random-access iterators");
  const char* name = "transpose";
  const std::int64_t n = detail::checked_matrix_size(name, rows, cols);
  detail::check_iterator(name, "input", policy, in, n);
  detail::check_iterator(name, "output", policy, out, n);
  if constexpr (std::is_pointer<InIt>::value && std::is_pointer<OutIt>::value) {
    if (detail::ranges_overlap(in, n, out, n)) detail::fail(name, "output overlaps input (transpose is not in-place)");
  }
  if (n == 0) return out;
  return detail::transpose(policy, in, rows, cols, out);
}

}  // namespace algo
