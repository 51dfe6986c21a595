// algo::cub's selection family: CUB's calls, the baseline algo::cuda is measured against.
//   copy_if, remove_copy_if, remove_copy      cub::DeviceSelect::If (in place: its in-place overload)
//   the stencil forms                         cub::DeviceSelect::FlaggedIf (in place: its in-place overload)
//   unique_copy, unique                       cub::DeviceSelect::Unique when eq is plain ==, else
//                                             cub::DeviceSelect::Flagged over the head flags
//   partition_copy (and partition's pass)     cub::DevicePartition::If, three-way (first part: pred,
//                                             second part: the rest, nothing unselected): both
//                                             outputs in input order; stencil forms: FlaggedIf twice
//   run_length_encode                         cub::DeviceRunLengthEncode::Encode when eq is plain ==
//                                             and the input fits CUB's int count, else reduce_by_key
//   count_if, count, unique_count             cub::DeviceReduce over the flags (numeric.cuh)
//   unique_by_key(_copy)                      cub::DeviceSelect::UniqueByKey (in place: from copies)
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../cuda/scan/scan_tile.cuh"
#include "../cuda/select.cuh"
#include "../select/common.hpp"
#include "numeric.cuh"
#include "segmented.cuh"

namespace algo::detail::select {

namespace cub_detail {
/// The flag as CUB's select_op (a const operator() returning bool).
template <class F>
struct as_select_op {
  mutable F f;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD bool operator()(const V& v) const { return f(v); }
};
/// !f(v).
template <class F>
struct not_op {
  mutable F f;
  ALGO_EXEC_CHECK_DISABLE
  template <class V>
  ALGO_HD bool operator()(const V& v) const { return !f(v); }
};
struct always_true {
  template <class V>
  ALGO_HD bool operator()(const V&) const { return true; }
};
/// *dst = *src on the device.
template <class Dst>
__global__ void copy_count_kernel(Dst dst, const long long* src) {
  *dst = *src;
}
}  // namespace cub_detail

/// The selection on CUB, its count to the device location `count` (long long[2]: the three-way
/// DevicePartition::If writes the sizes of both parts).
template <class Sel, class InIt, class OutT, class OutF>
void cub_select(const char* name, const cub_policy& p, const Sel& sel, InIt first, std::int64_t n, OutT out_true,
                OutF out_false, long long* count, bool in_place) {
  auto in = cuda::unwrap(first);
  auto ot = cuda::unwrap(out_true);
  const bool same = in_place && static_cast<const void*>(raw_address(first)) != nullptr &&
                    static_cast<const void*>(raw_address(first)) == static_cast<const void*>(raw_address(out_true));
  // CUB's in-place overloads cover If and FlaggedIf onto the input itself; anything else that may
  // overlap the input (Unique, Flagged over head flags, DevicePartition) runs from a copy
  constexpr bool overloads = std::is_same<decltype(in), decltype(ot)>::value && !has_output_v<OutF> &&
                             Sel::kind != kind::heads;  // CUB has an in-place call for this one
  if (in_place && (!overloads || !same)) {
    using V = iter_value_t<InIt>;
    cuda::temporary_buffer copy(p, static_cast<std::size_t>(n) * sizeof(V));
    device_detail::copy(name, p.stream, in, copy.as<V>(), n);
    cub_select(name, p, sel, copy.as<V>(), n, out_true, out_false, count, false);
    return;
  }
  if constexpr (has_output_v<OutF>) {
    auto of = cuda::unwrap(out_false);
    const auto two_way = [&](auto values, auto flag) {
      cub_backend::run_with_temporaries(name, "cub::DevicePartition::If", p, [&](void* tmp, std::size_t& bytes) {
        return ::cub::DevicePartition::If(tmp, bytes, values, ot, of, thrust::make_discard_iterator(), count, n,
                                          cub_detail::as_select_op<decltype(flag)>{flag}, cub_detail::always_true{},
                                          p.stream);
      });
    };
    if constexpr (Sel::kind == kind::stencil) {
      // no three-way partition over a stencil: the two parts in two passes
      auto st = cuda::unwrap(sel.stencil);
      cuda::temporary_buffer rejected(p, sizeof(long long));
      cub_backend::run_with_temporaries(name, "cub::DeviceSelect::FlaggedIf", p, [&](void* tmp, std::size_t& bytes) {
        return ::cub::DeviceSelect::FlaggedIf(tmp, bytes, in, st, ot, count, n,
                                              cub_detail::as_select_op<decltype(sel.flag)>{sel.flag}, p.stream);
      });
      cub_backend::run_with_temporaries(name, "cub::DeviceSelect::FlaggedIf", p, [&](void* tmp, std::size_t& bytes) {
        return ::cub::DeviceSelect::FlaggedIf(tmp, bytes, in, st, of, rejected.as<long long>(), n,
                                              cub_detail::not_op<decltype(sel.flag)>{sel.flag}, p.stream);
      });
    } else {
      two_way(in, sel.flag);
    }
  } else if constexpr (Sel::kind == kind::value) {
    const cub_detail::as_select_op<decltype(sel.flag)> op{sel.flag};
    cub_backend::run_with_temporaries(name, "cub::DeviceSelect::If", p, [&](void* tmp, std::size_t& bytes) {
      if constexpr (std::is_same<decltype(in), decltype(ot)>::value) {
        if (same) return ::cub::DeviceSelect::If(tmp, bytes, ot, count, n, op, p.stream);
      }
      return ::cub::DeviceSelect::If(tmp, bytes, in, ot, count, n, op, p.stream);
    });
  } else if constexpr (Sel::kind == kind::stencil) {
    auto st = cuda::unwrap(sel.stencil);
    const cub_detail::as_select_op<decltype(sel.flag)> op{sel.flag};
    cub_backend::run_with_temporaries(name, "cub::DeviceSelect::FlaggedIf", p, [&](void* tmp, std::size_t& bytes) {
      if constexpr (std::is_same<decltype(in), decltype(ot)>::value) {
        if (same) return ::cub::DeviceSelect::FlaggedIf(tmp, bytes, ot, st, count, n, op, p.stream);
      }
      return ::cub::DeviceSelect::FlaggedIf(tmp, bytes, in, st, ot, count, n, op, p.stream);
    });
  } else {  // heads
    using Eq = typename Sel::eq_t;
    if constexpr (cub_backend::is_plain_equal_v<Eq, iter_value_t<InIt>>) {
      cub_backend::run_with_temporaries(name, "cub::DeviceSelect::Unique", p, [&](void* tmp, std::size_t& bytes) {
        return ::cub::DeviceSelect::Unique(tmp, bytes, in, ot, count, n, p.stream);
      });
    } else {
      // the head flags, computed from the input; in place, CUB reads them after writing: a copy
      using H = head_at<decltype(in), Eq>;
      const auto flags = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), H{in, sel.eq});
      cub_backend::run_with_temporaries(name, "cub::DeviceSelect::Flagged", p, [&](void* tmp, std::size_t& bytes) {
        return ::cub::DeviceSelect::Flagged(tmp, bytes, in, flags, ot, count, n, p.stream);
      });
    }
  }
}

