// Block load/store helpers for the scans: a tile moves between global memory, where each warp
// accesses it warp-striped (coalesced: consecutive lanes touch consecutive addresses), and
// registers, where the scans want it blocked (thread t holds Items consecutive elements). Each
// warp transposes its own chunk of 32 * Items elements through a private staging area in shared
// memory, so only __syncwarp() is needed, never __syncthreads().
//
// Two ways through:
//   vectors   an aligned pointer to a trivially copyable type, a full tile, and Items * sizeof(E)
//             a multiple of 16: the chunk moves as 16-byte words (LDG.E.128 / STG.E.128), each
//             warp instruction covering 512 contiguous bytes;
//   elements  anything else (fancy iterators, misaligned pointers, the last partial tile): one
//             element per lane per step, still warp-striped.
//
// Bank conflicts: 16-byte words are served 8 lanes at a time, conflict-free when those 8 land in
// distinct 16-byte bank groups. Warp-striped writes always do; blocked reads (stride = words per
// lane) do when that stride is odd, and with one padding word after every 8 when it is a power
// of two (2-way at worst for other even strides). Elements get one padding element per 32.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../warp/warp_scan.cuh"

namespace algo::detail::cuda {

template <class E, int Items>
struct warp_tile_io {
  static_assert(std::is_trivially_copyable<E>::value, "staged elements must be trivially copyable");
  static constexpr int elements = 32 * Items;  // one warp's chunk

  // ---- 16-byte words ------------------------------------------------------------------------
  static constexpr bool vectorizable = (Items * sizeof(E)) % 16 == 0;
  static constexpr int words_per_lane = vectorizable ? static_cast<int>(Items * sizeof(E) / 16) : 0;
  static constexpr bool pad_words = words_per_lane % 2 == 0;
  static constexpr int words = 32 * words_per_lane;
  __device__ static __forceinline__ int word_slot(int k) { return pad_words ? k + (k >> 3) : k; }

  // ---- single elements -------------------------------------------------------------------------
  __device__ static __forceinline__ int element_slot(int k) { return k + (k >> 5); }

  /// Bytes of staging one warp needs (16-byte aligned).
  static constexpr std::size_t word_bytes = static_cast<std::size_t>(words + (pad_words ? words / 8 : 0)) * 16;
  static constexpr std::size_t element_bytes = static_cast<std::size_t>(elements + elements / 32) * sizeof(E);
  static constexpr std::size_t bytes =
      ((word_bytes > element_bytes ? word_bytes : element_bytes) + 15) / 16 * 16;

  // ---- loads ---------------------------------------------------------------------------------
  /// Global (warp-striped 16-byte words) -> staging -> registers (blocked). `src` is the warp's
  /// chunk, 16-byte aligned.
  __device__ static __forceinline__ void load_words(const E* src, unsigned char* staging, E (&items)[Items]) {
    static_assert(vectorizable, "load_words needs Items * sizeof(E) to be a multiple of 16");
    const int lane = lane_index();
    const uint4* g = reinterpret_cast<const uint4*>(src);
    uint4 w[words_per_lane];
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) w[j] = g[j * 32 + lane];  // all loads in flight first
    __syncwarp();                                                         // staging free again
    stage_words(staging, w);
    __syncwarp();
    read_words(staging, items);
  }
  /// load_words' two halves, for callers that keep several loads in flight or read a staged chunk
  /// again: the lane's warp-striped words (word j * 32 + lane of the chunk) into the staging, and
  /// the lane's blocked items from a staged chunk (a __syncwarp between them).
  __device__ static __forceinline__ void stage_words(unsigned char* staging, const uint4 (&w)[words_per_lane]) {
    const int lane = lane_index();
    uint4* s = reinterpret_cast<uint4*>(staging);
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) s[word_slot(j * 32 + lane)] = w[j];
  }
  __device__ static __forceinline__ void read_words(const unsigned char* staging, E (&items)[Items]) {
    const int lane = lane_index();
    const uint4* s = reinterpret_cast<const uint4*>(staging);
    uint4 w[words_per_lane];
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) w[j] = s[word_slot(lane * words_per_lane + j)];
    memcpy(items, w, sizeof(items));
  }

  /// Global (warp-striped elements) -> staging -> registers (blocked). Positions at or past
  /// `valid` get `fill` (a real element, so that folding them in is harmless).
  template <class It, class Convert>
  __device__ static __forceinline__ void load_elements(It src, int valid, const E& fill, Convert convert,
                                                       unsigned char* staging, E (&items)[Items]) {
    const int lane = lane_index();
    E* s = reinterpret_cast<E*>(staging);
    E v[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int k = i * 32 + lane;
      v[i] = k < valid ? convert(src[k]) : fill;
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) s[element_slot(i * 32 + lane)] = v[i];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = s[element_slot(lane * Items + i)];
  }

  // ---- stores --------------------------------------------------------------------------------
  /// Registers (blocked) -> staging -> global (warp-striped 16-byte words), `dst` 16-byte aligned.
  __device__ static __forceinline__ void store_words(E* dst, unsigned char* staging, const E (&items)[Items]) {
    static_assert(vectorizable, "store_words needs Items * sizeof(E) to be a multiple of 16");
    const int lane = lane_index();
    uint4* g = reinterpret_cast<uint4*>(dst);
    uint4* s = reinterpret_cast<uint4*>(staging);
    uint4 w[words_per_lane];
    memcpy(w, items, sizeof(w));
    __syncwarp();
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) s[word_slot(lane * words_per_lane + j)] = w[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < words_per_lane; ++j) g[j * 32 + lane] = s[word_slot(j * 32 + lane)];
  }

  /// Registers (blocked) -> staging -> global (warp-striped elements), positions below `valid`.
  template <class It>
  __device__ static __forceinline__ void store_elements(It dst, int valid, unsigned char* staging,
                                                        const E (&items)[Items]) {
    const int lane = lane_index();
    E* s = reinterpret_cast<E*>(staging);
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) s[element_slot(lane * Items + i)] = items[i];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int k = i * 32 + lane;
      if (k < valid) dst[k] = s[element_slot(k)];
    }
  }
};

/// True when p is 16-byte aligned.
template <class T>
__device__ __forceinline__ bool is_aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

}  // namespace algo::detail::cuda
