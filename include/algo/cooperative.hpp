// Inside your own kernels (nvcc translation units only): the collectives that the in-house device
// algorithms are built of, offered to users as CUB offers BlockScan / WarpReduce, and execution
// policies that name the calling group, so that algo::inclusive_scan, exclusive_scan, reduce and
// transform_reduce run inside a __global__ or __device__ function. docs/kernels.md.
//
// ---- collectives (one object per call site, over a temp_storage in shared memory) ----------------
//   algo::warp_scan<T, Lanes, Phase>          scan over the lanes of a (logical) warp
//   algo::warp_reduce<T, Lanes, Phase>        in-order fold over the lanes
//   algo::block_scanner<T, Threads, Choice, Phase>   scan over a block (Choice: algo::block_scan::
//                                             warp_scans_t / kogge_stone_t / brent_kung_t)
//   algo::block_reduce<T, Threads, Phase>     in-order fold over a block
//   algo::load_blocked / load_striped / store_blocked / store_striped   a thread's items, guarded tail
//   algo::warp_transpose_io<T, Items>         a warp's chunk, coalesced in memory, blocked in registers
// Each is a thin class over the detail layer that the device-wide algorithms run
// (detail/cuda/{warp,block}): the public collectives and the bench's in-house scans are one code.
// (The block scan is block_scanner because algo::block_scan names the namespace of its choice tags.)
//
// ---- group policies (every thread of the group makes the call) -----------------------------------
//   algo::this_block                the calling thread block (1-D, any size 1..1024)
//   algo::this_block.with(storage)  the same over shared memory the caller declares
//                                   (__shared__ algo::block_storage<Acc> storage;, or
//                                   algo::block_scan_storage<Acc> with the scans' staging)
//   algo::this_warp                 the calling warp (the last warp of a block may be partial)
//   algo::group(tile)               a cooperative_groups::thread_block_tile<N> (N = 1, 2, ..., 32)
//   algo::seq                       one thread (as thrust::seq)
//
// Semantics: those of the host policies (numeric.hpp): the same overloads, accumulator types and
// left-to-right order, operators only associative. Reductions return the value to every thread of
// the group; scans return d_first + n in every thread. Preconditions (cannot be checked on the
// device, not checked): every thread of the group calls with the same arguments and none has left
// the kernel; 1-D blocks; the ranges are device-accessible (global or shared memory); the output
// is the input (in place) or does not overlap it. A range whose last comes before its first is
// empty (the host policies throw algo::error; there is nothing to throw to on the device).
#pragma once

#include "detail/config.hpp"

#if !ALGO_HAS_CUDA
#  error "<algo/cooperative.hpp> needs a CUDA compiler (nvcc): its collectives run in device code"
#endif

#include <cooperative_groups.h>

#include <cstdint>
#include <type_traits>

#include "detail/cuda/block/block_load_store.cuh"
#include "detail/cuda/block/block_reduce.cuh"
#include "detail/cuda/block/block_scan_select.cuh"
#include "detail/cuda/cooperative.cuh"
#include "detail/iterator.hpp"
#include "detail/scan_kind.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"

namespace algo {

// =====================================================================================================
// Collectives
// =====================================================================================================
namespace detail::coop {
/// The logical warp of Lanes lanes (a power of two <= 32) holding the calling thread of a 1-D block,
/// with the lanes of a partial last warp left out.
template <int Lanes>
__device__ __forceinline__ cuda::warp_lanes logical_warp() {
  return cuda::coop::lanes_group<Lanes>().lanes;
}
template <class T, class Op>
struct prefix_adaptor;
}  // namespace detail::coop

/// Scan over the lanes of a logical warp: Lanes (1, 2, 4, 8, 16 or 32) consecutive threads of a 1-D
/// block, every present lane calling (the last warp of a block whose size is not a multiple of 32
/// is partial: its missing lanes are left out). Phase: algo::warp_phase::shfl_t (shuffles, no
/// shared memory) or smem_t (Kogge-Stone over volatile shared memory, one temp_storage per logical
/// warp). Lane 0 of an exclusive scan without init gets no value (the call returns false there).
template <class T, int Lanes = 32, class Phase = warp_phase::shfl_t>
class warp_scan {
  using detail_t = detail::cuda::warp_scan<T, Phase>;

 public:
  /// The shared memory a call works in (smem_t: one per logical warp; shfl_t uses none).
  using temp_storage = typename detail_t::temp_storage;

  /// Over `s`, for the calling thread's logical warp.
  __device__ explicit warp_scan(temp_storage& s) : s_(s), lanes_(detail::coop::logical_warp<Lanes>()) {}

