// algo::cub's group_reduce: CUB has no hash-based group-by, so the baseline is the sort-based one
// a CUB user writes, then put in first-appearance order:
//   1. cub::DeviceRadixSort::SortPairs   (key, input index), stable: within a key, indices ascend
//   2. cub::DeviceReduce::ReduceByKey    over the sorted keys, values gathered through the sorted
//                                        indices: each run's key, aggregate and smallest index
//   3. cub::DeviceRadixSort::SortPairs   the runs by their smallest index (only the bits n needs)
//   4. a gather into the outputs
// Keys that are not integers (CUB sorts integers and floats, not structs), a key_equal that is not
// plain == (a sort would not bring equal keys together) and inputs of 2^32 records or more (32-bit
// indices keep the sort's payload as small as the baseline's) take algo::cuda's default hash table.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../group/device.cuh"
#include "../segmented/lifted.hpp"
#include "numeric.cuh"
#include "segmented.cuh"

namespace algo::detail {
namespace cub_group {

template <class Acc, class I>
struct first_value {
  I first;
  Acc v;
};

template <class I, class ValIt, class Acc>
struct gathered_value {
  const I* idx;
  ValIt values;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD first_value<Acc, I> operator()(std::int64_t i) const {
    const I j = idx[i];
    return {j, static_cast<Acc>(values[j])};
  }
};

template <class AOp, class T>
struct first_value_op {
  mutable AOp op;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD T operator()(const T& a, const T& b) const { return {a.first < b.first ? a.first : b.first, op(a.v, b.v)}; }
};

template <class I>
__global__ void iota_kernel(I* out, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<I>(i);
}
template <class In, class K>
__global__ void copy_keys_kernel(In in, K* out, long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) out[i] = in[i];
}
template <class T, class I>
__global__ void split_runs_kernel(const T* runs, I* firsts, I* ids, long long m) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < m; j += stride) {
    firsts[j] = runs[j].first;
    ids[j] = static_cast<I>(j);
  }
}
template <class K, class T, class I, class KeyOut, class ValOut>
__global__ void gather_runs_kernel(const K* keys, const T* runs, const I* perm, long long m, KeyOut ko, ValOut vo) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < m; j += stride) {
    const I r = perm[j];
    ko[j] = keys[r];
    vo[j] = runs[r].v;
  }
}

template <class I, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op>
std::int64_t sort_group_reduce(const cub_policy& p, KeyIt keys_it, ValIt values_it, std::int64_t n, KeyOut keys_out,
                               ValOut values_out, Op op) {
  const char* name = "group_reduce";
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  using T = first_value<Acc, I>;
  const auto un = static_cast<std::size_t>(n);
  const unsigned grid = group::grid_for(n);
  auto keys = group::device_view(keys_it);
  auto values = group::device_view(values_it);
  cuda::temporary_buffer idx_in(p, un * sizeof(I)), idx_sorted(p, un * sizeof(I)), k_sorted(p, un * sizeof(K));
  iota_kernel<<<grid, 256, 0, p.stream>>>(idx_in.as<I>(), n);
  cuda::check_launch(name, "iota_kernel");
  const K* k_in = nullptr;
  cuda::temporary_buffer k_copy(p, std::is_pointer<decltype(keys)>::value ? 0 : un * sizeof(K));
  if constexpr (std::is_pointer<decltype(keys)>::value) {
    k_in = keys;
  } else {
    copy_keys_kernel<<<grid, 256, 0, p.stream>>>(keys, k_copy.as<K>(), n);
    cuda::check_launch(name, "copy_keys_kernel");
    k_in = k_copy.as<K>();
  }
  // 1. (key, index) sorted by key, stably
  cub_backend::run_with_temporaries(name, "cub::DeviceRadixSort::SortPairs", p, [&](void* tmp, std::size_t& bytes) {
    return ::cub::DeviceRadixSort::SortPairs(tmp, bytes, k_in, k_sorted.as<K>(), idx_in.as<I>(), idx_sorted.as<I>(),
                                             static_cast<int>(n), 0, static_cast<int>(sizeof(K) * 8), p.stream);
  });
  // 2. runs: key, aggregate, smallest index
  cuda::temporary_buffer ukeys(p, un * sizeof(K)), runs(p, un * sizeof(T)), count(p, sizeof(long long));
  using G = gathered_value<I, decltype(values), Acc>;
  const segmented::indexed_iterator<G> vin(G{idx_sorted.as<I>(), values}, 0);
  const first_value_op<accumulate_with<Op, Acc>, T> rop{accumulate_with<Op, Acc>{op}};
  cub_backend::run_with_temporaries(name, "cub::DeviceReduce::ReduceByKey", p, [&](void* tmp, std::size_t& bytes) {
    return ::cub::DeviceReduce::ReduceByKey(tmp, bytes, k_sorted.as<K>(), ukeys.as<K>(), vin, runs.as<T>(),
                                            count.as<long long>(), rop, static_cast<int>(n), p.stream);
  });
  const long long m = cuda::copy_to_host(name, count.as<long long>(), p.stream);
  // 3. runs in order of first appearance
  const auto um = static_cast<std::size_t>(m);
  cuda::temporary_buffer firsts(p, um * sizeof(I)), firsts_sorted(p, um * sizeof(I)), ids(p, um * sizeof(I)),
      perm(p, um * sizeof(I));
  split_runs_kernel<<<group::grid_for(m), 256, 0, p.stream>>>(runs.as<T>(), firsts.as<I>(), ids.as<I>(), m);
  cuda::check_launch(name, "split_runs_kernel");
  int end_bit = 1;
  while (end_bit < static_cast<int>(sizeof(I) * 8) && (std::uint64_t(1) << end_bit) < static_cast<std::uint64_t>(n)) ++end_bit;
  cub_backend::run_with_temporaries(name, "cub::DeviceRadixSort::SortPairs", p, [&](void* tmp, std::size_t& bytes) {
    return ::cub::DeviceRadixSort::SortPairs(tmp, bytes, firsts.as<I>(), firsts_sorted.as<I>(), ids.as<I>(), perm.as<I>(),
                                             static_cast<int>(m), 0, end_bit, p.stream);
  });
  // 4. gather
  gather_runs_kernel<<<group::grid_for(m), 256, 0, p.stream>>>(ukeys.as<K>(), runs.as<T>(), perm.as<I>(), m,
                                                               group::device_view(keys_out), group::device_view(values_out));
  cuda::check_launch(name, "gather_runs_kernel");
  return m;
}

}  // namespace cub_group

template <class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce(const cub_policy& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq eq) {
  using K = iter_value_t<KeyIt>;
  constexpr bool sortable = std::is_integral<K>::value && cub_backend::is_plain_equal_v<Eq, K>;
  if (!sortable || n > INT_MAX) {
    cuda_policy<> c;
    c.stream = p.stream;
    c.resource = p.resource;
    return group::group_reduce_open_addressing<false>(c, keys, values, n, keys_out, values_out, op, hash, eq);
  }
  if constexpr (sortable) return cub_group::sort_group_reduce<unsigned>(p, keys, values, n, keys_out, values_out, op);
  else return 0;
}

}  // namespace algo::detail
