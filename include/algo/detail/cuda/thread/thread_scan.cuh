// Thread layer of the scans: what one thread does with its own items (register blocking), in
// order, for any associative operator. The block scans (block/block_scan*.cuh) fold each thread's
// items with thread_reduce, scan the per-thread totals across the block, and rescan each thread's
// items from its exclusive value with thread_scan.
#pragma once

namespace algo::detail::cuda {

/// op(items[0], ..., items[N-1]) in order.
template <class T, int N, class Op>
__device__ __forceinline__ T thread_reduce(const T (&items)[N], Op op) {
  T acc = items[0];
#pragma unroll
  for (int i = 1; i < N; ++i) acc = op(acc, items[i]);
  return acc;
}

/// Rescans a thread's items in place from `prefix`, the value of everything before them.
/// Without a prefix (has_prefix false) the first item starts the scan; an exclusive scan then
/// leaves items[0] unchanged (its output is unspecified).
template <class T, int N, class Op>
__device__ __forceinline__ void thread_scan(T (&items)[N], T prefix, bool has_prefix, bool exclusive, Op op) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i == 0 && !has_prefix) {
      prefix = items[0];
    } else {
      const T next = op(prefix, items[i]);
      items[i] = exclusive ? prefix : next;
      prefix = next;
    }
  }
}

}  // namespace algo::detail::cuda
