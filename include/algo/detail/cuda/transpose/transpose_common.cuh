// Pieces shared by the algo::cuda transpose kernels (transpose/transpose_*.cuh):
//   word_t<E>        the unsigned word an E-byte element is moved as (E = 1, 2, 4, 8, 16)
//   block_grid       blocks (or tiles) of every matrix of a batch, numbered in one grid dimension
//   vector helpers   16-byte vectors: element get/set, byte permutes, small register transposes
//   launch helpers   grid sizes for grid-stride loops (grid x only: y and z stay 1 for any shape)
//
// Everything here is __host__ __device__ where it can be, so index math can be checked on the host.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstdint>
#include <type_traits>

#include "../../config.hpp"
#include "../../transpose_shape.hpp"

namespace algo::detail::cuda::transpose_kernels {

// ---- tuning ---------------------------------------------------------------------------------------
/// How the fast strategy deals tiles to CTAs.
struct transpose_schedule {
  /// One CTA per resident slot; CTA k takes tiles k, k + grid, ... (the last round may be short).
  static constexpr int persistent = 0;
  /// Persistent, but with the grid trimmed so that every CTA takes the same number of tiles.
  static constexpr int balanced = 1;
  /// One tile per CTA (grid = tiles, up to 2^30): the hardware deals tiles as CTAs retire.
  static constexpr int one_tile = 2;
};

/// Every tuning constant of the transpose kernels (bench/notes/transpose.md says why).
struct transpose_tuning {
  // naive family (naive_row, naive_col, unrolled, diagonal) and the copy_row / copy_col bounds
  static constexpr int naive_block_x = 32, naive_block_y = 8;
  static constexpr int unroll = 4;  // unrolled: elements per thread
  // tiled family: tile x tile elements, tile x tiled_block_y threads
  static constexpr int tile = 32, tiled_block_y = 8;
  // fast: CTAs of fast_threads threads; each tile is fast_tile_bytes of shared memory,
  // fast_tile_bytes / 16 / fast_threads 16-byte vectors in flight per thread
  static constexpr int fast_threads = 256;
  static constexpr int fast_tile_bytes = 16384;
  // fast, aligned rows: tiles as square as fast_tile_bytes allows (8-byte elements: 64 rows x 32
  // columns), then fast_wide times twice as wide and half as tall (negative: twice as tall and
  // half as wide), as long as both sides keep 128 bytes
  static constexpr int fast_wide = 0;
  // fast: CTAs per SM the register allocation must allow (__launch_bounds__), aligned / unaligned
  // (unaligned 4: 64 registers, 12 bytes spilled; 3: 72-80 registers; H200 sweep, 8191 x 8193 f32:
  // 1.147x / 1.099x cuBLAS)
  static constexpr int fast_min_blocks = 4;
  static constexpr int unaligned_min_blocks = 4;
  // fast: drain tasks (one 16-byte output vector each) unrolled together per thread; 0 = all of them
  // (their shared loads all issue before the first store: more registers, more overlap)
  static constexpr int fast_drain_unroll = 0;
  // fast, 16-byte aligned rows of 4-, 8- and 16-byte elements: tiles loaded straight into shared
  // memory by cp.async through a ring of fast_async_stages tiles (stages - 1 tiles of loads in
  // flight per CTA while one drains); 0 = the register pipeline (load, stage, drain) as for 1- and
  // 2-byte elements. stages * fast_tile_bytes must stay within 48 KB (static shared memory).
  // 1 = one tile per CTA by cp.async (fast_single_async_kernel). 0 by default: every cp.async form
  // was slower than the register forms on the H100 and H200 (bench/notes/transpose.md); the rings and the
  // single form are tested (test_cuda_transpose_strategies, clean under compute-sanitizer) and the bench
  // keeps variant rows.
  static constexpr int fast_async_stages = 0;
  // fast, rows or columns not 16-byte aligned: tile rows x columns per element size (1, 2, 4, 8 B),
  // and the boundary (16 or 32 bytes) each output row's piece is shifted to. 8-byte elements take
  // tall 64 x 32 tiles (H200, 8191 x 8193 f64: 0.985x -> 1.029x cuBLAS); 4-byte ones keep 64 x 64
  // (tall tiles: +1 % on 8191 x 8193, -2.3 % on 4097 x 16411).
  static constexpr int unaligned_rows(int e) { return e == 1 ? 128 : 64; }
  static constexpr int unaligned_cols(int e) { return e == 1 || e == 8 ? 32 : 64; }
  static constexpr int unaligned_align_bytes = 32;
  // degenerate shapes (1 x n, n x 1): a flat copy, vectors_per_thread 16-byte vectors per thread
  static constexpr int copy_threads = 256;
  static constexpr int copy_vectors_per_thread = 4;
  // fast and copy_flat: stores marked evict-first (st.global.cs): the output is not read again soon
  static constexpr bool evict_first_stores = false;
  // fast: how tiles are dealt to CTAs (transpose_schedule) and in what order they are numbered
  // (fast_band: 0 = row-major tile order; b > 0 = bands of b tile rows, each walked column by column).
  // One tile per CTA beat the persistent grid on every shape of the sweep (H100: 8191 x 8193 f32
  // 1.21x -> 1.41x cuBLAS, 8192^2 f32 0.94x -> 0.99x); no band order beat row-major.
  static constexpr int fast_schedule = transpose_schedule::one_tile;
  static constexpr int fast_band = 0;
};

// The fast strategy takes its tuning as a type (fast<E, Tuning>), so the bench can time variants
// side by side: a variant derives from transpose_tuning and overrides a few constants.

// ---- words ----------------------------------------------------------------------------------------
template <int E>
struct word;
template <>
struct word<1> { using type = std::uint8_t; };
template <>
struct word<2> { using type = std::uint16_t; };
template <>
struct word<4> { using type = std::uint32_t; };
template <>
struct word<8> { using type = unsigned long long; };
template <>
struct word<16> { using type = uint4; };
template <int E>
using word_t = typename word<E>::type;

template <std::size_t E>
inline constexpr bool is_word_size_v = E == 1 || E == 2 || E == 4 || E == 8 || E == 16;

constexpr int log2_of(std::int64_t v) {
  int k = 0;
  while ((std::int64_t(1) << k) < v) ++k;
  return k;
}

// ---- blocks of a batch, in one grid dimension -----------------------------------------------------
/// Cuts each matrix of the batch into block_rows x block_cols blocks (of the matrix the block grid
/// walks: the input for most kernels). Block t of the whole batch is matrix t / per_matrix, and
/// inside it block row (t % per_matrix) / cols_of_blocks, block column (t % per_matrix) % cols_of_blocks.
struct block_grid {
  std::int64_t block_rows = 1, block_cols = 1;
  std::int64_t rows_of_blocks = 0, cols_of_blocks = 0, per_matrix = 0, total = 0;
  std::int64_t band = 0;  // locate: 0 = row-major; b > 0 = bands of b block rows, column by column

