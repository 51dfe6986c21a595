// What every device scan strategy shares: the description of a scan handed to the kernels, the
// shape of a tile, and scan_tile(), which loads one tile, scans it with the block scan after the
// prefix a strategy supplies, and stores it. Each strategy file (scan_then_fan.cuh,
// reduce_then_scan.cuh, two_level.cuh, decoupled_lookback.cuh) is then only about where a tile's
// prefix comes from.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../iterator.hpp"
#include "../block/block_load_store.cuh"
#include "../block/block_scan_select.cuh"
#include "../pointer.cuh"
#include "../runtime.cuh"
#include "scan_config.cuh"

namespace algo::detail::cuda {

/// A scan as the kernels see it (passed by value). `in` and `out` are raw pointers whenever the
/// caller's iterators are contiguous device storage (unwrap() below), the iterators otherwise.
template <class Acc, class InIt, class OutIt, class Op>
struct scan_problem {
  using acc_type = Acc;
  using in_iterator = InIt;
  using out_iterator = OutIt;
  using op_type = Op;
  InIt in;
  OutIt out;
  std::int64_t n;
  Op op;          // already returns Acc (accumulate_with)
  maybe_value<Acc> init;
  bool exclusive;
  const char* name;  // "inclusive_scan" / "exclusive_scan", for errors (host only)
};

/// The same scan with other iterators (the strategies retarget outputs and scan partials).
template <class P, class In, class Out>
using rebind_problem = scan_problem<typename P::acc_type, In, Out, typename P::op_type>;

template <class P, class In, class Out>
rebind_problem<P, In, Out> retarget(const P& p, In in, Out out, std::int64_t n, maybe_value<typename P::acc_type> init,
                                    bool exclusive) {
  return {in, out, n, p.op, init, exclusive, p.name};
}

/// A raw pointer for contiguous device iterators (T*, thrust::device_ptr, device_vector
/// iterators), the iterator itself otherwise.
template <class It>
auto unwrap(It it) {
  auto p = raw_address(it);
  if constexpr (std::is_same<decltype(p), std::nullptr_t>::value) {
    return it;
  } else {
    return p;
  }
}

// ---- the shape of a tile ------------------------------------------------------------------------
template <class It>
inline constexpr bool is_raw_pointer_v = std::is_pointer<It>::value;

/// Element type a tile is staged as on its way in: the input's value type when that can sit in
/// shared memory, else the accumulator (converted on load).
template <class InIt, class Acc>
using staged_in_t = std::conditional_t<std::is_trivially_copyable<iter_value_t<InIt>>::value &&
                                           std::is_default_constructible<iter_value_t<InIt>>::value,
                                       iter_value_t<InIt>, Acc>;
/// ... and on its way out: the pointee of a raw output pointer, else the accumulator (assigned
/// through the output iterator).
template <class OutIt, class Acc>
using staged_out_t = std::conditional_t<is_raw_pointer_v<OutIt>, std::remove_cv_t<std::remove_pointer_t<OutIt>>, Acc>;

/// An iterator family whose tile load or store (tile_io_hook below) stages something other than
/// its value type may say how many bytes of staging per warp that takes, for tiles of Items per
/// thread (`known = true`, `bytes`): the lifted iterators of the segmented scans load 4-byte keys
/// and values, not their 8-byte (value, head) pairs (detail/segmented/tile.cuh). Such a hook must
/// then serve tiles whose staging does not hold its value type without it (load_tile_direct /
/// store_tile_direct below).
template <class It, int Items, class = void>
struct tile_staging {
  static constexpr bool known = false;
  static constexpr std::size_t bytes = 0;
};

/// Whether an output's tile store holds more per item than the items themselves (reduce_by_key's
/// run writer loads each item's key again: 128 registers at 32 pairs per thread, measured slower
/// than 16): its scans keep the pairs' default items (scan_config.cuh, pair_items).
template <class It, class = void>
struct narrow_tile_store : std::false_type {};

/// Bytes at the start of each warp's staging area that a tile's load leaves for its store, when the
/// staging (Staging bytes a warp) holds them beside the load's other staging and the stash:
/// reduce_by_key keeps its keys there, so its store reads them from shared memory instead of
/// global memory again (detail/segmented/tile.cuh specializes this). The stash then goes after
/// them, and keeps (value, flag) pairs as values and flag bits (flagged_items). 0: nothing kept.
template <class InIt, class OutIt, int Items, class = void>
struct staging_kept {
  template <std::size_t Staging>
  static constexpr std::size_t bytes() {
    return 0;
  }
};

/// Whether the items a tile loads from It are (value, flag) pairs whose flag is 0 or 1 (the lifted
/// inputs of the segmented scans: a head flag, or reduce_by_key's run count before the scan): the
/// stash (scan_tile below) then keeps the values in shared memory and the flags as the bits of one
/// register. A specialization gives value_t, value(x), flag(x) and make(value, flag).
template <class It, class Acc, class = void>
struct flagged_items : std::false_type {};

/// For the ordered look-back (ordered_lookback.cuh): operators whose fold restarts at some
/// operands: op(a, b) takes nothing of a's value when reset(b) (the lifted segmented operator at a
/// head: detail/segmented/tile.cuh specializes this).
/// Then the left fold from any earlier point equals the fold from the newest reset on, bit for
/// bit, so the look-back needs no prefix from before it: a scan by key whose predecessor tile holds
/// a head takes that tile's aggregate and waits for nothing else. `counts`: op also adds an integer
/// count (reduce_by_key's runs), exact in any order: the look-back still reaches an inclusive
/// prefix for it, and the value still folds from the newest reset only.
///   enabled, counts;  reset(v);  count(v) (counts);  with_count(v, c) (counts: v with count c).
template <class Op, class Acc, class = void>
struct ordered_reset {
  static constexpr bool enabled = false;
  static constexpr bool counts = false;
};

/// For the ordered look-back of operators with counts (reduce_by_key): whether the stores of a tile
/// (elements [base, base + valid) of `in`, aggregate A, no head in it) read the value of its
/// exclusive prefix, that is whether the run open when the tile starts ends in it. When not, the
/// tile needs only the prefix's count and walks for that alone (ordered_lookback.cuh,
/// ordered_count_walk). Every lane of warp 0 calls it, in the look-back (after the block scan's
/// barrier: the staging as the tile's load left it), and gets the same answer; this default says
/// "always". detail/segmented/tile.cuh specializes it for reduce_by_key's lifted input.
template <class InIt, class = void>
struct prefix_value_use {
  template <class K, class Acc>
  __device__ static __forceinline__ bool needed(typename K::temp_storage&, const InIt&, std::int64_t, int, const Acc&) {
    return true;
  }
};

/// Phase: the warp phase (warp_phase::*_t); Block: the block scan (algo::block_scan::*_t, mapped
/// to its class by block/block_scan_select.cuh); TuningBase: scan_config.cuh.
template <class Problem, class Phase, class Block, class TuningBase = scan_tuning_base>
struct tile_traits {
  using acc_t = typename Problem::acc_type;
  using in_iterator = typename Problem::in_iterator;
  using out_iterator = typename Problem::out_iterator;
  using in_t = staged_in_t<in_iterator, acc_t>;
  using out_t = staged_out_t<out_iterator, acc_t>;
  /// Staging per warp for tiles of Items: what the load and the store move through it, as the value
  /// types (plain), or as the iterators' own loads and stores say they stage it (tile_staging: the
  /// lifted iterators stage 4-byte keys and values, not 8-byte pairs).
  template <int Items>
  static constexpr std::size_t plain_staging_for() {
    constexpr std::size_t load = warp_tile_io<in_t, Items>::bytes, store = warp_tile_io<out_t, Items>::bytes;
    return load > store ? load : store;
  }
  template <int Items>
  static constexpr std::size_t hook_staging_for() {
    constexpr std::size_t load = tile_staging<in_iterator, Items>::known ? tile_staging<in_iterator, Items>::bytes
                                                                         : warp_tile_io<in_t, Items>::bytes;
    constexpr std::size_t store = tile_staging<out_iterator, Items>::known ? tile_staging<out_iterator, Items>::bytes
                                                                           : warp_tile_io<out_t, Items>::bytes;
    constexpr std::size_t most = load > store ? load : store;
    return most > 16 ? most : 16;
  }
  static constexpr std::size_t staging_budget = 40 * 1024;  // of 48 KB of static shared memory
  using first_tuning = scan_tuning<in_t, acc_t, out_t, TuningBase>;
  /// pair_items only where the staging fits the budget, the hooks' sizes counted (scan_config.cuh)
  using tuning = std::conditional_t<
      first_tuning::pair_items == 0 ||
          (!narrow_tile_store<out_iterator>::value &&
           hook_staging_for<first_tuning::items>() * static_cast<std::size_t>(first_tuning::threads / 32) <=
               staging_budget),
      first_tuning, scan_tuning<in_t, acc_t, out_t, without_pair_items<TuningBase>>>;
  static constexpr int threads = tuning::threads;
  static constexpr int items = tuning::items;
  static constexpr int tile_items = threads * items;
  static constexpr int warps = threads / 32;
  using load_io = warp_tile_io<in_t, items>;
  using store_io = warp_tile_io<out_t, items>;
  using block_scan_t = block_scan_for<Block, acc_t, threads, Phase>;
  /// Compact tiles: the staging sized by the hooks, only where the value types' staging would not
  /// fit the budget (256 x 32 pairs); every other tile keeps the staging, and so the kernel, it had.
  static constexpr bool compact =
      plain_staging_for<items>() * static_cast<std::size_t>(warps) > staging_budget;
  static constexpr std::size_t staging_bytes = compact ? hook_staging_for<items>() : plain_staging_for<items>();
  /// What the load keeps in the staging for the store (staging_kept), at the start of each warp's.
  static constexpr std::size_t kept_bytes =
      tuning::keep_staged_keys ? staging_kept<in_iterator, out_iterator, items>::template bytes<staging_bytes>() : 0;
  /// The stash's items: in compact tiles and beside kept bytes, (value, flag) pairs keep their values
  /// in the staging area and their flags in a register (flagged_items); anything else whole, as
  /// 4-byte words. The stash starts after the kept bytes.
  using flagged = flagged_items<in_iterator, acc_t>;
  static constexpr bool stash_flagged = (compact || kept_bytes > 0) && flagged::value && items <= 32;
  template <class F, bool Flagged>
  struct stash_word_bytes {
    static constexpr std::size_t value = (sizeof(acc_t) + 3) / 4 * 4;
  };
  template <class F>
  struct stash_word_bytes<F, true> {
    static constexpr std::size_t value = (sizeof(typename F::value_t) + 3) / 4 * 4;
  };
  static constexpr std::size_t stash_bytes =
      static_cast<std::size_t>(items) * 32 * stash_word_bytes<flagged, stash_flagged>::value;

