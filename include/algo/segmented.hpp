// Segments and keys, every policy (Thrust's names and argument order where Thrust has the call):
//
//   inclusive_scan_by_key(policy, keys_first, keys_last, values_first, out [, key_equal [, op]])
//   exclusive_scan_by_key(policy, keys_first, keys_last, values_first, out [, init [, key_equal [, op]]])
//   reduce_by_key(policy, keys_first, keys_last, values_first, keys_out, values_out [, key_equal [, op]])
//       runs of consecutive equal keys are the segments (thrust::*_by_key).
//   reduce_by_key_into(policy, keys_first, keys_last, values_first, keys_out, values_out, count_out
//                      [, key_equal [, op]])
//       beyond Thrust: the number of runs to *count_out on the policy's stream (device policies:
//       no host wait, usable under CUDA graph capture), as select.hpp's *_into forms.
//   segmented_reduce(policy, first, offsets_first, offsets_last, out, init [, op])
//   segmented_inclusive_scan(policy, first, offsets_first, offsets_last, out [, op [, init]])
//   segmented_exclusive_scan(policy, first, offsets_first, offsets_last, out, init [, op])
//       segments given by num_segments + 1 offsets (CSR): segment k is [offsets[k], offsets[k+1]).
//       algo::uniform_offsets(L) gives segments of L elements without memory.
//
// How they run: every scan here is an ordinary scan of (head, value) pairs with the segmented
// operator (detail/segmented/lifted.hpp), so every policy runs them on its own scan: algo::seq's
// loop, algo::par's tiled look-back, algo::cuda's strategies (each strategy, block scan and warp
// phase gets its segmented form from the same layers) and, for algo::cub, CUB's scans (its
// *ByKey and DeviceSegmentedReduce where CUB has the call: detail/cub/segmented.cuh).
// reduce_by_key carries the run count through the same scan and compacts in the same pass;
// segmented_reduce writes each segment's fold from the element that ends it, except on algo::cuda's
// default policy, which has kernels of its own (detail/segmented/reduce_merge_path.cuh for any
// offsets, detail/segmented/reduce_long.cuh for fewer segments than SMs of 4096 elements or more,
// detail/segmented/reduce_groups.cuh for uniform_offsets of 1-2047 elements,
// detail/segmented/reduce_blocks.cuh for segments that are all long, and its
// detail/segmented/reduce_deferred.cuh for such offsets in memory: the offsets check in the same
// launch). algo::cuda's segmented scans over offsets in device memory read a heads
// mask built after the offsets check (one bit an element, detail/segmented/device.cuh), or none at
// all when the check finds every segment of one length (then they run as uniform_offsets).
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/alias.hpp"
#include "detail/segmented/host.hpp"
#include "detail/segmented/lifted.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"

#if ALGO_HAS_CUDA
#  include "detail/cuda/runtime.cuh"
#  include "detail/segmented/device.cuh"
#  include "detail/segmented/reduce_blocks.cuh"
#  include "detail/segmented/reduce_deferred.cuh"
#  include "detail/segmented/reduce_groups.cuh"
#  include "detail/segmented/reduce_long.cuh"
#  include "detail/segmented/reduce_merge_path.cuh"
#  include "detail/segmented/tile.cuh"
#endif

