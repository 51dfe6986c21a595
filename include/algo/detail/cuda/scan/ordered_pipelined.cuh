// Strategy 6, pipelined: the ordered look-back (ordered_lookback.cuh) in persistent blocks that keep
// their next tile's loads in flight while they look back. Same tiles, same block scan, same
// look-back, so the same bits as the one-block-per-tile kernel.
//
// Why: in the one-block-per-tile kernel a block spends a good part of its tile's life in the
// look-back (reduce_by_key, 2^26 pairs on an H100: ~3.2 us of ~8 us), holding one of its SM's few
// slots with no loads in flight; skipping the look-back (timing only) makes the kernel 1.3x faster.
// Here each block holds two tiles: the one it scans and the next one it has drawn, whose keys and
// values cp.async copies straight into its second shared-memory buffer (no registers) meanwhile.
// Only input / output families with a tile pipeline (scan_tile.cuh, tile_pipeline) run it.
//
// ---- one block ----------------------------------------------------------------------------------------
//   draw      tile t (a ticket), start its copy into buffer 0;
//   loop      draw t' (the next ticket); start t''s copy into the other buffer (full tiles only);
//             wait for t's copy (cp.async.wait_group 1: t''s may stay in flight), barrier;
//   scan      t's items from its buffer, the block scan with the ordered look-back in warp 0, the
//             items again from the buffer, the thread scan, the store (which reads the buffer's
//             keys again); a partial tile (the last) takes scan_tile's global loads and stores,
//             with the two buffers as its staging area;
//             barrier (the buffer is read before the copy of the tile after t' overwrites it);
//             t = t', until the ticket runs past the tiles.
//
// ---- forward progress --------------------------------------------------------------------------------
// A block holds at most two tickets: t, which it scans, and t' > t, which it only copies. Let u be
// the smallest tile not yet finished. Its block holds it, and not as its copied tile: that block's
// scanned tile would be smaller than u and unfinished. So u is being scanned, and its look-back
// waits only on tiles below u, all finished: u finishes. Blocks not yet resident draw later tickets
// (tickets go only to running blocks). The ticket counter: every block draws until a ticket is past
// the tiles, so tiles + blocks tickets are drawn in all; the block that draws the last resets it.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "../runtime.cuh"
#include "../thread/async_copy.cuh"
#include "ordered_lookback.cuh"
#include "scan_tile.cuh"

