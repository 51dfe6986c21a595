// fast: the default transpose strategy of algo::cuda, built for Hopper.
//
//   1 x n, n x 1        a copy (copy_flat: 16-byte vectors), or a strided copy when the single row
//                       or column is pitched
//   16-byte aligned     aligned_agent: 16-byte loads and stores for every element size (1- and
//                       2-byte elements packed into 4-byte words by register transposes)
//   otherwise           unaligned_agent: element loads, aligned 16-byte stores
//
// Both agents run in the same kernels; Tuning::fast_schedule (transpose_schedule) picks how tiles
// are dealt to CTAs (grid x only: no shape reaches a grid limit).
//
// Default, transpose_schedule::one_tile: fast_single_kernel, one CTA per tile (the hardware hands
// out tiles as CTAs retire, 4 CTAs per SM; the overlap of one CTA's loads with another's drain comes
// from the SM's other CTAs):
//
//     load(tile)    global -> registers
//     stage(tile)   registers -> shared memory
//     barrier
//     drain(tile)   shared memory -> global
//
// transpose_schedule::persistent / balanced: fast_kernel, as many CTAs as fit on the GPU at once,
// each walking tiles blockIdx.x, blockIdx.x + gridDim.x, ... in a software pipeline (the default
// until the session-3 sweep, which found it 1-6 % slower on squares and 15-20 % slower on odd shapes
// than one tile per CTA: every CTA waits on its slowest load once per tile, the last round of tiles
// is short, and the 72-80 registers of the unaligned agent left 3 CTAs per SM). While a tile drains,
// the next tile's loads are in flight in registers; shared memory is double-buffered so one barrier
// per tile suffices:
//
//     load(tile 0)
//     loop:  stage(tile i)   registers -> buffer i % 2          (waits for tile i's loads)
//            barrier
//            load(tile i+1)  global -> registers                (in flight during the drain)
//            drain(tile i)   buffer i % 2 -> global
//
// A thread reaches stage(i + 2) (buffer i % 2 again) only after barrier i + 1, which every thread
// passes only after finishing drain(i): the buffer is free.
//
// With Tuning::fast_async_stages = S >= 2, aligned 4-, 8- and 16-byte elements run fast_async_kernel
// instead (persistent): cp.async copies each tile straight into a ring of S shared tiles, so S - 1
// tiles of loads are in flight per CTA and none of them waits in registers for a barrier:
//
//     load_async(tiles 0 .. S-2), one commit group each
//     loop i:  wait until tile i's group is complete (S - 2 younger groups may still fly)
//              barrier                        (tile i visible to all; drain(i - 1) done by all)
//              load_async(tile i + S - 1)     into slot (i - 1) % S, freed by that barrier
//              drain(tile i)                  slot i % S -> global
//
// S = 1 with one tile per CTA is fast_single_async_kernel (cp.async, no registers hold the tile).
// None of the cp.async forms beat the register forms on the GPUs measured (bench/notes/transpose.md).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "../runtime.cuh"
#include "transpose_common.cuh"
#include "transpose_copy.cuh"
#include "transpose_fast_aligned.cuh"
#include "transpose_fast_unaligned.cuh"
#include "transpose_tiled.cuh"