  /// Lane i gets op(x_0, ..., x_i).
  template <class Op>
  __device__ T inclusive_scan(const T& x, Op op) {
    return detail_t(s_, lanes_).inclusive(x, op);
  }
  /// The same; `aggregate` gets op(x_0, ..., x_last) in every lane.
  template <class Op>
  __device__ T inclusive_scan(const T& x, Op op, T& aggregate) {
    const T r = detail_t(s_, lanes_).inclusive(x, op);
    aggregate = detail::cuda::shfl_idx(r, last_lane(), lanes_.mask, lanes_.width);
    return r;
  }
  /// Lane i gets op(init, x_0, ..., x_{i-1}); lane 0 gets init.
  template <class Op>
  __device__ T exclusive_scan(const T& x, const T& init, Op op) {
    T inclusive, exclusive;
    detail_t(s_, lanes_).scan(x, inclusive, exclusive, op);
    return lanes_.rank() == 0 ? init : op(init, exclusive);
  }
  /// The same; `aggregate` gets op(x_0, ..., x_last) (without init) in every lane.
  template <class Op>
  __device__ T exclusive_scan(const T& x, const T& init, Op op, T& aggregate) {
    T inclusive, exclusive;
    detail_t(s_, lanes_).scan(x, inclusive, exclusive, op);
    aggregate = detail::cuda::shfl_idx(inclusive, last_lane(), lanes_.mask, lanes_.width);
    return lanes_.rank() == 0 ? init : op(init, exclusive);
  }
  /// Without init: lane i > 0 gets op(x_0, ..., x_{i-1}) in `exclusive`; returns false in lane 0,
  /// whose `exclusive` is left unspecified (no identity element needed). (Its own name: an overload
  /// of exclusive_scan(x, init, op) would take a non-const init for this output.)
  template <class Op>
  __device__ bool exclusive_scan_no_init(const T& x, T& exclusive, Op op) {
    T inclusive;
    detail_t(s_, lanes_).scan(x, inclusive, exclusive, op);
    return lanes_.rank() != 0;
  }

  /// Item arrays (lane i holds items [N i, N i + N) of the warp's sequence), scanned in place.
  template <int N, class Op>
  __device__ void inclusive_scan(T (&items)[N], Op op) {
    T excl;
    const bool has = exclusive_scan_no_init(detail::cuda::thread_reduce(items, op), excl, op);
    detail::cuda::thread_scan(items, excl, has, false, op);
  }
  /// Item arrays, scanned in place: exclusive, from init.
  template <int N, class Op>
  __device__ void exclusive_scan(T (&items)[N], const T& init, Op op) {
    const T excl = exclusive_scan(detail::cuda::thread_reduce(items, op), init, op);
    detail::cuda::thread_scan(items, excl, true, true, op);
  }

 private:
  __device__ int last_lane() const { return __popc(lanes_.mask) - 1; }
  temp_storage& s_;
  detail::cuda::warp_lanes lanes_;
};

/// In-order fold over the lanes of a logical warp (as warp_scan). The result is returned to every
/// lane (shuffled from lane 0 after the fold).
template <class T, int Lanes = 32, class Phase = warp_phase::shfl_t>
class warp_reduce {
  using detail_t = detail::cuda::warp_reduce<Phase, T>;

 public:
  /// The shared memory a call works in.
  using temp_storage = typename detail_t::storage;

  /// Over `s`, for the calling thread's logical warp.
  __device__ explicit warp_reduce(temp_storage& s) : s_(s), lanes_(detail::coop::logical_warp<Lanes>()) {}

  /// op(x_0, ..., x_last) in every lane.
  template <class Op>
  __device__ T reduce(const T& x, Op op) {
    return reduce(x, __popc(lanes_.mask), op);
  }
  /// The fold of lanes [0, valid) (1 <= valid <= lanes present) in every lane.
  template <class Op>
  __device__ T reduce(const T& x, int valid, Op op) {
    const T r = detail_t(s_, lanes_).reduce(x, valid, op);
    return detail::cuda::shfl_idx(r, 0, lanes_.mask, lanes_.width);
  }
  /// Item arrays: the fold of every lane's items, in order.
  template <int N, class Op>
  __device__ T reduce(const T (&items)[N], Op op) {
    return reduce(detail::cuda::thread_reduce(items, op), op);
  }

 private:
  temp_storage& s_;
  detail::cuda::warp_lanes lanes_;
};

/// A prefix callback for block_scanner: called by the lanes of warp 0 with the block's aggregate
/// (the same in each), it returns what comes before the block (the same in each lane): a running
/// total kept in warp 0 chains tiles, as CUB's BlockPrefixCallbackOp.
namespace detail::coop {
template <class T, class Cb>
struct prefix_adaptor {
  Cb& cb;
  __device__ cuda::maybe_value<T> operator()(const T& aggregate) const { return cuda::some<T>(cb(aggregate)); }
};
}  // namespace detail::coop

/// Scan over a 1-D block of Threads threads (1..1024, any size), one value or N items a thread
/// (blocked: thread t holds items [N t, N t + N)). Choice: algo::block_scan::warp_scans_t (warp
/// scans + spine, the default; Phase picks its warp scans), kogge_stone_t or brent_kung_t (seed
/// 001's block scans). temp_storage may be reused by the next call at once, and may share a union
/// with other storage between calls separated by __syncthreads().
template <class T, int Threads, class Choice = block_scan::warp_scans_t, class Phase = warp_phase::shfl_t>
class block_scanner {
  static_assert(Threads >= 1 && Threads <= 1024, "block_scanner: 1..1024 threads");
  using detail_t = detail::cuda::block_scan_for<Choice, T, Threads, Phase>;

 public:
  /// The shared memory a call works in.
  using temp_storage = typename detail_t::temp_storage;

  /// Over `s`.
  __device__ explicit block_scanner(temp_storage& s) : s_(s) {}