namespace algo {

// ---- uniform segments ----------------------------------------------------------------------------
namespace detail::segmented {
/// Offset k of segments of `length` elements from element `first`.
struct uniform_offset {
  std::int64_t length, first;
  ALGO_HD std::int64_t operator()(std::int64_t k) const { return first + k * length; }
};
}  // namespace detail::segmented

/// The offsets first, first + L, first + 2L, ... as a random-access iterator (no memory; usable on
/// the host and on the device). `auto o = algo::uniform_offsets(L); segmented_reduce(p, x, o, o + S + 1, ...)`.
using uniform_offsets_iterator = detail::segmented::indexed_iterator<detail::segmented::uniform_offset>;

/// Segments of `length` elements starting at element `first`: offsets first + k * length.
inline uniform_offsets_iterator uniform_offsets(std::int64_t length, std::int64_t first = 0) {
  return uniform_offsets_iterator(detail::segmented::uniform_offset{length, first}, 0);
}

namespace detail {
namespace seg = segmented;

// ---- per-policy pieces ----------------------------------------------------------------------------
/// The iterator the kernels should hold: a raw pointer for contiguous device storage.
template <class Policy, class It>
auto kernel_view(const Policy&, It it) {
#if ALGO_HAS_CUDA
  if constexpr (is_device_policy<Policy>::value) return cuda::unwrap(it);
  else return it;
#else
  return it;
#endif
}

/// offsets[0] and offsets[segments], checked (algo::error when they decrease or start below 0).
template <class Policy, class OffIt>
seg::offsets_info read_offsets(const char* name, const Policy& policy, OffIt offsets, std::int64_t segments) {
  if constexpr (std::is_same<OffIt, uniform_offsets_iterator>::value) {
    const std::int64_t length = offsets.functor().length;
    if (length < 0) fail(name, "uniform_offsets with a negative length (" + std::to_string(length) + ")");
    if (offsets[0] < 0) fail(name, "offsets[0] is negative (" + std::to_string(offsets[0]) + ")");
    (void)policy;
    return seg::offsets_info{offsets[0], offsets[segments]};
  } else if constexpr (is_host_policy<Policy>::value) {
    return seg::read_offsets_host(name, offsets, segments);
  } else {
#if ALGO_HAS_CUDA
    return seg::read_offsets_device(name, policy, kernel_view(policy, offsets), segments);
#endif
  }
}

/// Calls f(heads) with the head functor of the non-empty segments, relative to offsets[0]: from
/// the length for uniform offsets, else from a mask built for the call (host vector or device
/// temporary).
template <class Policy, class OffIt, class F>
void with_offset_heads(const char* name, const Policy& policy, OffIt offsets, std::int64_t segments,
                       const seg::offsets_info& info, F&& f) {
  if constexpr (std::is_same<OffIt, uniform_offsets_iterator>::value) {
    (void)name;
    (void)policy;
    (void)segments;
    (void)info;
    f(seg::uniform_heads{offsets.functor().length});
  } else if constexpr (is_host_policy<Policy>::value) {
    const std::vector<std::uint32_t> mask = seg::heads_mask_host(offsets, segments, info);
    f(seg::mask_heads{mask.data()});
  } else {
#if ALGO_HAS_CUDA
    const std::int64_t n = info.last - info.first;
    cuda::temporary_buffer mask(policy, static_cast<std::size_t>((n + 31) / 32) * sizeof(std::uint32_t));
    seg::heads_mask_device(name, policy, kernel_view(policy, offsets), segments, info.first, n, mask.as<std::uint32_t>());
    f(seg::mask_heads{mask.as<std::uint32_t>()});
#endif
  }
}

/// The lifted scan itself (inclusive, no init: the init, if any, is folded in by the lifting).
/// `alias`: what the lifted input may read of what the output writes (none; same_position: only
/// position i; other: elsewhere, or unknown). The sequential scan and the device kernels read a
/// position (a tile) before writing it, which is enough for same_position; algo::par runs its tiled
/// scan with claims then, and scans sequentially for other.
template <class Acc, class In, class Out, class SOp>
void run_lifted(const seq_policy& p, In in, std::int64_t n, Out out, SOp sop, alias_kind) {
  scan(p, inclusive_t{}, in, n, out, sop, no_init_t{});
}
template <class Acc, class In, class Out, class SOp>
void run_lifted(const par_policy& p, In in, std::int64_t n, Out out, SOp sop, alias_kind alias) {
  const int threads = host::thread_count(p);
  if (threads <= 1 || n < host::tuning::scan_min_tiles * host::tuning::scan_tile || alias == alias_kind::other) {
    scan(seq, inclusive_t{}, in, n, out, sop, no_init_t{});
    return;
  }
  using L = iter_value_t<In>;
  host::scan_tiles<true, L>(threads, in, n, out, sop, std::optional<L>{}, alias == alias_kind::same_position);
}
#if ALGO_HAS_CUDA
/// algo::cuda: the policy's strategy; the default (automatic) takes the ordered look-back when the
/// values accumulate in a floating-point type (float, double), so those segmented results are
/// reproducible run to run (a struct of floats takes the classic look-back). The ordered look-back
/// stops at the newest head (scan/ordered_lookback.cuh): H100, 2^26 f32, the scan by key 1.09-1.12x
/// CUB where the fixed-anchor look-back was at 1.06x, reduce_by_key 0.97-1.21x (was 0.96-1.10x)
/// (bench/notes/keys_segments.md, "The ordered look-back"). Reproducible as long as op's result
/// depends only on its operands (algo's operators, plain IEEE arithmetic; a user's float operator
/// whose inlined copies nvcc could contract a*b+c differently needs -fmad=false).
template <class Acc, class... S, class In, class Out, class SOp>
void run_lifted(const cuda_policy<S...>& p, In in, std::int64_t n, Out out, SOp sop, alias_kind) {
  using Policy = cuda_policy<S...>;
  if constexpr (std::is_same<typename Policy::scan_strategy, scan_strategy::automatic_t>::value &&
                std::is_floating_point<Acc>::value) {
    scan(p.with(scan_strategy::ordered_lookback), inclusive_t{}, in, n, out, sop, no_init_t{});
  } else {
    scan(p, inclusive_t{}, in, n, out, sop, no_init_t{});
  }
}
template <class Acc, class In, class Out, class SOp>
void run_lifted(const cub_policy& p, In in, std::int64_t n, Out out, SOp sop, alias_kind) {
  scan(p, inclusive_t{}, in, n, out, sop, no_init_t{});
}
#endif

/// Whether the output provably overlaps an input: checked only for iterators alias.hpp can see
/// through; for others an overlap other than in place is the caller's promise, as Thrust's.
template <class InIt, class OutIt>
bool proven_overlap(const InIt& in, std::int64_t n_in, const OutIt& out, std::int64_t n_out) {
  if (n_in <= 0 || n_out <= 0) return false;
  if constexpr (access_traits<InIt>::known && access_traits<OutIt>::known)
    return alias_between(in, n_in, out, n_out) != alias_kind::none;
  else return false;
}
/// What the input may read of the output, for the in-place decisions: alias_between's answer,
/// with "unknown" taken as other (safe: a copy, or algo::par's sequential scan).
template <class InIt, class OutIt>
alias_kind may_alias(const InIt& in, std::int64_t n, const OutIt& out) {
  return n <= 0 ? alias_kind::none : alias_between(in, n, out, n);
}

/// A copy of n values as T (host vector or device temporary), for in-place exclusive scans.
template <class T, class Policy, class It, class F>
void with_copy(const char* name, const Policy& policy, It it, std::int64_t n, F&& f) {
  if constexpr (is_host_policy<Policy>::value) {
    (void)name;
    std::vector<T> copy(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) copy[static_cast<std::size_t>(i)] = static_cast<T>(it[i]);
    f(copy.data());
  } else {
#if ALGO_HAS_CUDA
    cuda::temporary_buffer tmp(policy, static_cast<std::size_t>(n) * sizeof(T));
    f(seg::copy_values_device<T>(name, policy, kernel_view(policy, it), n, tmp));
#endif
  }
}

// ---- the lifted segmented scan, given heads -------------------------------------------------------
/// out[i] for i in [0, n): the scan of values within the segments that heads marks; Mode:
/// seg::lift_plain / lift_init (inclusive, without / with a per-segment init) / lift_exclusive.
template <int Mode, class Acc, class Policy, class Heads, class ValIt, class OutIt, class Op>
void segmented_scan_run(const char* name, const Policy& policy, Heads heads, ValIt values, std::int64_t n, OutIt out,
                        Op op, const Acc& init, alias_kind alias) {
  using AOp = accumulate_with<Op, Acc>;
  const auto run = [&](auto vals, alias_kind a) {
    using L = seg::lift<Acc, Heads, decltype(vals), AOp, Mode>;
    const seg::indexed_iterator<L> in(L{heads, vals, AOp{op}, init}, 0);
    const auto o = kernel_view(policy, out);
    const seg::indexed_output<seg::value_writer<decltype(o)>> lifted_out(seg::value_writer<decltype(o)>{o}, 0);
    run_lifted<Acc>(policy, in, n, lifted_out, seg::segmented_op<AOp>{AOp{op}}, a);
  };
  if (Mode == seg::lift_exclusive && alias != alias_kind::none) {
    // element i reads value i - 1, which an in-place scan has already overwritten: scan a copy
    with_copy<iter_value_t<ValIt>>(name, policy, values, n, [&](auto* copy) { run(copy, alias_kind::none); });
  } else {
    run(kernel_view(policy, values), alias);
  }
}

// ---- the generic implementations (algo::cub overloads some: detail/cub/segmented.cuh) -----------------
/// The lifted scan over key heads (every policy; algo::cub's CUB calls in detail/cub/segmented.cuh).
template <class Policy, bool Inclusive, class KeyIt, class ValIt, class OutIt, class Eq, class Op, class Acc>
void scan_by_key_lifted(const Policy& policy, scan_kind<Inclusive>, KeyIt keys, ValIt values, std::int64_t n, OutIt out, Eq eq,
                 Op op, const Acc& init, alias_kind alias) {
  const auto k = kernel_view(policy, keys);
  const seg::key_heads<decltype(k), Eq> heads{k, eq};
  segmented_scan_run<Inclusive ? seg::lift_plain : seg::lift_exclusive, Acc>(
      Inclusive ? "inclusive_scan_by_key" : "exclusive_scan_by_key", policy, heads, values, n, out, op, init, alias);
}

/// The lifted scan with run counts, the number of runs written to *count by the element that ends
/// the input (count: what the policy's side writes; device policies: a device iterator). n >= 1.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op, class CountIt>
void reduce_by_key_lifted_to(const Policy& policy, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                             ValOut values_out, Eq eq, Op op, CountIt count) {
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  using AOp = accumulate_with<Op, Acc>;
  const auto k = kernel_view(policy, keys);
  const auto v = kernel_view(policy, values);
  const auto ko = kernel_view(policy, keys_out);
  const auto vo = kernel_view(policy, values_out);
  using Heads = seg::key_heads<decltype(k), Eq>;
  using W = seg::run_writer<Acc, decltype(k), Eq, decltype(ko), decltype(vo), CountIt>;
  const seg::indexed_output<W> out(W{k, eq, ko, vo, n, count}, 0);
  const auto lifted = [&](auto runs_type) {
    using L = seg::lift_runs<Acc, Heads, decltype(v), decltype(runs_type)>;
    const seg::indexed_iterator<L> in(L{Heads{k, eq}, v, n}, 0);
    run_lifted<Acc>(policy, in, n, out, seg::segmented_op<AOp>{AOp{op}}, alias_kind::none);
  };
  if constexpr (is_host_policy<Policy>::value) {
    lifted(0LL);
  } else {
    if (n <= 0x7fffffff) lifted(0);  // 32-bit run counts: a smaller lifted value
    else lifted(0LL);
  }
}

/// The lifted scan with run counts; returns the number of runs (device policies: through a
/// temporary read back to the host, which waits for the stream).
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op>
std::int64_t reduce_by_key_lifted(const Policy& policy, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                           ValOut values_out, Eq eq, Op op) {
  if constexpr (is_host_policy<Policy>::value) {
    long long count = 0;
    reduce_by_key_lifted_to(policy, keys, values, n, keys_out, values_out, eq, op, &count);
    return count;
  } else {
#if ALGO_HAS_CUDA
    cuda::temporary_buffer count(policy, sizeof(long long));
    reduce_by_key_lifted_to(policy, keys, values, n, keys_out, values_out, eq, op, count.as<long long>());
    return cuda::copy_to_host("reduce_by_key", count.as<long long>(), policy.stream);
#else
    return 0;
#endif
  }
}

/// out[k] = init op (segment k, in order); an empty segment gets init (as T: not converted to the
/// accumulator and back).
template <class Policy, class InIt, class OffIt, class OutIt, class Acc, class Op, class T>
void segmented_reduce_lifted(const Policy& policy, InIt first, OffIt offsets, std::int64_t segments,
                      const seg::offsets_info& info, OutIt out, const Acc& init, Op op, const T& init_as_t) {
  const char* name = "segmented_reduce";
  const std::int64_t n = info.last - info.first;
  const auto o = kernel_view(policy, out);
  const auto offs = kernel_view(policy, offsets);
  // empty segments: init
  if constexpr (is_host_policy<Policy>::value) {
    for (std::int64_t k = 0; k < segments; ++k)
      if (offs[k] == offs[k + 1]) o[k] = init_as_t;
  } else {
#if ALGO_HAS_CUDA
    seg::empty_segments_device(name, policy, offs, segments, o, init_as_t);
#endif
  }
  if (n == 0) return;
  using AOp = accumulate_with<Op, Acc>;
  with_offset_heads(name, policy, offsets, segments, info, [&](auto heads) {
    using Heads = decltype(heads);
    const auto v = kernel_view(policy, first + info.first);
    using L = seg::lift<Acc, Heads, decltype(v), AOp, seg::lift_init>;
    const seg::indexed_iterator<L> in(L{heads, v, AOp{op}, init}, 0);
    using W = seg::segment_writer<Heads, decltype(offs), decltype(o)>;
    const seg::indexed_output<W> lifted_out(W{heads, offs, segments, info.first, n, o}, 0);
    run_lifted<Acc>(policy, in, n, lifted_out, seg::segmented_op<AOp>{AOp{op}}, alias_kind::none);
  });
}

/// The backends' entry: the lifted forms above for every policy; algo::cub overloads these with
/// CUB's calls where CUB has them (detail/cub/segmented.cuh).
template <class Policy, bool Inclusive, class KeyIt, class ValIt, class OutIt, class Eq, class Op, class Acc>
void scan_by_key(const Policy& policy, scan_kind<Inclusive> kind, KeyIt keys, ValIt values, std::int64_t n, OutIt out,
                 Eq eq, Op op, const Acc& init, alias_kind alias) {
  scan_by_key_lifted(policy, kind, keys, values, n, out, eq, op, init, alias);
}
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op>
std::int64_t reduce_by_key(const Policy& policy, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                           ValOut values_out, Eq eq, Op op) {
  return reduce_by_key_lifted(policy, keys, values, n, keys_out, values_out, eq, op);
}
/// reduce_by_key_into's backend: the number of runs to *count_out on the policy's side (device
/// policies: written on the stream by the scan's last tile, no host wait). n >= 1.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op, class CountIt>
void reduce_by_key_into(const Policy& policy, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                        ValOut values_out, Eq eq, Op op, CountIt count_out) {
  if constexpr (is_host_policy<Policy>::value) {
    *count_out = detail::reduce_by_key(policy, keys, values, n, keys_out, values_out, eq, op);
  } else {
    reduce_by_key_lifted_to(policy, keys, values, n, keys_out, values_out, eq, op, kernel_view(policy, count_out));
  }
}
template <class Policy, class InIt, class OffIt, class OutIt, class Acc, class Op, class T>
void segmented_reduce(const Policy& policy, InIt first, OffIt offsets, std::int64_t segments,
                      const seg::offsets_info& info, OutIt out, const Acc& init, Op op, const T& init_as_t) {
  segmented_reduce_lifted(policy, first, offsets, segments, info, out, init, op, init_as_t);
}
#if ALGO_HAS_CUDA
/// algo::cuda with its default scan strategy: long segments (at least 2048 elements on average, none
/// over four times that, at least as many segments as SMs: uniform_offsets' length, or what the
/// offsets check found in memory), one block per segment (detail/segmented/reduce_blocks.cuh);
/// fewer segments of 4096 or more (uniform, or in memory and none over four times the mean), each
/// split over several blocks (detail/segmented/reduce_long.cuh); uniform segments of 1-2047
/// elements, a group of lanes a segment (detail/segmented/reduce_groups.cuh; offsets in memory too,
/// when the check finds every segment of one such length); any other offsets,
/// the balanced merge-path kernel
/// (detail/segmented/reduce_merge_path.cuh), whose tiles' carries go through the
/// policy's own scan. A policy that names a scan strategy runs the lifted scan on that strategy
/// instead (the classic-strategies forms the bench compares).
template <class W, class R, class Tr, class B, class G, class InIt, class OffIt, class OutIt, class Acc, class Op,
          class T>
void segmented_reduce(const cuda_policy<scan_strategy::automatic_t, W, R, Tr, B, G>& policy, InIt first, OffIt offsets,
                      std::int64_t segments, const seg::offsets_info& info, OutIt out, const Acc& init, Op op,
                      const T& init_as_t) {
  const int sm_count = cuda::current_device_info().sm_count;
  if constexpr (std::is_same<OffIt, uniform_offsets_iterator>::value) {
    const std::int64_t length = offsets.functor().length;
    // enough long segments to fill the device: one block per segment (below); fewer: each split
    // over several blocks
    if (length >= seg::long_segments::long_length && segments < sm_count) {
      seg::long_segments::reduce<W>("segmented_reduce", policy, first + info.first, length, segments,
                                    kernel_view(policy, out), init, op);
      return;
    }
    // short and middling segments: a group of lanes a segment
    if (length >= 1 && length < seg::segment_groups::max_length) {
      seg::segment_groups::reduce("segmented_reduce", policy, first + info.first, length, segments,
                                  kernel_view(policy, out), init, op);
      return;
    }
  }
  if constexpr (!std::is_same<OffIt, uniform_offsets_iterator>::value) {
    // offsets in memory whose segments all have one length shorter than a block's (the check's
    // longest times the count is the element count, so none is shorter: fixed-length rows stored
    // as CSR): the group-of-lanes kernels of uniform_offsets, which read no offsets
    const std::int64_t length = info.max_length;
    if (length >= 1 && length < seg::segment_groups::max_length && info.last - info.first == segments * length) {
      seg::segment_groups::reduce("segmented_reduce", policy, first + info.first, length, segments,
                                  kernel_view(policy, out), init, op);
      return;
    }
  }
  {
    // segments all long (uniform_offsets: the length; offsets in memory: the longest, found by the
    // check that read them back): one block per segment
    const std::int64_t longest = std::is_same<OffIt, uniform_offsets_iterator>::value
                                     ? (segments > 0 ? (info.last - info.first) / segments : 0)
                                     : info.max_length;
    if (seg::segment_blocks::suits(segments, info.last - info.first, longest, sm_count)) {
      seg::segment_blocks::reduce<W>("segmented_reduce", policy, kernel_view(policy, first + info.first),
                                     kernel_view(policy, offsets),
                                     info.first, segments, kernel_view(policy, out), init, op, init_as_t);
      return;
    }
    // offsets in memory, fewer long segments than SMs: each split over several blocks
    if constexpr (!std::is_same<OffIt, uniform_offsets_iterator>::value) {
      if (seg::long_segments::suits_offsets(segments, info.last - info.first, info.max_length, sm_count)) {
        seg::long_segments::reduce_offsets<W>("segmented_reduce", policy, kernel_view(policy, first + info.first),
                                              kernel_view(policy, offsets), info.first, segments, info.max_length,
                                              kernel_view(policy, out), init, op, init_as_t);
        return;
      }
    }
  }
  using AOp = accumulate_with<Op, Acc>;
  seg::merge_path::reduce<W>("segmented_reduce", policy, kernel_view(policy, first + info.first),
                             kernel_view(policy, offsets), segments, info.first, info.last - info.first,
                             kernel_view(policy, out), init, AOp{op}, init_as_t,
                             [&](auto in, std::int64_t count, auto fix, auto sop) {
                               run_lifted<Acc>(policy, in, count, fix, sop, alias_kind::none);
                             });
}
#endif

}  // namespace detail
}  // namespace algo

