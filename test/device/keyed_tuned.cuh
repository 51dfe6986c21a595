// The keyed scans, reduce_by_key and the segmented scans over offsets built by hand on one device
// scan strategy with an explicit tuning, as include/algo/segmented.hpp builds them for the policies
// (the same lifted inputs, writers and segmented operator; bench/keys_sweep.cu does the same): the
// tests run tunings no policy takes. Also the host side: the lifted inputs that the emulation of the
// kernels' grouping folds (scan_emulation.cuh, emulate_with), and the tile shape of each problem.
// Shared by test_cuda_scan_ordered_walks.cu and test_cuda_keyed_strategies.cu.
#pragma once

#include <algo/algo.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace keyed_tuned {
namespace ad = algo::detail;
namespace adc = algo::detail::cuda;
namespace seg = algo::detail::segmented;

using Eq = algo::equal_to<>;
using Phase = algo::warp_phase::shfl_t;
using Block = algo::block_scan::warp_scans_t;
template <class V>
using aop = ad::accumulate_with<algo::plus<>, V>;
template <class V>
using sop = seg::segmented_op<aop<V>>;
using key_heads = seg::key_heads<const std::int32_t*, Eq>;
using mask_heads = seg::mask_heads;

/// The lifted scan of values under Heads (Mode: seg::lift_plain, lift_init, lift_exclusive).
template <class V, class Heads, int Mode>
using lifted_problem =
    adc::scan_problem<seg::seg_value<V>, seg::indexed_iterator<seg::lift<V, Heads, const V*, aop<V>, Mode>>,
                      seg::indexed_output<seg::value_writer<V*>>, ad::accumulate_with<sop<V>, seg::seg_value<V>>>;
/// reduce_by_key's lifted scan (32-bit run counts, as the policies take below 2^31 elements).
template <class V>
using runs_problem =
    adc::scan_problem<seg::run_value<V, int>, seg::indexed_iterator<seg::lift_runs<V, key_heads, const V*, int>>,
                      seg::indexed_output<seg::run_writer<V, const std::int32_t*, Eq, std::int32_t*, V*>>,
                      ad::accumulate_with<sop<V>, seg::run_value<V, int>>>;

/// The tile shape (threads, items) a problem gets under a tuning base.
template <class P, class Tuning>
using traits = adc::tile_traits<P, Phase, Block, Tuning>;

enum class strategy { decoupled, deterministic, ordered };

template <strategy S, class Tuning, class P>
void run(const P& p) {
  if constexpr (S == strategy::ordered) adc::run_ordered_lookback_tuned<Phase, Block, Tuning>(p, nullptr);
  else if constexpr (S == strategy::deterministic) adc::run_deterministic_lookback_tuned<Phase, Block, Tuning>(p, nullptr);
  else adc::run_lookback_tuned<Phase, Block, Tuning>(p, nullptr);
}

/// inclusive_scan_by_key (Mode lift_plain) / exclusive_scan_by_key (lift_exclusive, init).
template <strategy S, class Tuning, int Mode, class V>
void scan_by_key(const std::int32_t* keys, const V* values, V* out, std::int64_t n, V init) {
  using P = lifted_problem<V, key_heads, Mode>;
  using L = seg::lift<V, key_heads, const V*, aop<V>, Mode>;
  const P p{typename P::in_iterator(L{key_heads{keys, Eq{}}, values, aop<V>{}, init}, 0),
            typename P::out_iterator(seg::value_writer<V*>{out}, 0),
            n,
            typename P::op_type{sop<V>{aop<V>{}}},
            adc::none<seg::seg_value<V>>(),
            false,
            Mode == seg::lift_exclusive ? "exclusive_scan_by_key" : "inclusive_scan_by_key"};
  run<S, Tuning>(p);
}

/// reduce_by_key_into (the run count to *count).
template <strategy S, class Tuning, class V>
void reduce_by_key(const std::int32_t* keys, const V* values, std::int32_t* keys_out, V* values_out, long long* count,
                   std::int64_t n) {
  using P = runs_problem<V>;
  using L = seg::lift_runs<V, key_heads, const V*, int>;
  using W = seg::run_writer<V, const std::int32_t*, Eq, std::int32_t*, V*>;
  const P p{typename P::in_iterator(L{key_heads{keys, Eq{}}, values, n}, 0),
            typename P::out_iterator(W{keys, Eq{}, keys_out, values_out, n, count}, 0),
            n,
            typename P::op_type{sop<V>{aop<V>{}}},
            adc::none<seg::run_value<V, int>>(),
            false,
            "reduce_by_key"};
  run<S, Tuning>(p);
}