  // ---- one value a thread --------------------------------------------------------------------
  /// Thread t gets op(x_0, ..., x_t).
  template <class Op>
  __device__ T inclusive_scan(const T& x, Op op) {
    T excl;
    const bool has = detail_t(s_).exclusive_scan(x, excl, op, none_t{});
    return has ? op(excl, x) : x;
  }
  /// The same; `aggregate` gets the block's fold in every thread.
  template <class Op>
  __device__ T inclusive_scan(const T& x, Op op, T& aggregate) {
    detail_t d(s_);
    T excl;
    const bool has = d.exclusive_scan(x, excl, op, none_t{});
    aggregate = d.aggregate();
    return has ? op(excl, x) : x;
  }
  /// Thread t gets op(prefix, x_0, ..., x_t), where prefix = callback(block aggregate) (called by
  /// warp 0; see detail::coop::prefix_adaptor).
  template <class Op, class Callback>
  __device__ T inclusive_scan(const T& x, Op op, Callback& callback) {
    T excl;
    detail_t(s_).exclusive_scan(x, excl, op, detail::coop::prefix_adaptor<T, Callback>{callback});
    return op(excl, x);
  }
  /// Thread t gets op(init, x_0, ..., x_{t-1}); thread 0 gets init.
  template <class Op>
  __device__ T exclusive_scan(const T& x, const T& init, Op op) {
    T excl;
    detail_t(s_).exclusive_scan(x, excl, op, [&](const T&) { return detail::cuda::some(init); });
    return excl;
  }
  /// The same; `aggregate` gets the block's fold (without init) in every thread.
  template <class Op>
  __device__ T exclusive_scan(const T& x, const T& init, Op op, T& aggregate) {
    detail_t d(s_);
    T excl;
    d.exclusive_scan(x, excl, op, [&](const T&) { return detail::cuda::some(init); });
    aggregate = d.aggregate();
    return excl;
  }
  /// Thread t gets op(prefix, x_0, ..., x_{t-1}); thread 0 gets prefix.
  template <class Op, class Callback>
  __device__ T exclusive_scan(const T& x, Op op, Callback& callback) {
    T excl;
    detail_t(s_).exclusive_scan(x, excl, op, detail::coop::prefix_adaptor<T, Callback>{callback});
    return excl;
  }
  /// Without init: thread t > 0 gets op(x_0, ..., x_{t-1}); returns false in thread 0 (its
  /// `exclusive` unspecified).
  template <class Op>
  __device__ bool exclusive_scan_no_init(const T& x, T& exclusive, Op op) {
    return detail_t(s_).exclusive_scan(x, exclusive, op, none_t{});
  }
  /// The block's fold, in every thread.
  template <class Op>
  __device__ T reduce(const T& x, Op op) {
    return detail_t(s_).reduce(x, op);
  }

  // ---- items, in place -----------------------------------------------------------------------------
  /// Items (thread t holds items [N t, N t + N)), scanned in place: inclusive.
  template <int N, class Op>
  __device__ void inclusive_scan(T (&items)[N], Op op) {
    detail_t(s_).scan(items, false, op, none_t{});
  }
  /// The same; `aggregate` gets the block's fold in every thread.
  template <int N, class Op>
  __device__ void inclusive_scan(T (&items)[N], Op op, T& aggregate) {
    detail_t d(s_);
    d.scan(items, false, op, none_t{});
    aggregate = d.aggregate();
  }
  /// Items, scanned in place: inclusive, after prefix = callback(block aggregate) (called by warp 0).
  template <int N, class Op, class Callback>
  __device__ void inclusive_scan(T (&items)[N], Op op, Callback& callback) {
    detail_t(s_).scan(items, false, op, detail::coop::prefix_adaptor<T, Callback>{callback});
  }
  /// Items, scanned in place: exclusive, from init (thread 0's first item gets init).
  template <int N, class Op>
  __device__ void exclusive_scan(T (&items)[N], const T& init, Op op) {
    detail_t(s_).scan(items, true, op, [&](const T&) { return detail::cuda::some(init); });
  }
  /// The same; `aggregate` gets the block's fold (without init) in every thread.
  template <int N, class Op>
  __device__ void exclusive_scan(T (&items)[N], const T& init, Op op, T& aggregate) {
    detail_t d(s_);
    d.scan(items, true, op, [&](const T&) { return detail::cuda::some(init); });
    aggregate = d.aggregate();
  }
  /// Items, scanned in place: exclusive, after prefix = callback(block aggregate) (called by warp 0).
  template <int N, class Op, class Callback>
  __device__ void exclusive_scan(T (&items)[N], Op op, Callback& callback) {
    detail_t(s_).scan(items, true, op, detail::coop::prefix_adaptor<T, Callback>{callback});
  }
  /// The fold of every thread's items, in every thread.
  template <int N, class Op>
  __device__ T reduce(const T (&items)[N], Op op) {
    return detail_t(s_).reduce(detail::cuda::thread_reduce(items, op), op);
  }

 private:
  struct none_t {
    __device__ detail::cuda::maybe_value<T> operator()(const T&) const { return detail::cuda::none<T>(); }
  };
  temp_storage& s_;
};

/// In-order fold over a 1-D block of Threads threads (1..1024), result in thread 0 (the CUDA
/// Handbook's tree kept in order: detail/cuda/block/block_reduce.cuh). For the result in every
/// thread use block_scanner::reduce, or the group policy algo::this_block.
template <class T, int Threads, class Phase = warp_phase::shfl_t>
class block_reduce {
  using detail_t = detail::cuda::block_reduce<Phase, T, Threads>;

