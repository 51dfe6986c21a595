// algo::cuda's tile load and store for the lifted scans (segmented.hpp, lifted.hpp). The device
// strategies load a tile with cuda::load_tile / store it with cuda::store_tile (scan_tile.cuh);
// for the lifted iterators these take their place (cuda::tile_io_hook, specialized at the end):
//   load   the values (and the keys, for runs of keys) move as 16-byte words into a blocked
//          arrangement (the warp-striped staging of block_load_store.cuh), and each thread works
//          out its items' head flags in registers: from its keys and the key before its first
//          item (one extra load per thread), from its 32-bit window of the heads mask (the
//          library's scans over irregular offsets in memory), or from one division for uniform
//          segments; then lifts (head, value) pairs. reduce_by_key (load_runs_tile) loads keys
//          and values together and keeps the keys in the staging for its store
//          (cuda::staging_kept);
//   store  value_writer into a pointer: the values move out as 16-byte words; reduce_by_key's
//          run writer (store_runs) reads the kept keys, writes a run's key at its head and its
//          value at its tail.
// Anything else (partial tiles, iterators that are not pointers, types whose staging would not fit)
// goes through the generic element-wise path.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../cuda/block/block_load_store.cuh"
#include "../cuda/scan/scan_tile.cuh"
#include "../cuda/warp/warp_reduce.cuh"
#include "lifted.hpp"

namespace algo::detail::segmented {

namespace tile_detail {

/// Loads the warp's chunk of 32 * Items elements at src (all valid) into a blocked arrangement.
template <int Items, class E>
__device__ __forceinline__ void load_chunk(const E* src, unsigned char* staging, E (&out)[Items]) {
  using io = cuda::warp_tile_io<E, Items>;
  if constexpr (io::vectorizable) {
    if (cuda::is_aligned16(src)) {
      io::load_words(src, staging, out);
      return;
    }
  }
  io::load_elements(src, io::elements, src[0], [](const E& v) { return v; }, staging, out);
}

template <class Heads>
struct heads_traits {
  static constexpr bool fast = false;
  template <int Items>
  static constexpr std::size_t staging = 0;
};
template <class KeyIt, class Eq>
struct heads_traits<key_heads<KeyIt, Eq>> {
  using key_t = std::remove_cv_t<std::remove_pointer_t<KeyIt>>;
  // staged through shared memory: pointers to trivially copyable keys only
  static constexpr bool fast = std::is_pointer<KeyIt>::value && std::is_trivially_copyable<key_t>::value;
  template <int Items>
  static constexpr std::size_t staging = cuda::warp_tile_io<key_t, Items>::bytes;
};
template <>
struct heads_traits<mask_heads> {
  static constexpr bool fast = true;
  template <int Items>
  static constexpr std::size_t staging = 0;
};
template <>
struct heads_traits<uniform_heads> {
  static constexpr bool fast = true;
  template <int Items>
  static constexpr std::size_t staging = 0;
};

/// h[j] = heads(t0 + j), for the thread's Items consecutive elements starting at t0; the warp's
/// chunk starts at w0 (key_heads loads the warp's keys together).
template <int Items, class KeyIt, class Eq>
__device__ __forceinline__ void thread_heads(const key_heads<KeyIt, Eq>& heads, std::int64_t w0, std::int64_t t0,
                                             unsigned char* staging, bool (&h)[Items]) {
  using Key = std::remove_cv_t<std::remove_pointer_t<KeyIt>>;
  Key k[Items];
  load_chunk<Items>(heads.keys + w0, staging, k);
  h[0] = t0 == 0 || !heads.eq(heads.keys[t0 - 1], k[0]);
#pragma unroll
  for (int j = 1; j < Items; ++j) h[j] = !heads.eq(k[j - 1], k[j]);
}
template <int Items>
__device__ __forceinline__ void thread_heads(const mask_heads& heads, std::int64_t, std::int64_t t0, unsigned char*,
                                             bool (&h)[Items]) {
  static_assert(Items <= 32, "a thread's heads fit in two mask words");
  const std::int64_t w = t0 >> 5;
  const int off = static_cast<int>(t0 & 31);
  std::uint64_t bits = heads.mask[w] >> off;
  if (off + Items > 32) bits |= static_cast<std::uint64_t>(heads.mask[w + 1]) << (32 - off);
#pragma unroll
  for (int j = 0; j < Items; ++j) h[j] = (bits >> j) & 1u;
}
template <int Items>
__device__ __forceinline__ void thread_heads(const uniform_heads& heads, std::int64_t, std::int64_t t0, unsigned char*,
                                             bool (&h)[Items]) {
  std::int64_t r = t0 % heads.length;  // one division per thread
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    h[j] = r == 0;
    if (++r == heads.length) r = 0;
  }
}

template <class F>
struct lift_traits {
  static constexpr bool known = false;
};
template <class Acc, class Heads, class ValIt, class Op, int Mode>
struct lift_traits<lift<Acc, Heads, ValIt, Op, Mode>> {
  static constexpr bool known = true;
  using heads_t = Heads;
  using values_t = ValIt;
};
template <class Acc, class Heads, class ValIt, class R>
struct lift_traits<lift_runs<Acc, Heads, ValIt, R>> {
  static constexpr bool known = true;
  using heads_t = Heads;
  using values_t = ValIt;
};

/// Whether the lifted input's own load runs (pointer values, heads in registers); otherwise every
/// tile takes the generic path.
template <class F>
constexpr bool fast_lift_v() {
  if constexpr (!lift_traits<F>::known) {
    return false;
  } else {
    using ValIt = typename lift_traits<F>::values_t;
    return std::is_pointer<ValIt>::value && heads_traits<typename lift_traits<F>::heads_t>::fast &&
           std::is_trivially_copyable<std::remove_cv_t<std::remove_pointer_t<ValIt>>>::value;
  }
}
/// Staging per warp of the fast load: the values' and the keys' warp chunks.
template <class F, int Items>
constexpr std::size_t lift_staging_bytes() {
  using V = std::remove_cv_t<std::remove_pointer_t<typename lift_traits<F>::values_t>>;
  using HT = heads_traits<typename lift_traits<F>::heads_t>;
  constexpr std::size_t v = cuda::warp_tile_io<V, Items>::bytes;
  constexpr std::size_t h = HT::template staging<Items>;
  return v > h ? v : h;
}

/// Whether load_lifted_tile keeps reduce_by_key's keys in the staging (load_runs_tile) for the full
/// tiles of K whose keys are 16-byte aligned; the load and prefix_value_use (below: which reads
/// them in the look-back) both decide by this. (A variable: device code reads it without calling
/// a host constexpr function.)
template <class K, class F>
constexpr bool keys_kept() {
  if constexpr (!fast_lift_v<F>() || K::kept_bytes == 0) {
    return false;
  } else {
    using V = std::remove_cv_t<std::remove_pointer_t<typename lift_traits<F>::values_t>>;
    return cuda::warp_tile_io<V, K::items>::bytes <= K::staging_bytes &&
           heads_traits<typename lift_traits<F>::heads_t>::template staging<K::items> <= K::staging_bytes;
  }
}
template <class K, class F>
inline constexpr bool keys_kept_v = keys_kept<K, F>();

/// The generic load or store of a tile, through the staging area when it holds the lifted value
/// type, element by element otherwise (the staging is sized by the fast paths: cuda::tile_staging).
template <class K, class It>
__device__ __forceinline__ void load_fallback(typename K::temp_storage& s, const It& in, std::int64_t base, int valid,
                                              typename K::acc_t (&x)[K::items]) {
  if constexpr (K::load_io::bytes <= K::staging_bytes) cuda::load_tile_generic<K>(s, in, base, valid, x);
  else cuda::load_tile_direct<K>(in, base, valid, x);
}
template <class K, class It>
__device__ __forceinline__ void store_fallback(typename K::temp_storage& s, const It& out, std::int64_t base, int valid,
                                               const typename K::acc_t (&x)[K::items]) {
  if constexpr (K::store_io::bytes <= K::staging_bytes) cuda::store_tile_generic<K>(s, out, base, valid, x);
  else cuda::store_tile_direct<K>(out, base, valid, x);
}

}  // namespace tile_detail