#if ALGO_HAS_CUDA
#  include "detail/cub/segmented.cuh"
#endif

namespace algo {
namespace detail {

// ---- entry points ----------------------------------------------------------------------------------
/// exclusive_scan_by_key accumulates in init's type T (Thrust's rule for it): each value becomes a
/// T, and op combines two Ts (the lifted scan also combines partial results with it).
template <class Op, class T, class ValIt>
constexpr void check_fold_in_init() {
  static_assert(std::is_constructible<T, iter_value_t<ValIt>>::value,
                "algo::exclusive_scan_by_key accumulates in init's type T (as Thrust): each value must convert to T");
  static_assert(std::is_invocable<Op&, const T&, const T&>::value,
                "algo::exclusive_scan_by_key accumulates in init's type T (as Thrust): op(T, T) must be valid");
}

template <int Mode, class Acc, class Policy, class KeyIt, class ValIt, class OutIt, class Eq, class Op>
OutIt scan_by_key_entry(const char* name, const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values,
                        OutIt out, Eq eq, Op op, const Acc& init) {
  const std::int64_t n = checked_distance(name, keys_first, keys_last);
  check_iterator(name, "keys", policy, keys_first, n);
  check_iterator(name, "values", policy, values, n);
  check_iterator(name, "output", policy, out, n);
  if (n == 0) return out;
  // Thrust allows the output to be the keys or the values exactly, no other overlap
  const auto exact_or_none = [&](const auto& in) {
    return !proven_overlap(in, n, out, n) || may_alias(in, n, out) == alias_kind::same_position;
  };
  if (!exact_or_none(keys_first)) fail(name, "the output overlaps the keys other than exactly (in place)");
  if (!exact_or_none(values)) fail(name, "the output overlaps the values other than exactly (in place)");
  const auto run = [&](auto keys) {
    detail::scan_by_key(policy, scan_kind<Mode != seg::lift_exclusive>{}, keys, values, n, out, eq, op, init,
                        may_alias(values, n, out));
  };
  if (may_alias(keys_first, n, out) != alias_kind::none) {
    // the heads compare key i with key i - 1 and i + 1, which an in-place scan overwrites: a copy
    with_copy<iter_value_t<KeyIt>>(name, policy, keys_first, n, [&](auto* copy) { run(copy); });
  } else {
    run(keys_first);
  }
  return out + n;
}

/// Neither output of a keyed call may overlap an input.
template <class KeyIt, class ValIt, class KeyOut, class ValOut>
void check_keyed_overlaps(const char* name, const KeyIt& keys_first, const ValIt& values, std::int64_t n,
                          const KeyOut& keys_out, const ValOut& values_out) {
  if (proven_overlap(keys_first, n, keys_out, n) || proven_overlap(values, n, keys_out, n))
    fail(name, "the keys output overlaps an input");
  if (proven_overlap(keys_first, n, values_out, n) || proven_overlap(values, n, values_out, n))
    fail(name, "the values output overlaps an input");
}

/// For the keyed calls that return a count to the host (reduce_by_key, group_reduce): refused under
/// graph capture on device policies, and neither output may overlap an input.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut>
void check_keyed_outputs(const char* name, const Policy& policy, const KeyIt& keys_first, const ValIt& values,
                         std::int64_t n, const KeyOut& keys_out, const ValOut& values_out) {
#if ALGO_HAS_CUDA
  if constexpr (is_device_policy<Policy>::value) cuda::refuse_host_result_under_capture(name, policy.stream);
#else
  (void)policy;
#endif
  check_keyed_overlaps(name, keys_first, values, n, keys_out, values_out);
}

template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op>
std::pair<KeyOut, ValOut> reduce_by_key_entry(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values,
                                             KeyOut keys_out, ValOut values_out, Eq eq, Op op) {
  const char* name = "reduce_by_key";
  const std::int64_t n = checked_distance(name, keys_first, keys_last);
  check_iterator(name, "keys", policy, keys_first, n);
  check_iterator(name, "values", policy, values, n);
  check_iterator(name, "keys output", policy, keys_out, n);
  check_iterator(name, "values output", policy, values_out, n);
  if (n == 0) return {keys_out, values_out};
#if ALGO_HAS_CUDA
  if constexpr (is_device_policy<Policy>::value) {
    if (cuda::stream_is_capturing(policy.stream, name))
      fail(name,
           "returns its output ends to the host, which needs a synchronization and cannot be captured into a "
           "CUDA graph; inside a capture use algo::reduce_by_key_into (the run count is written to device memory "
           "on the stream)");
  }
#endif
  check_keyed_outputs(name, policy, keys_first, values, n, keys_out, values_out);
  const std::int64_t runs = detail::reduce_by_key(policy, keys_first, values, n, keys_out, values_out, eq, op);
  return {keys_out + runs, values_out + runs};
}

/// reduce_by_key_into: the checks of reduce_by_key without its refusal under graph capture (nothing
/// comes back to the host), the count output checked too; an empty input writes 0 to *count_out.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt, class Eq, class Op>
void reduce_by_key_into_entry(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values, KeyOut keys_out,
                              ValOut values_out, CountIt count_out, Eq eq, Op op) {
  const char* name = "reduce_by_key_into";
  const std::int64_t n = checked_distance(name, keys_first, keys_last);
  check_iterator(name, "keys", policy, keys_first, n);
  check_iterator(name, "values", policy, values, n);
  check_iterator(name, "keys output", policy, keys_out, n);
  check_iterator(name, "values output", policy, values_out, n);
  check_iterator(name, "count output", policy, count_out, 1);
  if (n == 0) {
    if constexpr (is_host_policy<Policy>::value) {
      *count_out = 0;
    } else {
#if ALGO_HAS_CUDA
      cuda::write_value_kernel<<<1, 1, 0, policy.stream>>>(kernel_view(policy, count_out), 0LL);
      cuda::check_launch(name, "write_value_kernel");
#endif
    }
    return;
  }
  check_keyed_overlaps(name, keys_first, values, n, keys_out, values_out);
  if (proven_overlap(keys_first, n, count_out, 1) || proven_overlap(values, n, count_out, 1))
    fail(name, "the count output overlaps an input");
  detail::reduce_by_key_into(policy, keys_first, values, n, keys_out, values_out, eq, op, count_out);
}

template <class Policy, class OffIt>
std::int64_t checked_segments(const char* name, const Policy&, OffIt offsets_first, OffIt offsets_last) {
  const std::int64_t count = checked_distance(name, offsets_first, offsets_last);
  if (count < 1) fail(name, "needs num_segments + 1 >= 1 offsets (got an empty offsets range)");
  return count - 1;
}

/// Whether the segmented scans take their heads from what the offsets check found (algo::cuda, offsets
/// and values in contiguous device storage): uniform heads when every segment has one length, else
/// the heads mask.
template <class Policy, class InIt, class OffIt>
inline constexpr bool heads_from_check_v = false;
#if ALGO_HAS_CUDA
template <class... S, class InIt, class OffIt>
inline constexpr bool heads_from_check_v<cuda_policy<S...>, InIt, OffIt> =
    !std::is_same<OffIt, uniform_offsets_iterator>::value &&
    std::is_pointer<decltype(cuda::unwrap(std::declval<const OffIt&>()))>::value &&
    std::is_pointer<decltype(cuda::unwrap(std::declval<const InIt&>()))>::value;
#endif

template <int Mode, class Acc, class Policy, class InIt, class OffIt, class OutIt, class Op>
OutIt segmented_scan_entry(const char* name, const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last,
                           OutIt out, Op op, const Acc& init) {
  const std::int64_t segments = checked_segments(name, policy, offsets_first, offsets_last);
  check_iterator(name, "offsets", policy, offsets_first, segments + 1);
  const seg::offsets_info info = read_offsets(name, policy, offsets_first, segments);
  const std::int64_t n = info.last - info.first;
  check_iterator(name, "input", policy, first + info.first, n);
  check_iterator(name, "output", policy, out + info.first, n);
  if (n == 0) return out + info.last;
  const alias_kind a = may_alias(first + info.first, n, out + info.first);
  if (proven_overlap(first + info.first, n, out + info.first, n) && a != alias_kind::same_position)
    fail(name, "the output overlaps the input other than exactly (in place)");
  if (proven_overlap(offsets_first, segments + 1, out + info.first, n)) fail(name, "the output overlaps the offsets");
  const auto run = [&](auto heads) {
    segmented_scan_run<Mode, Acc>(name, policy, heads, first + info.first, n, out + info.first, op, init, a);
  };
  if constexpr (heads_from_check_v<Policy, InIt, OffIt>) {
    if (info.min_length > 0 && info.min_length == info.max_length) {
      // every segment has one length (the check found it): the heads are i % L == 0, as with
      // algo::uniform_offsets, and the tiles read no offsets
      run(seg::uniform_heads{info.max_length});
      return out + info.last;
    }
  }
  // any other offsets: the heads mask (device policies: built in one pass over the offsets that
  // writes it whole, 8 MB at 2^26 elements, ~40 us; the tiles read one or two words of it a thread.
  // Each warp of a tile finding its own segments in the offsets, the form before 2026-11-27, made
  // the scan 50-85 us longer at 2^26 elements of 4-32 on average: bench/notes/keys_segments.md)
  with_offset_heads(name, policy, offsets_first, segments, info, run);
  return out + info.last;
}

#if ALGO_HAS_CUDA
/// algo::cuda's default policy over offsets in memory, input and output in contiguous storage: the
/// block-per-segment kernel may be queued behind the offsets check (detail/segmented/reduce_blocks.cuh,
/// `speculation`).
template <class Policy, class InIt, class OffIt, class OutIt>
inline constexpr bool speculates_v = false;
template <class W, class R, class Tr, class B, class G, class InIt, class OffIt, class OutIt>
inline constexpr bool speculates_v<cuda_policy<scan_strategy::automatic_t, W, R, Tr, B, G>, InIt, OffIt, OutIt> =
    !std::is_same<OffIt, uniform_offsets_iterator>::value &&
    std::is_pointer<decltype(raw_address(std::declval<const InIt&>()))>::value &&
    std::is_pointer<decltype(raw_address(std::declval<const OutIt&>()))>::value;

/// Queues the block-per-segment kernel behind the offsets check `check` (it writes only when the
/// check finds long, good segments and no overlap); false when it queued nothing.
template <class Acc, class Policy, class InIt, class OffIt, class OutIt, class T, class Op>
bool speculate_segment_blocks(const char* name, const Policy& policy, InIt first, OffIt offsets, std::int64_t segments,
                              OutIt out, const T& init, Op op, const seg::offsets_check* check) {
  const int sm_count = cuda::current_device_info().sm_count;
  if (segments < sm_count) return false;  // never long enough (seg::segment_blocks::suits)
  try {
    check_iterator(name, "input", policy, first, 1);  // a pointer the device reaches (else the checks after the wait say why)
  } catch (...) {
    return false;
  }
  const auto* in = raw_address(first);
  const auto* o = raw_address(out);
  seg::segment_blocks::speculation spec;
  spec.check = check;
  spec.sm_count = sm_count;
  spec.in = reinterpret_cast<const char*>(in);
  spec.in_size = sizeof(*in);
  spec.out = reinterpret_cast<const char*>(o);
  spec.out_bytes = static_cast<std::size_t>(segments) * sizeof(*o);
  seg::segment_blocks::reduce<typename Policy::warp_phase>(name, policy, kernel_view(policy, first),
                                                           kernel_view(policy, offsets), 0, segments,
                                                           kernel_view(policy, out), static_cast<Acc>(init), op, init,
                                                           spec);
  return true;
}

/// The block-per-segment kernel with the offsets check inside its launch (reduce_deferred.cuh
/// `run_deferred`: no block waits; results left before the verdict was out are copied behind it
/// once the host has the verdict); false when it wrote nothing and has no verdict. Else `info` is
/// the checked offsets (algo::error when bad: nothing was written) and `wrote` whether the kernel
/// wrote the results (the device's own test, verdict_allows: the offsets good and inside the
/// input's allocation, the segments long, the input clear of the output).
template <class Acc, class Policy, class InIt, class OffIt, class OutIt, class T, class Op>
bool fused_segment_blocks(const char* name, const Policy& policy, InIt first, OffIt offsets, std::int64_t segments,
                          OutIt out, const T& init, Op op, seg::offsets_info& info, bool& wrote) {
  const int sm_count = cuda::current_device_info().sm_count;
  if (segments < sm_count) return false;  // never long enough (seg::segment_blocks::suits)
  seg::refuse_offsets_under_capture(name, policy);
  try {
    check_iterator(name, "input", policy, first, 1);  // a pointer the device reaches (else the checks after say why)
  } catch (...) {
    return false;
  }
  const auto* in = raw_address(first);
  const auto* o = raw_address(out);
  seg::segment_blocks::speculation spec;
  spec.check = nullptr;  // set on the device
  spec.sm_count = sm_count;
  spec.in = reinterpret_cast<const char*>(in);
  spec.in_size = sizeof(*in);
  spec.out = reinterpret_cast<const char*>(o);
  spec.out_bytes = static_cast<std::size_t>(segments) * sizeof(*o);
  // the elements of the input's allocation, which bound every read before the verdict: without
  // them (memory the driver cannot place) the check goes first (the caller's other path)
  std::uintptr_t alloc = 0;
  std::size_t alloc_bytes = 0;
  if (!allocation_range(in, alloc, alloc_bytes)) return false;
  {
    const auto at = reinterpret_cast<std::uintptr_t>(in);
    const auto size = static_cast<std::uintptr_t>(sizeof(*in));
    spec.in_lo = -static_cast<long long>((at - alloc) / size);
    spec.in_hi = static_cast<long long>((alloc + alloc_bytes - at) / size);
  }
  seg::offsets_check verdict{};
  if (!seg::segment_blocks::deferred<typename Policy::warp_phase>(name, policy, kernel_view(policy, first),
                                                                  kernel_view(policy, offsets), segments,
                                                                  kernel_view(policy, out), static_cast<Acc>(init), op,
                                                                  init, spec, verdict))
    return false;
  info = seg::checked_info(name, verdict);
  // where the verdict did not allow it (past the allocation the driver reports, among others), the
  // kernel wrote nothing: the caller runs the reduction after the check as any other path does (no
  // error of ours past the allocation: memory mapped in several pieces, cuMemMap's, can hold a
  // range longer than the piece the driver names)
  wrote = seg::segment_blocks::verdict_allows(spec, verdict, segments);
  return true;
}
#endif

template <class Acc, class T, class Policy, class InIt, class OffIt, class OutIt, class Op>
void segmented_reduce_entry(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out,
                            const T& init, Op op) {
  const char* name = "segmented_reduce";
  const std::int64_t segments = checked_segments(name, policy, offsets_first, offsets_last);
  check_iterator(name, "offsets", policy, offsets_first, segments + 1);
  check_iterator(name, "output", policy, out, segments);
  if (segments == 0) return;
  if (proven_overlap(offsets_first, segments + 1, out, segments)) fail(name, "the output overlaps the offsets");
  seg::offsets_info info;
#if ALGO_HAS_CUDA
  bool queued = false;  // the block-per-segment kernel went out behind the check
  if constexpr (speculates_v<Policy, InIt, OffIt, OutIt>) {
    // one launch: the check in the block-per-segment kernel's first phase; else the check, and the
    // kernel queued behind it
    bool wrote = false;  // (the launch with the check inside: whether it wrote the results)
    if (!fused_segment_blocks<Acc>(name, policy, first, offsets_first, segments, out, init, op, info, wrote)) {
      info = seg::read_offsets_device(name, policy, kernel_view(policy, offsets_first), segments,
                                      [&](const seg::offsets_check* check) {
                                        queued = speculate_segment_blocks<Acc>(name, policy, first, offsets_first,
                                                                               segments, out, init, op, check);
                                      });
    } else {
      queued = wrote;
    }
  } else {
    info = read_offsets(name, policy, offsets_first, segments);
  }
#else
  info = read_offsets(name, policy, offsets_first, segments);
#endif
  const std::int64_t n = info.last - info.first;
  check_iterator(name, "input", policy, first + info.first, n);
  if (proven_overlap(first + info.first, n, out, segments)) fail(name, "the output overlaps the input");
#if ALGO_HAS_CUDA
  // the queued kernel wrote the result when the same test holds on the host
  if (queued && seg::segment_blocks::suits(segments, n, info.max_length, cuda::current_device_info().sm_count)) return;
#endif
  detail::segmented_reduce(policy, first, offsets_first, segments, info, out, static_cast<Acc>(init), op, init);
}

}  // namespace detail

// ---- inclusive_scan_by_key --------------------------------------------------------------------------
/// out[i] = values[s] op ... op values[i], s the first position of i's run of equal keys; in the
/// values' type (as inclusive_scan without init).
template <class Policy, class KeyIt, class ValIt, class OutIt, class Eq, class Op, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out,
                            Eq key_equal, Op op) {
  using V = detail::iter_value_t<ValIt>;
  return detail::scan_by_key_entry<detail::seg::lift_plain, V>("inclusive_scan_by_key", policy, keys_first, keys_last,
                                                               values_first, out, key_equal, op, V{});
}
/// The same with op = plus<>: sums within each run of keys equal under key_equal.
template <class Policy, class KeyIt, class ValIt, class OutIt, class Eq, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out,
                            Eq key_equal) {
  return inclusive_scan_by_key(policy, keys_first, keys_last, values_first, out, key_equal, plus<>{});
}
/// The same with key_equal = equal_to<> and op = plus<>: sums within each run of equal keys.
template <class Policy, class KeyIt, class ValIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt inclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out) {
  return inclusive_scan_by_key(policy, keys_first, keys_last, values_first, out, equal_to<>{}, plus<>{});
}