  struct temp_storage {
    alignas(16) unsigned char staging[warps][staging_bytes];  // per warp, for loads and stores
    typename block_scan_t::temp_storage scan;
  };

  static std::int64_t tiles(std::int64_t n) { return (n + tile_items - 1) / tile_items; }
  /// The items wait in the staging area across the block scan (scan_tuning_base::stash_items).
  /// double keeps its items in registers: not measured with the stash (the deterministic
  /// look-back holds it at 7 blocks per SM through __launch_bounds__, deterministic_min_blocks).
  static constexpr bool stash_items = tuning::stash_items &&
                                     !(std::is_floating_point<acc_t>::value && sizeof(acc_t) > 4) &&
                                     kept_bytes + stash_bytes <= staging_bytes;
  /// The last tile's items wait in the staging area, whole accumulators as word planes, while the
  /// tile folds and rescans only its items before `valid` (scan_last_tile) where they fit beside
  /// the kept bytes; otherwise the last tile folds its positions past the end as whole tiles do.
  static constexpr bool last_tile_staged =
      kept_bytes + static_cast<std::size_t>(items) * 32 * ((sizeof(acc_t) + 3) / 4 * 4) <= staging_bytes;
};

// ---- tile load / store --------------------------------------------------------------------------
/// An iterator family may bring its own tile load (`load<K>(s, in, base, valid, x)`) or store
/// (`store<K>(...)`) by specializing this with `value = true`, as the lifted iterators of the
/// segmented scans do (detail/segmented/tile.cuh); load_tile_generic / store_tile_generic below
/// serve every other iterator.
template <class It, class = void>
struct tile_io_hook : std::false_type {};
/// Loads the tile at `base` (`valid` elements, 1..tile_items) into a blocked arrangement of
/// accumulators; positions past `valid` get the tile's first element.
template <class K, class InIt>
__device__ __forceinline__ void load_tile_generic(typename K::temp_storage& s, InIt in, std::int64_t base, int valid,
                                                  typename K::acc_t (&x)[K::items]) {
  using io = typename K::load_io;
  using E = typename K::in_t;
  const int warp = warp_index();
  const int warp_offset = warp * io::elements;
  typename K::in_t e[K::items];
  bool done = false;
  if constexpr (is_raw_pointer_v<InIt> && io::vectorizable) {
    if (valid == K::tile_items && is_aligned16(in)) {
      io::load_words(in + base + warp_offset, s.staging[warp], e);
      done = true;
    }
  }
  if (!done) {
    E fill{};
    if (valid < K::tile_items) fill = static_cast<E>(in[base]);
    io::load_elements(in + base + warp_offset, valid - warp_offset, fill,
                      [](const auto& v) { return static_cast<E>(v); }, s.staging[warp], e);
  }
#pragma unroll
  for (int i = 0; i < K::items; ++i) x[i] = static_cast<typename K::acc_t>(e[i]);
}

/// load_tile_generic without the staging area (for hooks whose staging does not hold the value
/// type, tile_staging): each thread reads its own items, element by element.
template <class K, class InIt>
__device__ __forceinline__ void load_tile_direct(InIt in, std::int64_t base, int valid, typename K::acc_t (&x)[K::items]) {
  const int first = (warp_index() * 32 + lane_index()) * K::items;
#pragma unroll
  for (int i = 0; i < K::items; ++i) {
    const int at = first + i < valid ? first + i : 0;  // past valid: the tile's first element
    x[i] = static_cast<typename K::acc_t>(in[base + at]);
  }
}
/// store_tile_generic without the staging area: each thread writes its own valid items.
template <class K, class OutIt>
__device__ __forceinline__ void store_tile_direct(OutIt out, std::int64_t base, int valid,
                                                  const typename K::acc_t (&x)[K::items]) {
  const int first = (warp_index() * 32 + lane_index()) * K::items;
#pragma unroll
  for (int i = 0; i < K::items; ++i)
    if (first + i < valid) out[base + first + i] = x[i];
}

/// Stores the first `valid` elements of a blocked tile at `base`.
template <class K, class OutIt>
__device__ __forceinline__ void store_tile_generic(typename K::temp_storage& s, OutIt out, std::int64_t base, int valid,
                                                   const typename K::acc_t (&x)[K::items]) {
  using io = typename K::store_io;
  using E = typename K::out_t;
  const int warp = warp_index();
  const int warp_offset = warp * io::elements;
  E e[K::items];
#pragma unroll
  for (int i = 0; i < K::items; ++i) e[i] = static_cast<E>(x[i]);
  if constexpr (is_raw_pointer_v<OutIt> && io::vectorizable) {
    if (valid == K::tile_items && is_aligned16(out)) {
      io::store_words(out + base + warp_offset, s.staging[warp], e);
      return;
    }
  }
  io::store_elements(out + base + warp_offset, valid - warp_offset, s.staging[warp], e);
}

template <class K, class InIt>
__device__ __forceinline__ void load_tile(typename K::temp_storage& s, InIt in, std::int64_t base, int valid,
                                          typename K::acc_t (&x)[K::items]) {
  if constexpr (tile_io_hook<InIt>::value) tile_io_hook<InIt>::template load<K>(s, in, base, valid, x);
  else load_tile_generic<K>(s, in, base, valid, x);
}
template <class K, class OutIt>
__device__ __forceinline__ void store_tile(typename K::temp_storage& s, OutIt out, std::int64_t base, int valid,
                                           const typename K::acc_t (&x)[K::items]) {
  if constexpr (tile_io_hook<OutIt>::value) tile_io_hook<OutIt>::template store<K>(s, out, base, valid, x);
  else store_tile_generic<K>(s, out, base, valid, x);
}

// ---- one tile, end to end -------------------------------------------------------------------------
/// An opaque copy in place: the value is unchanged, but the compiler can no longer tell.
template <class T>
__device__ __forceinline__ void launder(T& v) {
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) asm volatile("" : "+r"(w[k]));
  memcpy(&v, w, sizeof(T));
}

