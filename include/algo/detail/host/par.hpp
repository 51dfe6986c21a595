// algo::par: OpenMP threads. Every algorithm keeps the left-to-right order of combination, so
// operators need only be associative. Without OpenMP (a compiler run without -fopenmp) algo::par
// runs the algo::seq code on one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

#include "seq.hpp"

namespace algo::detail::host {

inline int thread_count(const par_policy& p) {
#if defined(_OPENMP)
  return p.threads > 0 ? p.threads : omp_get_max_threads();
#else
  (void)p;
  return 1;
#endif
}

/// Elements per thread per round of the parallel scan: small enough that a round's blocks stay in
/// L2 between the reduce and the scan phase, large enough to hide the two barriers.
inline constexpr std::int64_t scan_block_elements = 1 << 15;

}  // namespace algo::detail::host

namespace algo::detail {

/// Reduce-then-scan over contiguous per-thread blocks, in rounds of threads * block elements:
///   phase 1  each thread folds its block into partial[t]            (reads the block into cache)
///   spine    one thread turns the partials into exclusive prefixes  (T combines, in order)
///   phase 2  each thread scans its block, seeded with its prefix    (re-reads it from cache)
/// so memory sees about one read and one write per element, and the order of `op` is kept.
template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const par_policy& policy, scan_kind<Inclusive> kind, InIt first, std::int64_t n, OutIt out, Op op,
           Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  const int threads = host::thread_count(policy);
  if constexpr (!is_random_access_v<InIt> || !is_random_access_v<OutIt>) {
    return scan(seq, kind, first, n, out, op, init);
  } else {
    const std::int64_t B = host::scan_block_elements;
    if (threads <= 1 || n < 2 * B) return scan(seq, kind, first, n, out, op, init);

    std::optional<Acc> carry;
    if constexpr (!std::is_same<Init, no_init_t>::value) carry.emplace(init);
    std::vector<std::optional<Acc>> partial(threads), prefix(threads);
    const std::int64_t round = B * threads;
#if defined(_OPENMP)
#  pragma omp parallel num_threads(threads)
#endif
    {
#if defined(_OPENMP)
      const int t = omp_get_thread_num();
#else
      const int t = 0;
#endif
      for (std::int64_t base = 0; base < n; base += round) {
        const std::int64_t b0 = std::min(n, base + t * B), b1 = std::min(n, b0 + B);
        // phase 1: reduce this thread's block
        partial[t].reset();
        if (b1 > b0) partial[t].emplace(host::fold_nonempty<Acc>(first + b0, b1 - b0, op));
#if defined(_OPENMP)
#  pragma omp barrier
#  pragma omp single
#endif
        {  // spine: exclusive prefixes of the partials, seeded with what earlier rounds carried
          for (int k = 0; k < threads; ++k) {
            prefix[k] = carry;
            if (partial[k]) carry = carry ? static_cast<Acc>(op(*carry, *partial[k])) : *partial[k];
          }
        }  // implicit barrier
        // phase 2: scan the block from cache
        if (b1 > b0) host::scan_block<Inclusive, Acc>(first + b0, b1 - b0, out + b0, op, prefix[t]);
#if defined(_OPENMP)
#  pragma omp barrier
#endif
      }
    }
    return out + n;
  }
}

/// Each thread folds one contiguous slice; the partials are combined in slice order.
template <class It, class T, class Op>
T reduce(const par_policy& policy, It first, std::int64_t n, T init, Op op) {
  const int threads = host::thread_count(policy);
  if constexpr (!is_random_access_v<It>) {
    return reduce(seq, first, n, init, op);
  } else {
    if (threads <= 1 || n < (1 << 14)) return reduce(seq, first, n, init, op);
    std::vector<std::optional<T>> partial(threads);
#if defined(_OPENMP)
#  pragma omp parallel num_threads(threads)
#endif
    {
#if defined(_OPENMP)
      const int t = omp_get_thread_num();
#else
      const int t = 0;
#endif
      const std::int64_t b0 = n * t / threads, b1 = n * (t + 1) / threads;
      if (b1 > b0) partial[t].emplace(host::fold_nonempty<T>(first + b0, b1 - b0, op));
    }
    T acc = init;
    for (auto& p : partial)
      if (p) acc = static_cast<T>(op(acc, *p));
    return acc;
  }
}

template <class InIt, class OutIt>
OutIt transpose(const par_policy& policy, InIt in, std::int64_t rows, std::int64_t cols, OutIt out) {
  constexpr std::int64_t band = 64;  // rows of the input per parallel task
  const std::int64_t bands = (rows + band - 1) / band;
  const int threads = host::thread_count(policy);
  (void)threads;
#if defined(_OPENMP)
#  pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (std::int64_t b = 0; b < bands; ++b)
    host::transpose_tiles(in, cols, out, rows, b * band, std::min(rows, (b + 1) * band), 0, cols);
  return out + rows * cols;
}

}  // namespace algo::detail