namespace algo::detail::cuda {

/// The pipelined kernel for these tile traits, and whether it runs at all (constexpr).
template <class K>
using tile_pipeline_for = tile_pipeline<typename K::in_iterator, typename K::out_iterator>;
template <class K>
constexpr bool pipelined_tiles() {
  if constexpr (!K::tuning::ordered_pipeline || !tile_pipeline_for<K>::value) {
    return false;
  } else {
    return tile_pipeline_for<K>::template fits<K>() && K::items <= 32 &&
           sizeof(typename K::temp_storage) <= 2 * tile_pipeline_for<K>::template buffer_bytes<K>();
  }
}

template <class K, class Problem, class State>
__global__ void __launch_bounds__(K::threads, K::tuning::pipeline_min_blocks)
    ordered_pipelined_kernel(Problem p, State state, unsigned epoch, int num_tiles, int draws) {
  using Acc = typename K::acc_t;
  using Pipe = tile_pipeline_for<K>;
  constexpr std::size_t buffer_bytes = Pipe::template buffer_bytes<K>();
  extern __shared__ uint4 buffers[];  // two tile buffers, 16-byte aligned
  __shared__ typename K::block_scan_t::temp_storage scan;
  __shared__ ordered_storage<Acc, ordered_keep<typename K::tuning, Acc>()> kept;
  __shared__ int tickets[2];
  const auto buffer = [&](int b) { return reinterpret_cast<unsigned char*>(buffers) + b * buffer_bytes; };
  const bool large_grid = num_tiles >= K::tuning::lookback_delay_min_tiles;

  // ---- draw: the next ticket, read by every thread after the barrier (slots alternate, so a draw
  // never overwrites a slot another thread may still read)
  int round = 0;
  const auto draw = [&]() {
    if (threadIdx.x == 0) {
      const int t = state.take();
      if (t == draws - 1) state.reset();  // the last ticket of all: every block has drawn its last
      tickets[round & 1] = t;
    }
    __syncthreads();
    return tickets[round++ & 1];
  };
  const auto copy = [&](int tile, unsigned char* buf) {  // full tiles only; closes a group either way
    if (tile < num_tiles && tile_valid<K>(p.n, tile) == K::tile_items)
      Pipe::template copy<K>(buf, p, static_cast<std::int64_t>(tile) * K::tile_items);
    async_commit();
  };

  int tile = draw();
  if (tile >= num_tiles) return;
  copy(tile, buffer(0));
  for (int b = 0;; b ^= 1) {
    const int next = draw();
    copy(next, buffer(b ^ 1));
    async_wait<1>();  // this tile's copies (the next one's may stay in flight)
    __syncthreads();  // ... and every other thread's

    // ---- scan: from the buffer, the ordered look-back, store -------------------------------------------
    const std::int64_t base = static_cast<std::int64_t>(tile) * K::tile_items;
    const int valid = tile_valid<K>(p.n, tile);
    const auto prefix = [&](const Acc& aggregate) {
      return ordered_look_back<typename K::tuning>(state, epoch, tile, aggregate, p.init, p.op, kept, large_grid);
    };
    if (valid == K::tile_items) {
      Acc x[K::items];
      unsigned bits = Pipe::template load<K>(buffer(b), p, base, x);
      const Acc partial = thread_reduce(x, p.op);
      launder(bits);  // the items are read again after the block scan, not kept in registers
      Acc exclusive;
      const bool has = typename K::block_scan_t(scan).exclusive_scan(partial, exclusive, p.op, prefix);
      Pipe::template reload<K>(buffer(b), p, base, bits, x);
      thread_scan(x, exclusive, has, p.exclusive, p.op);
      Pipe::template store<K>(buffer(b), p, base, bits, x);
    } else {  // the partial last tile: global loads and stores, both buffers as their staging (no
              // copy was started for it or after it, and the tile before is stored)
      scan_tile<K>(*reinterpret_cast<typename K::temp_storage*>(buffers), p, base, valid, prefix);
    }
    if (next >= num_tiles) break;
    __syncthreads();  // the buffer is read: the copy after next may overwrite it
    tile = next;
  }
}

/// Runs the pipelined kernel when the tuning, the iterators and this problem's pointers allow it;
/// returns false (nothing launched) otherwise. Tile state as the ordered look-back's.
template <class Phase, class Block, class TuningBase, class Problem>
bool run_ordered_pipelined(const Problem& p, cudaStream_t stream, device_memory_resource* resource) {
  using K = tile_traits<Problem, Phase, Block, TuningBase>;
  if constexpr (!pipelined_tiles<K>()) {
    return false;
  } else {
    using Pipe = tile_pipeline_for<K>;
    using State = tile_state_for<typename K::acc_t, K::tuning::tile_state_spread>;
    const std::int64_t tiles = K::tiles(p.n);
    if (tiles < 2 || tiles > 0x3fffffff || !Pipe::usable(p)) return false;
    constexpr std::size_t smem = 2 * Pipe::template buffer_bytes<K>();
    constexpr auto kernel = ordered_pipelined_kernel<K, Problem, State>;
    // blocks per SM with this shared memory, asked once per device (a failed query is not cached:
    // the one-block-per-tile kernel runs instead)
    constexpr int max_devices = 128;
    static std::atomic<int> per_sm_cache[max_devices];
    const device_info& info = current_device_info();
    int per_sm = info.device < max_devices ? per_sm_cache[info.device].load(std::memory_order_relaxed) : 0;
    if (per_sm == 0) {
      if (info.shared_per_block_optin < smem + 2048) return false;
      if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) !=
              cudaSuccess ||
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::threads, smem) != cudaSuccess ||
          per_sm <= 0) {
        (void)cudaGetLastError();
        return false;
      }
      if (info.device < max_devices) per_sm_cache[info.device].store(per_sm, std::memory_order_relaxed);
    }
    const std::int64_t resident = static_cast<std::int64_t>(per_sm) * info.sm_count;
    const int grid = static_cast<int>(tiles < resident ? tiles : resident);
    const auto launch = [&](void* memory, unsigned epoch) {
      kernel<<<static_cast<unsigned>(grid), K::threads, smem, stream>>>(p, State::at(memory, tiles), epoch,
                                                                        static_cast<int>(tiles),
                                                                        static_cast<int>(tiles) + grid);
      check_launch(p.name, "ordered_pipelined_kernel");
    };
    with_tile_state(p.name, State::bytes(tiles), State::layout_key(tiles), stream, resource, launch);
    return true;
  }
}

/// The ordered look-back with an explicit tuning: pipelined where it can be, one block per tile
/// otherwise (the bench and tests run variants through this).
template <class Phase, class Block, class TuningBase, class Problem>
void run_ordered_tuned(const Problem& p, cudaStream_t stream, device_memory_resource* resource = nullptr) {
  if (run_ordered_pipelined<Phase, Block, TuningBase>(p, stream, resource)) return;
  run_ordered_lookback_tuned<Phase, Block, TuningBase>(p, stream, resource);
}

template <class Phase, class Block, class Problem>
void run_scan(const device_policy_base& policy, scan_strategy::ordered_lookback_t, Phase, Block, const Problem& p) {
  run_ordered_tuned<Phase, Block, ordered_tuning_base>(p, policy.stream, policy.resource);
}

}  // namespace algo::detail::cuda