/// Item i of the calling lane in a warp's stash (the word planes below), read and written one at a
/// time (with a runtime index in the last tile's loops: no array of items in registers).
template <class T>
__device__ __forceinline__ T stashed_item(const unsigned char* staging, int i) {
  constexpr int words = (sizeof(T) + 3) / 4;
  const unsigned* st = reinterpret_cast<const unsigned*>(staging);
  unsigned w[words];
#pragma unroll
  for (int k = 0; k < words; ++k) w[k] = st[(i * words + k) * 32 + lane_index()];
  T v;
  memcpy(&v, w, sizeof(T));
  return v;
}
template <class T>
__device__ __forceinline__ void stash_item(unsigned char* staging, int i, const T& v) {
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned* st = reinterpret_cast<unsigned*>(staging);
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) st[(i * words + k) * 32 + lane_index()] = w[k];
}

/// The thread's items into / out of its warp's staging area, as 4-byte word planes (word k of item i
/// of lane l at [(i * words + k) * 32 + l]: conflict-free). The staging area is idle between the
/// tile's load and its store; stash starts with the __syncwarp that the store functions also start
/// with (the load's last reads of the area come before it).
template <int Items, class T>
__device__ __forceinline__ void stash(unsigned char* staging, const T (&x)[Items]) {
  __syncwarp();
#pragma unroll
  for (int i = 0; i < Items; ++i) stash_item(staging, i, x[i]);
}
template <int Items, class T>
__device__ __forceinline__ void unstash(const unsigned char* staging, T (&x)[Items]) {
#pragma unroll
  for (int i = 0; i < Items; ++i) x[i] = stashed_item<T>(staging, i);
}

