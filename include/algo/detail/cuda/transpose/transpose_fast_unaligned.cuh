// fast, rows not 16-byte aligned (odd leading dimensions such as 8191 x 8193): the output is still
// written in aligned 16-byte vectors, so every sector of the output is written whole by one thread
// (partly written sectors are what makes misaligned transposes slow: cuBLAS falls from 2.8 to
// 2.2 TB/s on 8191 x 8193). Inputs are read one element per lane, coalesced along the row.
//
// Output row c (input column c) starts at an address that is not aligned; let delta_c
// (0 <= delta_c <= H = A / E - 1, A = Tuning::unaligned_align_bytes, 16 or 32) be the elements to
// skip to the next A-byte boundary. The tile at rows r0 .. r0 + tile_rows - 1 writes, in each output
// row c, the elements r0 + delta_c .. r0 + delta_c + tile_rows - 1: whole aligned vectors. That
// shifts each output row's piece down by delta_c, so a tile reads H rows more than it has (the halo,
// re-read from L2 by the next tile row), and the first tile row also writes the head 0 .. delta_c - 1
// of each output row, element by element.
//
//   load    each thread loads its column c (tid % tile_cols) of every (threads / tile_cols)-th tile row
//   stage   and stores element (r, c) at shared row r - r0 - delta_c + H: every output vector is
//           then S = 16 / E consecutive shared rows of one column, whatever delta_c is
//   drain   each lane gathers one output vector (S shared loads of E bytes) and stores it
//
// Shared memory: rows of tile_cols elements, column c of row rho stored at c ^ (((rho / S) & 7) * Q)
// (Q = min(S, 4)): the 8 vectors of a drain wavefront lie in 8 different row groups and so in 8
// different banks, and the stage wavefront (32 consecutive columns) stays conflict-free for 4- and
// 8-byte elements, where delta_c depends only on the low bits of c.
#pragma once

#include <vector_types.h>

#include <cstdint>

#include "../../config.hpp"
#include "transpose_common.cuh"

namespace algo::detail::cuda::transpose_kernels {

template <int E, class Tuning = transpose_tuning>
struct unaligned_agent {
  static_assert(E == 1 || E == 2 || E == 4 || E == 8, "16-byte elements are always aligned");
  // ---- compile-time geometry --------------------------------------------------------------------
  static constexpr int threads = Tuning::fast_threads;
  static constexpr int min_blocks = Tuning::unaligned_min_blocks;
  static constexpr int warps = threads / 32;
  static constexpr int S = 16 / E;                                    // elements per output vector
  static constexpr int A = Tuning::unaligned_align_bytes;             // output pieces start A-aligned
  static constexpr int H = A / E - 1;                                 // halo rows (the most delta can be)
  static constexpr int Q = S < 4 ? S : 4;                             // swizzle step
  static constexpr int TR = Tuning::unaligned_rows(E);               // tile rows
  static constexpr int TC = Tuning::unaligned_cols(E);               // tile columns
  static constexpr int RS = TR + H;                                   // shared-memory rows
  static constexpr int cells = RS * TC;
  static constexpr int NL = (cells + threads - 1) / threads;          // loads per thread
  static constexpr int row_step = threads / TC;                       // tile rows between a thread's loads
  static constexpr int VPR = TR / S;                                  // output vectors per tile column
  static constexpr int ND = TC / 4 * (VPR / 8) / warps;               // warp tasks per warp
  static constexpr int log_groups = log2_of(VPR / 8);
  static constexpr int drain_unroll = Tuning::fast_drain_unroll > 0 ? Tuning::fast_drain_unroll : ND;
  static_assert(threads % TC == 0 && TC >= 32 && (TC & (TC - 1)) == 0, "each thread keeps one column");
  static_assert(VPR % 8 == 0 && (TC / 4) * (VPR / 8) == ND * warps, "drain: warp tasks split evenly");
  static_assert((A == 16 || A == 32) && (TR * E) % A == 0, "tile rows keep the alignment of every output row");

  static constexpr bool async_capable = false;  // element loads: the register pipeline only

  using W = word_t<E>;
  struct regs_t {
    W v[NL];
  };
  struct smem_t {
    W cell[cells];
  };

  // ---- run-time geometry ------------------------------------------------------------------------
  const W* in;
  W* out;
  transpose_shape s;
  block_grid grid;  // tiles of the input

  static unaligned_agent make(const W* in, W* out, const transpose_shape& s) {
    unaligned_agent a{in, out, s, block_grid(s.rows, s.cols, s.count, TR, TC)};
    a.grid.band = Tuning::fast_band;
    return a;
  }

  /// Every load, stage and store of the tile is unconditional (no edge, no partial vector).
  ALGO_HD bool full(const block_grid::block& t) const { return t.r0 + RS <= s.rows && t.c0 + TC <= s.cols; }

