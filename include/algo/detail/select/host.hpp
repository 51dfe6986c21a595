// The selection family on the host policies (select.hpp calls these through detail::select::run).
//
//   algo::seq   one walk: each element is tested once (selector.next, common.hpp) and written to the
//               next position of its output. Any iterators. In place (out == first) is safe: the
//               write position never passes the read position, and heads<> compares with a copy of
//               the previous element, not with what the walk may have written there.
//   algo::par   the same shape over threads: (1) flags: blocks of tuning::select_block elements
//               taken from a counter, each element tested once (its flag kept in a byte array, so a
//               stateful predicate is called exactly once per element, as in algo::seq), each block
//               counted; (2) an exclusive scan of the block counts on the calling thread; (3) each
//               block writes its selected (and rejected) elements from its offsets. In place (or
//               an output the library cannot prove apart from the input), phase 3 runs on one
//               thread, in order: block b writes below its own end, over blocks that phase 1 has
//               already read completely, so that is safe; in parallel, block b could overwrite
//               elements block b - 1 is still copying. Random-access iterators only (else algo::seq).
//               Each thread tests with its own copy of the selector (a stateful predicate is never
//               shared between threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "../../policy.hpp"
#include "../host/par.hpp"
#include "../host/seq.hpp"
#include "../iterator.hpp"
#include "common.hpp"

namespace algo::detail::select {

/// algo::par: elements per block of the flag and write passes; fewer than two blocks run on algo::seq.
inline constexpr std::int64_t par_block = std::int64_t(1) << 16;

template <class Sel, class InIt, class OutT, class OutF>
result<OutT, OutF> run(const seq_policy&, const Sel& sel, InIt first, std::int64_t n, OutT out_true, OutF out_false,
                       bool /*in_place*/) {
  auto state = sel.start(first);
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < n; ++i, ++first) {
    auto&& v = *first;
    if (sel.next(state, v, i)) {
      *out_true = v;
      ++out_true;
      ++kept;
    } else {
      if constexpr (has_output_v<OutF>) {
        *out_false = v;
        ++out_false;
      }
    }
  }
  return {out_true, out_false, kept};
}

template <class O>
constexpr bool random_access_output() {
  if constexpr (has_output_v<O>) return is_random_access_v<O>;
  else return true;
}

template <class Sel, class InIt, class OutT, class OutF>
result<OutT, OutF> run(const par_policy& policy, const Sel& sel, InIt first, std::int64_t n, OutT out_true,
                       OutF out_false, bool in_place) {
  constexpr bool random_access = is_random_access_v<InIt> && is_random_access_v<OutT> && random_access_output<OutF>();
  if constexpr (!random_access) {
    return run(seq, sel, first, n, out_true, out_false, in_place);
  } else {
    constexpr std::int64_t B = par_block;
    const int threads = host::thread_count(policy);
    if (threads <= 1 || n < 2 * B) return run(seq, sel, first, n, out_true, out_false, in_place);
    const std::int64_t blocks = (n + B - 1) / B;
    std::vector<unsigned char> flags(static_cast<std::size_t>(n));
    std::vector<std::int64_t> offset(static_cast<std::size_t>(blocks) + 1, 0);

    // ---- flags: each element tested once, each block counted --------------------------------------
    {
      host::tile_counter counter;
      host::run_team(threads, [&](const std::atomic<bool>& stop) {
        const Sel mine = sel;  // this thread's copy of the predicate
        for (std::int64_t b = counter.take(); b < blocks && !stop.load(std::memory_order_relaxed); b = counter.take()) {
          const std::int64_t b0 = b * B, b1 = std::min(n, b0 + B);
          std::int64_t c = 0;
          for (std::int64_t i = b0; i < b1; ++i) {
            const bool f = mine.at(first, i);
            flags[static_cast<std::size_t>(i)] = f;
            c += f;
          }
          offset[static_cast<std::size_t>(b) + 1] = c;
        }
      });
    }
    // ---- offsets: exclusive scan of the block counts -------------------------------------------------
    for (std::int64_t b = 0; b < blocks; ++b) offset[b + 1] += offset[b];
    const std::int64_t total = offset[blocks];

    // ---- write: each block from its offsets ----------------------------------------------------------
    const auto write_block = [&](std::int64_t b) {
      const std::int64_t b0 = b * B, b1 = std::min(n, b0 + B);
      std::int64_t t = offset[b];
      std::int64_t f = b0 - offset[b];  // rejected elements before the block
      for (std::int64_t i = b0; i < b1; ++i) {
        if (flags[static_cast<std::size_t>(i)]) {
          out_true[t++] = first[i];
        } else {
          if constexpr (has_output_v<OutF>) out_false[f] = first[i];
          ++f;
        }
      }
    };
    if (in_place) {
      for (std::int64_t b = 0; b < blocks; ++b) write_block(b);
    } else {
      host::tile_counter counter;
      host::run_team(threads, [&](const std::atomic<bool>& stop) {
        for (std::int64_t b = counter.take(); b < blocks && !stop.load(std::memory_order_relaxed); b = counter.take())
          write_block(b);
      });
    }
    if constexpr (has_output_v<OutF>) return {out_true + total, out_false + (n - total), total};
    else return {out_true + total, out_false, total};
  }
}

}  // namespace algo::detail::select