/// stash / unstash for (value, flag) pairs whose flags are 0 or 1 (flagged_items, C): the values as
/// word planes, as stash does, the flags as bit i of `bits` (Items <= 32).
template <class C, int Items, class T>
__device__ __forceinline__ void stash_flagged(unsigned char* staging, const T (&x)[Items], unsigned& bits) {
  static_assert(Items <= 32, "one bit per item in a 32-bit register");
  __syncwarp();
  bits = 0;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    stash_item(staging, i, C::value(x[i]));
    bits |= C::flag(x[i]) ? 1u << i : 0u;
  }
}
template <class C, int Items, class T>
__device__ __forceinline__ void unstash_flagged(const unsigned char* staging, unsigned bits, T (&x)[Items]) {
  using V = typename C::value_t;
#pragma unroll
  for (int i = 0; i < Items; ++i) x[i] = C::make(stashed_item<V>(staging, i), (bits >> i) & 1u);
}

/// The last tile's thread fold, where K::last_tile_staged: stashes the thread's items (blocked) in
/// its warp's staging area and folds, one at a time, those before `valid` (none: item 0, no call).
/// Returns the fold; `mine` gets how many there are.
template <class K, class Op>
__device__ __forceinline__ typename K::acc_t stash_and_fold_last_tile(typename K::temp_storage& s, int valid,
                                                                      const typename K::acc_t (&x)[K::items], Op op,
                                                                      int& mine) {
  using Acc = typename K::acc_t;
  unsigned char* const area = s.staging[warp_index()] + K::kept_bytes;
  stash<K::items>(area, x);
  mine = block_scan_items<typename K::block_scan_t, Acc>::template items_of_thread<K::items>(valid);
  Acc partial = stashed_item<Acc>(area, 0);
#pragma unroll 1
  for (int i = 1; i < mine; ++i) partial = op(partial, stashed_item<Acc>(area, i));
  return partial;
}

