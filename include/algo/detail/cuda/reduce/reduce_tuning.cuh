// Reduce tuning (one struct, nothing scattered through the kernels) and the layout that hands every
// warp of the grid one contiguous range of the input.
//
// Units, from small to large:
//   chunk      `items` consecutive elements read by one lane (one 16-byte vector on the vector path)
//   warp tile  32 consecutive chunks, lane l reading chunk l: 512 contiguous bytes per instruction
//   warp range consecutive warp tiles; warp g of the grid owns range g, so block b (warps
//              b*W .. b*W+W-1) owns one contiguous stretch and blocks follow each other in order.
// Contiguous ranges, not a grid-stride loop: a grid-stride loop interleaves the blocks' elements,
// which breaks left-to-right order for non-commutative operators.
//
// The vector path reads the input from the 16-byte boundary at or below its start: the layout
// counts positions in that "virtual" index space, where the real element i sits at i + offset and the
// first `offset` positions are not part of the input (tile 0 is then read with guarded loads).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "../../../error.hpp"
#include "../runtime.cuh"
#include "../thread/load.cuh"

namespace algo::detail::cuda {

/// Tuning for the reduce kernels. V: the input's value type; T: the accumulator.
template <class V, class T>
struct reduce_tuning {
  /// Threads per block (any multiple of 32: the block phase handles every size).
  static constexpr int threads = 256;
  static constexpr int warps = threads / 32;
  /// Warp tiles each lane has in flight per step of the main loop (16-byte loads on the vector path).
  static constexpr int unroll = 4;
  /// Elements per lane chunk when the loads are element-wise (fancy iterators, large types).
  static constexpr int scalar_items = sizeof(V) <= 4 ? 4 : sizeof(V) <= 8 ? 2 : 1;
  /// A warp gets at least this many warp tiles before another block is added: small inputs use few
  /// blocks (few partials for the last block to fold), large ones fill the GPU.
  static constexpr int min_tiles_per_warp = unroll;
  /// Upper bound on resident blocks per SM we ask for (the occupancy calculator may give fewer).
  static constexpr int max_blocks_per_sm = 8;
  /// Blocks per call never exceed this (the retirement ticket counts in 24 bits).
  static constexpr int max_blocks = 1 << 16;
};

/// Who reads what: every warp g of the grid reduces warp tiles [tile_begin(g), tile_begin(g + 1)).
struct reduce_layout {
  std::int64_t n = 0;             // real elements
  std::int64_t virtual_n = 0;     // n + offset
  int offset = 0;                 // virtual positions before the first real element (< items)
  int items = 1;                  // elements per lane chunk
  std::int64_t tiles = 0;         // warp tiles: ceil(virtual_n / (32 * items))
  std::int64_t full_end = 0;      // tiles [full_begin, full_end) lie wholly inside the input
  int full_begin = 0;
  int blocks = 1;
  int warps_per_block = 1;
  std::int64_t tiles_per_warp = 0;  // q = tiles / (blocks * warps)
  std::int64_t extra_tiles = 0;     // r = tiles % (blocks * warps): warps g < r get q + 1

  __host__ __device__ std::int64_t tile_items() const { return 32 * static_cast<std::int64_t>(items); }
  /// First tile of warp g (g may be the total warp count: then it is `tiles`).
  __host__ __device__ std::int64_t tile_begin(std::int64_t g) const {
    return g * tiles_per_warp + (g < extra_tiles ? g : extra_tiles);
  }
};

/// Blocks of `threads` threads that `kernel` can keep resident on the current device (cached per
/// Key type and device: the first call asks the occupancy calculator). Key names the kernel: kernels
/// of one signature share the Kernel type.
template <class Key, class Kernel>
int resident_blocks(const char* algorithm, Kernel kernel, int threads, int cap_per_sm) {
  static std::atomic<int> cache[64];  // per device ordinal; 0 = not asked yet
  const device_info& dev = current_device_info();
  std::atomic<int>* slot = dev.device < 64 ? &cache[dev.device] : nullptr;
  if (slot) {
    const int c = slot->load(std::memory_order_relaxed);
    if (c > 0) return c;
  }
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), algorithm,
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  per_sm = std::max(1, std::min(per_sm, cap_per_sm));
  const int blocks = per_sm * std::max(1, dev.sm_count);
  if (slot) slot->store(blocks, std::memory_order_relaxed);
  return blocks;
}

/// Lays out n elements (read from `offset` positions past a 16-byte boundary on the vector path)
/// over at most max_blocks blocks of `warps` warps (host and device: the block-per-segment reduce
/// lays out each segment on the device).
__host__ __device__ inline reduce_layout make_reduce_layout(std::int64_t n, int offset, int items, int warps, int min_tiles_per_warp,
                                        int max_blocks) {
  reduce_layout L;
  L.n = n;
  L.offset = n > 0 ? offset : 0;
  L.items = items;
  L.virtual_n = n + L.offset;
  const std::int64_t ti = L.tile_items();
  L.tiles = (L.virtual_n + ti - 1) / ti;
  L.full_begin = L.offset > 0 ? 1 : 0;
  L.full_end = L.virtual_n / ti > L.full_begin ? L.virtual_n / ti : L.full_begin;
  const std::int64_t per_block = static_cast<std::int64_t>(warps) * min_tiles_per_warp;
  const std::int64_t want = (L.tiles + per_block - 1) / per_block;
  const std::int64_t capped = want < max_blocks ? want : max_blocks;
  L.blocks = static_cast<int>(capped > 1 ? capped : 1);
  L.warps_per_block = warps;
  const std::int64_t g = static_cast<std::int64_t>(L.blocks) * warps;
  L.tiles_per_warp = L.tiles / g;
  L.extra_tiles = L.tiles % g;
  return L;
}

}  // namespace algo::detail::cuda
