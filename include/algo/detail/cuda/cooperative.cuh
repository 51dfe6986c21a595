// The group policies' algorithms (<algo/cooperative.hpp>): inclusive / exclusive scans and folds of
// a range, called inside a kernel by every thread of a group (a thread block, a warp, a
// cooperative-groups tile of 1..32 lanes). Built on the same layers as the device-wide scans:
// thread/thread_scan.cuh (each thread's items), warp/warp_scan.cuh and warp/warp_reduce.cuh (lanes
// of a warp or a tile, warp_lanes), block/block_scan.cuh (the block, any size: dynamic_threads).
//
// Ranges are cut into tiles of size() x Items elements; in a tile thread r holds the Items
// consecutive elements from r x Items (blocked: what an order-keeping scan needs), read as 16-byte
// vectors when the iterator allows it (load_traits) and the range's start is 16-byte aligned
// (then every thread's chunk is), element by element otherwise. The block's scans move the full
// tiles of 16-byte-aligned pointer ranges warp-striped instead (each warp instruction 512
// contiguous bytes, as cub::BlockLoad's warp transpose), through 576 bytes of shared memory per
// warp (warp_staging: a static 18 KB array, or the caller's block_scan_storage).
//
//   scan     per tile: thread phase (fold the items), group scan of the thread totals after the
//            carry (everything before the tile), thread phase again (rescan the items), store;
//            the carry grows by the tile's aggregate (block: inside the block scan's prefix
//            callback, in warp 0; lanes: in every lane).
//   fold     lanes: each step, every lane folds its items, the lanes' values are folded in lane
//            order into lane 0 (warp_reduce), lane 0 adds the result to its running value. Block:
//            each warp folds one contiguous part of the range that way (parts in order, a multiple
//            of a warp's step each), then warp 0 folds the warps' values; the result goes to every
//            thread through shared memory (block) or a shuffle (lanes).
//
// Group policies always exchange values through shuffles (warp_phase::shfl): the volatile shared-
// memory phase would need a warp's slots per warp of any block size, statically. Operators need
// only be associative; no identity element. Preconditions (not checkable on the device): every
// thread of the group makes the same call with the same arguments, the block is 1-D, the ranges
// are readable (and writable) by the device, the output is the input or does not overlap it.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../iterator.hpp"
#include "block/block_scan.cuh"
#include "thread/load.cuh"
#include "thread/shuffle.cuh"
#include "thread/thread_scan.cuh"
#include "warp/warp_reduce.cuh"
#include "warp/warp_scan.cuh"

namespace algo::detail::cuda::coop {

/// Items a thread holds per tile: 64 bytes (16 ints, 8 doubles or affine maps, 2 32-byte structs).
template <class T>
inline constexpr int range_items = sizeof(T) >= 64 ? 1 : (64 / sizeof(T) > 16 ? 16 : static_cast<int>(64 / sizeof(T)));

// ---- the groups ------------------------------------------------------------------------------------
/// The lanes of a warp or of a tile of Width lanes (Width a power of two <= 32), 1-D block: the
/// segment holding the calling thread, of which the lanes below the block's end are present.
template <int Width>
struct lanes_group {
  static_assert(Width >= 1 && Width <= 32 && (Width & (Width - 1)) == 0, "a tile of 1, 2, 4, 8, 16 or 32 lanes");
  warp_lanes lanes;
  int count;  // lanes present