// ---- exclusive_scan_by_key --------------------------------------------------------------------------
/// out[i] = init for the first element of a run, else init op values[s] op ... op values[i-1];
/// accumulated in init's type T, as Thrust on every backend (thrust::host's sequential loop, and
/// thrust::device, which runs CUB with T as the accumulator): each value is converted to T first,
/// every step is acc = T(op(acc, T(value))). (Not the unsegmented scans' rule, op(init, value)'s
/// type: 8-bit values with an 8-bit init wrap at 256 even into a wider output.)
template <class Policy, class KeyIt, class ValIt, class OutIt, class T, class Eq, class Op, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out,
                            T init, Eq key_equal, Op op) {
  detail::check_fold_in_init<Op, T, ValIt>();
  return detail::scan_by_key_entry<detail::seg::lift_exclusive, T>("exclusive_scan_by_key", policy, keys_first,
                                                                   keys_last, values_first, out, key_equal, op, init);
}
/// The same with op = plus<>.
template <class Policy, class KeyIt, class ValIt, class OutIt, class T, class Eq, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out,
                            T init, Eq key_equal) {
  return exclusive_scan_by_key(policy, keys_first, keys_last, values_first, out, init, key_equal, plus<>{});
}
/// The same with key_equal = equal_to<> and op = plus<>.
template <class Policy, class KeyIt, class ValIt, class OutIt, class T, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out,
                            T init) {
  return exclusive_scan_by_key(policy, keys_first, keys_last, values_first, out, init, equal_to<>{}, plus<>{});
}
/// Thrust's form without init: the values' T{}.
template <class Policy, class KeyIt, class ValIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt exclusive_scan_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, OutIt out) {
  using V = detail::iter_value_t<ValIt>;
  return exclusive_scan_by_key(policy, keys_first, keys_last, values_first, out, V{}, equal_to<>{}, plus<>{});
}