 public:
  /// The shared memory a call works in.
  using temp_storage = typename detail_t::storage;

  /// Over `s`.
  __device__ explicit block_reduce(temp_storage& s) : s_(s) {}

  /// op(x_0, ..., x_{Threads-1}) in thread 0 (other threads: unspecified).
  template <class Op>
  __device__ T reduce(const T& x, Op op) {
    return detail_t(s_).reduce(x, Threads, op);
  }
  /// The fold of threads [0, valid) (1 <= valid <= Threads) in thread 0.
  template <class Op>
  __device__ T reduce(const T& x, int valid, Op op) {
    return detail_t(s_).reduce(x, valid, op);
  }
  /// Item arrays: the fold of every thread's items, in order, in thread 0.
  template <int N, class Op>
  __device__ T reduce(const T (&items)[N], Op op) {
    return reduce(detail::cuda::thread_reduce(items, op), op);
  }

 private:
  temp_storage& s_;
};

// ---- loads and stores of a thread's items -----------------------------------------------------------
/// Blocked: thread `rank` reads items first[N rank + k]; positions at or past `valid` get `fill`
/// (or keep their value, without fill). Striped over Threads threads: first[rank + Threads k].
template <int N, class It, class T>
__device__ void load_blocked(int rank, It first, T (&items)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) items[k] = first[rank * N + k];
}
/// load_blocked of the positions below `valid` only; the others keep their value.
template <int N, class It, class T>
__device__ void load_blocked(int rank, It first, T (&items)[N], int valid) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (rank * N + k < valid) items[k] = first[rank * N + k];
}
/// load_blocked with the positions at or past `valid` set to `fill`.
template <int N, class It, class T, class F>
__device__ void load_blocked(int rank, It first, T (&items)[N], int valid, const F& fill) {
#pragma unroll
  for (int k = 0; k < N; ++k) items[k] = rank * N + k < valid ? static_cast<T>(first[rank * N + k]) : static_cast<T>(fill);
}
/// Striped over Threads threads: items[k] = first[rank + Threads k].
template <int Threads, int N, class It, class T>
__device__ void load_striped(int rank, It first, T (&items)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) items[k] = first[rank + Threads * k];
}
/// load_striped of the positions below `valid` only; the others keep their value.
template <int Threads, int N, class It, class T>
__device__ void load_striped(int rank, It first, T (&items)[N], int valid) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (rank + Threads * k < valid) items[k] = first[rank + Threads * k];
}
/// load_striped with the positions at or past `valid` set to `fill`.
template <int Threads, int N, class It, class T, class F>
__device__ void load_striped(int rank, It first, T (&items)[N], int valid, const F& fill) {
#pragma unroll
  for (int k = 0; k < N; ++k) items[k] = rank + Threads * k < valid ? static_cast<T>(first[rank + Threads * k]) : static_cast<T>(fill);
}
/// Blocked: first[N rank + k] = items[k].
template <int N, class It, class T>
__device__ void store_blocked(int rank, It first, const T (&items)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) first[rank * N + k] = items[k];
}
/// store_blocked of the positions below `valid` only.
template <int N, class It, class T>
__device__ void store_blocked(int rank, It first, const T (&items)[N], int valid) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (rank * N + k < valid) first[rank * N + k] = items[k];
}
/// Striped over Threads threads: first[rank + Threads k] = items[k].
template <int Threads, int N, class It, class T>
__device__ void store_striped(int rank, It first, const T (&items)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) first[rank + Threads * k] = items[k];
}
/// store_striped of the positions below `valid` only.
template <int Threads, int N, class It, class T>
__device__ void store_striped(int rank, It first, const T (&items)[N], int valid) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (rank + Threads * k < valid) first[rank + Threads * k] = items[k];
}

/// A warp's 32 x Items consecutive elements between global memory, where the warp reads and writes
/// them warp-striped (coalesced: 16-byte words when the pointer is 16-byte aligned, Items x
/// sizeof(T) a multiple of 16 and the chunk full; single elements otherwise), and registers, where
/// lane l holds items [Items l, Items l + Items) (blocked), through a staging area in shared memory
/// (CUB's BLOCK_LOAD_WARP_TRANSPOSE). Every lane of a full warp calls; only __syncwarp() inside.
/// The same code as the device scans' tile loads (detail/cuda/block/block_load_store.cuh).
template <class T, int Items>
class warp_transpose_io {
  using io = detail::cuda::warp_tile_io<T, Items>;

  template <class It>
  __device__ static bool words(const It& it) {
    if constexpr (std::is_pointer<It>::value && io::vectorizable &&
                  std::is_same<std::remove_cv_t<std::remove_pointer_t<It>>, T>::value)
      return detail::cuda::is_aligned16(it);
    else
      return false;
  }

 public:
  /// The shared-memory staging area of one warp.
  struct temp_storage {
    alignas(16) unsigned char bytes[io::bytes];  ///< raw, 16-byte aligned
  };

  /// Over `s` (one per warp).
  __device__ explicit warp_transpose_io(temp_storage& s) : s_(s) {}