  block_grid() = default;
  ALGO_HD block_grid(std::int64_t rows, std::int64_t cols, std::int64_t count, std::int64_t br, std::int64_t bc)
      : block_rows(br), block_cols(bc) {
    rows_of_blocks = (rows + br - 1) / br;
    cols_of_blocks = (cols + bc - 1) / bc;
    per_matrix = rows_of_blocks * cols_of_blocks;
    total = per_matrix * count;
  }

  struct block {
    std::int64_t b;       // matrix of the batch
    std::int64_t r0, c0;  // first row and column of the block
  };
  /// Row-major block order (band == 0): consecutive blocks share rows (reads stay on open DRAM
  /// pages). With band > 0 the block rows are grouped in bands of `band` rows (the last band may be
  /// shorter) and each band is walked column by column: blocks running at the same time then cover
  /// a band x (a few columns) patch, so the output rows they write are long runs too.
  ALGO_HD block locate(std::int64_t t) const {
    // 32-bit divisions whenever the block count allows (a 64-bit one is a long subroutine)
    if (total <= 0x7fffffff) return locate_as<std::uint32_t>(t);
    return locate_as<std::int64_t>(t);
  }
  template <class I>
  ALGO_HD block locate_as(std::int64_t t64) const {
    const I t = static_cast<I>(t64), pm = static_cast<I>(per_matrix), cb = static_cast<I>(cols_of_blocks);
    const I b = t / pm, k = t - b * pm;
    I br, bc;
    if (band > 0) {
      const I bd = static_cast<I>(band < rows_of_blocks ? band : rows_of_blocks);
      const I per_band = bd * cb;
      const I bi = k / per_band, rem = k - bi * per_band;
      const I left = static_cast<I>(rows_of_blocks) - bi * bd, h = left < bd ? left : bd;
      bc = rem / h;
      br = bi * bd + (rem - bc * h);
    } else {
      br = k / cb;
      bc = k - br * cb;
    }
    return block{std::int64_t(b), std::int64_t(br) * block_rows, std::int64_t(bc) * block_cols};
  }

