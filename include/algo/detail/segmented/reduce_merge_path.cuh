// algo::cuda's segmented_reduce: one balanced pass over the merge of the segment ends and the
// elements (merge-path partitioning, as in Merrill & Garland's merge-based SpMV and moderngpu's
// segreduce), so that every thread walks the same number of items, elements or segment ends,
// whatever the mix of segment lengths:
//   - many short segments fall inside one thread, which folds and writes them on its own;
//   - a medium one spans threads of a block: the block scan of the threads' carries joins it;
//   - a long one spans tiles: each tile leaves its carry, and a scan of the tiles' carries
//     (the library's own scan, so deterministic for floats) finishes the segment, in order.
// No host round trip: the partition is searched on the device, from the offsets themselves.
//
// Phases (each named below):
//   partition   one thread per tile boundary: a binary search of the merge path in the offsets;
//   load        the tile's elements (as accumulators) and its segment ends into shared memory,
//               coalesced;
//   walk        each thread finds its start in the tile (a search in shared memory) and walks its
//               items in order: an element folds into the running value, an end closes a segment;
//               segments that begin and end in the thread are written at once;
//   join        a block scan of the threads' carries gives each thread the fold of its first
//               segment's elements in the threads before it; that segment is written, or, when
//               it began in an earlier tile, its in-tile part is left for the tile prefix;
//   tile prefix an inclusive scan over the tiles' carries; the segment that began before tile t
//               takes the scan at tile t - 1 in front of its in-tile part.
// Every combination keeps the order of the operands, so non-commutative operators are exact, and
// the grouping depends only on the offsets and the tile size, so floats are the same run to run.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../policy.hpp"
#include "../config.hpp"
#include "../cuda/block/block_scan.cuh"
#include "../cuda/block/block_scan_common.cuh"
#include "../cuda/runtime.cuh"
#include "lifted.hpp"

