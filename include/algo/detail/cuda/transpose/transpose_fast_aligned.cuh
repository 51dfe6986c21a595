// fast, 16-byte aligned rows: every global access is a 16-byte vector, for every element size.
//
// A tile of the input (tile_rows x tile_cols elements, Tuning::fast_tile_bytes bytes) goes
// through shared memory as a matrix of *words*: word (a, c) holds column c of input rows P*a ..
// P*a + P-1 (P = 4 / E rows for 1- and 2-byte elements, so a word is 4 bytes; P = 1 otherwise, a word
// is one element). Output row c of the tile is then column c of the word matrix, read V = 16 / word
// bytes words at a time: exactly one 16-byte output vector.
//
//   load    each thread loads P input rows x one 16-byte vector (P vectors) into registers
//   stage   for P > 1 it transposes them in registers (4x4 bytes or 2x2 halves: byte permutes), which
//           yields P 16-byte chunks of P consecutive words of one word row, and stores them
//   drain   each lane gathers V words of one word column (V shared loads of 4, 8 or 16 bytes) into a
//           16-byte vector and stores it to the output
//
// For P == 1 (4-, 8-, 16-byte elements) load + stage is also offered as one phase, load_async: each
// vector goes by cp.async straight to its swizzled chunk (fast_async_kernel keeps a ring of tiles).
//
// Shared memory is addressed in 16-byte chunks, XOR-swizzled inside each group of 8 chunks of a word
// row (no padding): chunk cc of word row a lives at a * chunks_per_row + (cc ^ t(cc) ^ u(a)) with
//   u(a)  = (a / V) & 7            the 8 lanes of a drain wavefront (8 consecutive output vectors of
//                                  one row) hit 8 different chunk slots: no bank conflict
//   t(cc) = (cc >> 3) & (P - 1)    the 8 lanes of a stage wavefront (8 consecutive input vectors, each
//                                  storing chunk P*j + s) hit 8 different slots too
// Both are XORs with values below 8, so a chunk never leaves its row's group of 8.
//
// Requirements (checked by the dispatcher): both base pointers 16-byte aligned; ld_in, ld_out and,
// in a batch, both strides multiples of 16 bytes. Vectors that cross the right or bottom edge of the
// matrix are moved element by element; the tile shape adapts to skinny matrices (n x 32 keeps its 32
// columns in every tile instead of wasting half of a square tile).
#pragma once

#include <vector_types.h>

#include <cstdint>

#include "../../config.hpp"
#include "transpose_common.cuh"

namespace algo::detail::cuda::transpose_kernels {

template <int E, class Tuning = transpose_tuning>
struct aligned_agent {
  // ---- compile-time geometry --------------------------------------------------------------------
  static constexpr int threads = Tuning::fast_threads;
  static constexpr int min_blocks = Tuning::fast_min_blocks;
  static constexpr int warps = threads / 32;
  static constexpr int chunks = Tuning::fast_tile_bytes / 16;  // 16-byte chunks per tile
  static constexpr int NV = chunks / threads;                             // vectors per thread, each way
  static constexpr int P = E < 4 ? 4 / E : 1;                             // input rows per word
  static constexpr int WB = E < 4 ? 4 : E;                                // bytes per word
  static constexpr int V = 16 / WB;                                       // words per vector
  static constexpr int EV = 16 / E;                                       // elements per vector
  static constexpr int tasks = NV / P;                                    // load tasks (P rows each) per thread
  static constexpr int drain_unroll = Tuning::fast_drain_unroll > 0 ? Tuning::fast_drain_unroll : NV;
  static_assert(chunks % threads == 0 && NV % P == 0, "a tile must split evenly among the threads");
  static_assert(threads % 32 == 0 && threads * 128 >= Tuning::fast_tile_bytes,
                "a thread keeps its input vector column: threads >= the most vectors a tile row can have");
  static_assert(NV * warps * 32 == chunks, "drain: every warp task is 32 vectors");

  using W = word_t<E>;
  struct regs_t {
    uint4 v[NV];
  };
  struct smem_t {
    uint4 chunk[chunks];
  };

  // ---- run-time geometry (set by make) ----------------------------------------------------------
  const W* in;
  W* out;
  transpose_shape s;
  block_grid grid;  // tiles of the input
  int log_vr;       // log2 of the input vectors per tile row (tile_cols * E / 16)
  int log_cw;       // log2 of the chunks per word row (tile_cols * WB / 16)
  int log_g;        // log2 of the 8-vector groups per tile column (tile_rows * E / 16 / 8)