  /// The full chunk first[0, 32 x Items).
  template <class It>
  __device__ void load(It first, T (&items)[Items]) {
    if (words(first)) {
      if constexpr (io::vectorizable && std::is_pointer<It>::value) io::load_words(&*first, s_.bytes, items);
    } else {
      load(first, items, 32 * Items, T{});
    }
  }
  /// Positions at or past `valid` get `fill`.
  template <class It>
  __device__ void load(It first, T (&items)[Items], int valid, const T& fill) {
    if (valid >= 32 * Items && words(first)) {
      load(first, items);
      return;
    }
    io::load_elements(first, valid, fill, [](const auto& x) { return static_cast<T>(x); }, s_.bytes, items);
  }
  /// The full chunk to first[0, 32 x Items).
  template <class It>
  __device__ void store(It first, const T (&items)[Items]) {
    if constexpr (io::vectorizable && std::is_pointer<It>::value &&
                  std::is_same<std::remove_cv_t<std::remove_pointer_t<It>>, T>::value) {
      if (detail::cuda::is_aligned16(first)) {
        io::store_words(first, s_.bytes, items);
        return;
      }
    }
    io::store_elements(first, 32 * Items, s_.bytes, items);
  }
  /// Positions below `valid` only.
  template <class It>
  __device__ void store(It first, const T (&items)[Items], int valid) {
    if (valid >= 32 * Items) store(first, items);
    else io::store_elements(first, valid, s_.bytes, items);
  }

 private:
  temp_storage& s_;
};

// =====================================================================================================
// Group policies
// =====================================================================================================
/// Shared memory for this_block's algorithms whose accumulator type is T, declared by the caller:
///   __shared__ algo::block_storage<float> tmp;   ...   algo::reduce(algo::this_block.with(tmp), ...)
/// Scans over it load and store each thread's chunk directly; block_scan_storage<T> adds the
/// 18 KB through which scans of pointer ranges move whole warps' chunks coalesced (faster, as
/// the library's own storage does).
template <class T>
using block_storage = detail::cuda::coop::block_group_storage<T>;
/// block_storage<T> with the staging area (about 18 KB) through which scans of pointer ranges move
/// whole warps' chunks coalesced.
template <class T>
using block_scan_storage = detail::cuda::coop::block_group_storage_staged<T>;

/// The calling thread block. Storage = void: the library's own static __shared__ storage (one per
/// accumulator type, shared by the calls that use that type); else block_storage<T> or
/// block_scan_storage<T> handed in.
template <class Storage = void>
struct block_group_policy {
  /// The caller's shared memory.
  Storage* storage = nullptr;
};
/// The calling thread block over the library's own static shared memory (the type of
/// algo::this_block); with() hands in the caller's instead.
template <>
struct block_group_policy<void> {
  /// The calling block over `s`.
  template <class T>
  __host__ __device__ constexpr block_group_policy<block_storage<T>> with(block_storage<T>& s) const {
    return block_group_policy<block_storage<T>>{&s};
  }
  /// The calling block over `s`, with the scans' staging.
  template <class T>
  __host__ __device__ constexpr block_group_policy<block_scan_storage<T>> with(block_scan_storage<T>& s) const {
    return block_group_policy<block_scan_storage<T>>{&s};
  }
};

/// The calling warp (Width 32) or cooperative-groups tile of Width lanes.
template <int Width>
struct lanes_group_policy {
  static_assert(Width >= 1 && Width <= 32 && (Width & (Width - 1)) == 0, "a tile of 1, 2, 4, 8, 16 or 32 lanes");
};

/// The calling thread block (1-D, any size 1..1024); `algo::this_block.with(storage)` over the
/// caller's shared memory.
ALGO_GLOBAL_CONSTANT block_group_policy<> this_block{};
/// The calling warp (the last warp of a block may be partial).
ALGO_GLOBAL_CONSTANT lanes_group_policy<32> this_warp{};

/// The group policy of a cooperative-groups tile (tiled_partition<N>(this_thread_block())) or block.
template <unsigned N, class Parent>
__host__ __device__ constexpr lanes_group_policy<static_cast<int>(N)> group(
    const cooperative_groups::thread_block_tile<N, Parent>&) {
  return {};
}
/// The group policy of the whole thread block (this_block).
__host__ __device__ inline constexpr block_group_policy<> group(const cooperative_groups::thread_block&) { return {}; }

/// P is a group policy (a block_group_policy or a lanes_group_policy).
template <class P>
struct is_group_policy : std::false_type {};
/// Every block_group_policy is a group policy.
template <class S>
struct is_group_policy<block_group_policy<S>> : std::true_type {};
/// Every lanes_group_policy is a group policy.
template <int W>
struct is_group_policy<lanes_group_policy<W>> : std::true_type {};

