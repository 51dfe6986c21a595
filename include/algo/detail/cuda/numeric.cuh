// algo::cuda scans and reductions. Until the in-house kernels land (issues #3 and #4) the cuda
// policy forwards to the CUB baseline on the same stream and resource.
#pragma once

#include <cstdint>

#include "../../policy.hpp"
#include "../cub/numeric.cuh"
#include "../scan_kind.hpp"

namespace algo::detail {

template <class... S>
cub_policy as_cub(const cuda_policy<S...>& p) {
  cub_policy c;
  c.stream = p.stream;
  c.resource = p.resource;
  return c;
}

template <class... S, bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const cuda_policy<S...>& p, scan_kind<Inclusive> kind, InIt first, std::int64_t n, OutIt out, Op op,
           Init init) {
  return scan(as_cub(p), kind, first, n, out, op, init);
}

template <class... S, class It, class T, class Op>
T reduce(const cuda_policy<S...>& p, It first, std::int64_t n, T init, Op op) {
  return reduce(as_cub(p), first, n, init, op);
}

}  // namespace algo::detail
