// Group-by on unsorted keys, every policy:
//
//   group_reduce(policy, keys_first, keys_last, values_first, keys_out, values_out [, op [, hash [, key_equal]]])
//       one output pair per distinct key: the key and the op-fold of its values (in the type
//       op(value, value) returns), in the order of each key's FIRST APPEARANCE in the input (the
//       same order every run, on every policy). Returns the number of groups.
//   group_count(policy, keys_first, keys_last, keys_out, counts_out [, hash [, key_equal]])
//       the same with the number of records per key (as std::int64_t).
//
// op must be associative and commutative (algo::is_commutative): the hash table combines a key's
// values in the order they arrive. For a merely associative operator, sort the keys and call
// algo::reduce_by_key. Keys: integers and enumerations with the default algo::hash<>, any
// trivially copyable type with a hash of your own (a function object returning an integer);
// key_equal must agree with it (equal keys hash equally).
//
// How each policy runs it:
//   algo::seq   std::unordered_map, values folded left to right (detail/group/host.hpp)
//   algo::par   per-thread maps over contiguous chunks, merged in chunk order
//   algo::cuda  a GPU hash table (detail/group/device.cuh over detail/cuda/hash/), strategy from
//               the policy: group_strategy::open_addressing (default), locked_chaining, deterministic
//   algo::cub   CUB has no hash group-by: cub::DeviceRadixSort::SortPairs of (key, index),
//               cub::DeviceReduce::ReduceByKey, and a second radix sort of the groups by first
//               index (detail/cub/group_reduce.cuh); keys that are not integers, or a key_equal
//               that is not plain ==, take algo::cuda's default table
// Device policies return the count to the host, so they synchronize the policy's stream (and are
// refused under CUDA graph capture, as reduce_by_key is); the outputs are written on the stream.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detail/group/host.hpp"
#include "detail/group/ops.hpp"
#include "detail/segmented/lifted.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"
#include "segmented.hpp"

#if ALGO_HAS_CUDA
#  include "detail/group/device.cuh"
#  include "detail/cub/group_reduce.cuh"
#endif

namespace algo {
namespace detail {
namespace group {
/// The values of group_count: 1 for every record.
struct one_per_record {
  ALGO_HD std::int64_t operator()(std::int64_t) const { return 1; }
};
using ones_iterator = segmented::indexed_iterator<one_per_record>;
}  // namespace group

template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce_entry(const char* name, const Policy& policy, KeyIt keys_first, KeyIt keys_last,
                                ValIt values, KeyOut keys_out, ValOut values_out, Op op, Hash hash, Eq eq) {
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  static_assert(std::is_invocable<Op&, V, V>::value, "algo::group_reduce: op(value, value) must be valid");
  using Acc = accumulator_t<Op, V, V>;
  static_assert(is_commutative_v<Op, Acc>,
                "algo::group_reduce: op must be commutative (algo::is_commutative<Op, T> for the accumulator T): "
                "a hash table combines each key's values in the order they arrive. For an operator that is only "
                "associative, sort by key and call algo::reduce_by_key (runs of equal keys, order kept); if op is "
                "commutative, specialize algo::is_commutative for it");
  static_assert(std::is_trivially_copyable<K>::value, "algo::group_reduce: keys must be trivially copyable");
  const std::int64_t n = checked_distance(name, keys_first, keys_last);
  check_iterator(name, "keys", policy, keys_first, n);
  check_iterator(name, "values", policy, values, n);
  check_iterator(name, "keys output", policy, keys_out, n);
  check_iterator(name, "values output", policy, values_out, n);
  if (n == 0) return 0;
  check_keyed_outputs(name, policy, keys_first, values, n, keys_out, values_out);
  return detail::group_reduce(policy, keys_first, values, n, keys_out, values_out, op, hash, eq);
}

}  // namespace detail

/// One output per distinct key, in order of first appearance: the key and the op-fold of its values.
/// Returns the number of groups.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq,
          detail::enable_policy<Policy> = 0>
std::int64_t group_reduce(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq key_equal) {
  return detail::group_reduce_entry("group_reduce", policy, keys_first, keys_last, values_first, keys_out, values_out,
                                    op, hash, key_equal);
}
/// The same with key_equal = equal_to<>.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash,
          detail::enable_policy<Policy> = 0>
std::int64_t group_reduce(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash) {
  return group_reduce(policy, keys_first, keys_last, values_first, keys_out, values_out, op, hash, equal_to<>{});
}
/// The same with hash = algo::hash<> and key_equal = equal_to<> (integer and enumeration keys).
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, detail::enable_policy<Policy> = 0>
std::int64_t group_reduce(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                          ValOut values_out, Op op) {
  return group_reduce(policy, keys_first, keys_last, values_first, keys_out, values_out, op, hash<>{}, equal_to<>{});
}
/// The same with op = plus<>: the sum of each key's values.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, detail::enable_policy<Policy> = 0>
std::int64_t group_reduce(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                          ValOut values_out) {
  return group_reduce(policy, keys_first, keys_last, values_first, keys_out, values_out, plus<>{}, hash<>{},
                      equal_to<>{});
}

/// One output per distinct key, in order of first appearance: the key and how many records have it
/// (as std::int64_t). Returns the number of groups.
template <class Policy, class KeyIt, class KeyOut, class CountOut, class Hash, class Eq, detail::enable_policy<Policy> = 0>
std::int64_t group_count(const Policy& policy, KeyIt keys_first, KeyIt keys_last, KeyOut keys_out, CountOut counts_out,
                         Hash hash, Eq key_equal) {
  return detail::group_reduce_entry("group_count", policy, keys_first, keys_last,
                                    detail::group::ones_iterator(detail::group::one_per_record{}, 0), keys_out,
                                    counts_out, plus<>{}, hash, key_equal);
}
/// The same with key_equal = equal_to<>.
template <class Policy, class KeyIt, class KeyOut, class CountOut, class Hash, detail::enable_policy<Policy> = 0>
std::int64_t group_count(const Policy& policy, KeyIt keys_first, KeyIt keys_last, KeyOut keys_out, CountOut counts_out,
                         Hash hash) {
  return group_count(policy, keys_first, keys_last, keys_out, counts_out, hash, equal_to<>{});
}
/// The same with hash = algo::hash<> and key_equal = equal_to<> (integer and enumeration keys).
template <class Policy, class KeyIt, class KeyOut, class CountOut, detail::enable_policy<Policy> = 0>
std::int64_t group_count(const Policy& policy, KeyIt keys_first, KeyIt keys_last, KeyOut keys_out, CountOut counts_out) {
  return group_count(policy, keys_first, keys_last, keys_out, counts_out, hash<>{}, equal_to<>{});
}

}  // namespace algo