/// The last tile (valid < tile_items), where K::last_tile_staged: the items wait in the warp's
/// staging area while each thread folds its items before `valid` in a loop (not unrolled: no
/// array of items in registers beside the look-back, so the whole tiles' register count holds),
/// the block scan runs over the threads holding items only, and each thread rescans its items in
/// place; the positions past the end are never folded.
template <class K, class Problem, class Prefix>
__device__ __forceinline__ void scan_last_tile(typename K::temp_storage& s, const Problem& p, int valid,
                                               typename K::acc_t (&x)[K::items], Prefix&& prefix) {
  using Acc = typename K::acc_t;
  unsigned char* const area = s.staging[warp_index()] + K::kept_bytes;
  int mine = 0;
  const Acc partial = stash_and_fold_last_tile<K>(s, valid, x, p.op, mine);
  Acc carry;
  const bool has = typename K::block_scan_t(s.scan).exclusive_scan(partial, carry, p.op, prefix,
                                                                   (valid + K::items - 1) / K::items);
#pragma unroll 1
  for (int i = 0; i < mine; ++i) {
    const Acc item = stashed_item<Acc>(area, i);
    if (i == 0 && !has) {
      carry = item;
    } else {
      const Acc next = p.op(carry, item);
      stash_item(area, i, p.exclusive ? carry : next);
      carry = next;
    }
  }
  unstash<K::items>(area, x);
}