namespace tile_detail {
/// reduce_by_key's keys kept in the staging (cuda::staging_kept): each warp's keys in the 16-byte
/// word layout of warp_tile_io (word k of the warp's chunk at word_slot(k)); the key before the tile
/// in warp 0's area and the key after it in the last warp's, each in a slot the padded layout
/// leaves unused (slots 9 m + 8: the last one, and the one before it), so a one-warp tile holds both.
template <class Key, int Items>
struct kept_keys {
  using io = cuda::warp_tile_io<Key, Items>;
  static_assert(io::pad_words && io::words >= 16, "the padded word layout, two unused slots at least");
  static constexpr int before_slot = io::words + io::words / 8 - 1;
  static constexpr int after_slot = before_slot - 9;
  /// Key e (0 .. 32 Items - 1) of a warp's area.
  __device__ static __forceinline__ Key at(const unsigned char* area, int e) {
    const int byte = e * static_cast<int>(sizeof(Key));
    return *reinterpret_cast<const Key*>(area + io::word_slot(byte >> 4) * 16 + (byte & 15));
  }
  __device__ static __forceinline__ Key* before(unsigned char* area) {
    return reinterpret_cast<Key*>(area + before_slot * 16);
  }
  __device__ static __forceinline__ Key* after(unsigned char* area) {
    return reinterpret_cast<Key*>(area + after_slot * 16);
  }
};
}  // namespace tile_detail