  __device__ __forceinline__ lanes_group() {
    const int base = static_cast<int>(threadIdx.x) & ~(Width - 1);
    const int rest = static_cast<int>(blockDim.x) - base;
    count = rest < Width ? rest : Width;
    lanes = warp_lanes::segment(Width, count);
  }
  __device__ __forceinline__ int rank() const { return lanes.rank(); }
  __device__ __forceinline__ int size() const { return count; }
};

/// Shared memory of the block group for accumulators of type T: the block scan's storage and the
/// fold's warp values and result. Not a union: a thread may still read a fold's result when a
/// faster one starts the next call, which writes only the scan's part or the warp values (the
/// block scan is safe to reuse at once, and a fold writes its result after a barrier).
/// The staged loads' and stores' shared memory: per warp, 32 16-byte words and one padding word
/// after every eight (conflict-free on both sides: lanes write words warp-striped, read them blocked).
struct warp_staging {
  static constexpr int words = 32 + 32 / 8;
  __device__ static __forceinline__ int slot(int k) { return k + (k >> 3); }
  uint4 word[32][words];
};

template <class T>
struct block_group_storage {
  typename block_scan<T, dynamic_threads, warp_phase::shfl_t>::temp_storage scan;
  struct {
    uninitialized<T> warp_value[32];
    uninitialized<T> result;
  } fold;
};

/// The same with the staging of the scans' loads and stores (block_scan_storage<T>).
template <class T>
struct block_group_storage_staged {
  block_group_storage<T> core;
  warp_staging staging;
};

/// The library's own storage for T: one static __shared__ object per accumulator type, used by
/// every block-group call with that type (calls run one after the other in a block, so they can
/// share it).
template <class T>
__device__ __forceinline__ block_group_storage<T>& static_block_storage() {
  __shared__ block_group_storage<T> storage;
  return storage;
}

/// The library's own staging (one per kernel that scans a range with the block, whatever the
/// types; declared only by scans of pointer ranges: stageable).
__device__ __forceinline__ warp_staging& static_warp_staging() {
  __shared__ warp_staging staging;
  return staging;
}

// ---- loading and storing a thread's chunk ------------------------------------------------------------
template <class It, int K>
inline constexpr bool can_vector_load = load_traits<It>::vectorizable && K % load_traits<It>::vector_items == 0;

/// Whether an iterator's underlying pointers are all 16-byte aligned global-memory addresses
/// (pointers, and our transform / zip adaptors over them): the vector loads go through the
/// read-only data cache (LDG.E.128.CONSTANT), which shared memory does not have.
template <class T>
__device__ __forceinline__ bool aligned16(T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0 && __isGlobal(p);
}
template <class It, class F>
__device__ __forceinline__ bool aligned16(const transform_iterator<It, F>& it) {
  return aligned16(it.base());
}
template <class It1, class It2, class F>
__device__ __forceinline__ bool aligned16(const zip_transform_iterator<It1, It2, F>& it) {
  return aligned16(it.first_base()) && aligned16(it.second_base());
}

/// Whether the chunks of a range starting at `first` can move as 16-byte vectors (K elements a
/// thread, K x sizeof a multiple of 16): the range's start is 16-byte aligned.
template <int K, class It>
__device__ __forceinline__ bool vector_loads(const It& first) {
  if constexpr (can_vector_load<It, K>) return aligned16(first);
  else return false;
}

/// Thread's chunk first[begin, begin + K) as accumulators; positions at or past n get `fill`.
/// Returns how many are real.
template <int K, class Acc, class It>
__device__ __forceinline__ int load_items(const It& first, std::int64_t begin, std::int64_t n, bool vectors,
                                          const Acc& fill, Acc (&items)[K]) {
  using V = typename load_traits<It>::value_type;
  const std::int64_t left = n - begin;
  if constexpr (can_vector_load<It, K>) {
    if (vectors && left >= K) {
      V v[K];
      load_chunk<K, true>(first + begin, v);
#pragma unroll
      for (int k = 0; k < K; ++k) items[k] = static_cast<Acc>(v[k]);
      return K;
    }
  }
  if (left >= K) {
#pragma unroll
    for (int k = 0; k < K; ++k) items[k] = static_cast<Acc>(first[begin + k]);
    return K;
  }
  const int valid = left > 0 ? static_cast<int>(left) : 0;
#pragma unroll
  for (int k = 0; k < K; ++k) items[k] = k < valid ? static_cast<Acc>(first[begin + k]) : fill;
  return valid;
}

/// A whole step of `count` lanes x K elements from first[base, ...), vector-striped: lane r gets
/// the 16-byte vectors r, r + count, r + 2 x count, ..., so each load instruction of the lanes reads
/// count x 16 contiguous bytes (blocked chunks read 64 bytes a lane: twice the sectors an instruction,
/// half of each used). For folds that may group elements in any fixed way (commutative operators).
/// `first` 16-byte aligned, base a multiple of the vector.
template <int K, class Acc, class It>
__device__ __forceinline__ void load_step_striped(const It& first, std::int64_t base, int r, int count,
                                                  Acc (&items)[K]) {
  using V = typename load_traits<It>::value_type;
  constexpr int vi = load_traits<It>::vector_items;
#pragma unroll
  for (int j = 0; j < K / vi; ++j) {
    V v[vi];
    load_chunk<vi, true>(first + (base + (static_cast<std::int64_t>(j) * count + r) * vi), v);
#pragma unroll
    for (int k = 0; k < vi; ++k) items[j * vi + k] = static_cast<Acc>(v[k]);
  }
}

template <class OutIt>
struct store_traits {
  static constexpr bool pointer = false;
  using value_type = void;
};
template <class T>
struct store_traits<T*> {
  static constexpr bool pointer = !std::is_const<T>::value;
  using value_type = T;
};

/// Writes the thread's first `valid` items to out[begin, ...): as 16-byte vectors when the output
/// is an aligned pointer to the accumulator type (checked by the caller: `vectors`).
template <int K, class Acc, class OutIt>
__device__ __forceinline__ void store_items(OutIt out, std::int64_t begin, int valid, bool vectors, const Acc (&items)[K]) {
  if constexpr (store_traits<OutIt>::pointer && (K * sizeof(Acc)) % 16 == 0) {
    if constexpr (std::is_same<typename store_traits<OutIt>::value_type, Acc>::value) {
      if (vectors && valid == K) {
        uint4 w[K * sizeof(Acc) / 16];
        memcpy(w, items, sizeof(w));
        uint4* q = reinterpret_cast<uint4*>(out + begin);
#pragma unroll
        for (int j = 0; j < static_cast<int>(K * sizeof(Acc) / 16); ++j) q[j] = w[j];
        return;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (k < valid) out[begin + k] = items[k];
}

template <int K, class Acc, class OutIt>
__device__ __forceinline__ bool vector_stores(const OutIt& out) {
  if constexpr (store_traits<OutIt>::pointer && (K * sizeof(Acc)) % 16 == 0) {
    if constexpr (std::is_same<typename store_traits<OutIt>::value_type, Acc>::value)
      return (reinterpret_cast<std::uintptr_t>(out) & 15u) == 0;
  }
  return false;
}

// ---- staged loads and stores: a whole warp's chunk, warp-striped in global memory ---------------------
/// Whether a range moves through warp_staging: a plain pointer to a trivially copyable type whose
/// K elements a thread make 64 bytes (4 words a lane, 128 a warp).
template <class It, int K>
struct stageable : std::false_type {};
template <class T, int K>
struct stageable<T*, K>
    : std::integral_constant<bool, std::is_trivially_copyable<T>::value && K * sizeof(T) == 64> {};

/// The warp's chunk (32 x K elements from `chunk`, 16-byte aligned) into each lane's K blocked
/// elements: the four warp-striped 16-byte loads of a lane in flight together, then four passes
/// through the staging, pass p handing the p-th quarter of the chunk to the 8 lanes that hold it.
template <int K, class T>
__device__ __forceinline__ void staged_load(const T* chunk, uint4* staging, T (&items)[K]) {
  const int lane = lane_index();
  const uint4* g = reinterpret_cast<const uint4*>(chunk);
  uint4 striped[4], mine[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) striped[j] = g[j * 32 + lane];
  const int b = (lane & 7) * 4;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    __syncwarp();
    staging[warp_staging::slot(lane)] = striped[p];
    __syncwarp();
    if ((lane >> 3) == p) {
#pragma unroll
      for (int i = 0; i < 4; ++i) mine[i] = staging[warp_staging::slot(b + i)];
    }
  }
  memcpy(items, mine, sizeof(mine));
}

/// The reverse: each lane's K blocked elements out to the warp's chunk, warp-striped.
template <int K, class T>
__device__ __forceinline__ void staged_store(T* chunk, uint4* staging, const T (&items)[K]) {
  const int lane = lane_index();
  uint4* g = reinterpret_cast<uint4*>(chunk);
  uint4 mine[4];
  memcpy(mine, items, sizeof(mine));
  const int b = (lane & 7) * 4;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    __syncwarp();
    if ((lane >> 3) == p) {
#pragma unroll
      for (int i = 0; i < 4; ++i) staging[warp_staging::slot(b + i)] = mine[i];
    }
    __syncwarp();
    g[p * 32 + lane] = staging[warp_staging::slot(lane)];
  }
}

// ---- the group scan of one value per thread, with a carry ---------------------------------------------
/// Block: the block scan (any block size), the carry kept by warp 0 in its prefix callback.
template <class Acc>
struct block_scanner {
  using scan_t = block_scan<Acc, dynamic_threads, warp_phase::shfl_t>;
  block_group_storage<Acc>& s;
  maybe_value<Acc> carry;  // meaningful in warp 0
  warp_staging* staging;   // the staged loads' and stores' (nullptr: none, chunks load directly)

  __device__ __forceinline__ int rank() const { return static_cast<int>(threadIdx.x); }
  __device__ __forceinline__ int size() const { return static_cast<int>(blockDim.x); }
  /// This warp's staging when all 32 of its lanes are in the block (else the warp loads directly).
  __device__ __forceinline__ uint4* warp_staging_or_null() const {
    if (!staging || (static_cast<int>(threadIdx.x) | 31) >= static_cast<int>(blockDim.x)) return nullptr;
    return staging->word[warp_index()];
  }

  /// Scans the items of every thread after the carry, in place; the carry grows by the tile.
  template <int K, class Op>
  __device__ __forceinline__ void scan(Acc (&items)[K], bool exclusive_output, Op op) {
    scan_t(s.scan).scan(items, exclusive_output, op, [&](const Acc& aggregate) {
      const maybe_value<Acc> before = carry;
      carry = some(combine(before, aggregate, op));
      return before;
    });
  }
};

/// Lanes of a warp or tile: the warp scan, the carry in every lane.
template <class Acc, int Width>
struct lanes_scanner {
  lanes_group<Width> g;
  maybe_value<Acc> carry;

  __device__ __forceinline__ int rank() const { return g.rank(); }
  __device__ __forceinline__ int size() const { return g.size(); }
  /// Lanes load their chunks directly (a warp's 64-byte chunks per lane: no staging).
  __device__ __forceinline__ uint4* warp_staging_or_null() const { return nullptr; }

  template <int K, class Op>
  __device__ __forceinline__ void scan(Acc (&items)[K], bool exclusive_output, Op op) {
    typename warp_scan<Acc, warp_phase::shfl_t>::temp_storage none_needed;
    const Acc partial = thread_reduce(items, op);
    Acc inclusive, exclusive;
    warp_scan<Acc, warp_phase::shfl_t>(none_needed, g.lanes).scan(partial, inclusive, exclusive, op);
    const Acc aggregate = shfl_idx(inclusive, g.count - 1, g.lanes.mask, g.lanes.width);
    const int r = g.rank();
    bool has = true;
    if (r == 0) {
      has = carry.has;
      exclusive = carry.value;
    } else if (carry.has) {
      exclusive = op(carry.value, exclusive);
    }
    thread_scan(items, exclusive, has, exclusive_output, op);
    carry = some(combine(carry, aggregate, op));
  }
};

/// The scan of a range by a group: tiles of size() x K, blocked.
template <class Acc, class Scanner, class InIt, class OutIt, class Op>
__device__ void scan_range(Scanner& scanner, InIt first, std::int64_t n, OutIt out, bool exclusive_output, Op op) {
  constexpr int K = range_items<Acc>;
  if (n <= 0) return;
  const bool vin = vector_loads<K>(first);
  const bool vout = vector_stores<K, Acc>(out);
  const std::int64_t tile = static_cast<std::int64_t>(scanner.size()) * K;
  const std::int64_t mine = static_cast<std::int64_t>(scanner.rank()) * K;
  // Full tiles of aligned pointer ranges go through the warp's staging (when it has one)
  constexpr bool stage_in = stageable<InIt, K>::value;
  constexpr bool stage_out = stageable<OutIt, K>::value && std::is_same<OutIt, Acc*>::value;
  uint4* staging = nullptr;
  bool sin = false, sout = false;
  if constexpr (stage_in || stage_out) {
    staging = scanner.warp_staging_or_null();
    if constexpr (stage_in) sin = staging && aligned16(first);
    if constexpr (stage_out) sout = staging && aligned16(out);
  }
  const std::int64_t warp_chunk = static_cast<std::int64_t>(scanner.rank() & ~31) * K;
  for (std::int64_t base = 0; base < n; base += tile) {
    Acc items[K];
    const bool full = base + tile <= n;
    int valid = K;
    if constexpr (stage_in) {
      if (sin && full) {
        using V = std::remove_cv_t<std::remove_pointer_t<InIt>>;
        if constexpr (std::is_same<V, Acc>::value) {
          staged_load<K>(first + base + warp_chunk, staging, items);
        } else {
          V v[K];
          staged_load<K>(first + base + warp_chunk, staging, v);
#pragma unroll
          for (int k = 0; k < K; ++k) items[k] = static_cast<Acc>(v[k]);
        }
      }
    }
    if (!(sin && full)) {
      // Positions past the end hold a real element (the tile's first): the operator sees only
      // real values, and what they change (the totals of threads past the end) is never written.
      const Acc fill = full ? Acc{} : static_cast<Acc>(first[base]);
      valid = load_items<K>(first, base + mine, n, vin, fill, items);
    }
    scanner.scan(items, exclusive_output, op);
    if constexpr (stage_out) {
      if (sout && full) {
        staged_store<K>(out + base + warp_chunk, staging, items);
        continue;
      }
    }
    store_items<K>(out, base + mine, valid, vout, items);
  }
}

// ---- folds ---------------------------------------------------------------------------------------------
/// Fold of first[begin, end) by `count` lanes (ranks 0..count-1 of `lanes`), K items a lane per
/// step, two steps' loads in flight before either is folded; the result (present when the range is
/// not empty) in rank 0.
/// Order kept (any associative operator): each step ends in a warp reduction of the lanes' values
/// in lane order. Commutative operators (`algo::is_commutative`): each lane folds its own items
/// (whole steps loaded vector-striped) over every step, and the lanes meet once, at the end (the
/// grouping is fixed by the lane count and the range: the same bits on every run).
template <int K, class Acc, class It, class Op>
__device__ __forceinline__ maybe_value<Acc> lanes_fold(const warp_lanes& lanes, int count, const It& first,
                                                       std::int64_t begin, std::int64_t end, bool vectors, Op op,
                                                       std::int64_t stride = 0) {
  typename warp_reduce<warp_phase::shfl_t, Acc>::storage none_needed;
  const warp_reduce<warp_phase::shfl_t, Acc> reducer(none_needed, lanes);
  const int r = lanes.rank();
  const std::int64_t step = static_cast<std::int64_t>(count) * K;
  const std::int64_t mine = static_cast<std::int64_t>(r) * K;
  if constexpr (::algo::is_commutative_v<Op, Acc>) {
    // steps of count x K elements at begin, begin + stride, begin + 2 x stride, ... (stride 0: the
    // steps follow each other; a larger stride leaves the steps between them to other warps)
    if (stride < step) stride = step;
    if (begin >= end) return none<Acc>();
    // every lane with a rank below `count` gets items in the first step unless the range is shorter
    // (then that step is the last)
    const std::int64_t len = end - begin;
    const int lanes_with_values = len >= step ? count : static_cast<int>((len + K - 1) / K);
    maybe_value<Acc> own = none<Acc>();
    auto fold_own = [&](const Acc (&items)[K], int valid) {
      if (valid <= 0) return;
      Acc x = items[0];
#pragma unroll
      for (int k = 1; k < K; ++k)
        if (k < valid) x = op(x, items[k]);
      own = some(combine(own, x, op));
    };
    // a whole step vector-striped, a partial one (the range's last) blocked
    const auto load_step = [&](std::int64_t at, Acc(&items)[K]) -> int {
      if constexpr (can_vector_load<It, K>) {
        if (vectors && at + step <= end) {
          load_step_striped<K>(first, at, r, count, items);
          return K;
        }
      }
      return load_items<K>(first, at + mine, end, vectors, Acc{}, items);
    };
    for (std::int64_t base = begin; base < end; base += 2 * stride) {
      Acc a[K], b[K];
      const int va = load_step(base, a);
      const bool second = base + stride < end;  // the same in every lane
      int vb = 0;
      if (second) vb = load_step(base + stride, b);
      fold_own(a, va);
      if (second) fold_own(b, vb);
    }
    const Acc y = reducer.reduce(own.value, lanes_with_values, op);
    return r == 0 ? some(y) : none<Acc>();
  }
  maybe_value<Acc> acc = none<Acc>();
  // One step: fold the lane's valid items, then the lanes' values in lane order into rank 0.
  auto fold_step = [&](const Acc (&items)[K], int valid, std::int64_t left) {
    Acc x = items[0];
#pragma unroll
    for (int k = 1; k < K; ++k)
      if (k < valid) x = op(x, items[k]);
    const int lanes_with_values = left >= step ? count : static_cast<int>((left + K - 1) / K);
    const Acc y = reducer.reduce(x, lanes_with_values, op);
    if (r == 0) acc = some(combine(acc, y, op));
  };
  for (std::int64_t base = begin; base < end; base += 2 * step) {
    Acc a[K], b[K];
    const int va = load_items<K>(first, base + mine, end, vectors, Acc{}, a);
    const bool second = base + step < end;  // the same in every lane
    int vb = 0;
    if (second) vb = load_items<K>(first, base + step + mine, end, vectors, Acc{}, b);
    fold_step(a, va, end - base);
    if (second) fold_step(b, vb, end - base - step);
  }
  return acc;
}

/// Fold by the lanes of a warp or tile, returned to every lane (n >= 1).
template <class Acc, int Width, class It, class Op>
__device__ __forceinline__ Acc lanes_reduce(It first, std::int64_t n, Op op) {
  constexpr int K = range_items<Acc>;
  const lanes_group<Width> g;
  const maybe_value<Acc> acc = lanes_fold<K, Acc>(g.lanes, g.count, first, 0, n, vector_loads<K>(first), op);
  return shfl_idx(acc.value, 0, g.lanes.mask, g.lanes.width);
}

/// Fold by the block, returned to every thread (n >= 1). Warp w folds units [u_w, u_{w+1}) of
/// 32 x K elements (a balanced split: the warps with units come first), warp 0 folds their values.
template <class Acc, class It, class Op>
__device__ __forceinline__ Acc block_reduce_range(block_group_storage<Acc>& s, It first, std::int64_t n, Op op) {
  constexpr int K = range_items<Acc>;
  const int threads = static_cast<int>(blockDim.x);
  const int warps = (threads + 31) / 32;
  const int w = warp_index();
  const warp_lanes lanes = warp_lanes::block_warp(threads);
  const int count = __popc(lanes.mask);
  const std::int64_t unit = 32 * K;
  const std::int64_t units = (n + unit - 1) / unit;
  maybe_value<Acc> acc;
  if (::algo::is_commutative_v<Op, Acc> && threads % 32 == 0) {
    // Commutative: the warps take units in turn (unit u to warp u % warps), so the block reads
    // one contiguous run of warps x 32 x K elements a step, as CUB's block-per-row kernels do,
    // instead of `warps` runs far apart (rows of 2^16 floats: 4 % slower that way on the H100)
    acc = lanes_fold<K, Acc>(lanes, count, first, w * unit, n, vector_loads<K>(first), op, warps * unit);
  } else {
    // Any operator: warp w folds the contiguous units [u0, u1), so the warps' values in warp
    // order are the fold in order
    const std::int64_t q = units / warps, rem = units % warps;
    const std::int64_t u0 = w * q + (w < rem ? w : rem);
    const std::int64_t u1 = u0 + q + (w < rem ? 1 : 0);
    const std::int64_t begin = u0 * unit;
    const std::int64_t end = u1 * unit < n ? u1 * unit : n;
    acc = lanes_fold<K, Acc>(lanes, count, first, begin, end, vector_loads<K>(first), op);
  }
  if (lane_index() == 0 && acc.has) s.fold.warp_value[w].get() = acc.value;
  __syncthreads();
  if (w == 0) {
    const int valued = static_cast<int>(units < warps ? units : warps);
    Acc x = s.fold.warp_value[lane_index() < valued ? lane_index() : 0].get();
    typename warp_reduce<warp_phase::shfl_t, Acc>::storage none_needed;
    x = warp_reduce<warp_phase::shfl_t, Acc>(none_needed, lanes).reduce(x, valued, op);
    if (lane_index() == 0) s.fold.result.get() = x;
  }
  __syncthreads();
  return s.fold.result.get();
}

}  // namespace algo::detail::cuda::coop