/// Loads, scans (after prefix(aggregate), called in warp 0, see block_scan) and stores one tile.
/// Returns nothing: strategies that need the aggregate take it in their prefix callback.
/// With K::tuning::launder_items the items are laundered between the thread fold and the rescan
/// (block_scan::scan spelled out; see scan_config.cuh). The last tile takes scan_last_tile where
/// its items fit the staging: its own path, apart from the whole tiles' (woven into theirs, the
/// last tile's predicated fold and rescan took their registers: the default float scan 48 -> 64,
/// 3-5 % slower on an H200; bench/notes/scan.md, 2026-12-01).
/// Whole = true: the caller knows the tile is whole (valid == tile_items): no last-tile path (a
/// loop over a partition's whole tiles keeps the whole tiles' registers; partition_scan_kernel).
template <class K, bool Whole = false, class Problem, class Prefix>
__device__ __forceinline__ void scan_tile(typename K::temp_storage& s, const Problem& p, std::int64_t base, int valid,
                                          Prefix&& prefix) {
  using Acc = typename K::acc_t;
  Acc x[K::items];
  load_tile<K>(s, p.in, base, valid, x);
  if constexpr (K::last_tile_staged && !Whole) {
    if (valid < K::tile_items) {
      scan_last_tile<K>(s, p, valid, x, prefix);
      store_tile<K>(s, p.out, base, valid, x);
      return;
    }
  }
  if constexpr (K::tuning::launder_items) {
    const Acc partial = thread_reduce(x, p.op);
    [[maybe_unused]] unsigned flags = 0;
    [[maybe_unused]] unsigned char* const stash_area = s.staging[warp_index()] + K::kept_bytes;
    if constexpr (K::stash_items && K::stash_flagged) {
      stash_flagged<typename K::flagged, K::items>(stash_area, x, flags);
      launder(flags);
    } else if constexpr (K::stash_items) {
      stash<K::items>(stash_area, x);
    } else {
#pragma unroll
      for (int i = 0; i < K::items; ++i) launder(x[i]);
    }
    Acc exclusive;
    const bool has = typename K::block_scan_t(s.scan).exclusive_scan(partial, exclusive, p.op, prefix);
    if constexpr (K::stash_items && K::stash_flagged) unstash_flagged<typename K::flagged, K::items>(stash_area, flags, x);
    else if constexpr (K::stash_items) unstash<K::items>(stash_area, x);
    thread_scan(x, exclusive, has, p.exclusive, p.op);
  } else {
    typename K::block_scan_t(s.scan).scan(x, p.exclusive, p.op, prefix);
  }
  store_tile<K>(s, p.out, base, valid, x);
}

/// The block-wide aggregate of one tile (for the reduce passes): of its `valid` elements only.
template <class K, class Problem>
__device__ __forceinline__ typename K::acc_t reduce_tile(typename K::temp_storage& s, const Problem& p,
                                                         std::int64_t base, int valid) {
  using Acc = typename K::acc_t;
  Acc x[K::items];
  load_tile<K>(s, p.in, base, valid, x);
  if constexpr (K::last_tile_staged) {
    if (valid < K::tile_items) {  // the last tile: its items before `valid` only, as scan_last_tile
      int mine = 0;
      const Acc partial = stash_and_fold_last_tile<K>(s, valid, x, p.op, mine);
      return typename K::block_scan_t(s.scan).reduce(partial, p.op, (valid + K::items - 1) / K::items);
    }
  }
  return typename K::block_scan_t(s.scan).reduce(thread_reduce(x, p.op), p.op);
}

/// Elements of tile `tile` that exist.
template <class K>
__device__ __forceinline__ int tile_valid(std::int64_t n, std::int64_t tile) {
  const std::int64_t rest = n - tile * K::tile_items;
  return rest < K::tile_items ? static_cast<int>(rest) : K::tile_items;
}

// ---- the smallest scans: one tile, one block -------------------------------------------------------
/// The whole scan when it fits in one tile (every strategy's base case, and the spines).
template <class K, class Problem>
__global__ void __launch_bounds__(K::threads) single_tile_scan_kernel(Problem p) {
  __shared__ typename K::temp_storage s;
  scan_tile<K>(s, p, 0, static_cast<int>(p.n), [&](const typename K::acc_t&) { return p.init; });
}

template <class Phase, class Block, class TuningBase = scan_tuning_base, class Problem>
void launch_single_tile(const Problem& p, cudaStream_t stream) {
  using K = tile_traits<Problem, Phase, Block, TuningBase>;
  single_tile_scan_kernel<K><<<1, K::threads, 0, stream>>>(p);
  check_launch(p.name, "single_tile_scan_kernel");
}

}  // namespace algo::detail::cuda
