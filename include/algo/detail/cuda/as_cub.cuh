// The CUB baseline policy on the same stream and resource as a cuda policy (for forwarding).
#pragma once

#include "../../policy.hpp"

namespace algo::detail {

template <class... S>
cub_policy as_cub(const cuda_policy<S...>& p) {
  cub_policy c;
  c.stream = p.stream;
  c.resource = p.resource;
  return c;
}

}  // namespace algo::detail
