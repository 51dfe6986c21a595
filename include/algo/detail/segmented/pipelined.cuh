// reduce_by_key's tile pipeline (cuda::tile_pipeline; the kernel: cuda/scan/ordered_pipelined.cuh):
// a full tile's keys and values reach shared memory by cp.async while its block is still busy with
// the tile before, and everything the tile needs afterwards is read from there.
//   copy    each warp copies its chunk of keys and of values (16-byte words, no registers), thread 0
//           the key before the tile, the last thread the key after it (when there is one);
//   load    each thread reads its keys (blocked), works out its items' head flags (the key before
//           its first item: the lane before's last key, the warp before's from the buffer, the
//           tile's from the copied edge), reads its values and lifts (value, 1 if a run starts);
//           the head flags go back as 32 bits;
//   reload  the values again, lifted with those flags (after the block scan and the look-back:
//           nothing of the tile stays in registers across them);
//   store   each thread's keys again from the buffer; a head writes its key, a tail (the next item
//           a head: the next lane's first flag, the next warp's or the tile edge's key) the run's
//           value, at position runs - 1, as store_runs (tile.cuh) does.
// Only pointers to keys and values of 4, 8 or 16 bytes whose tile chunks are whole 16-byte words,
// the same key pointer in the heads and the writer, 16-byte aligned (usable(), on the host).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../cuda/scan/scan_tile.cuh"
#include "../cuda/thread/async_copy.cuh"
#include "../cuda/thread/shuffle.cuh"
#include "lifted.hpp"

namespace algo::detail::segmented {

namespace pipeline_detail {

/// One warp's chunk of 32 * Items elements of E in shared memory as 16-byte words, word k of the
/// chunk at slot k ^ ((k >> 3) & 7) (its low three bits XORed with its 128-byte row): the warp's
/// copy (lane l writes words 32 j + l) and its blocked read (lane l reads words l W .. l W + W - 1,
/// W a power of two) each touch eight distinct 16-byte bank groups per quarter warp.
template <class E, int Items>
struct chunk {
  static constexpr int words_per_lane = static_cast<int>(Items * sizeof(E) / 16);
  static constexpr bool fits = Items * sizeof(E) % 16 == 0 && words_per_lane > 0 &&
                               (words_per_lane & (words_per_lane - 1)) == 0 &&
                               (sizeof(E) == 4 || sizeof(E) == 8 || sizeof(E) == 16);
  static constexpr std::size_t bytes = static_cast<std::size_t>(Items) * 32 * sizeof(E);
  __device__ static __forceinline__ int slot(int k) { return k ^ ((k >> 3) & 7); }
  /// The warp's copies of its chunk from src (16-byte aligned).
  __device__ static __forceinline__ void copy(unsigned char* c, const E* src) {
    const int lane = cuda::lane_index();
    const uint4* g = reinterpret_cast<const uint4*>(src);
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) cuda::copy_async<16>(c + slot(j * 32 + lane) * 16, g + j * 32 + lane);
  }
  /// The lane's Items elements (blocked: lane l holds elements l Items .. l Items + Items - 1).
  __device__ static __forceinline__ void read(const unsigned char* c, E (&items)[Items]) {
    const int lane = cuda::lane_index();
    uint4 w[words_per_lane];
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) w[j] = reinterpret_cast<const uint4*>(c)[slot(lane * words_per_lane + j)];
    memcpy(items, w, sizeof(items));
  }
  /// Element e of the chunk.
  __device__ static __forceinline__ E element(const unsigned char* c, int e) {
    const int byte = e * static_cast<int>(sizeof(E));
    return *reinterpret_cast<const E*>(c + slot(byte >> 4) * 16 + (byte & 15));
  }
};

template <class T>
inline bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

/// The pipeline of reduce_by_key's lifted input (keys and values pointers) and run writer.
template <class Key, class V, class In, class Out>
struct runs {
  template <class K>
  using keys_chunk = chunk<Key, K::items>;
  template <class K>
  using values_chunk = chunk<V, K::items>;
  template <class K>
  static constexpr std::size_t keys_bytes() {
    return static_cast<std::size_t>(K::warps) * keys_chunk<K>::bytes;
  }
  /// [keys of warp 0 .. warps - 1][values of warp 0 .. warps - 1][key before the tile][key after it]
  template <class K>
  static constexpr std::size_t edge_offset() {
    return keys_bytes<K>() + static_cast<std::size_t>(K::warps) * values_chunk<K>::bytes;
  }

  template <class K>
  static constexpr bool fits() {
    return keys_chunk<K>::fits && values_chunk<K>::fits && std::is_trivially_copyable<Key>::value &&
           std::is_trivially_copyable<V>::value;
  }
  template <class K>
  static constexpr std::size_t buffer_bytes() {
    return edge_offset<K>() + 32;
  }
  template <class P>
  static bool usable(const P& p) {
    const auto& f = p.in.functor();
    const auto& w = p.out.writer();
    return p.in.index() == 0 && p.out.index() == 0 && w.n == p.n &&
           static_cast<const void*>(f.heads.keys) == static_cast<const void*>(w.keys) && aligned16(f.heads.keys) &&
           aligned16(f.values);
  }