template <class Sel, class InIt, class OutT, class OutF, class CountIt>
void device_select_into(const char* name, const cub_policy& p, const Sel& sel, InIt first, std::int64_t n, OutT out_true,
                        OutF out_false, CountIt count_out, bool in_place) {
  if (n == 0) {
    cuda::write_value_kernel<<<1, 1, 0, p.stream>>>(cuda::unwrap(count_out), 0LL);
    cuda::check_launch(name, "write_value_kernel");
    return;
  }
  cuda::temporary_buffer count(p, 2 * sizeof(long long));  // DevicePartition::If writes two counts
  cub_select(name, p, sel, first, n, out_true, out_false, count.as<long long>(), in_place);
  cub_detail::copy_count_kernel<<<1, 1, 0, p.stream>>>(cuda::unwrap(count_out), count.as<long long>());
  cuda::check_launch(name, "copy_count_kernel");
}

template <class Sel, class InIt, class OutT, class OutF>
std::int64_t device_select(const char* name, const cub_policy& p, const Sel& sel, InIt first, std::int64_t n,
                           OutT out_true, OutF out_false, bool in_place) {
  cuda::temporary_buffer count(p, 2 * sizeof(long long));  // DevicePartition::If writes two counts
  cub_select(name, p, sel, first, n, out_true, out_false, count.as<long long>(), in_place);
  return cuda::copy_to_host(name, count.as<long long>(), p.stream);
}

