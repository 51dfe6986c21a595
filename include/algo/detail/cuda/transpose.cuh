// algo::cuda transpose. Until the in-house kernels land (issue #5) it forwards to the baseline.
#pragma once

#include <cstdint>

#include "../../policy.hpp"
#include "../cub/transpose.cuh"
#include "as_cub.cuh"

namespace algo::detail {

template <class... S, class InIt, class OutIt>
OutIt transpose(const cuda_policy<S...>& p, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  return transpose(as_cub(p), in, rows, cols, out);
}

}  // namespace algo::detail
