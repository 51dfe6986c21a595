// algo::cuda scans. Until the in-house kernels land (issue #3) the cuda policy forwards to the
// CUB baseline on the same stream and resource.
#pragma once

#include <cstdint>

#include "../../policy.hpp"
#include "../cub/numeric.cuh"
#include "../scan_kind.hpp"
#include "as_cub.cuh"

namespace algo::detail {

template <class... S, bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const cuda_policy<S...>& p, scan_kind<Inclusive> kind, InIt first, std::int64_t n, OutIt out, Op op,
           Init init) {
  return scan(as_cub(p), kind, first, n, out, op, init);
}

}  // namespace algo::detail