/// *count_out = *src on the stream.
template <class CountIt>
void copy_count(const char* name, const cub_policy& p, CountIt count_out, const long long* src) {
  cub_detail::copy_count_kernel<<<1, 1, 0, p.stream>>>(cuda::unwrap(count_out), src);
  cuda::check_launch(name, "copy_count_kernel");
}

/// unique_by_key(_copy) on CUB: DeviceSelect::UniqueByKey (in place: from copies of the keys and
/// values), the number of runs to *count_out on the stream.
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class CountIt>
void unique_by_key_backend(const char* name, const cub_policy& p, KeyIt kf, ValIt vf, std::int64_t n, KeyOut kout,
                           ValOut vout, Eq eq, bool in_place, CountIt count_out) {
  if (in_place) {
    using K = iter_value_t<KeyIt>;
    using V = iter_value_t<ValIt>;
    cuda::temporary_buffer keys(p, static_cast<std::size_t>(n) * sizeof(K));
    cuda::temporary_buffer values(p, static_cast<std::size_t>(n) * sizeof(V));
    device_detail::copy(name, p.stream, cuda::unwrap(kf), keys.as<K>(), n);
    device_detail::copy(name, p.stream, cuda::unwrap(vf), values.as<V>(), n);
    unique_by_key_backend(name, p, keys.as<K>(), values.as<V>(), n, kout, vout, eq, false, count_out);
    return;
  }
  auto k = cuda::unwrap(kf);
  auto v = cuda::unwrap(vf);
  auto ko = cuda::unwrap(kout);
  auto vo = cuda::unwrap(vout);
  const cub_backend::key_equal_for_cub<Eq> ceq{eq};
  cuda::temporary_buffer runs(p, sizeof(long long));
  cub_backend::run_with_temporaries(name, "cub::DeviceSelect::UniqueByKey", p, [&](void* tmp, std::size_t& bytes) {
    return ::cub::DeviceSelect::UniqueByKey(tmp, bytes, k, v, ko, vo, runs.as<long long>(), n, ceq, p.stream);
  });
  copy_count(name, p, count_out, runs.as<long long>());
}

/// run_length_encode on CUB: DeviceRunLengthEncode::Encode (plain ==, int count), the number of
/// runs to *runs_out on the stream; otherwise (another equality, more than INT_MAX elements)
/// reduce_by_key counting each run, whose count comes back to the host first (a synchronization).
template <class It, class UniqueOut, class CountOut, class Eq, class RunsIt>
void run_length_encode_backend(const char* name, const cub_policy& p, It first, std::int64_t n, UniqueOut unique_out,
                               CountOut counts_out, Eq eq, bool in_place, RunsIt runs_out) {
  using C = run_count_t<CountOut>;
  const auto by_key = [&] {
    const seg::indexed_iterator<one_of<C>> ones(one_of<C>{}, 0);
    const long long runs = detail::reduce_by_key(p, first, ones, n, unique_out, counts_out, eq, plus<>{});
    cuda::write_value_kernel<<<1, 1, 0, p.stream>>>(cuda::unwrap(runs_out), runs);
    cuda::check_launch(name, "write_value_kernel");
  };
  if constexpr (!cub_backend::is_plain_equal_v<Eq, iter_value_t<It>>) {
    (void)in_place;
    by_key();
  } else {
    if (n > INT_MAX) {
      by_key();
      return;
    }
    if (in_place) {  // Encode reads what it writes: from a copy
      using V = iter_value_t<It>;
      cuda::temporary_buffer copy(p, static_cast<std::size_t>(n) * sizeof(V));
      device_detail::copy(name, p.stream, cuda::unwrap(first), copy.as<V>(), n);
      run_length_encode_backend(name, p, copy.as<V>(), n, unique_out, counts_out, eq, false, runs_out);
      return;
    }
    auto in = cuda::unwrap(first);
    auto uo = cuda::unwrap(unique_out);
    auto co = cuda::unwrap(counts_out);
    cuda::temporary_buffer runs(p, sizeof(long long));
    cub_backend::run_with_temporaries(name, "cub::DeviceRunLengthEncode::Encode", p, [&](void* tmp, std::size_t& bytes) {
      return ::cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, uo, co, runs.as<long long>(), static_cast<int>(n),
                                                  p.stream);
    });
    copy_count(name, p, runs_out, runs.as<long long>());
  }
}

}  // namespace algo::detail::select
