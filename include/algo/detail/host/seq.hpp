// algo::seq: sequential loops. Also the building blocks that algo::par runs on each of its tiles.
//
// Every loop here combines elements in the order of the range, so operators need only be
// associative. Two loops break the single dependency chain of a textbook fold/scan (one `op` per
// element, each waiting for the previous one) into independent chains, without changing the
// left-to-right order of the operands:
//   fold   the range is cut into contiguous parts folded in lockstep, then combined in order;
//          when `op` is known to commute on a floating-point type (algo::is_commutative) each
//          part is folded in interleaved lanes, which the compiler turns into SIMD code;
//   scan   arithmetic accumulators are scanned in chunks: a chunk's local prefixes do not depend
//          on the running carry, and carry op local-prefix is still the left-to-right result.
// Floating-point results therefore differ from a strict left fold by rounding only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#  include <immintrin.h>
#endif

#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../iterator.hpp"
#include "../scan_kind.hpp"
#include "../transpose_shape.hpp"

namespace algo::detail::host {

// ---- tuning -------------------------------------------------------------------------------------
/// Every tuning constant of the host backends (seq and par). Measured on a 2-core Sapphire Rapids
/// VM: bench/notes/host.md says which value was chosen over which and why.
struct tuning {
  /// fold: contiguous parts folded in lockstep (memory streams, dependency chains) ...
  static constexpr int fold_parts = 4;
  /// ... each in lanes of this many bytes when op commutes on a floating-point type (SIMD).
  static constexpr int fold_lane_bytes = 32;
  /// scan of arithmetic accumulators: elements per chunk.
  static constexpr int scan_chunk = 8;
  /// scans: outputs of at least this many bytes are written with non-temporal stores.
  static constexpr std::int64_t stream_min_bytes = std::int64_t(32) << 20;
  /// par scan: elements per tile. A tile is folded (read from memory) and then scanned (read again,
  /// from L2), so a tile's input and output must sit in L2 together.
  static constexpr std::int64_t scan_tile = std::int64_t(1) << 15;
  /// par scan: fewer tiles than this run sequentially (two tiles were slower than algo::seq).
  static constexpr std::int64_t scan_min_tiles = 4;
  /// par scan: how long a look-back waits for a tile's owner (pause instructions) before folding
  /// that tile itself.
  static constexpr int lookback_spins = 1 << 10;
  /// par reduce: elements per tile handed to a thread; fewer than two tiles run sequentially.
  static constexpr std::int64_t reduce_tile = std::int64_t(1) << 16;
  /// transpose: square tiles (elements per side) copied with a cache-resident working set ...
  static constexpr std::int64_t transpose_tile = 32;
  /// ... grouped into square blocks, the unit of work of a par thread.
  static constexpr std::int64_t transpose_block = 256;
};

/// Elements per tile of algo::par's scan (tests probe sizes around its multiples).
inline constexpr std::int64_t scan_block_elements = tuning::scan_tile;

// ---- iterators over arithmetic values in memory --------------------------------------------------
/// A std::vector iterator to arithmetic values (not vector<bool>).
template <class It, class = void>
struct is_vector_iterator : std::false_type {};
template <class It>
struct is_vector_iterator<It, std::enable_if_t<std::is_arithmetic<iter_value_t<It>>::value &&
                                               !std::is_same<iter_value_t<It>, bool>::value>>
    : std::is_same<It, std::conditional_t<std::is_const<std::remove_reference_t<decltype(*std::declval<It>())>>::value,
                                          typename std::vector<iter_value_t<It>>::const_iterator,
                                          typename std::vector<iter_value_t<It>>::iterator>> {};

/// Pointers and vector iterators to arithmetic values: plain loads (not values computed by a
/// transform or zip iterator).
template <class It>
inline constexpr bool is_arithmetic_memory_v =
    (std::is_pointer<It>::value && std::is_arithmetic<std::remove_pointer_t<It>>::value) || is_vector_iterator<It>::value;

// ---- fold ---------------------------------------------------------------------------------------
/// Left fold of n >= 0 elements onto acc; advances `first`.
template <class Acc, class It, class Op>
Acc fold(It& first, std::int64_t n, Acc acc, Op op) {
  for (std::int64_t i = 0; i < n; ++i, ++first) acc = static_cast<Acc>(op(acc, *first));
  return acc;
}

/// Left fold of n >= 1 elements, starting from the first one (converted to Acc).
///
/// Random-access inputs are cut into four contiguous parts folded in lockstep: independent
/// dependency chains, and four memory streams (one core reads memory much faster from several
/// streams than from one). The parts are combined in order, so this is the left-to-right result
/// for any associative op; the compiler vectorizes each part's chain by itself for integers.
/// Floating-point chains it may not reorder: when op is known to commute (algo::is_commutative)
/// and the elements are plain loads from memory, each part is folded in lanes (lane k takes
/// elements k, k + L, ...), which become SIMD code. (Over transform / zip iterators, e.g. a dot
/// product, GCC 12 compiles the lanes worse than the four chains: measured, bench/notes/host.md.)
template <class Acc, class It, class Op>
Acc fold_nonempty(It first, std::int64_t n, Op op) {
  static_assert(tuning::fold_parts == 4, "fold_nonempty folds four parts");
  if constexpr (is_arithmetic_memory_v<It> && is_commutative_v<Op, Acc> && std::is_floating_point<Acc>::value) {
    constexpr int L = sizeof(Acc) >= tuning::fold_lane_bytes ? 1 : int(tuning::fold_lane_bytes / sizeof(Acc));
    if (n >= 8 * L) {
      const std::int64_t q = n / (4 * L) * L;  // elements per part, a multiple of L
      It p0 = first, p1 = first + q, p2 = first + 2 * q, p3 = first + 3 * q;
      Acc l0[L], l1[L], l2[L], l3[L];
      for (int k = 0; k < L; ++k) {
        l0[k] = static_cast<Acc>(p0[k]);
        l1[k] = static_cast<Acc>(p1[k]);
        l2[k] = static_cast<Acc>(p2[k]);
        l3[k] = static_cast<Acc>(p3[k]);
      }
      for (std::int64_t i = L; i < q; i += L) {
        for (int k = 0; k < L; ++k) l0[k] = static_cast<Acc>(op(l0[k], p0[i + k]));
        for (int k = 0; k < L; ++k) l1[k] = static_cast<Acc>(op(l1[k], p1[i + k]));
        for (int k = 0; k < L; ++k) l2[k] = static_cast<Acc>(op(l2[k], p2[i + k]));
        for (int k = 0; k < L; ++k) l3[k] = static_cast<Acc>(op(l3[k], p3[i + k]));
      }
      for (int k = 0; k < L; ++k)
        l0[k] = static_cast<Acc>(op(static_cast<Acc>(op(l0[k], l1[k])), static_cast<Acc>(op(l2[k], l3[k]))));
      Acc acc = l0[0];
      for (int k = 1; k < L; ++k) acc = static_cast<Acc>(op(acc, l0[k]));
      It rest = first + 4 * q;
      return fold(rest, n - 4 * q, acc, op);
    }
  } else if constexpr (is_random_access_v<It>) {
    if (n >= 64) {
      const std::int64_t q = n / 4;
      It p0 = first, p1 = first + q, p2 = first + 2 * q, p3 = first + 3 * q;
      Acc a0 = static_cast<Acc>(*p0), a1 = static_cast<Acc>(*p1), a2 = static_cast<Acc>(*p2),
          a3 = static_cast<Acc>(*p3);
      for (std::int64_t i = 1; i < q; ++i) {
        a0 = static_cast<Acc>(op(a0, p0[i]));
        a1 = static_cast<Acc>(op(a1, p1[i]));
        a2 = static_cast<Acc>(op(a2, p2[i]));
        a3 = static_cast<Acc>(op(a3, p3[i]));
      }
      It rest = p3 + q;
      a3 = fold(rest, n - 4 * q, a3, op);  // the remainder belongs to the last part
      return static_cast<Acc>(op(static_cast<Acc>(op(a0, a1)), static_cast<Acc>(op(a2, a3))));
    }
  }
  Acc acc = static_cast<Acc>(*first);
  ++first;
  return fold(first, n - 1, acc, op);
}

// ---- non-temporal stores -----------------------------------------------------------------------
/// A normal store first reads the cache line it writes (read-for-ownership): a third of a large
/// scan's memory traffic. Non-temporal stores skip that and the cache; they pay off for outputs
/// much larger than the caches, which nobody reads back soon. Scans use them for raw pointers and
/// std::vector iterators to 4- and 8-byte arithmetic types on x86-64.

/// The element type OutIt lets a scan stream to, or void.
template <class OutIt, class = void>
struct stream_element {
  using type = void;
};
template <class T>
struct stream_element<T*, std::enable_if_t<std::is_arithmetic<T>::value && !std::is_const<T>::value &&
                                           (sizeof(T) == 4 || sizeof(T) == 8)>> {
  using type = T;
};
template <class It>
struct stream_element<It, std::enable_if_t<is_vector_iterator<It>::value>>
    : stream_element<std::remove_reference_t<decltype(*std::declval<It>())>*> {};
template <class OutIt>
using stream_element_t = typename stream_element<OutIt>::type;

#if defined(__x86_64__) || defined(_M_X64)
inline constexpr bool has_stream_stores = true;
template <class T>
void stream_store(T* p, T v) {
  if constexpr (sizeof(T) == 4) {
    int bits;
    std::memcpy(&bits, &v, 4);
    _mm_stream_si32(reinterpret_cast<int*>(p), bits);
  } else {
    long long bits;
    std::memcpy(&bits, &v, 8);
    _mm_stream_si64(reinterpret_cast<long long*>(p), bits);
  }
}
inline void stream_fence() { _mm_sfence(); }
#else
inline constexpr bool has_stream_stores = false;
template <class T>
void stream_store(T* p, T v) { *p = v; }
inline void stream_fence() {}
#endif

/// Whether a scan of n elements into out should use non-temporal stores.
template <class OutIt>
bool should_stream(std::int64_t n) {
  if constexpr (has_stream_stores && !std::is_void<stream_element_t<OutIt>>::value)
    return n * static_cast<std::int64_t>(sizeof(stream_element_t<OutIt>)) >= tuning::stream_min_bytes;
  else
    return (void)n, false;
}

// ---- scan ---------------------------------------------------------------------------------------
/// Scans n >= 0 elements onto the running prefix `acc`: an inclusive scan writes op(acc, x[0..i]),
/// an exclusive one the prefix before x[i]. Advances both iterators and returns the final prefix
/// (acc combined with all n elements). Each chunk of input is read before the same positions of
/// the output are written, so in-place scans work. Stream: write with non-temporal stores.
template <bool Inclusive, bool Stream, class Acc, class InIt, class OutIt, class Op>
Acc scan_onto(InIt& first, std::int64_t n, OutIt& out, Op op, Acc acc) {
  std::int64_t i = 0;
  if constexpr (std::is_arithmetic<Acc>::value && std::is_arithmetic<iter_value_t<InIt>>::value &&
                is_random_access_v<InIt> && is_random_access_v<OutIt>) {
    // chunks: local prefixes s[k] = x[0] op ... op x[k] first, then acc op s[k] (independent ops)
    constexpr int C = tuning::scan_chunk;
    for (; i + C <= n; i += C) {
      Acc s[C];
      s[0] = static_cast<Acc>(first[i]);
      for (int k = 1; k < C; ++k) s[k] = static_cast<Acc>(op(s[k - 1], first[i + k]));
      Acc r[C];
      if constexpr (Inclusive) {
        for (int k = 0; k < C; ++k) r[k] = static_cast<Acc>(op(acc, s[k]));
      } else {
        r[0] = acc;
        for (int k = 1; k < C; ++k) r[k] = static_cast<Acc>(op(acc, s[k - 1]));
      }
      acc = static_cast<Acc>(op(acc, s[C - 1]));
      if constexpr (Stream) {
        using E = stream_element_t<OutIt>;
        E* p = &*(out + i);
        for (int k = 0; k < C; ++k) stream_store(p + k, static_cast<E>(r[k]));
      } else {
        for (int k = 0; k < C; ++k) out[i + k] = r[k];
      }
    }
    if constexpr (Stream) stream_fence();
    first += i;
    out += i;
  }
  for (; i < n; ++i, ++first, ++out) {
    if constexpr (Inclusive) {
      acc = static_cast<Acc>(op(acc, *first));
      *out = acc;
    } else {
      Acc next = static_cast<Acc>(op(acc, *first));
      *out = acc;
      acc = std::move(next);
    }
  }
  return acc;
}

/// scan_onto with an optional prefix: without one (an inclusive scan's start) the first element
/// starts the scan. n >= 1. stream: use non-temporal stores where OutIt allows them.
template <bool Inclusive, class Acc, class InIt, class OutIt, class Op>
Acc scan_nonempty(InIt& first, std::int64_t n, OutIt& out, Op op, const std::optional<Acc>& prefix, bool stream) {
  auto run = [&](auto stream_tag, Acc acc) {
    return scan_onto<Inclusive, decltype(stream_tag)::value, Acc>(first, n, out, op, std::move(acc));
  };
  auto dispatch = [&](Acc acc) {
    if constexpr (has_stream_stores && std::is_arithmetic<Acc>::value && !std::is_void<stream_element_t<OutIt>>::value) {
      if (stream) return run(std::true_type{}, std::move(acc));
    }
    return run(std::false_type{}, std::move(acc));
  };
  if (prefix) return dispatch(*prefix);
  Acc acc = static_cast<Acc>(*first);  // only inclusive scans start without a prefix
  ++first;
  *out = acc;
  ++out;
  --n;
  return dispatch(std::move(acc));
}

// ---- transpose ----------------------------------------------------------------------------------
/// Transposes the part [r0, r1) x [c0, c1) of a row-major matrix (leading dimension ld_in) into
/// out (leading dimension ld_out), tile by tile so that each tile's reads and writes stay in L1.
template <class InIt, class OutIt>
void transpose_tiles(InIt in, std::int64_t ld_in, OutIt out, std::int64_t ld_out, std::int64_t r0,
                     std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  constexpr std::int64_t tile = tuning::transpose_tile;
  for (std::int64_t rb = r0; rb < r1; rb += tile) {
    const std::int64_t re = std::min(rb + tile, r1);
    for (std::int64_t cb = c0; cb < c1; cb += tile) {
      const std::int64_t ce = std::min(cb + tile, c1);
      for (std::int64_t c = cb; c < ce; ++c)
        for (std::int64_t r = rb; r < re; ++r) out[c * ld_out + r] = in[r * ld_in + c];
    }
  }
}

}  // namespace algo::detail::host

namespace algo::detail {

template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const seq_policy&, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op, Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  std::optional<Acc> prefix;
  if constexpr (!std::is_same<Init, no_init_t>::value) prefix.emplace(init);
  host::scan_nonempty<Inclusive, Acc>(first, n, out, op, prefix, host::should_stream<OutIt>(n));
  return out;
}

template <class It, class T, class Op>
T reduce(const seq_policy&, It first, std::int64_t n, T init, Op op) {
  return static_cast<T>(op(init, host::fold_nonempty<T>(first, n, op)));
}

/// Every matrix of the batch, one after another (shape: see transpose_shape.hpp).
template <class InIt, class OutIt>
void transpose(const seq_policy&, InIt in, OutIt out, const transpose_shape& s) {
  for (std::int64_t b = 0; b < s.count; ++b)
    host::transpose_tiles(in + b * s.stride_in, s.ld_in, out + b * s.stride_out, s.ld_out, 0, s.rows, 0, s.cols);
}

}  // namespace algo::detail