/// reduce_by_key's full tiles whose keys are 16-byte aligned, when the staging keeps the keys
/// (K::kept_bytes > 0): the keys' and the values' loads go out together (the key before each
/// thread's items and, for the tile's last thread, the key after the tile with them), the keys are
/// staged at the start of the warp's area and stay there for the store (store_runs), the values
/// after them; then the head flags and the lifted pairs as load_lifted_tile's.
template <class K, class F>
__device__ __forceinline__ void load_runs_tile(typename K::temp_storage& s, const F& f, std::int64_t w0,
                                               typename K::acc_t (&x)[K::items]) {
  constexpr int items = K::items;
  using Key = std::remove_cv_t<std::remove_pointer_t<decltype(f.heads.keys)>>;
  using V = std::remove_cv_t<std::remove_pointer_t<decltype(f.values)>>;
  using kk = tile_detail::kept_keys<Key, items>;
  using kio = typename kk::io;
  using vio = cuda::warp_tile_io<V, items>;
  const int warp = cuda::warp_index();
  const int lane = cuda::lane_index();
  const std::int64_t t0 = w0 + static_cast<std::int64_t>(lane) * items;
  unsigned char* const ks = s.staging[warp];
  unsigned char* const vs = ks + K::kept_bytes;
  const bool last_thread = warp + 1 == K::warps && lane == 31;
  // ---- loads: keys, values, the neighbouring keys, all in flight together
  uint4 wk[kio::words_per_lane];
  const uint4* gk = reinterpret_cast<const uint4*>(f.heads.keys + w0);
#pragma unroll
  for (int j = 0; j < kio::words_per_lane; ++j) wk[j] = gk[j * 32 + lane];
  const bool value_words = vio::vectorizable && cuda::is_aligned16(f.values + w0);
  constexpr int vwords = vio::vectorizable ? vio::words_per_lane : 1;
  uint4 wv[vwords];
  if constexpr (vio::vectorizable) {
    if (value_words) {
      const uint4* gv = reinterpret_cast<const uint4*>(f.values + w0);
#pragma unroll
      for (int j = 0; j < vwords; ++j) wv[j] = gv[j * 32 + lane];
    }
  }
  Key prev{}, after{};
  if (t0 > 0) prev = f.heads.keys[t0 - 1];
  if (last_thread && t0 + items < f.n) after = f.heads.keys[t0 + items];
  // ---- staging: the keys (kept), the tile's edge keys, the values
  __syncwarp();  // the staging is free
  kio::stage_words(ks, wk);
  if (warp == 0 && lane == 0) *kk::before(ks) = prev;
  if (last_thread) *kk::after(ks) = after;
  V v[items];
  bool values_done = false;
  if constexpr (vio::vectorizable) {
    if (value_words) {
      vio::stage_words(vs, wv);
      __syncwarp();
      vio::read_words(vs, v);
      values_done = true;
    }
  }
  if (!values_done) vio::load_elements(f.values + w0, vio::elements, f.values[w0], [](const V& e) { return e; }, vs, v);
  __syncwarp();
  Key k[items];
  kio::read_words(ks, k);
  // ---- heads, lifted pairs
  bool h[items];
  h[0] = t0 == 0 || !f.heads.eq(prev, k[0]);
#pragma unroll
  for (int j = 1; j < items; ++j) h[j] = !f.heads.eq(k[j - 1], k[j]);
#pragma unroll
  for (int j = 0; j < items; ++j) x[j] = f.make(h[j], v[j], v[j]);
}

/// The tile load of the lifted inputs (see the top of this file).
template <class K, class F>
__device__ __forceinline__ void load_lifted_tile(typename K::temp_storage& s, indexed_iterator<F> in, std::int64_t base,
                                          int valid, typename K::acc_t (&x)[K::items]) {
  using LT = tile_detail::lift_traits<F>;
  if constexpr (!LT::known) {
    tile_detail::load_fallback<K>(s, in, base, valid, x);
  } else {
    using Heads = typename LT::heads_t;
    using ValIt = typename LT::values_t;
    using HT = tile_detail::heads_traits<Heads>;
    constexpr int items = K::items;
    if constexpr (!std::is_pointer<ValIt>::value || !HT::fast ||
                  !std::is_trivially_copyable<std::remove_cv_t<std::remove_pointer_t<ValIt>>>::value) {
      tile_detail::load_fallback<K>(s, in, base, valid, x);
    } else {
      using V = std::remove_cv_t<std::remove_pointer_t<ValIt>>;
      constexpr bool fits = cuda::warp_tile_io<V, items>::bytes <= K::staging_bytes &&
                            HT::template staging<items> <= K::staging_bytes;
      if (!fits || valid < K::tile_items) {
        tile_detail::load_fallback<K>(s, in, base, valid, x);
        return;
      }
      const F& f = in.functor();
      const int warp = cuda::warp_index();
      const int lane = cuda::lane_index();
      const std::int64_t w0 = in.index() + base + static_cast<std::int64_t>(warp) * 32 * items;
      const std::int64_t t0 = w0 + static_cast<std::int64_t>(lane) * items;
      if constexpr (tile_detail::keys_kept_v<K, F>) {  // reduce_by_key, keys kept for the store
        if (cuda::is_aligned16(f.heads.keys + w0)) {
          load_runs_tile<K>(s, f, w0, x);
          return;
        }
      }
      bool h[items];
      tile_detail::thread_heads<items>(f.heads, w0, t0, s.staging[warp], h);
      V v[items];
      tile_detail::load_chunk<items>(f.values + w0, s.staging[warp], v);
      if constexpr (F::needs_previous) {
        V prev = t0 > 0 ? f.values[t0 - 1] : v[0];
#pragma unroll
        for (int j = 0; j < items; ++j) {
          x[j] = f.make(h[j], v[j], prev);
          prev = v[j];
        }
      } else {
#pragma unroll
        for (int j = 0; j < items; ++j) x[j] = f.make(h[j], v[j], v[j]);
      }
    }
  }
}