namespace detail::coop {
template <class P>
using enable_group = std::enable_if_t<is_group_policy<std::decay_t<P>>::value, int>;

template <class Storage, class Acc>
__device__ __forceinline__ cuda::coop::block_group_storage<Acc>& storage_of(const block_group_policy<Storage>& p) {
  if constexpr (std::is_void<Storage>::value) {
    return cuda::coop::static_block_storage<Acc>();
  } else if constexpr (std::is_same<Storage, block_scan_storage<Acc>>::value) {
    return p.storage->core;
  } else {
    static_assert(std::is_same<Storage, block_storage<Acc>>::value,
                  "algo::this_block.with(storage): block_storage<T> / block_scan_storage<T> needs T = the call's "
                  "accumulator type");
    return *p.storage;
  }
}

/// The staging of a block scan of [first, first + n) into out: the library's own (declared only
/// where a range can use it), the caller's block_scan_storage, or none (block_storage).
template <class Acc, class Storage, class InIt, class OutIt>
__device__ __forceinline__ cuda::coop::warp_staging* staging_of(const block_group_policy<Storage>& p) {
  constexpr int K = cuda::coop::range_items<Acc>;
  if constexpr (std::is_void<Storage>::value) {
    if constexpr (cuda::coop::stageable<InIt, K>::value || cuda::coop::stageable<OutIt, K>::value)
      return &cuda::coop::static_warp_staging();
    else
      return nullptr;
  } else if constexpr (std::is_same<Storage, block_scan_storage<Acc>>::value) {
    return &p.storage->staging;
  } else {
    return nullptr;
  }
}

// ---- what each policy runs (n >= 1) ------------------------------------------------------------------
template <class Acc, class S, class InIt, class OutIt, class Op>
__device__ void scan_n(const block_group_policy<S>& p, InIt first, std::int64_t n, OutIt out, bool exclusive,
                       Op op, cuda::maybe_value<Acc> init) {
  cuda::coop::block_scanner<Acc> scanner{storage_of<S, Acc>(p), init, staging_of<Acc, S, InIt, OutIt>(p)};
  cuda::coop::scan_range<Acc>(scanner, first, n, out, exclusive, op);
}
template <class Acc, int W, class InIt, class OutIt, class Op>
__device__ void scan_n(const lanes_group_policy<W>&, InIt first, std::int64_t n, OutIt out, bool exclusive, Op op,
                       cuda::maybe_value<Acc> init) {
  cuda::coop::lanes_scanner<Acc, W> scanner{cuda::coop::lanes_group<W>(), init};
  cuda::coop::scan_range<Acc>(scanner, first, n, out, exclusive, op);
}
ALGO_EXEC_CHECK_DISABLE
template <class Acc, class InIt, class OutIt, class Op>
__host__ __device__ void scan_n(const seq_policy&, InIt first, std::int64_t n, OutIt out, bool exclusive, Op op,
                                cuda::maybe_value<Acc> init) {
  Acc acc = init.has ? init.value : static_cast<Acc>(first[0]);
  std::int64_t i = 0;
  if (!init.has) {
    out[0] = acc;
    i = 1;
  }
  for (; i < n; ++i) {
    if (exclusive) {
      const Acc next = op(acc, first[i]);
      out[i] = acc;
      acc = next;
    } else {
      acc = op(acc, first[i]);
      out[i] = acc;
    }
  }
}

template <class Acc, class S, class It, class Op>
__device__ Acc reduce_n(const block_group_policy<S>& p, It first, std::int64_t n, Op op) {
  return cuda::coop::block_reduce_range<Acc>(storage_of<S, Acc>(p), first, n, op);
}
template <class Acc, int W, class It, class Op>
__device__ Acc reduce_n(const lanes_group_policy<W>&, It first, std::int64_t n, Op op) {
  return cuda::coop::lanes_reduce<Acc, W>(first, n, op);
}
ALGO_EXEC_CHECK_DISABLE
template <class Acc, class It, class Op>
__host__ __device__ Acc reduce_n(const seq_policy&, It first, std::int64_t n, Op op) {
  Acc acc = static_cast<Acc>(first[0]);
  for (std::int64_t i = 1; i < n; ++i) acc = op(acc, first[i]);
  return acc;
}

// ---- the entry points' work, for every in-kernel policy ----------------------------------------------
ALGO_EXEC_CHECK_DISABLE
template <bool Inclusive, class P, class InIt, class OutIt, class Op, class Init>
__host__ __device__ OutIt scan(const P& p, InIt first, InIt last, OutIt out, Op op, Init init) {
  const std::int64_t n = static_cast<std::int64_t>(last - first);
  if (n <= 0) return out;
  if constexpr (std::is_same<Init, no_init_t>::value) {
    scan_n<iter_value_t<InIt>>(p, first, n, out, !Inclusive, op, cuda::none<iter_value_t<InIt>>());
  } else {
    using Acc = accumulator_t<Op, Init, iter_value_t<InIt>>;
    scan_n<Acc>(p, first, n, out, !Inclusive, op, cuda::some(static_cast<Acc>(init)));
  }
  return out + n;
}
ALGO_EXEC_CHECK_DISABLE
template <class P, class It, class T, class Op>
__host__ __device__ T reduce(const P& p, It first, It last, T init, Op op) {
  const std::int64_t n = static_cast<std::int64_t>(last - first);
  if (n <= 0) return init;
  using Acc = accumulator_t<Op, T, iter_value_t<It>>;
  const Acc r = reduce_n<Acc>(p, first, n, op);
  return static_cast<T>(op(static_cast<Acc>(init), r));
}
}  // namespace detail::coop

