// algo::cuda reductions. Until the in-house kernels land (issue #4) the cuda policy forwards to the
// CUB baseline on the same stream and resource.
#pragma once

#include <cstdint>

#include "../../policy.hpp"
#include "../cub/numeric.cuh"
#include "as_cub.cuh"

namespace algo::detail {

template <class... S, class It, class T, class Op>
T reduce(const cuda_policy<S...>& p, It first, std::int64_t n, T init, Op op) {
  return reduce(as_cub(p), first, n, init, op);
}

}  // namespace algo::detail