namespace tile_detail {
template <class W>
struct writer_traits {
  static constexpr int kind = 0;  // generic
};
template <class Acc, class KeyIt, class Eq, class KeyOut, class ValOut, class CountIt>
struct writer_traits<run_writer<Acc, KeyIt, Eq, KeyOut, ValOut, CountIt>> {
  using key_t = std::remove_cv_t<std::remove_pointer_t<KeyIt>>;
  static constexpr int kind = std::is_pointer<KeyIt>::value && std::is_trivially_copyable<key_t>::value ? 2 : 0;
};
template <class Heads, class OffIt, class OutIt>
struct writer_traits<segment_writer<Heads, OffIt, OutIt>> {
  static constexpr int kind = std::is_same<Heads, mask_heads>::value || std::is_same<Heads, uniform_heads>::value ? 3 : 0;
};
}  // namespace tile_detail

/// Whether a warp's runs (keys, then values) fit the staging after the kept keys (the stash area).
template <class K, class Key, class W>
__host__ __device__ constexpr bool staged_runs_fit() {
  using A = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<typename K::acc_t>().value)>>;
  constexpr std::size_t span = static_cast<std::size_t>(32) * K::items;
  return K::kept_bytes > 0 && K::items <= 32 && span * sizeof(Key) <= K::staging_bytes - K::kept_bytes &&
         span * sizeof(A) <= K::staging_bytes - K::kept_bytes && std::is_trivially_copyable<A>::value &&
         std::is_default_constructible<A>::value;
}

/// store_runs with the keys kept (K::tuning::staged_run_store): a warp's heads start consecutive
/// runs and its tails end consecutive runs (the first ends the run holding the warp's first
/// element), so the warp puts its tails' values, then its heads' keys (copied from the kept keys,
/// not held in registers), at their places in the stash area (free again after the block scan)
/// and writes each as one contiguous span (128 bytes a warp store), where each item would store
/// its own key and value (at runs of 4, one warp store touching every sector of 512 bytes for 8
/// bytes a sector). `heads` / `tails`: bit j, the thread's item j starts / ends a run. store_runs
/// takes it for warps of at least 3 Items runs (runs of ~10 elements or shorter): H100, 2^26 f32,
/// always staged, runs of 4 took 16 % less time and runs of 32 and longer 5-8 % more (the warp scan,
/// barriers and loops on the tile's path; bench/notes/keys_segments.md).
template <class K, class W>
__device__ __forceinline__ void store_runs_staged(typename K::temp_storage& s, const W& w, std::int64_t t0,
                                                  unsigned heads, unsigned tails,
                                                  const typename K::acc_t (&x)[K::items]) {
  constexpr int items = K::items;
  using Key = typename tile_detail::writer_traits<W>::key_t;
  using A = std::remove_cv_t<std::remove_reference_t<decltype(x[0].value)>>;
  using kk = tile_detail::kept_keys<Key, items>;
  const int warp = cuda::warp_index();
  const int lane = cuda::lane_index();
  // ---- places: the warp's first element is in run R0 - 1 (R0: lane 0's first count); its first
  // head starts run R0 - 1 when that element is one, else run R0; its first tail ends run R0 - 1.
  // A lane's heads and tails follow the lanes' before it (a warp scan of the counts, heads in the
  // low 16 bits, tails in the high: at most 32 x 32 each)
  const long long r0 = static_cast<long long>(cuda::shfl_idx(x[0].runs, 0));
  const long long first_head = r0 - static_cast<long long>(cuda::shfl_idx(heads & 1u, 0));
  const long long first_tail = r0 - 1;
  const unsigned mine = static_cast<unsigned>(__popc(heads)) | static_cast<unsigned>(__popc(tails)) << 16;
  typename cuda::warp_scan<unsigned>::temp_storage no_storage;
  unsigned before = cuda::warp_scan<unsigned>(no_storage).inclusive(mine, [](unsigned a, unsigned b) { return a + b; });
  const unsigned total = cuda::shfl_idx(before, 31);
  before -= mine;
  const int nh = static_cast<int>(total & 0xffffu), nt = static_cast<int>(total >> 16);
  if (t0 + items == w.n)  // the input's last element ends a run: its count, from the first item's
    *w.count = static_cast<decltype(x[0].runs)>(static_cast<long long>(x[0].runs) - (heads & 1u) + __popc(heads));
  unsigned char* const area = s.staging[warp] + K::kept_bytes;  // the stash area
  // ---- values: each tail's at its run's place, then the warp's span
  A* const sv = reinterpret_cast<A*>(area);
  __syncwarp();  // every lane's reads of the stash area (the unstash) are done
  {
    int at = static_cast<int>(before >> 16);
#pragma unroll
    for (int j = 0; j < items; ++j)
      if ((tails >> j) & 1u) sv[at++] = x[j].value;
  }
  __syncwarp();
  for (int i = lane; i < nt; i += 32) w.values_out[first_tail + i] = sv[i];
  // ---- keys: each head's, copied from the kept keys, then the warp's span
  Key* const sk = reinterpret_cast<Key*>(area);
  __syncwarp();
  {
    int at = static_cast<int>(before & 0xffffu);
#pragma unroll
    for (int j = 0; j < items; ++j)
      if ((heads >> j) & 1u) sk[at++] = kk::at(s.staging[warp], lane * items + j);
  }
  __syncwarp();
  for (int i = lane; i < nh; i += 32) w.keys_out[first_head + i] = sk[i];
}