  template <class K, class P>
  __device__ static __forceinline__ void copy(unsigned char* buf, const P& p, std::int64_t base) {
    const auto& f = p.in.functor();
    const int warp = cuda::warp_index();
    const std::int64_t w0 = base + static_cast<std::int64_t>(warp) * 32 * K::items;
    keys_chunk<K>::copy(buf + warp * keys_chunk<K>::bytes, f.heads.keys + w0);
    values_chunk<K>::copy(buf + keys_bytes<K>() + warp * values_chunk<K>::bytes, f.values + w0);
    if (threadIdx.x == 0 && base > 0) cuda::copy_async<sizeof(Key)>(buf + edge_offset<K>(), f.heads.keys + base - 1);
    if (threadIdx.x == K::threads - 1 && base + K::tile_items < p.n)
      cuda::copy_async<sizeof(Key)>(buf + edge_offset<K>() + 16, f.heads.keys + base + K::tile_items);
  }

  template <class K, class P>
  __device__ static __forceinline__ unsigned load(const unsigned char* buf, const P& p, std::int64_t base,
                                                  typename K::acc_t (&x)[K::items]) {
    constexpr int items = K::items;
    const auto& f = p.in.functor();
    const int warp = cuda::warp_index();
    const int lane = cuda::lane_index();
    Key k[items];
    keys_chunk<K>::read(buf + warp * keys_chunk<K>::bytes, k);
    Key prev = cuda::shfl_up(k[items - 1], 1);
    bool first_of_all = false;
    if (lane == 0) {
      if (warp > 0) prev = keys_chunk<K>::element(buf + (warp - 1) * keys_chunk<K>::bytes, 32 * items - 1);
      else if (base > 0) prev = *reinterpret_cast<const Key*>(buf + edge_offset<K>());
      else first_of_all = true;
    }
    unsigned bits = first_of_all || !f.heads.eq(prev, k[0]) ? 1u : 0u;
#pragma unroll
    for (int j = 1; j < items; ++j) bits |= !f.heads.eq(k[j - 1], k[j]) ? 1u << j : 0u;
    reload<K>(buf, p, base, bits, x);
    return bits;
  }

  template <class K, class P>
  __device__ static __forceinline__ void reload(const unsigned char* buf, const P& p, std::int64_t,
                                                unsigned bits, typename K::acc_t (&x)[K::items]) {
    const auto& f = p.in.functor();
    const int warp = cuda::warp_index();
    V v[K::items];
    values_chunk<K>::read(buf + keys_bytes<K>() + warp * values_chunk<K>::bytes, v);
#pragma unroll
    for (int j = 0; j < K::items; ++j) x[j] = f.make(((bits >> j) & 1u) != 0, v[j], v[j]);
  }

  template <class K, class P>
  __device__ static __forceinline__ void store(const unsigned char* buf, const P& p, std::int64_t base,
                                               unsigned bits, const typename K::acc_t (&x)[K::items]) {
    constexpr int items = K::items;
    const auto& w = p.out.writer();
    const int warp = cuda::warp_index();
    const int lane = cuda::lane_index();
    Key k[items];
    keys_chunk<K>::read(buf + warp * keys_chunk<K>::bytes, k);
    unsigned next = cuda::shfl_down(bits, 1) & 1u;  // the next lane's first flag
    const bool last_thread = warp + 1 == K::warps && lane == 31;
    const bool ends_input = last_thread && base + K::tile_items == w.n;
    if (lane == 31) {
      if (warp + 1 < K::warps) {
        next = !w.eq(k[items - 1], keys_chunk<K>::element(buf + (warp + 1) * keys_chunk<K>::bytes, 0)) ? 1u : 0u;
      } else {
        next = ends_input || !w.eq(k[items - 1], *reinterpret_cast<const Key*>(buf + edge_offset<K>() + 16)) ? 1u : 0u;
      }
    }
    const unsigned tails = (bits >> 1) | (next << (items - 1));
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const auto r = x[j].runs - 1;
      if ((bits >> j) & 1u) w.keys_out[r] = k[j];
      if ((tails >> j) & 1u) w.values_out[r] = x[j].value;
    }
    if (ends_input) *w.count = x[items - 1].runs;
  }
};

template <class It>
using pointee_t = std::remove_cv_t<std::remove_pointer_t<It>>;

}  // namespace pipeline_detail
}  // namespace algo::detail::segmented

namespace algo::detail::cuda {
/// reduce_by_key's lifted input (pointer keys and values) with its run writer.
template <class Acc, class KeyIt, class Eq, class ValIt, class R, class KeyIt2, class Eq2, class KeyOut, class ValOut,
          class CountIt>
struct tile_pipeline<segmented::indexed_iterator<segmented::lift_runs<Acc, segmented::key_heads<KeyIt, Eq>, ValIt, R>>,
                     segmented::indexed_output<segmented::run_writer<Acc, KeyIt2, Eq2, KeyOut, ValOut, CountIt>>,
                     std::enable_if_t<std::is_pointer<KeyIt>::value && std::is_pointer<ValIt>::value &&
                                      std::is_pointer<KeyIt2>::value &&
                                      std::is_same<segmented::pipeline_detail::pointee_t<KeyIt>,
                                                   segmented::pipeline_detail::pointee_t<KeyIt2>>::value>>
    : std::true_type,
      segmented::pipeline_detail::runs<
          segmented::pipeline_detail::pointee_t<KeyIt>, segmented::pipeline_detail::pointee_t<ValIt>,
          segmented::indexed_iterator<segmented::lift_runs<Acc, segmented::key_heads<KeyIt, Eq>, ValIt, R>>,
          segmented::indexed_output<segmented::run_writer<Acc, KeyIt2, Eq2, KeyOut, ValOut, CountIt>>> {};
}  // namespace algo::detail::cuda
