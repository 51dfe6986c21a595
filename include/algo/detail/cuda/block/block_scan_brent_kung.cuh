// Block scan, Brent-Kung (the "work-efficient" scan of seed 001): the per-thread values, in one
// array in shared memory, are treated as the leaves of a balanced tree and scanned in place in two
// sweeps:
//
//   up-sweep    for stride s = 1, 2, 4, ...: element i = 2s k - 1 (k >= 1) becomes
//               op(element i - s, element i); afterwards element i holds op over the
//               lowbit(i + 1) values ending at i, and element 2^j - 1 holds the prefix
//               op(x_0, ..., x_{2^j - 1});
//   down-sweep  for stride s = ..., 4, 2, 1: element i + s, for i = 2s k - 1 (k >= 1), becomes
//               op(element i, element i + s); element i already holds its inclusive prefix, so
//               afterwards every element does.
//
// About 2 Threads operations in all (the serial scan's Threads - 1, twice), where Kogge-Stone does
// about Threads log2 Threads; in exchange ~2 log2 Threads steps, each ending at a barrier, with
// fewer and fewer threads busy towards the root.
//
//   using scan_t = algo::detail::cuda::block_scan_brent_kung<int, 128>;
//   __shared__ scan_t::temp_storage tmp;
//   int items[8];                                   // blocked: thread t holds items [8t, 8t + 8)
//   scan_t(tmp).inclusive_scan(items, algo::plus<>{});
//
// Phases (the same interface and prefix protocol as block_scan.cuh; the warp phase plays no part):
//   thread      each thread folds its items in order (thread/thread_scan.cuh);
//   block       up-sweep and down-sweep over the per-thread totals (one array of Threads values,
//               one slot of padding after every 32 so that the sweeps' strided accesses spread
//               over the banks);
//   prefix      warp 0 reads the aggregate (the last element) and calls the prefix callback with
//               it; each thread's exclusive value is prefix op (inclusive value of the element
//               before its own);
//   thread      each thread rescans its items from that value.
//
// Only associativity is used: the left operand is always the earlier part of the range, and every
// update is bounds-checked instead of padded with an identity element. Threads: 1..1024, not
// necessarily a multiple of 32 (warp 0's lanes present run the prefix callback) or a power of two
// (the sweeps then skip the elements past the end, and the tree is not full).
#pragma once

#include <type_traits>

#include "block_scan_common.cuh"

namespace algo::detail::cuda {

/// The largest power of two s with 3 s <= threads.
constexpr int brent_kung_first_down_stride(int threads) {
  int s = 1;
  while (3 * (2 * s) <= threads) s *= 2;
  return s;
}

template <class T, int Threads>
class block_scan_brent_kung : public block_scan_items<block_scan_brent_kung<T, Threads>, T> {
  static_assert(Threads >= 1 && Threads <= 1024, "block_scan_brent_kung: Threads must be 1..1024");
  static_assert(std::is_trivially_copyable<T>::value, "block_scan_brent_kung needs a trivially copyable type");

  /// Slot of element i: one padding slot after every 32 elements (conflict-avoiding padding).
  __device__ static __forceinline__ int slot(int i) { return i + (i >> 5); }
  static constexpr int slots = Threads + Threads / 32;
  static constexpr bool power_of_two = (Threads & (Threads - 1)) == 0;
  /// The first down-sweep stride: the largest power of two s with an update in range, i.e. with
  /// (2s - 1) + s < Threads.
  static constexpr int first_down_stride = brent_kung_first_down_stride(Threads);

 public:
  struct temp_storage {
    shared_array<T, slots> tree;
    prefix_slot<T> end;
  };

  __device__ explicit block_scan_brent_kung(temp_storage& s) : s_(s) {}

  using block_scan_items<block_scan_brent_kung, T>::exclusive_scan;

  /// Exclusive scan of one value per thread; the contract of block_scan::exclusive_scan: prefix
  /// called by all lanes of warp 0 with the block's aggregate, false returned only in thread 0
  /// when there is no prefix, aggregate() the block's aggregate afterwards; with `count`, only the
  /// first `count` threads hold values and the operator sees nothing else.
  template <class Op, class Prefix>
  __device__ __forceinline__ bool exclusive_scan(const T& x, T& exclusive, Op op, Prefix&& prefix,
                                                 int count = all_threads) {
    const int t = static_cast<int>(threadIdx.x);
    auto& tree = s_.tree;
    tree.put(slot(t), x);
    __syncthreads();

    // ---- up-sweep: thread t updates element (t + 1) 2s - 1 --------------------------------------------
#pragma unroll
    for (int s = 1; 2 * s <= Threads; s *= 2) {
      const int i = (t + 1) * 2 * s - 1;
      // Node i folds [i - 2s + 1, i]; with `count`, only its part below count: a right half that
      // starts at or past count holds no value, so the node takes its left half as it is.
      if (i < Threads) {
        const T left = tree.get(slot(i - s));
        tree.put(slot(i), i - s + 1 < count ? op(left, tree.get(slot(i))) : left);
      }
      // With a power-of-two block the last level writes only the root, element Threads - 1,
      // which the down-sweep neither reads nor writes: no barrier needed before it.
      if (!(power_of_two && 2 * s == Threads)) __syncthreads();
    }

    // ---- down-sweep: thread t updates element (t + 1) 2s - 1 + s ---------------------------------------
#pragma unroll
    for (int s = first_down_stride; s >= 1; s /= 2) {
      const int i = (t + 1) * 2 * s - 1;
      if (i + s < Threads && i + 1 < count) tree.put(slot(i + s), op(tree.get(slot(i)), tree.get(slot(i + s))));
      __syncthreads();
    }

    return finish_block_scan<Threads>(s_.end, [&](int i) { return tree.get(slot(i)); }, exclusive, op, prefix, count);
  }

  /// The block's aggregate from the last exclusive_scan (without its prefix).
  __device__ __forceinline__ T aggregate() { return s_.end.aggregate.get(); }

 private:
  temp_storage& s_;
};

}  // namespace algo::detail::cuda