  /// Picks the tile shape: as square as 16 KB of E-byte elements allow, then traded row for column
  /// (or column for row) while the matrix is narrower (or shorter) than half the tile and both sides
  /// stay at least 128 bytes (8 vectors: what the swizzle needs).
  static aligned_agent make(const W* in, W* out, const transpose_shape& s) {
    const int log_elements = log2_of(Tuning::fast_tile_bytes / E);
    std::int64_t tc = std::int64_t(1) << (log_elements / 2), tr = std::int64_t(1) << (log_elements - log_elements / 2);
    const std::int64_t min_side = 128 / E;
    for (int k = 0; k < Tuning::fast_wide && tr / 2 >= min_side; ++k) tc *= 2, tr /= 2;
    for (int k = 0; k < -Tuning::fast_wide && tc / 2 >= min_side; ++k) tr *= 2, tc /= 2;
    while (tc / 2 >= min_side && s.cols <= tc / 2) tc /= 2, tr *= 2;
    while (tr / 2 >= min_side && s.rows <= tr / 2) tr /= 2, tc *= 2;
    aligned_agent a{in, out, s, block_grid(s.rows, s.cols, s.count, tr, tc), 0, 0, 0};
    a.grid.band = Tuning::fast_band;
    a.log_vr = log2_of(tc * E / 16);
    a.log_cw = log2_of(tc * WB / 16);
    a.log_g = log2_of(tr * E / 16 / 8);
    return a;
  }

  ALGO_HD bool full(const block_grid::block& t) const {
    return t.r0 + grid.block_rows <= s.rows && t.c0 + grid.block_cols <= s.cols;
  }

  /// Shared-memory chunk of word row a, chunk column cc.
  ALGO_HD int chunk_of(int a, int cc) const {
    return (a << log_cw) + (cc ^ ((cc >> 3) & (P - 1)) ^ ((a / V) & 7));
  }

  // ---- phase 1: load (global -> registers) ------------------------------------------------------
  ALGO_HD void load(const block_grid::block& t, int tid, regs_t& r) const {
    if (full(t)) load_tile<true>(t, tid, r);
    else load_tile<false>(t, tid, r);
  }

  /// Task i of the thread: word row a0 + i * a_step, input vector j (the same for every task,
  /// since the thread count is a multiple of the vectors per row).
  template <bool Whole>
  ALGO_HD void load_tile(const block_grid::block& t, int tid, regs_t& r) const {
    const int a0 = tid >> log_vr, j = tid & ((1 << log_vr) - 1), a_step = threads >> log_vr;
    const std::int64_t col = t.c0 + std::int64_t(j) * EV;
    const std::int64_t row0 = t.r0 + std::int64_t(P) * a0;
    const W* src = in + t.b * s.stride_in + row0 * s.ld_in + col;
    const std::int64_t task_step = std::int64_t(P) * a_step * s.ld_in;
#pragma unroll
    for (int i = 0; i < tasks; ++i) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const W* at = src + i * task_step + p * s.ld_in;
        if constexpr (Whole) r.v[i * P + p] = load16(at);
        else r.v[i * P + p] = load_edge(at, row0 + std::int64_t(P) * a_step * i + p < s.rows, s.cols - col);
      }
    }
  }

  /// A vector of which only `avail` elements (maybe none, maybe all) lie inside the matrix.
  ALGO_HD static uint4 load_edge(const W* src, bool row_inside, std::int64_t avail) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (!row_inside || avail <= 0) return v;
    if (avail >= EV) return load16(src);
