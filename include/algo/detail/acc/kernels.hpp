// algo::acc's compute constructs. Each takes device iterators (runtime.hpp) by value.
//
// The seed's "large inputs by blocks", in directives:
//   gang_fold   each gang folds a contiguous range of tiles into one partial (reduce, scan pass 1)
//   gang_scan   each gang scans its range from a seed (scan pass 3; with one gang, pass 2 over the
//               gang partials)
// Gangs take contiguous ranges of whole tiles (`vector * items` elements: the split's unit).
// Inside a gang the range is cut into `vector` contiguous parts: vector lane j folds part j alone,
// in order (so every fold keeps the order of the range: any associative operator), and the
// lanes' values meet once per gang in a gang-private array (GCC puts it in shared memory):
//   fold   a tree over the lanes, pairs in order (log2(vector) vector loops)
//   scan   Kogge-Stone over the lanes (the seed's work-inefficient scan: log2(vector) steps, each a
//          vector loop over a pair of buffers), then each lane rescans its part from its prefix.
#pragma once

#include <cstdint>

#include "runtime.hpp"

namespace algo::detail::acc {

template <class T>
constexpr T min_of(T a, T b) { return b < a ? b : a; }

/// The split of n elements into gangs of whole tiles.
struct gang_split {
  std::int64_t tile = 0, tiles = 0, tiles_per_gang = 0;
  int gangs = 0;
  static gang_split make(std::int64_t n, std::int64_t tile, int max_gangs) {
    gang_split s;
    s.tile = tile;
    s.tiles = (n + tile - 1) / tile;
    s.gangs = static_cast<int>(min_of<std::int64_t>(s.tiles, max_gangs));
    s.tiles_per_gang = (s.tiles + s.gangs - 1) / s.gangs;
    s.gangs = static_cast<int>((s.tiles + s.tiles_per_gang - 1) / s.tiles_per_gang);  // no empty gangs
    return s;
  }
};

// ---- gang_fold: partials[g] = the fold of gang g's range ------------------------------------------
/// Gang g's range of whole tiles, cut into `vector` contiguous parts of equal length (the last ones
/// shorter or empty): vector lane j folds part j on its own, in order, with no barrier; the lanes'
/// values then meet once per gang. (Lanes that folded one short run per tile met after every tile:
/// a tree of vector loops, each ending on a barrier, per vector x items elements.)
struct gang_parts {
  std::int64_t begin, end, per;
  int lanes;  // lanes with a non-empty part: a prefix of the lanes
  // inlined: GCC 12's nvptx compiler can crash on a call returning a struct of over 8 bytes
  [[gnu::always_inline]] static inline gang_parts of(const gang_split& s, int g, std::int64_t n, int vector) {
    gang_parts r;
    r.begin = g * s.tiles_per_gang * s.tile;
    r.end = min_of(r.begin + s.tiles_per_gang * s.tile, n);
    const std::int64_t len = r.end - r.begin;
    r.per = (len + vector - 1) / vector;
    r.lanes = static_cast<int>((len + r.per - 1) / r.per);
    return r;
  }
};

template <class Acc, class InIt, class Op>
void gang_fold(InIt in, std::int64_t n, Op op, const gang_split s, Acc* partials, int queue) {
  constexpr int V = tuning::vector;
  const int gangs = s.gangs;
#pragma acc parallel num_gangs(gangs) vector_length(V) firstprivate(in, n, op, s) deviceptr(partials) async(queue)
  {
#pragma acc loop gang
    for (int g = 0; g < gangs; ++g) {
      Acc lane[V];  // gang-private
      const gang_parts q = gang_parts::of(s, g, n, V);
#pragma acc loop vector
      for (int j = 0; j < V; ++j) {
        const std::int64_t b = q.begin + j * q.per, e = min_of(b + q.per, q.end);
        if (b < e) {
          Acc a = static_cast<Acc>(in[b]);
#pragma GCC unroll 8
          for (std::int64_t i = b + 1; i < e; ++i) a = static_cast<Acc>(op(a, in[i]));
          lane[j] = a;
        }
      }
      // the lanes' values in order: a tree, pairs (j, j + d) folded into j
      for (int d = 1; d < q.lanes; d *= 2) {
#pragma acc loop vector
        for (int j = 0; j < V; ++j)
          if (j % (2 * d) == 0 && j + d < q.lanes) lane[j] = static_cast<Acc>(op(lane[j], lane[j + d]));
      }
      partials[g] = lane[0];
    }
  }
}

// ---- gang_scan: gang g scans its range from its seed --------------------------------------------
/// Gang g starts from seeds[g] when g > 0 (seeds: device memory, one per gang; seeds[0] unused),
/// gang 0 from init when has_init, else from nothing (an inclusive scan's first element starts it;
/// an exclusive scan then leaves out[0] unwritten). Exclusive: out[i] = the prefix before in[i].
/// The gang's range in `vector` contiguous parts (gang_parts): each lane folds its part, the
/// lanes' folds are scanned by Kogge-Stone, each lane rescans its part from its prefix.
template <bool Exclusive, class Acc, class InIt, class OutIt, class Op>
void gang_scan(InIt in, std::int64_t n, OutIt out, Op op, const gang_split s, const Acc* seeds, bool has_init,
               Acc init, int queue) {
  constexpr int V = tuning::vector;
  const int gangs = s.gangs;
#pragma acc parallel num_gangs(gangs) vector_length(V) firstprivate(in, n, out, op, s, has_init, init) \
    deviceptr(seeds) async(queue)
  {
#pragma acc loop gang
    for (int g = 0; g < gangs; ++g) {
      Acc buf[2][V];  // gang-private: the Kogge-Stone steps read one and write the other
      const bool has_carry = g > 0 || has_init;
      const Acc carry = g > 0 ? seeds[g] : init;
      const gang_parts q = gang_parts::of(s, g, n, V);
      // each lane's fold of its part
#pragma acc loop vector
      for (int j = 0; j < V; ++j) {
        const std::int64_t b = q.begin + j * q.per, e = min_of(b + q.per, q.end);
        if (b < e) {
          Acc a = static_cast<Acc>(in[b]);
#pragma GCC unroll 8
          for (std::int64_t i = b + 1; i < e; ++i) a = static_cast<Acc>(op(a, in[i]));
          buf[0][j] = a;
        }
      }
      // Kogge-Stone: buf[p][j] becomes lane 0's op ... op lane j's
      int p = 0;
      for (int d = 1; d < q.lanes; d *= 2) {
#pragma acc loop vector
        for (int j = 0; j < V; ++j) {
          if (j < q.lanes) buf[1 - p][j] = j >= d ? static_cast<Acc>(op(buf[p][j - d], buf[p][j])) : buf[p][j];
        }
        p = 1 - p;
      }
      // each lane rescans its part from its prefix
#pragma acc loop vector
      for (int j = 0; j < V; ++j) {
        const std::int64_t b = q.begin + j * q.per, e = min_of(b + q.per, q.end);
        if (b < e) {
          bool has = has_carry || j > 0;
          Acc acc = j == 0 ? carry : has_carry ? static_cast<Acc>(op(carry, buf[p][j - 1])) : buf[p][j - 1];
#pragma GCC unroll 8
          for (std::int64_t i = b; i < e; ++i) {
            if (Exclusive) {
              if (has) {
                const Acc next = static_cast<Acc>(op(acc, in[i]));
                out[i] = acc;
                acc = next;
              } else {
                acc = static_cast<Acc>(in[i]);  // out[0] of an exclusive scan without init: unwritten
              }
            } else {
              acc = has ? static_cast<Acc>(op(acc, in[i])) : static_cast<Acc>(in[i]);
              out[i] = acc;
            }
            has = true;
          }
        }
      }
    }
  }
}

// ---- the reduction clause ---------------------------------------------------------------------------
/// OpenACC's reduction operators.
enum class clause_op { none, plus, times, min, max, bit_and, bit_or, bit_xor, logical_and, logical_or };

template <class Op, class Acc, class = void>
struct clause_of {
  static constexpr clause_op value = clause_op::none;
};
template <template <class> class Op, class U, class Acc>
struct clause_of<Op<U>, Acc, std::enable_if_t<std::is_arithmetic<Acc>::value && (std::is_void<U>::value || std::is_same<U, Acc>::value)>> {
  template <template <class> class X>
  static constexpr bool is = std::is_same<Op<U>, X<U>>::value;
  static constexpr bool integral = std::is_integral<Acc>::value;
  static constexpr bool boolean = std::is_same<Acc, bool>::value;
  static constexpr clause_op value =
      boolean ? (is<logical_and> || is<std::logical_and> ? clause_op::logical_and
                 : is<logical_or> || is<std::logical_or> ? clause_op::logical_or
                                                         : clause_op::none)
      : is<plus> || is<std::plus>                     ? clause_op::plus
      : is<multiplies> || is<std::multiplies>         ? clause_op::times
      : is<minimum>                                   ? clause_op::min
      : is<maximum>                                   ? clause_op::max
      : integral && (is<bit_and> || is<std::bit_and>) ? clause_op::bit_and
      : integral && (is<bit_or> || is<std::bit_or>)   ? clause_op::bit_or
      : integral && (is<bit_xor> || is<std::bit_xor>) ? clause_op::bit_xor
                                                      : clause_op::none;
};

#define ALGO_ACC_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define ALGO_ACC_REDUCTION_LOOP(OP)                                                                         \
  ALGO_ACC_PRAGMA(acc parallel num_gangs(gangs) vector_length(V) firstprivate(in, n, op, s) deviceptr(partials) \
                      async(queue))                                                                         \
  {                                                                                                         \
    ALGO_ACC_PRAGMA(acc loop gang)                                                                          \
    for (int g = 0; g < gangs; ++g) {                                                                       \
      const std::int64_t b = g * s.tiles_per_gang * s.tile, e = min_of(b + s.tiles_per_gang * s.tile, n);   \
      Acc r = static_cast<Acc>(in[b]);                                                                      \
      ALGO_ACC_PRAGMA(acc loop vector reduction(OP : r))                                                    \
      for (std::int64_t i = b + 1; i < e; ++i) r = static_cast<Acc>(op(r, in[i]));                         \
      partials[g] = r;                                                                                      \
    }                                                                                                       \
  }

/// The gang partials of a built-in operator: gang g's range through `loop vector reduction(op:r)`
/// (the vector lanes combine by the compiler's shuffles), r starting at the range's first element.
/// No gang-level reduction clause: GCC combines gangs by atomic updates of one location, which
/// thousands of gangs serialize on; the partials are combined in order by the caller instead.
template <class Acc, class InIt, class Op>
void reduce_clause(InIt in, std::int64_t n, Op op, const gang_split s, Acc* partials, int queue) {
  constexpr int V = tuning::vector;
  constexpr clause_op C = clause_of<Op, Acc>::value;
  const int gangs = s.gangs;
  if constexpr (C == clause_op::plus) { ALGO_ACC_REDUCTION_LOOP(+) }
  else if constexpr (C == clause_op::times) { ALGO_ACC_REDUCTION_LOOP(*) }
  else if constexpr (C == clause_op::min) { ALGO_ACC_REDUCTION_LOOP(min) }
  else if constexpr (C == clause_op::max) { ALGO_ACC_REDUCTION_LOOP(max) }
  else if constexpr (C == clause_op::bit_and) { ALGO_ACC_REDUCTION_LOOP(&) }
  else if constexpr (C == clause_op::bit_or) { ALGO_ACC_REDUCTION_LOOP(|) }
  else if constexpr (C == clause_op::bit_xor) { ALGO_ACC_REDUCTION_LOOP(^) }
  else if constexpr (C == clause_op::logical_and) { ALGO_ACC_REDUCTION_LOOP(&&) }
  else if constexpr (C == clause_op::logical_or) { ALGO_ACC_REDUCTION_LOOP(||) }
}
#undef ALGO_ACC_REDUCTION_LOOP
#undef ALGO_ACC_PRAGMA

// ---- transpose: 32 x 32 tiles, one gang each ------------------------------------------------------
/// out[b*so + c*ldo + r] = in[b*si + r*ldi + c] for every matrix b of the batch. The rows of all
/// matrices form one range of R = rows * count rows; a gang takes a tile of T rows x T columns of
/// it, vector lane j row j of the tile, and walks the tile's columns: for each column the lanes'
/// writes are contiguous (r, r + 1, ...), and the reads of a lane (along its row) stay in the cache
/// lines of the tile for the tile's other columns.
///
/// The tiles are written out (gang loop over tile indices, vector loop over a tile's rows, a
/// sequential loop over its columns), not left to OpenACC's tile(T, T) clause: GCC 12's nvptx code
/// for `parallel loop gang vector tile(32, 32) vector_length(32)` over this nest left most of the
/// output unwritten on an H100 (2026-11-23: 257 x 129 and a batch of 5 of 33 x 65, both loops
/// ending in partial tiles and more than one tile of rows; 31 x 33, 1000 x 1 and 1024 x 1536 were
/// right), while the host fallback was right.
template <class InIt, class OutIt>
void transpose_tiles(InIt in, OutIt out, std::int64_t rows, std::int64_t cols, std::int64_t ldi, std::int64_t ldo,
                     std::int64_t count, std::int64_t si, std::int64_t so, int queue) {
  constexpr int T = tuning::transpose_tile;
  const std::int64_t R = rows * count;
  const std::int64_t tiles_c = (cols + T - 1) / T, tiles = (R + T - 1) / T * tiles_c;
#pragma acc parallel loop gang vector_length(T) firstprivate(in, out, rows, cols, ldi, ldo, si, so, R, tiles_c) \
    async(queue)
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t r0 = t / tiles_c * T, c0 = t % tiles_c * T;
    const int nc = static_cast<int>(min_of<std::int64_t>(cols - c0, T));
#pragma acc loop vector
    for (int j = 0; j < T; ++j) {
      const std::int64_t rr = r0 + j;
      if (rr < R) {
        const std::int64_t b = rr / rows, r = rr - b * rows;
        const std::int64_t src = b * si + r * ldi + c0, dst = b * so + c0 * ldo + r;
        for (int i = 0; i < nc; ++i) out[dst + i * ldo] = in[src + i];
      }
    }
  }
}

}  // namespace algo::detail::acc