// ---- reduce_by_key ----------------------------------------------------------------------------------
/// One output per run of equal keys: the run's first key and the op-fold of its values in order
/// (in the type op(value, value) returns). Returns the ends of both outputs, as Thrust.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class Op,
          detail::enable_policy<Policy> = 0>
std::pair<KeyOut, ValOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                        KeyOut keys_out, ValOut values_out, Eq key_equal, Op op) {
  return detail::reduce_by_key_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, key_equal, op);
}
/// The same with op = plus<>: the sum of each run of keys equal under key_equal.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, detail::enable_policy<Policy> = 0>
std::pair<KeyOut, ValOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                        KeyOut keys_out, ValOut values_out, Eq key_equal) {
  return detail::reduce_by_key_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, key_equal, plus<>{});
}
/// The same with key_equal = equal_to<> and op = plus<>: the sum of each run of equal keys.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, detail::enable_policy<Policy> = 0>
std::pair<KeyOut, ValOut> reduce_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                        KeyOut keys_out, ValOut values_out) {
  return detail::reduce_by_key_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, equal_to<>{},
                                     plus<>{});
}

/// reduce_by_key, with the number of runs (elements written to each output) written to *count_out
/// instead of returned: device policies write it on the policy's stream (nothing waits on the host;
/// usable under CUDA graph capture), as the selection family's *_into forms and reduce_into do.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt, class Eq, class Op,
          detail::enable_policy<Policy> = 0>