/// reduce_by_key's store: the thread's keys again and the keys on either side of its items give
/// each item's head and tail flags in registers; a head writes its key, a tail the run's value, at
/// position runs - 1 (only those elements write). The keys come from the staging where the load
/// kept them (K::kept_bytes > 0, aligned keys: load_runs_tile), else from global memory (16-byte
/// words, L2) again.
template <class K, class W>
__device__ __forceinline__ void store_runs(typename K::temp_storage& s, const indexed_output<W>& out, std::int64_t base,
                                           const typename K::acc_t (&x)[K::items]) {
  constexpr int items = K::items;
  using Key = typename tile_detail::writer_traits<W>::key_t;
  const W& w = out.writer();
  const int warp = cuda::warp_index();
  const int lane = cuda::lane_index();
  const std::int64_t w0 = out.index() + base + static_cast<std::int64_t>(warp) * 32 * items;
  const std::int64_t t0 = w0 + static_cast<std::int64_t>(lane) * items;
  const bool at_end = t0 + items == w.n;
  if constexpr (K::kept_bytes > 0) {
    // the keys the load kept in the staging (load_runs_tile: the same keys pointer, aligned), their
    // neighbours from the lanes beside, the warps beside (after the block scan's barriers) or the
    // tile's edge keys; the flags as bits. A warp of many runs writes them staged, the others in
    // place (K::tuning::inplace_runs: the keys kept in registers or read again from the staging)
    if (cuda::is_aligned16(w.keys + w0)) {
      using kk = tile_detail::kept_keys<Key, items>;
      constexpr int mode = K::tuning::inplace_runs;
      // the thread's keys from the staging and the flags as bits (bit j: item j starts / ends a run)
      Key k[items];
      unsigned heads = 0, tails = 0;
      const auto flags = [&] {
        kk::io::read_words(s.staging[warp], k);
        Key prev = cuda::shfl_up(k[items - 1], 1);
        Key next = cuda::shfl_down(k[0], 1);
        if (lane == 0) prev = warp > 0 ? kk::at(s.staging[warp - 1], 32 * items - 1) : *kk::before(s.staging[0]);
        if (lane == 31 && warp + 1 < K::warps) next = kk::at(s.staging[warp + 1], 0);
        if (lane == 31 && warp + 1 == K::warps) next = *kk::after(s.staging[warp]);
        heads = t0 == 0 || !w.eq(prev, k[0]) ? 1u : 0u;
        tails = at_end || !w.eq(k[items - 1], next) ? 1u << (items - 1) : 0u;
#pragma unroll
        for (int j = 0; j + 1 < items; ++j) {
          const bool change = !w.eq(k[j], k[j + 1]);
          tails |= change ? 1u << j : 0u;
          heads |= change ? 1u << (j + 1) : 0u;
        }
      };
      if constexpr (K::tuning::staged_run_store && staged_runs_fit<K, Key, W>()) {
        // warps of many runs write them staged (the choice is the warp's: at few runs the
        // staging's fixed cost is more than the scattered stores it saves). The warp's runs from
        // the counts the scan carried (its heads, less one at most), so that neither the keys nor
        // the flags are live where the two paths part (with them: 80 registers, not 64)
        const long long warp_runs = static_cast<long long>(cuda::shfl_idx(x[items - 1].runs, 31)) -
                                    static_cast<long long>(cuda::shfl_idx(x[0].runs, 0));
        if (warp_runs >= 3 * items) {
          flags();
          store_runs_staged<K>(s, w, t0, heads, tails, x);
          return;
        }
      }
      flags();
      if constexpr (mode == 1) {
        // the keys from registers, each item's run index from its own scanned count
#pragma unroll
        for (int j = 0; j < items; ++j) {
          const long long r = static_cast<long long>(x[j].runs) - 1;
          if ((heads >> j) & 1u) w.keys_out[r] = k[j];
          if ((tails >> j) & 1u) w.values_out[r] = x[j].value;
        }
        if (at_end) *w.count = x[items - 1].runs;
      } else {
        // item j is in run (the runs before the thread's first item) + (heads up to j) - 1: only
        // the first item's count is needed (x[j].runs of the others stays dead); the keys are read
        // again from the staging where a head writes one
        const long long before = static_cast<long long>(x[0].runs) - static_cast<long long>(heads & 1u);
        long long r = before - 1;
#pragma unroll
        for (int j = 0; j < items; ++j) {
          if constexpr (mode == 2) r += (heads >> j) & 1u;
          else r = before + __popc(heads & (j + 1 < 32 ? (2u << j) - 1u : ~0u)) - 1;
          if ((heads >> j) & 1u) w.keys_out[r] = kk::at(s.staging[warp], lane * items + j);
          if ((tails >> j) & 1u) w.values_out[r] = x[j].value;
        }
        if (at_end) *w.count = static_cast<decltype(x[0].runs)>(before + __popc(heads));
      }
      return;
    }
  }
  Key k[items];
  tile_detail::load_chunk<items>(w.keys + w0, s.staging[warp], k);
  bool head = t0 == 0 || !w.eq(w.keys[t0 - 1], k[0]);
  const bool last_tail = at_end || !w.eq(k[items - 1], w.keys[t0 + items]);
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const bool tail = j + 1 < items ? !w.eq(k[j], k[j + 1]) : last_tail;
    const long long r = x[j].runs - 1;
    if (head) w.keys_out[r] = k[j];
    if (tail) {
      w.values_out[r] = x[j].value;
      if (at_end && j + 1 == items) *w.count = x[j].runs;
    }
    head = tail;
  }
}

