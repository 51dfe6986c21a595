// algo::cub's segmented algorithms: CUB's calls where CUB has them, the baseline the in-house
// forms are measured against.
//   scans by key        cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey (any key_equal)
//   reduce_by_key(_into)  cub::DeviceReduce::ReduceByKey when key_equal is plain equality (CUB 3.0
//                       takes no equality operator there); the lifted scan on CUB's scan otherwise
//   segmented_reduce    cub::DeviceSegmentedReduce::Reduce when op is commutative (CUB may reorder
//                       within a segment); the lifted scan on CUB's scan otherwise (order kept)
//   segmented scans     no CUB call takes offsets: the lifted scan on CUB's scan
// Included by <algo/segmented.hpp> after the generic forms, which these overloads fall back to.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <type_traits>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/functional.h>

#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../segmented/lifted.hpp"
#include "numeric.cuh"

namespace algo::detail {
namespace cub_backend {

/// key_equal is plain == on Key (what CUB's ReduceByKey uses): algo's, std's, Thrust's and
/// libcu++'s equal_to, transparent or typed on Key itself (equal_to<int> on double keys converts
/// them first: not plain).
template <class Eq, class Key>
struct is_plain_equal : std::false_type {};
template <template <class> class E, class T, class Key>
struct is_plain_equal<E<T>, Key>
    : std::bool_constant<(std::is_same<E<T>, algo::equal_to<T>>::value || std::is_same<E<T>, std::equal_to<T>>::value ||
                          std::is_same<E<T>, ::cuda::std::equal_to<T>>::value || std::is_same<E<T>, thrust::equal_to<T>>::value) &&
                         (std::is_void<T>::value || std::is_same<std::remove_cv_t<T>, Key>::value)> {};
template <class Eq, class Key>
inline constexpr bool is_plain_equal_v = is_plain_equal<Eq, Key>::value;

/// The key_equal handed to CUB: returns bool from a const operator().
template <class Eq>
struct key_equal_for_cub {
  mutable Eq eq;
  ALGO_EXEC_CHECK_DISABLE
  template <class A, class B>
  ALGO_HD bool operator()(const A& a, const B& b) const { return static_cast<bool>(eq(a, b)); }
};

}  // namespace cub_backend

template <bool Inclusive, class KeyIt, class ValIt, class OutIt, class Eq, class Op, class Acc>
void scan_by_key(const cub_policy& p, scan_kind<Inclusive>, KeyIt keys, ValIt values, std::int64_t n, OutIt out, Eq eq,
                 Op op, const Acc& init, alias_kind) {
  const char* name = Inclusive ? "inclusive_scan_by_key" : "exclusive_scan_by_key";
  auto k = cuda::unwrap(keys);
  auto in = cub_backend::as_accumulator<Acc>(cuda::unwrap(values));
  auto o = cuda::unwrap(out);
  const auto aop = cub_backend::cub_operator<Acc>(op);
  const cub_backend::key_equal_for_cub<Eq> ceq{eq};
  cub_backend::run_with_temporaries(name, Inclusive ? "cub::DeviceScan::InclusiveScanByKey" : "cub::DeviceScan::ExclusiveScanByKey",
                                    p, [&](void* tmp, std::size_t& bytes) {
    return cub_backend::with_count(n, [&](auto count) {
      if constexpr (Inclusive) {
        (void)init;
        return ::cub::DeviceScan::InclusiveScanByKey(tmp, bytes, k, in, o, aop, count, ceq, p.stream);
      } else {
        return ::cub::DeviceScan::ExclusiveScanByKey(tmp, bytes, k, in, o, aop, init, count, ceq, p.stream);
      }
    });
  });
}

/// cub::DeviceReduce::ReduceByKey (plain equality), its run count written to `count` on the stream.
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class CountIt>
void cub_reduce_by_key(const char* name, const cub_policy& p, KeyIt keys, ValIt values, std::int64_t n,
                       KeyOut keys_out, ValOut values_out, Op op, CountIt count) {
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  auto k = cuda::unwrap(keys);
  auto in = cub_backend::as_accumulator<Acc>(cuda::unwrap(values));
  auto ko = cuda::unwrap(keys_out);
  auto vo = cuda::unwrap(values_out);
  const auto aop = cub_backend::cub_operator<Acc>(op);
  cub_backend::run_with_temporaries(name, "cub::DeviceReduce::ReduceByKey", p, [&](void* tmp, std::size_t& bytes) {
    return cub_backend::with_count(n, [&](auto items) {
      return ::cub::DeviceReduce::ReduceByKey(tmp, bytes, k, ko, in, vo, count, aop, items, p.stream);
    });
  });
}

template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op>
std::int64_t reduce_by_key(const cub_policy& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                           ValOut values_out, Eq eq, Op op) {
  if constexpr (!cub_backend::is_plain_equal_v<Eq, iter_value_t<KeyIt>>) {
    return reduce_by_key_lifted(p, keys, values, n, keys_out, values_out, eq, op);
  } else {
    cuda::temporary_buffer runs(p, sizeof(long long));
    cub_reduce_by_key("reduce_by_key", p, keys, values, n, keys_out, values_out, op, runs.as<long long>());
    return cuda::copy_to_host("reduce_by_key", runs.as<long long>(), p.stream);
  }
}

/// reduce_by_key_into on CUB: ReduceByKey writes its run count to the caller's location itself
/// (plain equality); another equality, the lifted scan over CUB's scan, its last element writing it.
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op, class CountIt>
void reduce_by_key_into(const cub_policy& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                        ValOut values_out, Eq eq, Op op, CountIt count_out) {
  if constexpr (!cub_backend::is_plain_equal_v<Eq, iter_value_t<KeyIt>>) {
    reduce_by_key_lifted_to(p, keys, values, n, keys_out, values_out, eq, op, cuda::unwrap(count_out));
  } else {
    cub_reduce_by_key("reduce_by_key_into", p, keys, values, n, keys_out, values_out, op, cuda::unwrap(count_out));
  }
}

template <class InIt, class OffIt, class OutIt, class Acc, class Op, class T>
void segmented_reduce(const cub_policy& p, InIt first, OffIt offsets, std::int64_t segments,
                      const segmented::offsets_info& info, OutIt out, const Acc& init, Op op, const T& init_as_t) {
  if constexpr (!is_commutative_v<Op, Acc>) {
    segmented_reduce_lifted(p, first, offsets, segments, info, out, init, op, init_as_t);
  } else {
    auto in = cub_backend::as_accumulator<Acc>(cuda::unwrap(first));
    auto offs = cuda::unwrap(offsets);
    auto o = cuda::unwrap(out);
    const auto aop = cub_backend::cub_operator<Acc>(op);
    cub_backend::run_with_temporaries("segmented_reduce", "cub::DeviceSegmentedReduce::Reduce", p,
                                      [&](void* tmp, std::size_t& bytes) {
      return ::cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, o, static_cast<::cuda::std::int64_t>(segments), offs,
                                                  offs + 1, aop, init, p.stream);
    });
  }
}

}  // namespace algo::detail
