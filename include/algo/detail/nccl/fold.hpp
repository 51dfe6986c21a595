// The partials of the ranks and their fold in rank order (plain C++ and device code: the fold
// kernel of detail/nccl/numeric.cuh runs it, test/host/test_nccl_records.cpp checks it on the host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"
#include "record.hpp"

namespace algo::detail::nccl {

/// A partial that may be empty (the fold of operators without a known identity).
template <class Acc>
struct lifted {
  Acc value;
  int has;
};
template <class Acc>
struct lift_value {
  ALGO_EXEC_CHECK_DISABLE
  template <class X>
  ALGO_HD lifted<Acc> operator()(const X& x) const {
    return lifted<Acc>{static_cast<Acc>(x), 1};
  }
};
template <class Op, class Acc>
struct lifted_op {
  mutable Op op;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD lifted<Acc> operator()(const lifted<Acc>& a, const lifted<Acc>& b) const {
    if (!a.has) return b;
    if (!b.has) return a;
    return lifted<Acc>{static_cast<Acc>(op(a.value, b.value)), 1};
  }
};

/// The fold of init (when has_init) and the partials of the ranks [0, upto) whose ranges are not
/// empty, in rank order. `any`: some rank contributed; `has`: there is a value (init or a partial).
template <class Acc>
struct fold_value {
  Acc value;
  bool has;
  bool any;
};

/// `blocks`: the gathered records (block_bytes apart); `payloads`: the partials (of type Partial,
/// Acc or lifted<Acc>, payload_stride apart). op(Acc, Acc) returns Acc.
ALGO_EXEC_CHECK_DISABLE
template <class Acc, class Partial, class Op>
ALGO_HD fold_value<Acc> fold_partials(const unsigned char* blocks, const unsigned char* payloads,
                                      std::size_t payload_stride, int upto, bool has_init, const Acc& init, Op& op) {
  fold_value<Acc> f{init, has_init, false};
  for (int q = 0; q < upto; ++q) {
    rank_record r;
    memcpy(&r, blocks + static_cast<std::size_t>(q) * block_bytes, sizeof(r));
    if (r.n <= 0) continue;
    Partial part;
    memcpy(static_cast<void*>(&part), payloads + static_cast<std::size_t>(q) * payload_stride, sizeof(Partial));
    Acc v;
    if constexpr (std::is_same<Partial, Acc>::value) v = part;
    else v = part.value;
    f.value = f.has ? static_cast<Acc>(op(f.value, v)) : v;
    f.has = true;
    f.any = true;
  }
  return f;
}

}  // namespace algo::detail::nccl