/// segmented_reduce's store: the head flags of the next elements (heads mask or uniform length)
/// give each item's tail flag in registers; only tails call the writer (which finds the segment).
template <class K, class W>
__device__ __forceinline__ void store_segment_ends(typename K::temp_storage& s, const indexed_output<W>& out,
                                                   std::int64_t base, const typename K::acc_t (&x)[K::items]) {
  constexpr int items = K::items;
  const W& w = out.writer();
  const int warp = cuda::warp_index();
  const int lane = cuda::lane_index();
  const std::int64_t w0 = out.index() + base + static_cast<std::int64_t>(warp) * 32 * items;
  const std::int64_t t0 = w0 + static_cast<std::int64_t>(lane) * items;
  bool next_head[items];  // heads of t0 + 1 .. t0 + items (the last may be past the end)
  if (t0 + items < w.n) {
    tile_detail::thread_heads<items>(w.heads, w0 + 1, t0 + 1, s.staging[warp], next_head);
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) next_head[j] = t0 + j + 1 >= w.n || w.heads(t0 + j + 1);
  }
#pragma unroll
  for (int j = 0; j < items; ++j)
    if (next_head[j]) w(t0 + j, x[j]);
}

/// The tile store of the lifted outputs: value_writer into a pointer as 16-byte words,
/// reduce_by_key's and segmented_reduce's writers from flags in registers.
template <class K, class W>
__device__ __forceinline__ void store_lifted_tile(typename K::temp_storage& s, indexed_output<W> out, std::int64_t base,
                                           int valid, const typename K::acc_t (&x)[K::items]) {
  constexpr int items = K::items;
  constexpr int kind = tile_detail::writer_traits<W>::kind;
  if constexpr (kind == 2) {
    using Key = typename tile_detail::writer_traits<W>::key_t;
    if (cuda::warp_tile_io<Key, items>::bytes <= K::staging_bytes && valid == K::tile_items) {
      store_runs<K>(s, out, base, x);
      return;
    }
    tile_detail::store_fallback<K>(s, out, base, valid, x);
  } else if constexpr (kind == 3) {
    if (valid == K::tile_items) {
      store_segment_ends<K>(s, out, base, x);
      return;
    }
    tile_detail::store_fallback<K>(s, out, base, valid, x);
  } else if constexpr (!is_value_writer_to_pointer<W>::value) {
    tile_detail::store_fallback<K>(s, out, base, valid, x);
  } else {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(out.writer().out)>>;
    using io = cuda::warp_tile_io<T, items>;
    if constexpr (io::bytes > K::staging_bytes) {
      tile_detail::store_fallback<K>(s, out, base, valid, x);
    } else {
      const int warp = cuda::warp_index();
      const int warp_offset = warp * io::elements;
      T* dst = out.writer().out + out.index() + base + warp_offset;
      T e[items];
#pragma unroll
      for (int j = 0; j < items; ++j) e[j] = static_cast<T>(x[j].value);
      if constexpr (io::vectorizable) {
        if (valid == K::tile_items && cuda::is_aligned16(dst)) {
          io::store_words(dst, s.staging[warp], e);
          return;
        }
      }
      io::store_elements(dst, valid - warp_offset, s.staging[warp], e);
    }
  }
}

}  // namespace algo::detail::segmented