  ALGO_HD static int swizzle(int rho, int c) { return c ^ (((rho / S) & 7) * Q); }

  /// Load i of a thread (tile row rho) is inside the shared tile: always, but for the last load
  /// when the cells do not split evenly (i is a constant after unrolling).
  ALGO_HD static bool in_tile(int i, int rho) { return cells % threads == 0 || i < NL - 1 || rho < RS; }

  /// Output row `c` of tile t: its first element whose address is A-byte aligned is r0 + delta.
  ALGO_HD W* output_row(const block_grid::block& t, int c) const {
    return out + t.b * s.stride_out + (t.c0 + c) * s.ld_out;
  }
  ALGO_HD int delta(const block_grid::block& t, int c) const {
    const auto address = reinterpret_cast<std::uintptr_t>(output_row(t, c) + t.r0);
    return static_cast<int>(((A - (address & (A - 1))) & (A - 1)) / E);
  }

  // ---- phase 1: load (global -> registers) ------------------------------------------------------
  ALGO_HD void load(const block_grid::block& t, int tid, regs_t& r) const {
    if (full(t)) load_tile<true>(t, tid, r);
    else load_tile<false>(t, tid, r);
  }

  template <bool Whole>
  ALGO_HD void load_tile(const block_grid::block& t, int tid, regs_t& r) const {
    const int c = tid % TC, rho0 = tid / TC;
    const std::int64_t col = t.c0 + c;
    const W* src = in + t.b * s.stride_in + (t.r0 + rho0) * s.ld_in + col;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int rho = rho0 + row_step * i;
      if (!in_tile(i, rho)) break;
      const bool inside = Whole || (t.r0 + rho < s.rows && col < s.cols);
      r.v[i] = inside ? src[std::int64_t(row_step) * i * s.ld_in] : W{};
    }
  }

  // ---- phase 2: stage (registers -> shared memory, shifted by delta) ----------------------------
  ALGO_HD void stage(const block_grid::block& t, int tid, const regs_t& r, smem_t& sm) const {
    const int c = tid % TC, rho0 = tid / TC;
    const int shift = H - (t.c0 + c < s.cols ? delta(t, c) : 0);
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int rho_in = rho0 + row_step * i;
      if (!in_tile(i, rho_in)) break;
      const int rho = rho_in + shift;  // < RS for sure while row_step * (i + 1) <= TR (rho0 < row_step)
      if (row_step * (i + 1) <= TR || rho < RS) sm.cell[rho * TC + swizzle(rho, c)] = r.v[i];
    }
  }

  // ---- phase 3: drain (shared memory -> global, aligned 16-byte vectors) ------------------------
  /// A warp task is 4 output rows (lane / 8) x 8 consecutive output vectors (lane % 8).
  ALGO_HD void drain(const block_grid::block& t, int tid, const smem_t& sm) const {
    if (full(t)) drain_tile<true>(t, tid, sm);
    else drain_tile<false>(t, tid, sm);
  }

  template <bool Whole>
  ALGO_HD void drain_tile(const block_grid::block& t, int tid, const smem_t& sm) const {
    const int warp = tid >> 5, lane = tid & 31, x = lane & 7, y = lane >> 3;
#pragma unroll(drain_unroll)
    for (int i = 0; i < ND; ++i) {
      const int id = warp + warps * i;
      const int c = 4 * (id >> log_groups) + y;                // output row in the tile
      const int m = 8 * (id & ((1 << log_groups) - 1)) + x;    // output vector in that row
      const bool col_inside = t.c0 + c < s.cols;
      const int d = col_inside ? delta(t, c) : 0;
      uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int rho = S * m + k + H;
        vector_set<E>(v, k, sm.cell[rho * TC + swizzle(rho, c)]);
      }
      W* dst = output_row(t, c);
      const std::int64_t row = t.r0 + d + std::int64_t(S) * m;
      if constexpr (Whole) {
        store16<Tuning::evict_first_stores>(dst + row, v);
      } else if (col_inside && row < s.rows) {
        if (row + S <= s.rows) {
          store16<Tuning::evict_first_stores>(dst + row, v);
        } else {
#pragma unroll 1
          for (int k = 0; row + k < s.rows; ++k) dst[row + k] = vector_get<E>(v, k);
        }
      }
      // The head of the output row (elements 0 .. delta - 1), in the first tile row only: element
      // k sits in shared row k - delta + H.
      if (t.r0 == 0 && m == 0 && col_inside) {
#pragma unroll 1
        for (int k = 0; k < d && k < s.rows; ++k) {
          const int rho = k - d + H;
          dst[k] = sm.cell[rho * TC + swizzle(rho, c)];
        }
      }
    }
  }
};

}  // namespace algo::detail::cuda::transpose_kernels