namespace algo::detail::cuda::transpose_kernels {

template <class Agent>
__global__ void __launch_bounds__(Agent::threads, Agent::min_blocks) fast_kernel(const __grid_constant__ Agent agent) {
  __shared__ typename Agent::smem_t buffer[2];
  typename Agent::regs_t regs;
  const int tid = threadIdx.x;
  const std::int64_t total = agent.grid.total;
  std::int64_t t = blockIdx.x;
  if (t >= total) return;
  auto tile = agent.grid.locate(t);
  agent.load(tile, tid, regs);
  for (int buf = 0;; buf ^= 1) {
    agent.stage(tile, tid, regs, buffer[buf]);
    __syncthreads();
    const auto current = tile;
    const std::int64_t next = t + gridDim.x;
    if (next < total) {
      tile = agent.grid.locate(next);
      agent.load(tile, tid, regs);
    }
    agent.drain(current, tid, buffer[buf]);
    if (next >= total) break;
    t = next;
  }
}

/// One buffer, one tile at a time (transpose_schedule::one_tile: a grid of one CTA per tile, so the
/// loop runs once unless there are more than 2^30 tiles). No software pipeline inside the CTA: the
/// overlap comes from the other CTAs on the SM; half the shared memory of fast_kernel.
template <class Agent>
__global__ void __launch_bounds__(Agent::threads, Agent::min_blocks) fast_single_kernel(const __grid_constant__ Agent agent) {
  __shared__ typename Agent::smem_t buffer;
  typename Agent::regs_t regs;
  const int tid = threadIdx.x;
  for (std::int64_t t = blockIdx.x; t < agent.grid.total; t += gridDim.x) {
    const auto tile = agent.grid.locate(t);
    agent.load(tile, tid, regs);
    if (t != blockIdx.x) __syncthreads();  // the previous tile's drain is done by every thread
    agent.stage(tile, tid, regs, buffer);
    __syncthreads();
    agent.drain(tile, tid, buffer);
  }
}

/// fast_single_kernel with the tile copied by cp.async straight into shared memory (no registers
/// hold it: more CTAs fit per SM).
template <class Agent>
__global__ void __launch_bounds__(Agent::threads, Agent::min_blocks)
    fast_single_async_kernel(const __grid_constant__ Agent agent) {
  __shared__ typename Agent::smem_t buffer;
  const int tid = threadIdx.x;
  for (std::int64_t t = blockIdx.x; t < agent.grid.total; t += gridDim.x) {
    const auto tile = agent.grid.locate(t);
    if (t != blockIdx.x) __syncthreads();  // the previous tile's drain is done by every thread
    agent.load_async(tile, tid, buffer);
    async_commit();
    async_wait<0>();
    __syncthreads();
    agent.drain(tile, tid, buffer);
  }
}

template <class Agent, int Stages>
__global__ void __launch_bounds__(Agent::threads, Agent::min_blocks)
    fast_async_kernel(const __grid_constant__ Agent agent) {
  static_assert(Stages >= 2, "a ring of at least two tiles");
  __shared__ typename Agent::smem_t ring[Stages];
  const int tid = threadIdx.x;
  const std::int64_t total = agent.grid.total, step = gridDim.x;
  std::int64_t t = blockIdx.x;
  if (t >= total) return;
  // ---- prologue: the CTA's first Stages - 1 tiles, one group each (empty past the end) ----
#pragma unroll
  for (int k = 0; k < Stages - 1; ++k) {
    const std::int64_t ahead = t + k * step;
    if (ahead < total) agent.load_async(agent.grid.locate(ahead), tid, ring[k]);
    async_commit();
  }
  // ---- steady state: one group committed per tile, so "Stages - 2 pending" means tile i landed ----
  int slot = 0;  // i % Stages
  for (; t < total; t += step) {
    async_wait<Stages - 2>();
    __syncthreads();
    const std::int64_t ahead = t + (Stages - 1) * step;
    const int free_slot = slot == 0 ? Stages - 1 : slot - 1;
    if (ahead < total) agent.load_async(agent.grid.locate(ahead), tid, ring[free_slot]);
    async_commit();
    agent.drain(agent.grid.locate(t), tid, ring[slot]);
    slot = slot == Stages - 1 ? 0 : slot + 1;
  }
  async_wait<0>();  // nothing is left in flight (every group past the end is empty)
}

/// Launches `Kernel` over the agent's tiles. Schedule (transpose_schedule) one_tile: one CTA per
/// tile (up to 2^30; the kernels loop past that). persistent: one CTA per resident slot of the GPU
/// (occupancy of `Kernel`, asked once per kernel), at most one per tile; balanced: that grid trimmed
/// so every CTA takes the same number of tiles.
template <auto Kernel, bool MaxShared, int Schedule, class Agent>
void launch_tiles(const Agent& agent, cudaStream_t stream, const char* name) {
  constexpr int threads = Agent::threads;
  if (agent.grid.total == 0) return;
  // CTAs per SM, asked once per kernel (per process: every GPU this library targets is one
  // architecture). A failed query (out of memory while the module loads lazily, say) is not cached.
  static std::atomic<int> cached_per_sm{0};
  int per_sm = cached_per_sm.load(std::memory_order_relaxed);
  if (per_sm == 0) {
    if constexpr (MaxShared) {  // a hint: let the L1 / shared split favour shared memory (ring kernels)
      if (cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared) !=
          cudaSuccess)
        (void)cudaGetLastError();
    }
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads, 0) != cudaSuccess || blocks <= 0) {
      (void)cudaGetLastError();
      per_sm = 1;
    } else {
      per_sm = blocks;
      cached_per_sm.store(blocks, std::memory_order_relaxed);
    }
  }
  const std::int64_t total = agent.grid.total;
  std::int64_t blocks = std::int64_t(current_device_info().sm_count) * per_sm;
  if constexpr (Schedule == transpose_schedule::one_tile) {
    blocks = grid_for(total);
  } else if constexpr (Schedule == transpose_schedule::balanced) {
    const std::int64_t rounds = (total + blocks - 1) / blocks;  // tiles of the busiest CTA
    blocks = (total + rounds - 1) / rounds;                     // the fewest CTAs that keep it so
  }
  if (blocks > total) blocks = total;
  constexpr auto kernel = Kernel;
  kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(agent);
  check_launch("transpose", name);
}