namespace algo::detail::cuda {
/// Staging of the lifted loads and stores: their keys and values, not the lifted pairs (4-byte keys
/// and values: half the bytes of (value, head) pairs, so 256 x 32 tiles fit 48 KB); inputs and
/// outputs without a fast path keep their value type's staging.
template <class F, int Items>
struct tile_staging<segmented::indexed_iterator<F>, Items> {
  static constexpr bool known = segmented::tile_detail::fast_lift_v<F>();
  static constexpr std::size_t bytes = [] {
    if constexpr (known) return segmented::tile_detail::lift_staging_bytes<F, Items>();
    else return std::size_t(0);
  }();
};
template <class W, int Items>
struct tile_staging<segmented::indexed_output<W>, Items> {
  static constexpr int kind = segmented::tile_detail::writer_traits<W>::kind;
  static constexpr bool known = kind == 2 || kind == 3 || segmented::is_value_writer_to_pointer<W>::value;
  static constexpr std::size_t bytes = [] {
    if constexpr (kind == 2) {
      return warp_tile_io<typename segmented::tile_detail::writer_traits<W>::key_t, Items>::bytes;
    } else if constexpr (kind == 3) {
      return std::size_t(0);  // heads from the mask or the length: nothing staged
    } else if constexpr (segmented::is_value_writer_to_pointer<W>::value) {
      return warp_tile_io<std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<W>().out)>>, Items>::bytes;
    } else {
      return std::size_t(0);
    }
  }();
};

/// reduce_by_key keeps its keys in the staging between its tile's load and its store
/// (load_runs_tile, store_runs) where they fit beside the values' staging and the flagged stash:
/// pointers to keys in the padded 16-byte word layout (two of its unused slots hold the tile's
/// edge keys).
template <class Acc, class KeyIt, class Eq, class ValIt, class R, class KeyIt2, class Eq2, class KeyOut, class ValOut,
          class CountIt, int Items>
struct staging_kept<segmented::indexed_iterator<segmented::lift_runs<Acc, segmented::key_heads<KeyIt, Eq>, ValIt, R>>,
                    segmented::indexed_output<segmented::run_writer<Acc, KeyIt2, Eq2, KeyOut, ValOut, CountIt>>, Items> {
  template <std::size_t Staging>
  static constexpr std::size_t bytes() {
    if constexpr (!std::is_pointer<KeyIt>::value || !std::is_pointer<ValIt>::value) {
      return 0;
    } else {
      using Key = std::remove_cv_t<std::remove_pointer_t<KeyIt>>;
      using V = std::remove_cv_t<std::remove_pointer_t<ValIt>>;
      using kio = warp_tile_io<Key, Items>;
      using vio = warp_tile_io<V, Items>;
      constexpr std::size_t stash = static_cast<std::size_t>(Items) * 32 * ((sizeof(Acc) + 3) / 4 * 4);
      constexpr std::size_t rest = vio::bytes > stash ? vio::bytes : stash;
      return std::is_trivially_copyable<Key>::value && std::is_trivially_copyable<V>::value && kio::vectorizable &&
                     kio::pad_words && kio::words >= 16 && sizeof(Key) <= 16 && Items <= 32 &&
                     kio::bytes + rest <= Staging
                 ? kio::bytes
                 : 0;
    }
  }
};

/// reduce_by_key's run writer: its store loads the keys again beside the items (narrow_tile_store).
template <class Acc, class KeyIt, class Eq, class KeyOut, class ValOut, class CountIt>
struct narrow_tile_store<segmented::indexed_output<segmented::run_writer<Acc, KeyIt, Eq, KeyOut, ValOut, CountIt>>>
    : std::true_type {};

/// The lifted inputs' items before the scan: (value, head) with head 0 or 1, (value, runs) with
/// runs 0 or 1 (lifted.hpp: every lift writes its flag from a bool), for the stash.
template <class F, class A>
struct flagged_items<segmented::indexed_iterator<F>, segmented::seg_value<A>,
                     std::enable_if_t<segmented::tile_detail::lift_traits<F>::known>> : std::true_type {
  using value_t = A;
  __device__ static __forceinline__ const A& value(const segmented::seg_value<A>& x) { return x.value; }
  __device__ static __forceinline__ bool flag(const segmented::seg_value<A>& x) { return x.head != 0; }
  __device__ static __forceinline__ segmented::seg_value<A> make(const A& v, unsigned f) {
    return segmented::seg_value<A>{v, static_cast<int>(f)};
  }
};
template <class F, class A, class R>
struct flagged_items<segmented::indexed_iterator<F>, segmented::run_value<A, R>,
                     std::enable_if_t<segmented::tile_detail::lift_traits<F>::known>> : std::true_type {
  using value_t = A;
  __device__ static __forceinline__ const A& value(const segmented::run_value<A, R>& x) { return x.value; }
  __device__ static __forceinline__ bool flag(const segmented::run_value<A, R>& x) { return x.runs != 0; }
  __device__ static __forceinline__ segmented::run_value<A, R> make(const A& v, unsigned f) {
    return segmented::run_value<A, R>{v, static_cast<R>(f)};
  }
};