void reduce_by_key_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                        ValOut values_out, CountIt count_out, Eq key_equal, Op op) {
  detail::reduce_by_key_into_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, count_out,
                                   key_equal, op);
}
/// reduce_by_key_into with op = plus<>.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt, class Eq,
          detail::enable_policy<Policy> = 0>
void reduce_by_key_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                        ValOut values_out, CountIt count_out, Eq key_equal) {
  detail::reduce_by_key_into_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, count_out,
                                   key_equal, plus<>{});
}
/// reduce_by_key_into with key_equal = equal_to<> and op = plus<>.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt,
          detail::enable_policy<Policy> = 0>
void reduce_by_key_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                        ValOut values_out, CountIt count_out) {
  detail::reduce_by_key_into_entry(policy, keys_first, keys_last, values_first, keys_out, values_out, count_out,
                                   equal_to<>{}, plus<>{});
}

// ---- segmented_reduce --------------------------------------------------------------------------------
/// out[k] = init op first[offsets[k]] op ... op first[offsets[k+1] - 1], left to right; an empty
/// segment gets init. Accumulated in the type op(init, value) returns, stored as T.
template <class Policy, class InIt, class OffIt, class OutIt, class T, class Op, detail::enable_policy<Policy> = 0>
void segmented_reduce(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, T init, Op op) {
  detail::check_fold<Op, T, InIt>();
  using Acc = detail::accumulator_t<Op, T, detail::iter_value_t<InIt>>;
  detail::segmented_reduce_entry<Acc>(policy, first, offsets_first, offsets_last, out, init, op);
}
/// The same with op = plus<>: out[k] = init + the sum of segment k.
template <class Policy, class InIt, class OffIt, class OutIt, class T, detail::enable_policy<Policy> = 0>
void segmented_reduce(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, T init) {
  segmented_reduce(policy, first, offsets_first, offsets_last, out, init, plus<>{});
}