/// The register pipeline (fast_kernel) or, where the agent and the tuning allow, the cp.async ring.
template <class Tuning, class Agent>
void launch_fast(const Agent& agent, cudaStream_t stream, const char* name) {
  constexpr int stages = Tuning::fast_async_stages;
  if constexpr (Tuning::fast_schedule == transpose_schedule::one_tile && Agent::async_capable && stages == 1) {
    launch_tiles<fast_single_async_kernel<Agent>, true, Tuning::fast_schedule>(agent, stream, name);
  } else if constexpr (Agent::async_capable && stages >= 2) {
    static_assert(stages * Tuning::fast_tile_bytes <= 48 * 1024, "the ring is static shared memory");
    launch_tiles<fast_async_kernel<Agent, stages>, true, Tuning::fast_schedule>(agent, stream, name);
  } else if constexpr (Tuning::fast_schedule == transpose_schedule::one_tile) {
    launch_tiles<fast_single_kernel<Agent>, false, Tuning::fast_schedule>(agent, stream, name);
  } else {
    launch_tiles<fast_kernel<Agent>, false, Tuning::fast_schedule>(agent, stream, name);
  }
}

/// Rows, row pitches and batch strides all 16-byte aligned (the aligned agent's requirement).
inline bool rows_aligned16(const void* in, const void* out, const transpose_shape& s, int e) {
  if (misalignment16(in) != 0 || misalignment16(out) != 0) return false;
  if ((s.ld_in * e) % 16 != 0 || (s.ld_out * e) % 16 != 0) return false;
  if (s.count > 1 && ((s.stride_in * e) % 16 != 0 || (s.stride_out * e) % 16 != 0)) return false;
  return true;
}

/// The fast strategy on E-byte words (Tuning: transpose_tuning, or a variant of it for the bench).
template <int E, class Tuning = transpose_tuning>
void fast(cudaStream_t stream, const word_t<E>* in, word_t<E>* out, const transpose_shape& s) {
  // ---- degenerate shapes: 1 x n and n x 1 are copies ----
  if (s.rows == 1 || s.cols == 1) {
    const std::int64_t n = s.rows * s.cols;
    const std::int64_t si = s.rows == 1 ? 1 : s.ld_in;   // element k: in[k * si] ...
    const std::int64_t so = s.rows == 1 ? s.ld_out : 1;  // ... goes to out[k * so]
    if (n == 1 || (si == 1 && so == 1)) {
      if (s.count == 1) return copy_flat(stream, in, out, n);
      if (s.stride_in == n && s.stride_out == n) return copy_flat(stream, in, out, n * s.count);
    }
    return copy_strided(stream, in, si, s.stride_in, out, so, s.stride_out, n, s.count);
  }
  // ---- tiles ----
  if (rows_aligned16(in, out, s, E))
    return launch_fast<Tuning>(aligned_agent<E, Tuning>::make(in, out, s), stream, "fast_kernel<aligned>");
  if constexpr (E < 16) {
    launch_fast<Tuning>(unaligned_agent<E, Tuning>::make(in, out, s), stream, "fast_kernel<unaligned>");
  } else {
    tiled<true>(stream, in, out, s);  // 16-byte words are 16-byte aligned: not reached
  }
}

}  // namespace algo::detail::cuda::transpose_kernels
