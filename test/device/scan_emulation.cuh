// Host emulation of the reproducible look-backs' grouping (float / double sums), shared by the
// deterministic_lookback and ordered_lookback tests, and the helpers that compare runs bit for bit.
// emulate_with takes any operator: the keyed tests fold the lifted pairs with the segmented one.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace scan_emulation {
// ---- a host emulation of the kernels' grouping (float / double sums) --------------------------------------
/// Output of the deterministic look-back scan of `in` with plus, bit for bit: the tile as
/// block_scan computes it (each thread folds its items in order, Kogge-Stone warp scans of the
/// thread partials and of the warp totals, the prefix, the rescan) and the tile prefixes of the
/// fixed-anchor look-back (E(t) = I(t-32) op F'(t), I(t) = I(t-32) op F(t), F = Kogge-Stone over the
/// window of 32 tile aggregates ending at t). `Items`/`Threads`: the tile's shape. `ordered`: the
/// ordered look-back's tile prefixes instead (E(t) = I(t-1), I(t) = E(t) op A(t): the left fold).
/// emulate_with: any operator in place of plus (the lifted (value, head) or (value, runs) pairs of
/// the keyed scans with their segmented operator: those kernels run the same tile code).
template <class T, class Op>
std::vector<T> emulate_with(const std::vector<T>& in, bool has_init, T init, bool exclusive, int threads, int items,
                            bool ordered, Op op) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  const int tile_items = threads * items, warps = threads / 32;
  const std::int64_t tiles = (n + tile_items - 1) / tile_items;
  auto kogge_stone = [&op](std::vector<T>& v, int first) {  // in place, lanes first..31
    for (int d = 1; d < 32; d *= 2) {
      const std::vector<T> old = v;
      for (int l = 0; l < 32; ++l)
        if (l - d >= first) v[l] = op(old[l - d], old[l]);
    }
  };
  std::vector<T> out(in.size());
  std::vector<T> aggregates(static_cast<std::size_t>(tiles)), inclusives(static_cast<std::size_t>(tiles));
  std::vector<T> x(static_cast<std::size_t>(tile_items)), partial(threads), warp_incl(threads);
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t base = t * tile_items;
    const int valid = static_cast<int>(n - base < tile_items ? n - base : tile_items);
    for (int i = 0; i < tile_items; ++i) x[i] = in[static_cast<std::size_t>(base + (i < valid ? i : 0))];
    // thread fold, warp scans, spine
    for (int th = 0; th < threads; ++th) {
      T acc = x[th * items];
      for (int i = 1; i < items; ++i) acc = op(acc, x[th * items + i]);
      partial[th] = acc;
    }
    std::vector<T> lanes(32), spine(32);
    for (int w = 0; w < warps; ++w) {
      for (int l = 0; l < 32; ++l) lanes[l] = partial[w * 32 + l];
      kogge_stone(lanes, 0);
      for (int l = 0; l < 32; ++l) warp_incl[w * 32 + l] = lanes[l];
    }
    for (int l = 0; l < 32; ++l) spine[l] = warp_incl[(l < warps ? l : 0) * 32 + 31];
    kogge_stone(spine, 0);
    const T aggregate = spine[warps - 1];
    aggregates[static_cast<std::size_t>(t)] = aggregate;
    // the tile's prefix: the look-back's E(t), and its I(t)
    std::vector<T> window(32);
    const int first = t < 31 ? static_cast<int>(31 - t) : 0;
    for (int l = first; l < 32; ++l) window[l] = aggregates[static_cast<std::size_t>(t - 31 + l)];
    kogge_stone(window, first);
    bool has_x = has_init;
    T xv = init;
    if (ordered) {
      if (t > 0) {
        has_x = true;
        xv = inclusives[static_cast<std::size_t>(t - 1)];
      }
    } else if (t >= 32) {
      has_x = true;
      xv = inclusives[static_cast<std::size_t>(t - 32)];
    }
    inclusives[static_cast<std::size_t>(t)] = ordered ? (has_x ? op(xv, aggregate) : aggregate)
                                                      : has_x ? op(xv, window[31]) : window[31];
    bool has_pre = has_x;
    T pre = xv;
    if (t > 0 && !ordered) {
      has_pre = true;
      pre = has_x ? op(xv, window[30]) : window[30];
    }
    // fan-out and rescan
    for (int th = 0; th < threads; ++th) {
      const int w = th / 32, l = th % 32;
      bool has = true;
      T ex{};
      const bool has_base = w > 0 || has_pre;
      T warp_base = pre;
      if (w > 0) warp_base = has_pre ? op(pre, spine[w - 1]) : spine[w - 1];
      if (!has_base) {
        if (l == 0) {
          has = false;
        } else {
          ex = warp_incl[th - 1];
        }
      } else {
        ex = l == 0 ? warp_base : op(warp_base, warp_incl[th - 1]);
      }
      T running = ex;
      for (int i = 0; i < items; ++i) {
        const int k = th * items + i;
        if (i == 0 && !has) {
          running = x[k];
          if (k < valid) out[static_cast<std::size_t>(base + k)] = x[k];  // (exclusive: unspecified)
        } else {
          const T next = op(running, x[k]);
          if (k < valid) out[static_cast<std::size_t>(base + k)] = exclusive ? running : next;
          running = next;
        }
      }
    }
  }
  return out;
}

template <class T>
std::vector<T> emulate(const std::vector<T>& in, bool has_init, T init, bool exclusive, int threads, int items,
                       bool ordered = false) {
  return emulate_with(in, has_init, init, exclusive, threads, items, ordered, [](const T& a, const T& b) { return a + b; });
}

template <class T>
std::vector<T> uniform_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<T> u(T(0), T(1));
  std::vector<T> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
std::int64_t first_bit_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<std::int64_t>(i);
  return a.size() == b.size() ? -1 : static_cast<std::int64_t>(a.size() < b.size() ? a.size() : b.size());
}
}  // namespace scan_emulation