namespace algo::detail::segmented::merge_path {

// ---- carries --------------------------------------------------------------------------------------
/// A span's contribution to the segment open at its end: the fold of the elements after its last
/// segment end (flags & has_value), and whether it holds an end (flags & closes).
template <class Acc>
struct carry {
  Acc value;
  int flags;
};
inline constexpr int has_value = 1, closes = 2;
/// In a tile's head record: its first segment began in an earlier tile.
inline constexpr int needs_prefix = 2;

/// The segmented operator on carries (associative whenever op is; keeps the operands' order).
template <class Op>
struct carry_op {
  mutable Op op;
  ALGO_EXEC_CHECK_DISABLE
  template <class Acc>
  ALGO_HD carry<Acc> operator()(const carry<Acc>& a, const carry<Acc>& b) const {
    if (b.flags & closes) return b;
    if (!(b.flags & has_value)) return a;
    if (!(a.flags & has_value)) return carry<Acc>{b.value, a.flags | has_value};
    return carry<Acc>{static_cast<Acc>(op(a.value, b.value)), a.flags | has_value};
  }
};

// ---- the tile shape --------------------------------------------------------------------------------
template <class Acc>
struct config {
  static constexpr int threads = 256;
  // odd item counts: a warp's threads read their runs of the tile in shared memory without bank
  // conflicts (256 x 13 measured best of 64-512 threads x 7-19 items on the H100, bench/notes/keys_segments.md)
  static constexpr int items = sizeof(Acc) <= 4 ? 13 : sizeof(Acc) <= 8 ? 7 : sizeof(Acc) <= 16 ? 5 : 3;
  static constexpr int tile = threads * items;  // merge items (elements + segment ends) per block
};

// ---- the merge path ------------------------------------------------------------------------------------
/// How many segment ends come among the first `diag` items of the merge of the ends end(0),
/// end(1), ... (non-decreasing element indices) with the elements 0, 1, ...: the end of a segment
/// comes before element i when end <= i (a segment closes before the next one's first element).
template <class I, class End>
ALGO_HD I ends_before(End end, I diag, I elements, I ends) {
  I lo = diag > elements ? diag - elements : 0;
  I hi = diag < ends ? diag : ends;
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (end(mid) <= diag - 1 - mid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- partition -----------------------------------------------------------------------------------------
/// part[p] = the ends before merge item p * tile, p = 0 .. tiles (the last one clamped to the end).
template <class OffIt>
__global__ void partition_kernel(OffIt offsets, long long base, long long n, long long segments, long long tile,
                                 long long tiles, long long* part) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p <= tiles; p += stride) {
    const long long total = n + segments;
    const long long diag = p * tile < total ? p * tile : total;
    part[p] = ends_before<long long>([&](long long k) { return static_cast<long long>(offsets[k + 1]) - base; }, diag,
                                     n, segments);
  }
}

// ---- the tile kernel: load, walk, join -------------------------------------------------------------------
/// out[k] from the fold of one segment: init op fold, or init itself (as T) for an empty one.
template <class OutIt, class Acc, class Op, class T>
__device__ __forceinline__ void write_segment(OutIt out, long long k, const Acc& fold, bool has, const Acc& init, Op& op,
                                              const T& init_as_t) {
  if (has) out[k] = static_cast<Acc>(op(init, fold));
  else out[k] = init_as_t;
}

template <class Cfg, class Phase, class ValIt, class OffIt, class OutIt, class Acc, class Op, class T>
__global__ void __launch_bounds__(Cfg::threads)
    tile_kernel(ValIt values, OffIt offsets, long long base, long long n, long long segments, const long long* part,
                OutIt out, Acc init, Op op, T init_as_t, carry<Acc>* tails, carry<Acc>* heads) {
  constexpr int threads = Cfg::threads, items = Cfg::items, tile = Cfg::tile;
  using C = carry<Acc>;
  using scan_t = cuda::block_scan<C, threads, Phase>;
  struct loaded {
    cuda::shared_array<Acc, tile> values;
    int ends[tile];  // segment ends, as element indices relative to the tile's first element
  };
  __shared__ union shared_t {
    loaded load;
    typename scan_t::temp_storage scan;
  } s;

  const long long t = blockIdx.x;
  const long long d0 = t * tile;
  const long long d1 = d0 + tile < n + segments ? d0 + tile : n + segments;
  const long long k0 = part[t], k1 = part[t + 1];
  const long long i0 = d0 - k0, i1 = d1 - k1;
  const int ne = static_cast<int>(k1 - k0), ni = static_cast<int>(i1 - i0);

  // ---- load: the tile's elements and segment ends, coalesced ------------------------------------
  {
    Acc v[items];
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int idx = static_cast<int>(threadIdx.x) + j * threads;
      if (idx < ni) v[j] = static_cast<Acc>(values[i0 + idx]);
    }
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int idx = static_cast<int>(threadIdx.x) + j * threads;
      if (idx < ni) s.load.values.put(idx, v[j]);
    }
    for (int idx = static_cast<int>(threadIdx.x); idx < ne; idx += threads)
      s.load.ends[idx] = static_cast<int>(static_cast<long long>(offsets[k0 + idx + 1]) - base - i0);
  }
  __syncthreads();

  // ---- walk: this thread's items of the merge, in order ------------------------------------------
  const int dt = static_cast<int>(threadIdx.x) * items < ne + ni ? static_cast<int>(threadIdx.x) * items : ne + ni;
  const int dend = dt + items < ne + ni ? dt + items : ne + ni;
  int kt = ends_before<int>([&](int k) { return s.load.ends[k]; }, dt, ni, ne);
  int it = dt - kt;
  Acc acc{};         // the fold since the last end (or the thread's start)
  bool has = false;  // acc holds at least one element
  int first_k = -1;  // the thread's first end (its segment may have begun before the thread)
  Acc first_acc{};
  bool first_has = false;
#pragma unroll
  for (int j = 0; j < items; ++j) {
    if (dt + j < dend) {
      if (kt < ne && (it >= ni || s.load.ends[kt] <= it)) {
        if (first_k < 0) {
          first_k = kt;
          first_acc = acc;
          first_has = has;
        } else {
          write_segment(out, k0 + kt, acc, has, init, op, init_as_t);
        }
        has = false;
        ++kt;
      } else {
        const Acc x = s.load.values.get(it);
        acc = has ? static_cast<Acc>(op(acc, x)) : x;
        has = true;
        ++it;
      }
    }
  }
  __syncthreads();  // the loads' shared memory becomes the scan's

  // ---- join: the fold of the first segment's elements in the threads before this one -----------------
  const C mine{acc, (has ? has_value : 0) | (first_k >= 0 ? closes : 0)};
  C before{};
  if (!scan_t(s.scan).exclusive_scan(mine, before, carry_op<Op>{op}, [](const C&) { return cuda::none<C>(); }))
    before = C{Acc{}, 0};
  if (first_k >= 0) {
    Acc fold = before.value;
    bool fold_has = (before.flags & has_value) != 0;
    if (first_has) {
      fold = fold_has ? static_cast<Acc>(op(fold, first_acc)) : first_acc;
      fold_has = true;
    }
    // the tile's first segment began in an earlier tile when its start is before the tile's first element
    const bool open = first_k == 0 && k0 > 0 ? static_cast<long long>(offsets[k0]) - base < i0 : (first_k == 0 && i0 > 0);
    if (open) heads[t] = C{fold, (fold_has ? has_value : 0) | needs_prefix};
    else write_segment(out, k0 + first_k, fold, fold_has, init, op, init_as_t);
    if (first_k == 0 && !open) heads[t] = C{Acc{}, 0};
  }
  if (threadIdx.x == 0) {
    if (ne == 0) heads[t] = C{Acc{}, 0};
    tails[t] = scan_t(s.scan).aggregate();
  }
}