// ---- group policies: the <numeric> entry points in device code ---------------------------------------
/// In device code: out[i] = in[0] + ... + in[i], in the input's value type; every thread of group g
/// calls; returns d_first + n in every thread.
template <class G, class InIt, class OutIt, detail::coop::enable_group<G> = 0>
__device__ OutIt inclusive_scan(const G& g, InIt first, InIt last, OutIt d_first) {
  return detail::coop::scan<true>(g, first, last, d_first, plus<>{}, detail::no_init_t{});
}
/// In device code: out[i] = in[0] op ... op in[i], in the input's value type; every thread of group
/// g calls; returns d_first + n in every thread.
template <class G, class InIt, class OutIt, class Op, detail::coop::enable_group<G> = 0>
__device__ OutIt inclusive_scan(const G& g, InIt first, InIt last, OutIt d_first, Op op) {
  return detail::coop::scan<true>(g, first, last, d_first, op, detail::no_init_t{});
}
/// In device code: out[i] = init op in[0] op ... op in[i], in the type op(init, in[0]) returns;
/// every thread of group g calls; returns d_first + n in every thread.
template <class G, class InIt, class OutIt, class Op, class T, detail::coop::enable_group<G> = 0>
__device__ OutIt inclusive_scan(const G& g, InIt first, InIt last, OutIt d_first, Op op, T init) {
  return detail::coop::scan<true>(g, first, last, d_first, op, init);
}
/// In device code: out[0] = init, out[i] = init + in[0] + ... + in[i-1] with plus<T>; every thread
/// of group g calls; returns d_first + n in every thread.
template <class G, class InIt, class OutIt, class T, detail::coop::enable_group<G> = 0>
__device__ OutIt exclusive_scan(const G& g, InIt first, InIt last, OutIt d_first, T init) {
  return detail::coop::scan<false>(g, first, last, d_first, plus<T>{}, init);
}
/// In device code: the same with op, in the type op(init, in[0]) returns; every thread of group g
/// calls; returns d_first + n in every thread.
template <class G, class InIt, class OutIt, class T, class Op, detail::coop::enable_group<G> = 0>
__device__ OutIt exclusive_scan(const G& g, InIt first, InIt last, OutIt d_first, T init, Op op) {
  return detail::coop::scan<false>(g, first, last, d_first, op, init);
}
/// In device code: the sum of the range from the value type's T{}; every thread of group g calls
/// and gets the result.
template <class G, class It, detail::coop::enable_group<G> = 0>
__device__ detail::iter_value_t<It> reduce(const G& g, It first, It last) {
  using T = detail::iter_value_t<It>;
  return detail::coop::reduce(g, first, last, T{}, plus<T>{});
}
/// In device code: init + the sum of the range with plus<T>; every thread of group g calls and gets
/// the result.
template <class G, class It, class T, detail::coop::enable_group<G> = 0>
__device__ T reduce(const G& g, It first, It last, T init) {
  return detail::coop::reduce(g, first, last, init, plus<T>{});
}
/// In device code: init op in[0] op in[1] ..., left to right; every thread of group g calls and
/// gets the result.
template <class G, class It, class T, class Op, detail::coop::enable_group<G> = 0>
__device__ T reduce(const G& g, It first, It last, T init, Op op) {
  return detail::coop::reduce(g, first, last, init, op);
}
/// In device code: reduce_op-fold of transform_op(in[i]) onto init; every thread of group g calls
/// and gets the result.
template <class G, class It, class T, class ReduceOp, class TransformOp, detail::coop::enable_group<G> = 0>
__device__ T transform_reduce(const G& g, It first, It last, T init, ReduceOp reduce_op, TransformOp transform_op) {
  using X = detail::transform_iterator<It, TransformOp>;
  return detail::coop::reduce(g, X(first, transform_op), X(last, transform_op), init, reduce_op);
}
/// In device code: init + sum of first1[i] * first2[i] (plus<T>, multiplies<T>); every thread of
/// group g calls and gets the result.
template <class G, class It1, class It2, class T, detail::coop::enable_group<G> = 0>
__device__ T transform_reduce(const G& g, It1 first1, It1 last1, It2 first2, T init) {
  return transform_reduce(g, first1, last1, first2, init, plus<T>{}, multiplies<T>{});
}
/// In device code: reduce_op-fold of transform_op(first1[i], first2[i]) onto init; every thread of
/// group g calls and gets the result.
template <class G, class It1, class It2, class T, class ReduceOp, class TransformOp, detail::coop::enable_group<G> = 0>
__device__ T transform_reduce(const G& g, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                              TransformOp transform_op) {
  using Z = detail::zip_transform_iterator<It1, It2, TransformOp>;
  const auto n = last1 - first1;
  return detail::coop::reduce(g, Z(first1, first2, transform_op), Z(first1 + n, first2 + n, transform_op), init,
                              reduce_op);
}

