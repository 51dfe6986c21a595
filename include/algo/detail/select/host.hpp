// The selection family on the host policies (select.hpp calls these through detail::select::run).
//
//   algo::seq   one walk: each element is tested once (selector.next, common.hpp) and written to the
//               next position of its output. Any iterators. In place (out == first) is safe: the
//               write position never passes the read position, and heads<> compares with a copy of
//               the previous element, not with what the walk may have written there.
//   algo::par   the same shape over threads, in one pass: a thread takes the next block of
//               par_block elements from a counter, tests each element once (its flag kept in a bit
//               array, so a stateful predicate is called exactly once per element, as in algo::seq)
//               and counts them, waits for the block before it to publish how many were selected
//               up to its end (a look-back of one step: blocks are taken in order, so that block's
//               thread is running), publishes its own count, and writes its selected (and
//               rejected) elements while its input is still in cache. In place (or an output the
//               library cannot prove apart from the input), a block publishes only after writing:
//               block b writes below its own end, into blocks before it, which must have finished
//               reading; the writes then follow one another, the tests still run in parallel.
//               Random-access iterators only (else algo::seq).
//               Each thread tests with its own copy of the selector (a stateful predicate is never
//               shared between threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "../../policy.hpp"
#include "../host/par.hpp"
#include "../host/seq.hpp"
#include "../iterator.hpp"
#include "common.hpp"

namespace algo::detail::select {

/// algo::par: elements per block of the flag and write passes; fewer than two blocks run on algo::seq.
inline constexpr std::int64_t par_block = std::int64_t(1) << 16;

/// Set bits of x (portable: C++17 has no std::popcount).
inline int popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

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
    static_assert(B % 64 == 0, "a block is whole flag words");
    // inclusive[b]: the number selected in blocks 0 .. b, once block b has published it (-1 before)
    std::unique_ptr<std::atomic<std::int64_t>[]> inclusive(new std::atomic<std::int64_t>[blocks]);
    for (std::int64_t b = 0; b < blocks; ++b) inclusive[b].store(-1, std::memory_order_relaxed);

    host::tile_counter counter;
    host::run_team(threads, [&](const std::atomic<bool>& stop) {
      const Sel mine = sel;                                      // this thread's copy of the predicate
      std::vector<std::uint64_t> flags(static_cast<std::size_t>(B / 64));  // the block's flags, one bit each
      for (std::int64_t b = counter.take(); b < blocks && !stop.load(std::memory_order_relaxed); b = counter.take()) {
        const std::int64_t b0 = b * B, b1 = std::min(n, b0 + B);
        // ---- flags: each element tested once, the block counted (its input now in cache) ----------
        std::int64_t c = 0;
        for (std::int64_t w = b0; w < b1; w += 64) {
          std::uint64_t word = 0;
          const std::int64_t w1 = std::min(b1, w + 64);
          for (std::int64_t i = w; i < w1; ++i)
            if (mine.at(first, i)) word |= std::uint64_t(1) << (i - w);
          flags[static_cast<std::size_t>((w - b0) >> 6)] = word;
          c += popcount64(word);
        }
        // ---- offset: wait for the block before (taken earlier, by a running thread) -------------
        std::int64_t before = 0;
        if (b > 0) host::spin_until([&] { return (before = inclusive[b - 1].load(std::memory_order_acquire)) >= 0; }, stop);
        if (!in_place) inclusive[b].store(before + c, std::memory_order_release);
        // ---- write ----------------------------------------------------------------------------------
        std::int64_t t = before;
        std::int64_t f = b0 - before;  // rejected elements before the block
        for (std::int64_t i = b0; i < b1; ++i) {
          if ((flags[static_cast<std::size_t>((i - b0) >> 6)] >> ((i - b0) & 63)) & 1u) {
            out_true[t++] = first[i];
          } else {
            if constexpr (has_output_v<OutF>) out_false[f] = first[i];
            ++f;
          }
        }
        // in place, the next block writes below this block's end: only once this one is written
        if (in_place) inclusive[b].store(before + c, std::memory_order_release);
      }
    });
    const std::int64_t total = inclusive[blocks - 1].load(std::memory_order_acquire);
    if constexpr (has_output_v<OutF>) return {out_true + total, out_false + (n - total), total};
    else return {out_true + total, out_false, total};
  }
}

}  // namespace algo::detail::select