// ---- segmented_inclusive_scan / segmented_exclusive_scan ----------------------------------------------
/// Within each segment, out[i] = first[offsets[k]] op ... op first[i] (with init: init op ...).
/// Positions outside [offsets[0], offsets[S]) are not written; returns out + offsets[S].
template <class Policy, class InIt, class OffIt, class OutIt, class Op, detail::enable_policy<Policy> = 0>
OutIt segmented_inclusive_scan(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, Op op) {
  using V = detail::iter_value_t<InIt>;
  return detail::segmented_scan_entry<detail::seg::lift_plain, V>("segmented_inclusive_scan", policy, first,
                                                                  offsets_first, offsets_last, out, op, V{});
}
/// The same with op = plus<>: running sums within each segment, in the values' type.
template <class Policy, class InIt, class OffIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt segmented_inclusive_scan(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out) {
  return segmented_inclusive_scan(policy, first, offsets_first, offsets_last, out, plus<>{});
}
/// Within each segment, out[i] = init op first[offsets[k]] op ... op first[i], accumulated in the
/// type op(init, value) returns.
template <class Policy, class InIt, class OffIt, class OutIt, class Op, class T, detail::enable_policy<Policy> = 0>
OutIt segmented_inclusive_scan(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, Op op,
                               T init) {
  detail::check_fold<Op, T, InIt>();
  using Acc = detail::accumulator_t<Op, T, detail::iter_value_t<InIt>>;
  return detail::segmented_scan_entry<detail::seg::lift_init, Acc>("segmented_inclusive_scan", policy, first,
                                                                   offsets_first, offsets_last, out, op,
                                                                   static_cast<Acc>(init));
}
/// Within each segment, out[i] = init for its first element, else init op first[offsets[k]] op
/// ... op first[i-1].
template <class Policy, class InIt, class OffIt, class OutIt, class T, class Op, detail::enable_policy<Policy> = 0>
OutIt segmented_exclusive_scan(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, T init,
                               Op op) {
  detail::check_fold<Op, T, InIt>();
  using Acc = detail::accumulator_t<Op, T, detail::iter_value_t<InIt>>;
  return detail::segmented_scan_entry<detail::seg::lift_exclusive, Acc>("segmented_exclusive_scan", policy, first,
                                                                        offsets_first, offsets_last, out, op,
                                                                        static_cast<Acc>(init));
}
/// The same with op = plus<>.
template <class Policy, class InIt, class OffIt, class OutIt, class T, detail::enable_policy<Policy> = 0>
OutIt segmented_exclusive_scan(const Policy& policy, InIt first, OffIt offsets_first, OffIt offsets_last, OutIt out, T init) {
  return segmented_exclusive_scan(policy, first, offsets_first, offsets_last, out, init, plus<>{});
}

}  // namespace algo