// ---- tile prefix: the scan over the tiles' carries finishes the segments that cross tiles --------------
/// Output of the inclusive scan of the tails: position i is the carry of tiles 0 .. i, the prefix
/// of tile i + 1's first segment when that segment began before tile i + 1.
template <class Acc, class OutIt, class Op>
struct prefix_writer {
  const carry<Acc>* heads;
  const long long* part;
  long long tiles;
  OutIt out;
  Acc init;
  mutable Op op;
  ALGO_EXEC_CHECK_DISABLE
  ALGO_HD void operator()(std::int64_t i, const carry<Acc>& before) const {
    const long long t = static_cast<long long>(i) + 1;
    if (t >= tiles) return;
    const carry<Acc> h = heads[t];
    if (!(h.flags & needs_prefix)) return;
    // the segment has elements in the tiles before (it began there), so `before` holds a value
    Acc fold = before.value;
    if (h.flags & has_value) fold = static_cast<Acc>(op(fold, h.value));
    out[part[t]] = static_cast<Acc>(op(init, fold));
  }
};

// ---- the driver --------------------------------------------------------------------------------------------
/// out[k] = init op (segment k, in order), or init (as T) for an empty segment. `values` starts at
/// the first segment's first element; offsets are absolute (offsets[0] == base); n elements.
/// `scan_tiles(in, count, out, op)` runs the policy's inclusive scan (no init) over the tiles' carries.
/// Shape: a tile shape (threads, items, tile) in place of config<Acc> (for tuning sweeps).
template <class Phase, class Shape = void, class Acc, class ValIt, class OffIt, class OutIt, class Op, class T,
          class ScanTiles>
void reduce(const char* name, const device_policy_base& policy, ValIt values, OffIt offsets, std::int64_t segments,
            std::int64_t base, std::int64_t n, OutIt out, const Acc& init, Op op, const T& init_as_t,
            ScanTiles&& scan_tiles) {
  using Cfg = std::conditional_t<std::is_void<Shape>::value, config<Acc>, Shape>;
  using C = carry<Acc>;
  const long long total = n + segments;
  if (total == 0) return;
  const long long tiles = (total + Cfg::tile - 1) / Cfg::tile;
  cuda::temporary_buffer part(policy, static_cast<std::size_t>(tiles + 1) * sizeof(long long));
  cuda::temporary_buffer tails(policy, static_cast<std::size_t>(tiles) * sizeof(C));
  cuda::temporary_buffer heads(policy, static_cast<std::size_t>(tiles) * sizeof(C));

  // ---- partition -------------------------------------------------------------------------------------
  {
    const long long blocks = (tiles + 1 + 255) / 256;
    partition_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, policy.stream>>>(
        offsets, static_cast<long long>(base), static_cast<long long>(n), static_cast<long long>(segments),
        static_cast<long long>(Cfg::tile), tiles, part.as<long long>());
    cuda::check_launch(name, "merge_path::partition_kernel");
  }
  // ---- load, walk, join ---------------------------------------------------------------------------------
  tile_kernel<Cfg, Phase><<<static_cast<unsigned>(tiles), Cfg::threads, 0, policy.stream>>>(
      values, offsets, static_cast<long long>(base), static_cast<long long>(n), static_cast<long long>(segments),
      part.as<long long>(), out, init, op, init_as_t, tails.as<C>(), heads.as<C>());
  cuda::check_launch(name, "merge_path::tile_kernel");
  // ---- tile prefix ----------------------------------------------------------------------------------------
  if (tiles > 1) {
    using W = prefix_writer<Acc, OutIt, Op>;
    const indexed_output<W> fix(W{heads.as<C>(), part.as<long long>(), tiles, out, init, op}, 0);
    scan_tiles(static_cast<const C*>(tails.as<C>()), static_cast<std::int64_t>(tiles), fix, carry_op<Op>{op});
  }
}

}  // namespace algo::detail::segmented::merge_path