// ---- algo::seq in device code (one thread, as thrust::seq) -----------------------------------------
// These overloads are more specialized than numeric.hpp's (seq_policy by value against const
// Policy&): host code goes on to the host policy's checked entry points, device code to the loops
// above. Device code takes the same preconditions as the group policies.
#if ALGO_DEVICE_PASS
#  define ALGO_SEQ_DISPATCH(device_call, host_call) return device_call
#else
#  define ALGO_SEQ_DISPATCH(device_call, host_call) return host_call
#endif
/// inclusive_scan with algo::seq: on the host, the checked host entry point; in device code, the
/// calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class InIt, class OutIt>
__host__ __device__ OutIt inclusive_scan(seq_policy p, InIt first, InIt last, OutIt d_first) {
  ALGO_SEQ_DISPATCH((detail::coop::scan<true>(p, first, last, d_first, plus<>{}, detail::no_init_t{})),
                    (detail::scan_entry<true>("inclusive_scan", p, first, last, d_first, plus<>{}, detail::no_init_t{})));
}
/// inclusive_scan with op, algo::seq: on the host, the checked host entry point; in device code,
/// the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class InIt, class OutIt, class Op>
__host__ __device__ OutIt inclusive_scan(seq_policy p, InIt first, InIt last, OutIt d_first, Op op) {
  ALGO_SEQ_DISPATCH((detail::coop::scan<true>(p, first, last, d_first, op, detail::no_init_t{})),
                    (detail::scan_entry<true>("inclusive_scan", p, first, last, d_first, op, detail::no_init_t{})));
}
/// inclusive_scan with op and init, algo::seq: on the host, the checked host entry point; in device
/// code, the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class InIt, class OutIt, class Op, class T>
__host__ __device__ OutIt inclusive_scan(seq_policy p, InIt first, InIt last, OutIt d_first, Op op, T init) {
  ALGO_SEQ_DISPATCH((detail::coop::scan<true>(p, first, last, d_first, op, init)),
                    (detail::scan_entry<true>("inclusive_scan", p, first, last, d_first, op, init)));
}
/// exclusive_scan from init, algo::seq: on the host, the checked host entry point; in device code,
/// the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class InIt, class OutIt, class T>
__host__ __device__ OutIt exclusive_scan(seq_policy p, InIt first, InIt last, OutIt d_first, T init) {
  ALGO_SEQ_DISPATCH((detail::coop::scan<false>(p, first, last, d_first, plus<T>{}, init)),
                    (detail::scan_entry<false>("exclusive_scan", p, first, last, d_first, plus<T>{}, init)));
}
/// exclusive_scan from init with op, algo::seq: on the host, the checked host entry point; in
/// device code, the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class InIt, class OutIt, class T, class Op>
__host__ __device__ OutIt exclusive_scan(seq_policy p, InIt first, InIt last, OutIt d_first, T init, Op op) {
  ALGO_SEQ_DISPATCH((detail::coop::scan<false>(p, first, last, d_first, op, init)),
                    (detail::scan_entry<false>("exclusive_scan", p, first, last, d_first, op, init)));
}
/// reduce from T{}, algo::seq: on the host, the checked host entry point; in device code, the
/// calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It>
__host__ __device__ detail::iter_value_t<It> reduce(seq_policy p, It first, It last) {
  using T = detail::iter_value_t<It>;
  ALGO_SEQ_DISPATCH((detail::coop::reduce(p, first, last, T{}, plus<T>{})),
                    (detail::reduce_entry("reduce", p, first, last, T{}, plus<T>{})));
}
/// reduce from init, algo::seq: on the host, the checked host entry point; in device code, the
/// calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It, class T>
__host__ __device__ T reduce(seq_policy p, It first, It last, T init) {
  ALGO_SEQ_DISPATCH((detail::coop::reduce(p, first, last, init, plus<T>{})),
                    (detail::reduce_entry("reduce", p, first, last, init, plus<T>{})));
}
/// reduce from init with op, algo::seq: on the host, the checked host entry point; in device code,
/// the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It, class T, class Op>
__host__ __device__ T reduce(seq_policy p, It first, It last, T init, Op op) {
  ALGO_SEQ_DISPATCH((detail::coop::reduce(p, first, last, init, op)),
                    (detail::reduce_entry("reduce", p, first, last, init, op)));
}
/// transform_reduce of one range, algo::seq: on the host, the checked host entry point; in device
/// code, the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It, class T, class ReduceOp, class TransformOp, detail::enable_iterator<It> = 0>
__host__ __device__ T transform_reduce(seq_policy p, It first, It last, T init, ReduceOp reduce_op, TransformOp transform_op) {
  using X = detail::transform_iterator<It, TransformOp>;
#if ALGO_DEVICE_PASS
  return detail::coop::reduce(p, X(first, transform_op), X(last, transform_op), init, reduce_op);
#else
  detail::check_fold<ReduceOp, T, X>();
  const std::int64_t n = detail::checked_distance("transform_reduce", first, last);
  detail::check_iterator("transform_reduce", "input", p, first, n);
  if (n == 0) return init;
  return detail::reduce_nonempty(p, X(first, transform_op), n, init, reduce_op);
#endif
}
/// transform_reduce of two ranges, algo::seq: on the host, the checked host entry point; in device
/// code, the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It1, class It2, class T, class ReduceOp, class TransformOp>
__host__ __device__ T transform_reduce(seq_policy p, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                                       TransformOp transform_op) {
#if ALGO_DEVICE_PASS
  using Z = detail::zip_transform_iterator<It1, It2, TransformOp>;
  const auto n = last1 - first1;
  return detail::coop::reduce(p, Z(first1, first2, transform_op), Z(first1 + n, first2 + n, transform_op), init,
                              reduce_op);
#else
  return detail::transform_reduce2_entry(p, first1, last1, first2, init, reduce_op, transform_op);
#endif
}
/// The inner product (plus<T>, multiplies<T>), algo::seq: on the host, the checked host entry
/// point; in device code, the calling thread's loop.
ALGO_EXEC_CHECK_DISABLE
template <class It1, class It2, class T>
__host__ __device__ T transform_reduce(seq_policy p, It1 first1, It1 last1, It2 first2, T init) {
  return transform_reduce(p, first1, last1, first2, init, plus<T>{}, multiplies<T>{});
}
#undef ALGO_SEQ_DISPATCH

}  // namespace algo