  /// Diagonal block order (the seed's "diagonal" kernels): block t of a matrix goes to block row
  /// k % R and block column (k / R + k % R) % C, a bijection that makes the blocks running at the same
  /// time touch different columns as well as different rows, spreading them over DRAM partitions.
  ALGO_HD block locate_diagonal(std::int64_t t) const {
    const std::int64_t b = t / per_matrix, k = t - b * per_matrix;
    const std::int64_t br = k % rows_of_blocks, bc = (k / rows_of_blocks + br) % cols_of_blocks;
    return block{b, br * block_rows, bc * block_cols};
  }
};

// ---- launch helpers -------------------------------------------------------------------------------
/// Blocks for a grid-stride loop over `work` blocks: all of them up to grid x's practical cap
/// (2^30), the loop takes the rest.
inline unsigned grid_for(std::int64_t work) {
  constexpr std::int64_t cap = std::int64_t(1) << 30;
  return static_cast<unsigned>(work < 1 ? 1 : (work < cap ? work : cap));
}

// ---- 16-byte vectors ------------------------------------------------------------------------------
ALGO_HD inline std::uint32_t lane_word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

/// Element e (0 <= e < 16 / E) of a vector of E-byte elements. Written as a loop over the four
/// lane words with compile-time indices, so that a run-time e never sends the vector to local memory.
template <int E>
ALGO_HD word_t<E> vector_get(const uint4& v, int e) {
  if constexpr (E == 16) {
    return v;
  } else if constexpr (E == 8) {
    return (static_cast<unsigned long long>(lane_word(v, 2 * e + 1)) << 32) | lane_word(v, 2 * e);
  } else {
    constexpr int per = 4 / E;
    return static_cast<word_t<E>>(lane_word(v, e / per) >> (8 * E * (e % per)));
  }
}
template <int E>
ALGO_HD void vector_set(uint4& v, int e, word_t<E> x) {
  if constexpr (E == 16) {
    v = x;
  } else {
    constexpr int per = E == 8 ? 1 : 4 / E;  // elements per lane word (8-byte elements: two words each)
    constexpr std::uint32_t mask = E >= 4 ? 0xffffffffu : ((1u << (8 * E)) - 1u);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      std::uint32_t w = lane_word(v, k);
      if constexpr (E == 8) {
        if (k == 2 * e) w = static_cast<std::uint32_t>(x);
        if (k == 2 * e + 1) w = static_cast<std::uint32_t>(x >> 32);
      } else {
        const int shift = 8 * E * (e % per);
        if (k == e / per) w = (w & ~(mask << shift)) | (static_cast<std::uint32_t>(x) << shift);
      }
      if (k == 0) v.x = w;
      if (k == 1) v.y = w;
      if (k == 2) v.z = w;
      if (k == 3) v.w = w;
    }
  }
}