#pragma unroll 1  // edge vectors only: keep them out of the register budget
    for (int e = 0; e < avail; ++e) vector_set<E>(v, e, src[e]);
    return v;
  }

  // ---- phase 1+2 for P == 1: load_async (global -> shared memory by cp.async, no registers) ------
  /// The same vectors to the same swizzled chunks as load + stage, copied by the async copy unit:
  /// the loads of several tiles can be in flight without holding registers (fast_async_kernel).
  /// Vectors outside the matrix are skipped (their chunks are never drained), vectors crossing the
  /// right edge copy only the elements inside and zero-fill the rest.
  static constexpr bool async_capable = P == 1;
  ALGO_HD void load_async(const block_grid::block& t, int tid, smem_t& sm) const {
    if (full(t)) load_async_tile<true>(t, tid, sm);
    else load_async_tile<false>(t, tid, sm);
  }

  template <bool Whole>
  ALGO_HD void load_async_tile(const block_grid::block& t, int tid, smem_t& sm) const {
    static_assert(P == 1, "1- and 2-byte elements are transposed in registers on the way");
    const int a0 = tid >> log_vr, j = tid & ((1 << log_vr) - 1), a_step = threads >> log_vr;
    const std::int64_t col = t.c0 + std::int64_t(j) * EV, avail = s.cols - col;
    const std::int64_t row0 = t.r0 + a0;
    const W* src = in + t.b * s.stride_in + row0 * s.ld_in + col;
    const std::int64_t task_step = std::int64_t(a_step) * s.ld_in;
#pragma unroll
    for (int i = 0; i < tasks; ++i) {
      uint4* dst = &sm.chunk[chunk_of(a0 + i * a_step, j)];
      if constexpr (Whole) {
        copy_async16(dst, src + i * task_step, 16);
      } else if (row0 + std::int64_t(a_step) * i < s.rows && avail > 0) {
        // A vector crossing the right edge is read element by element: a cp.async with a source
        // size under 16 bytes reads only that much, but compute-sanitizer's memcheck counts all 16
        // (seen on the last row of a pitched matrix whose allocation ends inside the vector).
        if (avail >= EV) copy_async16(dst, src + i * task_step, 16);
        else *dst = load_edge(src + i * task_step, true, avail);
      }
    }
  }

  // ---- phase 2: stage (registers -> shared memory, transposed in registers for P > 1) -----------
  ALGO_HD void stage(const block_grid::block&, int tid, const regs_t& r, smem_t& sm) const {
#pragma unroll
    for (int i = 0; i < tasks; ++i) {
      const int q = tid + threads * i;
      const int a = q >> log_vr, j = q & ((1 << log_vr) - 1);
      if constexpr (P == 1) {
        sm.chunk[chunk_of(a, j)] = r.v[i];
      } else if constexpr (P == 2) {
        // vector j holds columns 8j .. 8j+7 of rows 2a, 2a+1; chunk 2j+h gets columns 8j+4h .. 8j+4h+3
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          std::uint32_t w0 = lane_word(r.v[2 * i], 2 * h), w1 = lane_word(r.v[2 * i + 1], 2 * h);
          std::uint32_t w2 = lane_word(r.v[2 * i], 2 * h + 1), w3 = lane_word(r.v[2 * i + 1], 2 * h + 1);
          transpose_2x2_halves(w0, w1);
          transpose_2x2_halves(w2, w3);
          sm.chunk[chunk_of(a, 2 * j + h)] = make_uint4(w0, w1, w2, w3);
        }
      } else {
        // vector j holds columns 16j .. 16j+15 of rows 4a .. 4a+3; chunk 4j+h gets columns 16j+4h .. +3
#pragma unroll
        for (int h = 0; h < 4; ++h) {
          std::uint32_t x0 = lane_word(r.v[4 * i], h), x1 = lane_word(r.v[4 * i + 1], h);
          std::uint32_t x2 = lane_word(r.v[4 * i + 2], h), x3 = lane_word(r.v[4 * i + 3], h);
          transpose_4x4_bytes(x0, x1, x2, x3);
          sm.chunk[chunk_of(a, 4 * j + h)] = make_uint4(x0, x1, x2, x3);
        }
      }
    }
  }

  // ---- phase 3: drain (shared memory -> global, one 16-byte vector per lane and task) -----------
  /// A warp task is 4 output rows (lane / 8) x 8 consecutive output vectors (lane % 8).
  ALGO_HD void drain(const block_grid::block& t, int tid, const smem_t& sm) const {
    if (full(t)) drain_tile<true>(t, tid, sm);
    else drain_tile<false>(t, tid, sm);
  }

  template <bool Whole>
  ALGO_HD void drain_tile(const block_grid::block& t, int tid, const smem_t& sm) const {
    const int warp = tid >> 5, lane = tid & 31, x = lane & 7, y = lane >> 3;
    W* base = out + t.b * s.stride_out;
#pragma unroll(drain_unroll)
    for (int i = 0; i < NV; ++i) {
      const int id = warp + warps * i;
      const int c = 4 * (id >> log_g) + y;              // output row in the tile (input column)
      const int ap = 8 * (id & ((1 << log_g) - 1)) + x;  // output vector in that row
      const int cc = c / V, within = c % V;
      uint4 v;
      if constexpr (WB == 4) {
        const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(sm.chunk);
        v = make_uint4(words[chunk_of(4 * ap, cc) * 4 + within], words[chunk_of(4 * ap + 1, cc) * 4 + within],
                       words[chunk_of(4 * ap + 2, cc) * 4 + within], words[chunk_of(4 * ap + 3, cc) * 4 + within]);
      } else if constexpr (WB == 8) {
        const unsigned long long* words = reinterpret_cast<const unsigned long long*>(sm.chunk);
#pragma unroll
        for (int k = 0; k < 2; ++k) vector_set<8>(v, k, words[chunk_of(2 * ap + k, cc) * 2 + within]);
      } else {
        v = sm.chunk[chunk_of(ap, cc)];
      }
      const std::int64_t col = t.c0 + c, row = t.r0 + std::int64_t(ap) * EV;
      W* dst = base + col * s.ld_out + row;
      if constexpr (Whole) {
        store16<Tuning::evict_first_stores>(dst, v);
      } else if (col < s.cols && row < s.rows) {
        if (row + EV <= s.rows) {
          store16<Tuning::evict_first_stores>(dst, v);
        } else {
#pragma unroll 1
          for (int e = 0; row + e < s.rows; ++e) dst[e] = vector_get<E>(v, e);
        }
      }
    }
  }
};

}  // namespace algo::detail::cuda::transpose_kernels