/// The lifted operator restarts the ordered look-back's fold at a head (scan/ordered_lookback.cuh):
/// op((h1, a), (h2, b)) is (h2, b) when h2, whatever a; reduce_by_key's pairs also count runs.
template <class X, class A2, class A>
struct ordered_reset<accumulate_with<segmented::segmented_op<X>, A2>, segmented::seg_value<A>> {
  static constexpr bool enabled = true;
  static constexpr bool counts = false;
  __device__ static __forceinline__ bool reset(const segmented::seg_value<A>& v) { return v.head != 0; }
  /// op(a, b) for a b without a head: segmented_op's branch for b.head == 0, as it computes it.
  template <class Op>
  __device__ static __forceinline__ segmented::seg_value<A> no_reset(const Op& op, const segmented::seg_value<A>& a,
                                                                      const segmented::seg_value<A>& b) {
    return segmented::seg_value<A>{static_cast<A>(op.op.op(a.value, b.value)), a.head};
  }
};
template <class X, class A2, class A, class R>
struct ordered_reset<accumulate_with<segmented::segmented_op<X>, A2>, segmented::run_value<A, R>> {
  static constexpr bool enabled = true;
  static constexpr bool counts = true;
  __device__ static __forceinline__ bool reset(const segmented::run_value<A, R>& v) { return v.runs != 0; }
  __device__ static __forceinline__ R count(const segmented::run_value<A, R>& v) { return v.runs; }
  /// op(a, b) for a b without a head (b.runs == 0): segmented_op's branch for it, as it computes it.
  template <class Op>
  __device__ static __forceinline__ segmented::run_value<A, R> no_reset(const Op& op, const segmented::run_value<A, R>& a,
                                                                         const segmented::run_value<A, R>& b) {
    return segmented::run_value<A, R>{static_cast<A>(op.op.op(a.value, b.value)), a.runs};
  }
  __device__ static __forceinline__ segmented::run_value<A, R> with_count(const segmented::run_value<A, R>& v,
                                                                          long long c) {
    return segmented::run_value<A, R>{v.value, static_cast<R>(c)};
  }
};

/// reduce_by_key's tiles without a head: the exclusive prefix's value reaches a store only where
/// the run open when the tile starts ends at the tile's last element, that is where the element
/// after the tile starts a run or the tile ends the input. Lane 0 compares the tile's last key with
/// the one after it, from the staging where the load kept them (keys_kept_v: full tiles, aligned
/// keys; the key after the tile is kept in the last warp's area), else from global memory.
template <class A, class KeyIt, class Eq, class ValIt, class R>
struct prefix_value_use<segmented::indexed_iterator<segmented::lift_runs<A, segmented::key_heads<KeyIt, Eq>, ValIt, R>>> {
  using F = segmented::lift_runs<A, segmented::key_heads<KeyIt, Eq>, ValIt, R>;
  using Key = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<const KeyIt&>()[0])>>;
  template <class K>
  __device__ static __forceinline__ bool needed(typename K::temp_storage& s, const segmented::indexed_iterator<F>& in,
                                                std::int64_t base, int valid, const segmented::run_value<A, R>&) {
    const F& f = in.functor();
    const std::int64_t end = in.index() + base + valid;  // the element after the tile
    bool ends = true;  // the tile ends the input: its last element ends the open run
    if (cuda::lane_index() == 0 && end < f.n) {
      bool kept = false;
      if constexpr (segmented::tile_detail::keys_kept_v<K, F>) {
        kept = valid == K::tile_items && cuda::is_aligned16(f.heads.keys + (end - valid));
        if (kept) {
          using kk = segmented::tile_detail::kept_keys<Key, K::items>;
          ends = !f.heads.eq(kk::at(s.staging[K::warps - 1], 32 * K::items - 1), *kk::after(s.staging[K::warps - 1]));
        }
      }
      if (!kept) ends = !f.heads.eq(f.heads.keys[end - 1], f.heads.keys[end]);
    }
    return __shfl_sync(cuda::full_warp_mask, ends ? 1 : 0, 0) != 0;
  }
};

template <class F>
struct tile_io_hook<segmented::indexed_iterator<F>> : std::true_type {
  template <class K>
  __device__ static __forceinline__ void load(typename K::temp_storage& s, const segmented::indexed_iterator<F>& in,
                                              std::int64_t base, int valid, typename K::acc_t (&x)[K::items]) {
    segmented::load_lifted_tile<K>(s, in, base, valid, x);
  }
};
template <class W>
struct tile_io_hook<segmented::indexed_output<W>> : std::true_type {
  template <class K>
  __device__ static __forceinline__ void store(typename K::temp_storage& s, const segmented::indexed_output<W>& out,
                                               std::int64_t base, int valid, const typename K::acc_t (&x)[K::items]) {
    segmented::store_lifted_tile<K>(s, out, base, valid, x);
  }
};
}  // namespace algo::detail::cuda