/// PRMT: byte i of the result is byte (sel >> 4i) & 7 of the 8-byte value {hi = b, lo = a}.
ALGO_HD inline std::uint32_t byte_perm(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
#if ALGO_DEVICE_PASS
  return __byte_perm(a, b, sel);
#else
  const unsigned long long ab = (static_cast<unsigned long long>(b) << 32) | a;
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<std::uint32_t>((ab >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
#endif
}

/// 4x4 byte transpose: x[p] holds bytes (row p, columns 0..3); on return x[q] holds bytes
/// (rows 0..3, column q). Eight byte permutes.
ALGO_HD inline void transpose_4x4_bytes(std::uint32_t& x0, std::uint32_t& x1, std::uint32_t& x2, std::uint32_t& x3) {
  const std::uint32_t t0 = byte_perm(x0, x1, 0x5140), t1 = byte_perm(x0, x1, 0x7362);  // rows 0,1 interleaved
  const std::uint32_t t2 = byte_perm(x2, x3, 0x5140), t3 = byte_perm(x2, x3, 0x7362);  // rows 2,3 interleaved
  x0 = byte_perm(t0, t2, 0x5410);
  x1 = byte_perm(t0, t2, 0x7632);
  x2 = byte_perm(t1, t3, 0x5410);
  x3 = byte_perm(t1, t3, 0x7632);
}

/// 2x2 transpose of 16-bit halves: x0 = (row 0: columns 0, 1), x1 = (row 1: ...) becomes
/// x0 = (column 0: rows 0, 1), x1 = (column 1: rows 0, 1).
ALGO_HD inline void transpose_2x2_halves(std::uint32_t& x0, std::uint32_t& x1) {
  const std::uint32_t lo = byte_perm(x0, x1, 0x5410), hi = byte_perm(x0, x1, 0x7632);
  x0 = lo;
  x1 = hi;
}

/// 16-byte global accesses (the caller guarantees alignment). The store is written in PTX: a plain
/// uint4 assignment may be split into four 4-byte stores, and __stwb becomes a "strong" store.
ALGO_HD inline uint4 load16(const void* p) {
#if ALGO_DEVICE_PASS
  return __ldg(static_cast<const uint4*>(p));
#else
  return *static_cast<const uint4*>(p);
#endif
}
template <bool EvictFirst = transpose_tuning::evict_first_stores>
ALGO_HD void store16(void* p, const uint4& v) {
#if ALGO_DEVICE_PASS
  if constexpr (EvictFirst) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
  } else {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
  }
#else
  *static_cast<uint4*>(p) = v;
#endif
}

/// cp.async of one 16-byte vector (global, 16-byte aligned) into shared memory: `bytes` (0 < bytes
/// <= 16) are read, the rest of the 16 is zero-filled. Completion: async_commit / async_wait, then a
/// barrier before other threads read it. On the host (index checks) a plain copy.
ALGO_HD inline void copy_async16(void* smem, const void* gmem, int bytes) {
#if ALGO_DEVICE_PASS
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(gmem), "r"(bytes) : "memory");
#else
  unsigned char* d = static_cast<unsigned char*>(smem);
  const unsigned char* g = static_cast<const unsigned char*>(gmem);
  for (int k = 0; k < 16; ++k) d[k] = k < bytes ? g[k] : 0;
#endif
}
/// Closes this thread's group of cp.async copies issued since the last commit (maybe none).
ALGO_HD inline void async_commit() {
#if ALGO_DEVICE_PASS
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits until at most `Pending` of this thread's most recent groups are still in flight.
template <int Pending>
ALGO_HD void async_wait() {
#if ALGO_DEVICE_PASS
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

/// Byte address modulo 16.
ALGO_HD inline unsigned misalignment16(const void* p) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p) & 15u);
}

}  // namespace algo::detail::cuda::transpose_kernels