/// segmented_inclusive_scan (lift_plain) / segmented_exclusive_scan (lift_exclusive, init) over
/// the heads mask of device offsets, as the policies read offsets in memory (one bit an element,
/// set where a non-empty segment starts: seg::heads_mask_device builds it there; heads_mask_of
/// below on the host).
template <strategy S, class Tuning, int Mode, class V>
void segmented_scan(const V* values, const std::uint32_t* mask, V* out, std::int64_t n, V init) {
  using P = lifted_problem<V, mask_heads, Mode>;
  using L = seg::lift<V, mask_heads, const V*, aop<V>, Mode>;
  const P p{typename P::in_iterator(L{mask_heads{mask}, values, aop<V>{}, init}, 0),
            typename P::out_iterator(seg::value_writer<V*>{out}, 0),
            n,
            typename P::op_type{sop<V>{aop<V>{}}},
            adc::none<seg::seg_value<V>>(),
            false,
            Mode == seg::lift_exclusive ? "segmented_exclusive_scan" : "segmented_inclusive_scan"};
  run<S, Tuning>(p);
}

// ---- host side ---------------------------------------------------------------------------------------
/// The heads mask of offsets[0 .. segments] (offsets[0] == 0): bit i of word i / 32 set where a
/// non-empty segment starts (at least one word).
inline std::vector<std::uint32_t> heads_mask_of(const std::vector<std::int64_t>& offsets, std::int64_t n) {
  std::vector<std::uint32_t> m(static_cast<std::size_t>(n > 0 ? (n + 31) / 32 : 1), 0u);
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
    if (offsets[k] < offsets[k + 1]) m[static_cast<std::size_t>(offsets[k] >> 5)] |= 1u << (offsets[k] & 31);
  return m;
}
/// heads[i]: element i starts a run of equal keys.
inline std::vector<char> key_heads_of(const std::vector<std::int32_t>& keys) {
  std::vector<char> h(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) h[i] = i == 0 || keys[i] != keys[i - 1];
  return h;
}

/// The lifted inputs the kernels scan: (v[i], head) (inclusive), (head ? init : v[i - 1], head)
/// (exclusive), (v[i], head ? 1 : 0) (reduce_by_key's runs).
template <class V>
std::vector<seg::seg_value<V>> lift_host(const std::vector<V>& v, const std::vector<char>& heads, bool exclusive, V init) {
  std::vector<seg::seg_value<V>> l(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const int h = heads[i] ? 1 : 0;
    l[i] = seg::seg_value<V>{exclusive ? (h ? init : v[i - 1]) : v[i], h};
  }
  return l;
}
template <class V>
std::vector<seg::run_value<V, int>> lift_runs_host(const std::vector<V>& v, const std::vector<char>& heads) {
  std::vector<seg::run_value<V, int>> l(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) l[i] = seg::run_value<V, int>{v[i], heads[i] ? 1 : 0};
  return l;
}

/// The values of lifted results (bits as the device writes them).
template <class L>
auto values_of(const std::vector<L>& l) {
  std::vector<decltype(l[0].value)> v(l.size());
  for (std::size_t i = 0; i < l.size(); ++i) v[i] = l[i].value;
  return v;
}

/// The host fold of the keyed operator, the library's own (seg::segmented_op over plus).
template <class V>
sop<V> host_op() {
  return sop<V>{aop<V>{}};
}
/// Keys in runs of `lo`..`hi` elements (random lengths; `hi` == `lo`: runs of exactly that), each
/// run's key above the last by 1-5.
inline std::vector<std::int32_t> run_keys(std::int64_t n, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  std::vector<std::int32_t> k(static_cast<std::size_t>(n));
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::int32_t key = static_cast<std::int32_t>(g() % 1000) - 500;
  for (std::int64_t i = 0; i < n;) {
    const std::int64_t len = d(g);
    for (std::int64_t j = i; j < i + len && j < n; ++j) k[static_cast<std::size_t>(j)] = key;
    i += len;
    key += 1 + static_cast<std::int32_t>(g() % 5);
  }
  return k;
}
}  // namespace keyed_tuned
