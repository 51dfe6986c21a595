// Selection, every policy (Thrust's names and argument order):
//
//   copy_if(policy, first, last, [stencil,] d_first, pred)             -> end of the output
//   remove_copy_if(policy, first, last, [stencil,] d_first, pred)      -> end of the output
//   remove_copy(policy, first, last, d_first, value)                   -> end of the output
//   remove_if(policy, first, last, [stencil,] pred), remove(policy, first, last, value)
//                                                                      -> new end (in place)
//   partition_copy / stable_partition_copy(policy, first, last, [stencil,] out_true, out_false, pred)
//                                                                      -> pair of output ends
//   partition / stable_partition(policy, first, last, [stencil,] pred) -> start of the second part
//   unique_copy(policy, first, last, d_first [, eq]), unique(policy, first, last [, eq]),
//   unique_count(policy, first, last [, eq])
//   unique_by_key_copy(policy, kf, kl, vf, kout, vout [, eq]), unique_by_key(policy, kf, kl, vf [, eq])
//   run_length_encode(policy, first, last, unique_out, counts_out [, eq]) -> number of runs
//   count_if(policy, first, last, pred), count(policy, first, last, value) -> std::int64_t
//
// Beyond Thrust, for stream pipelines and CUDA graphs (device policies: nothing waits on the host):
//   copy_if_into(policy, first, last, [stencil,] d_first, count_out, pred)
//   partition_copy_into(policy, first, last, [stencil,] out_true, out_false, count_out, pred)
//   unique_copy_into(policy, first, last, d_first, count_out [, eq])
//   unique_by_key_copy_into(policy, kf, kl, vf, kout, vout, count_out [, eq])
//   run_length_encode_into(policy, first, last, unique_out, counts_out, runs_out [, eq])
//   count_if_into(policy, first, last, count_out, pred)
// write the count (elements written to the first output; runs; elements for which pred holds) to
// *count_out on the policy's stream, as reduce_into does for reductions.
//
// Every result keeps the input order: the selected elements in order, and (partition*) the rejected
// ones in order after them; stronger than thrust::partition promises. unique* compares each element
// with its predecessor in the input (as thrust::device and CUB do).
//
// How they run: one selection over the input (detail/select/common.hpp: a selector says whether
// element i is kept), on each policy's own engine: algo::seq one walk, algo::par flags / counts /
// writes over threads (detail/select/host.hpp), algo::cuda one single-pass look-back kernel
// (detail/cuda/select/), algo::cub CUB's DeviceSelect / DevicePartition (detail/cub/select.cuh).
// count_if and unique_count are reductions (reduce over the flags). unique_by_key(_copy) is the
// selection over (key, value) pairs on algo::cuda, CUB's UniqueByKey on algo::cub, and a
// reduce_by_key keeping each run's first value on the host policies; run_length_encode is the
// selection of run heads carrying the index of the last head on algo::cuda (each head writes the
// length of the run before it, one pass: cuda/select/run_length_lookback.cuh), CUB's Encode on
// algo::cub, and a reduce_by_key counting each run on the host policies.
//
// In place: remove_if, remove, unique, partition_copy with out_true == first and copy_if with
// d_first == first write over the input in one pass on every policy (algo::cuda: a tile writes only
// positions below its own end, and only after every earlier tile has read its input, which the
// look-back already waits for; unique_by_key too). partition / stable_partition (the rejected
// elements go to the end) go through a temporary (the rejected part on algo::cuda, a copy of the
// input elsewhere), and unique_by_key copies its input on the host policies and algo::cub.
//
// Device policies return ends and counts to the host, so they synchronize the policy's stream and
// are refused under graph capture (use the *_into forms there).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/alias.hpp"
#include "detail/select/common.hpp"
#include "detail/select/host.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"
#include "segmented.hpp"

#if ALGO_HAS_CUDA
#  include "detail/cuda/runtime.cuh"
#  include "detail/cuda/select.cuh"
#  include "detail/cub/select.cuh"
#endif

namespace algo {
namespace detail::select {

// ---- checks --------------------------------------------------------------------------------------
/// Whether `out` provably begins strictly inside the n elements read through `in` (first < out <
/// last): refused up front. out == first is the in-place form; every other overlap is the caller's
/// to avoid (how much an output receives is known only after the pass).
template <class InIt, class OutIt>
bool starts_inside(const InIt& in, std::int64_t n, const OutIt& out) {
  using A = access_traits<InIt>;
  using B = access_traits<OutIt>;
  if constexpr (!A::known || !B::known || A::streams == 0 || B::streams == 0) {
    (void)in, (void)n, (void)out;
    return false;
  } else {
    if (n <= 0) return false;
    access_stream a[A::streams], b[B::streams];
    A::get(in, a);
    B::get(out, b);
    for (const access_stream& x : a) {
      const auto x0 = reinterpret_cast<std::uintptr_t>(x.address);
      const auto x1 = x0 + static_cast<std::uintptr_t>(n) * x.size;
      for (const access_stream& y : b) {
        const auto y0 = reinterpret_cast<std::uintptr_t>(y.address);
        if (x0 < y0 && y0 < x1) return true;
      }
    }
    return false;
  }
}

/// Whether writing `out` may change what `in` reads (in place, or unknown): the backends then keep
/// the in-place order (algo::par writes on one thread; algo::cuda orders its loads before its
/// tile's publication). n > 0.
template <class InIt, class OutIt>
bool in_place(const InIt& in, std::int64_t n, const OutIt& out) {
  return alias_between(in, n, out, n) != alias_kind::none;
}

template <class Policy>
void refuse_under_capture(const char* name, const Policy& policy) {
#if ALGO_HAS_CUDA
  if constexpr (is_device_policy<Policy>::value) {
    if (cuda::stream_is_capturing(policy.stream, name))
      fail(name,
           "returns its result to the host, which needs a synchronization and cannot be captured into a CUDA "
           "graph; inside a capture use algo::copy_if_into / algo::count_if_into (the count is written to "
           "device memory on the stream)");
  }
#else
  (void)name, (void)policy;
#endif
}

/// An output may be null (or anything) when it receives nothing, which is known only after the
/// pass: device policies check that a non-null output is memory the GPU reaches; nothing else.
template <class Policy, class OutIt>
void check_output(const char* name, const Policy& policy, const OutIt& out, std::int64_t n) {
#if ALGO_HAS_CUDA
  if constexpr (is_device_policy<Policy>::value) {
    const auto p = raw_address(out);
    if constexpr (!std::is_same<decltype(p), std::nullptr_t>::value) {
      if (p != nullptr) check_iterator(name, "output", policy, out, n);
    }
  }
#endif
  (void)name, (void)policy, (void)out, (void)n;
}

/// Input checks shared by every call: the length, the input, an optional stencil, the outputs (as
/// many elements as the input at most), and no output beginning strictly inside an input.
template <class Policy, class InIt, class... Outs>
std::int64_t check_call(const char* name, const Policy& policy, InIt first, InIt last, const Outs&... outs) {
  const std::int64_t n = checked_distance(name, first, last);
  check_iterator(name, "input", policy, first, n);
  (check_output(name, policy, outs, n), ...);
  if (((starts_inside(first, n, outs)) || ...)) fail(name, "an output begins inside the input (only the in-place form, output == first, may overlap it)");
  return n;
}
template <class Policy, class InIt, class StIt, class... Outs>
void check_stencil(const char* name, const Policy& policy, const StIt& stencil, std::int64_t n, const Outs&... outs) {
  check_iterator(name, "stencil", policy, stencil, n);
  if (((starts_inside(stencil, n, outs)) || ...)) fail(name, "an output begins inside the stencil");
}

// ---- the selection, on the policy's engine ------------------------------------------------------------
template <class Policy, class Sel, class InIt, class OutT, class OutF>
result<OutT, OutF> select_run(const char* name, const Policy& policy, const Sel& sel, InIt first, std::int64_t n,
                              OutT out_true, OutF out_false, bool inplace) {
  if constexpr (is_host_policy<Policy>::value) {
    (void)name;
    return run(policy, sel, first, n, out_true, out_false, inplace);
  } else {
#if ALGO_HAS_CUDA
    const std::int64_t kept = device_select(name, policy, sel, first, n, out_true, out_false, inplace);
    if constexpr (has_output_v<OutF>) return {out_true + kept, out_false + (n - kept), kept};
    else return {out_true + kept, out_false, kept};
#endif
  }
}

/// The number of selected elements to *count_out (device policies: on the stream, no host wait).
template <class Policy, class Sel, class InIt, class OutT, class OutF, class CountIt>
void select_into(const char* name, const Policy& policy, const Sel& sel, InIt first, std::int64_t n, OutT out_true,
                 OutF out_false, CountIt count_out, bool inplace) {
  if constexpr (is_host_policy<Policy>::value) {
    (void)name;
    *count_out = n == 0 ? 0 : run(policy, sel, first, n, out_true, out_false, inplace).selected;
  } else {
#if ALGO_HAS_CUDA
    device_select_into(name, policy, sel, first, n, out_true, out_false, count_out, inplace);
#endif
  }
}

/// Runs f(count_out) with a count location of the policy's side and returns what f wrote there
/// (device policies: a temporary read back to the host, which waits for the stream).
template <class Policy, class F>
std::int64_t counted(const char* name, const Policy& policy, F&& f) {
  if constexpr (is_host_policy<Policy>::value) {
    (void)name;
    std::int64_t c = 0;
    f(&c);
    return c;
  } else {
#if ALGO_HAS_CUDA
    cuda::temporary_buffer count(policy, sizeof(long long));
    f(count.as<long long>());
    return cuda::copy_to_host(name, count.as<long long>(), policy.stream);
#else
    return 0;
#endif
  }
}

/// *count_out = 0 (an empty input), on the policy's side.
template <class Policy, class CountIt>
void write_count(const char* name, const Policy& policy, CountIt count_out) {
  if constexpr (is_host_policy<Policy>::value) {
    (void)name;
    *count_out = 0;
  } else {
#if ALGO_HAS_CUDA
    cuda::write_value_kernel<<<1, 1, 0, policy.stream>>>(cuda::unwrap(count_out), 0LL);
    cuda::check_launch(name, "write_value_kernel");
#endif
  }
}

/// copy_if / remove_copy_if / remove_copy and their in-place forms.
template <class Policy, class Sel, class InIt, class OutIt>
OutIt copy_entry(const char* name, const Policy& policy, InIt first, InIt last, OutIt out, const Sel& sel) {
  const std::int64_t n = check_call(name, policy, first, last, out);
  if (n == 0) return out;
  refuse_under_capture(name, policy);
  return select_run(name, policy, sel, first, n, out, no_output{}, in_place(first, n, out)).out_true;
}
template <class Policy, class Pred, bool Negate, class InIt, class StIt, class OutIt>
OutIt copy_stencil_entry(const char* name, const Policy& policy, InIt first, InIt last, StIt stencil, OutIt out,
                         Pred pred) {
  const std::int64_t n = check_call(name, policy, first, last, out);
  check_stencil<Policy, InIt>(name, policy, stencil, n, out);
  if (n == 0) return out;
  refuse_under_capture(name, policy);
  const by_stencil<decltype(kernel_view(policy, stencil)), Pred, Negate> sel{kernel_view(policy, stencil), {pred}};
  return select_run(name, policy, sel, first, n, out, no_output{}, in_place(first, n, out)).out_true;
}

template <class Policy, class Sel, class InIt, class OutT, class OutF>
std::pair<OutT, OutF> partition_copy_entry(const char* name, const Policy& policy, InIt first, InIt last, OutT out_true,
                                           OutF out_false, const Sel& sel) {
  const std::int64_t n = check_call(name, policy, first, last, out_true, out_false);
  if (n == 0) return {out_true, out_false};
  refuse_under_capture(name, policy);
  const bool inplace = in_place(first, n, out_true) || in_place(first, n, out_false);
  const auto r = select_run(name, policy, sel, first, n, out_true, out_false, inplace);
  return {r.out_true, r.out_false};
}

/// partition / stable_partition in place. Host policies: the input is copied first; the selected
/// elements go from the copy to the front of the range, the rejected ones to the front of the copy
/// (never ahead of what is still to be read), then after the selected ones. Device policies:
/// device_partition (cuda/select.cuh): the selected ones in place, the rejected ones through a temporary.
template <class Policy, class Sel, class It>
It partition_entry(const char* name, const Policy& policy, It first, It last, const Sel& sel) {
  const std::int64_t n = check_call(name, policy, first, last);
  if (n == 0) return first;
  refuse_under_capture(name, policy);
  using V = iter_value_t<It>;
  if constexpr (is_host_policy<Policy>::value) {
    std::vector<V> copy(first, last);
    const auto r = run(policy, sel, copy.begin(), n, first, copy.begin(), true);
    const It second = std::next(first, r.selected);
    std::copy(copy.begin(), copy.begin() + (n - r.selected), second);
    return second;
  } else {
#if ALGO_HAS_CUDA
    return device_partition(name, policy, sel, first, n);
#endif
  }
}

template <class Policy, class It, class Eq>
std::int64_t unique_count_entry(const Policy& policy, It first, It last, Eq eq) {
  const char* name = "unique_count";
  const std::int64_t n = check_call(name, policy, first, last);
  if (n == 0) return 0;
  refuse_under_capture(name, policy);
  if constexpr (!is_random_access_v<It>) {  // host policies only: one walk
    const heads<Eq> sel{eq};
    auto state = sel.start(first);
    std::int64_t runs = 0;
    for (std::int64_t i = 0; i < n; ++i, ++first) runs += sel.next(state, *first, i);
    return runs;
  } else {
    auto in = kernel_view(policy, first);
    using H = head_at<decltype(in), Eq>;
    const seg::indexed_iterator<H> heads_in(H{in, eq}, 0);
    return reduce_nonempty(policy, heads_in, n, std::int64_t(0), plus<std::int64_t>{});
  }
}

/// The generic unique_by_key(_copy) (host policies), its number of runs to *count_out:
/// reduce_by_key keeping each run's first value; in place, from copies of the keys and values (the
/// run writer reads the keys again as it writes). algo::cuda (select.cuh: the selection over (key,
/// value) pairs, in place too) and algo::cub (cub::DeviceSelect::UniqueByKey) overload it.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class CountIt>
void unique_by_key_backend(const char* name, const Policy& policy, KeyIt kf, ValIt vf, std::int64_t n, KeyOut kout,
                           ValOut vout, Eq eq, bool inplace, CountIt count_out) {
  if (!inplace) {
    *count_out = detail::reduce_by_key(policy, kf, vf, n, kout, vout, eq, take_first{});
    return;
  }
  with_copy<iter_value_t<KeyIt>>(name, policy, kf, n, [&](auto* keys) {
    with_copy<iter_value_t<ValIt>>(name, policy, vf, n, [&](auto* values) {
      *count_out = detail::reduce_by_key(policy, keys, values, n, kout, vout, eq, take_first{});
    });
  });
}

template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut>
bool unique_by_key_in_place(KeyIt kf, ValIt vf, std::int64_t n, KeyOut kout, ValOut vout) {
  return in_place(kf, n, kout) || in_place(vf, n, vout) || in_place(kf, n, vout) || in_place(vf, n, kout);
}

/// unique_by_key_copy and unique_by_key (kout == kf, vout == vf).
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq>
std::pair<KeyOut, ValOut> unique_by_key_entry(const char* name, const Policy& policy, KeyIt kf, KeyIt kl, ValIt vf,
                                              KeyOut kout, ValOut vout, Eq eq) {
  const std::int64_t n = check_call(name, policy, kf, kl, kout, vout);
  check_stencil<Policy, KeyIt>(name, policy, vf, n, kout, vout);  // the values: as a second input
  if (n == 0) return {kout, vout};
  refuse_under_capture(name, policy);
  const bool inplace = unique_by_key_in_place<Policy>(kf, vf, n, kout, vout);
  const std::int64_t runs = counted(name, policy, [&](auto count_out) {
    unique_by_key_backend(name, policy, kf, vf, n, kout, vout, eq, inplace, count_out);
  });
  return {kout + runs, vout + runs};
}

/// The generic run_length_encode (host policies), its number of runs to *count_out: reduce_by_key
/// counting each run. algo::cuda (the single-pass kernel, cuda/select/run_length_lookback.cuh)
/// and algo::cub (CUB's Encode) overload it.
template <class Policy, class It, class UniqueOut, class CountOut, class Eq, class RunsIt>
void run_length_encode_backend(const char* name, const Policy& policy, It first, std::int64_t n, UniqueOut unique_out,
                               CountOut counts_out, Eq eq, bool inplace, RunsIt runs_out) {
  using C = run_count_t<CountOut>;
  const seg::indexed_iterator<one_of<C>> ones(one_of<C>{}, 0);
  if (!inplace) {
    *runs_out = detail::reduce_by_key(policy, first, ones, n, unique_out, counts_out, eq, plus<>{});
    return;
  }
  // in place: reduce_by_key's run writer reads the keys again as it writes (algo::par's threads
  // would read keys another thread has overwritten): from a copy, as unique_by_key
  with_copy<iter_value_t<It>>(name, policy, first, n, [&](auto* keys) {
    *runs_out = detail::reduce_by_key(policy, keys, ones, n, unique_out, counts_out, eq, plus<>{});
  });
}

/// The encoding with its in-place cases: unique_out == first runs in place (each run's first value
/// lands at or before where it was read, after every earlier tile has read its input); counts written
/// over the input would change the elements the next run heads are compared with: from a copy.
template <class Policy, class It, class UniqueOut, class CountOut, class Eq, class RunsIt>
void run_length_encode_run(const char* name, const Policy& policy, It first, std::int64_t n, UniqueOut unique_out,
                           CountOut counts_out, Eq eq, RunsIt runs_out) {
  if (in_place(first, n, counts_out)) {
    with_copy<iter_value_t<It>>(name, policy, first, n, [&](auto* copy) {
      run_length_encode_backend(name, policy, copy, n, unique_out, counts_out, eq, false, runs_out);
    });
  } else {
    run_length_encode_backend(name, policy, first, n, unique_out, counts_out, eq, in_place(first, n, unique_out),
                              runs_out);
  }
}

template <class Policy, class It, class UniqueOut, class CountOut, class Eq>
std::int64_t run_length_encode_entry(const Policy& policy, It first, It last, UniqueOut unique_out, CountOut counts_out,
                                     Eq eq) {
  const char* name = "run_length_encode";
  const std::int64_t n = check_call(name, policy, first, last, unique_out, counts_out);
  if (n == 0) return 0;
  refuse_under_capture(name, policy);
  return counted(name, policy, [&](auto runs_out) {
    run_length_encode_run(name, policy, first, n, unique_out, counts_out, eq, runs_out);
  });
}

template <class Policy, class It, class Flag>
std::int64_t count_entry(const char* name, const Policy& policy, It first, It last, Flag flag) {
  const std::int64_t n = check_call(name, policy, first, last);
  if (n == 0) return 0;
  refuse_under_capture(name, policy);
  using F = count_of<std::int64_t, Flag>;
  auto in = kernel_view(policy, first);
  return reduce_nonempty(policy, transform_iterator<decltype(in), F>(in, F{flag}), n, std::int64_t(0),
                         plus<std::int64_t>{});
}

}  // namespace detail::select

// ---- copy_if ------------------------------------------------------------------------------------
/// Copies the elements x with pred(x) to d_first, in order; returns the end of the output.
/// d_first == first (in place) is allowed.
template <class Policy, class InIt, class OutIt, class Pred, detail::enable_policy<Policy> = 0>
OutIt copy_if(const Policy& policy, InIt first, InIt last, OutIt d_first, Pred pred) {
  return detail::select::copy_entry("copy_if", policy, first, last, d_first,
                                    detail::select::by_value<Pred, false>{{pred}});
}
/// Copies first[i] for every i with pred(stencil[i]) to d_first, in order; returns the end of the output.
template <class Policy, class InIt, class StIt, class OutIt, class Pred, detail::enable_policy<Policy> = 0>
OutIt copy_if(const Policy& policy, InIt first, InIt last, StIt stencil, OutIt d_first, Pred pred) {
  return detail::select::copy_stencil_entry<Policy, Pred, false>("copy_if", policy, first, last, stencil, d_first, pred);
}

// ---- remove_copy_if / remove_copy ---------------------------------------------------------------
/// Copies the elements x with !pred(x) to d_first, in order; returns the end of the output.
template <class Policy, class InIt, class OutIt, class Pred, detail::enable_policy<Policy> = 0>
OutIt remove_copy_if(const Policy& policy, InIt first, InIt last, OutIt d_first, Pred pred) {
  return detail::select::copy_entry("remove_copy_if", policy, first, last, d_first,
                                    detail::select::by_value<Pred, true>{{pred}});
}
/// Copies first[i] for every i with !pred(stencil[i]) to d_first, in order.
template <class Policy, class InIt, class StIt, class OutIt, class Pred, detail::enable_policy<Policy> = 0>
OutIt remove_copy_if(const Policy& policy, InIt first, InIt last, StIt stencil, OutIt d_first, Pred pred) {
  return detail::select::copy_stencil_entry<Policy, Pred, true>("remove_copy_if", policy, first, last, stencil, d_first,
                                                                pred);
}
/// Copies the elements x with !(x == value) to d_first, in order; returns the end of the output.
template <class Policy, class InIt, class OutIt, class T, detail::enable_policy<Policy> = 0>
OutIt remove_copy(const Policy& policy, InIt first, InIt last, OutIt d_first, const T& value) {
  using E = detail::select::equals_value<T>;
  return detail::select::copy_entry("remove_copy", policy, first, last, d_first,
                                    detail::select::by_value<E, true>{{E{value}}});
}

// ---- remove_if / remove (in place) ----------------------------------------------------------------
/// Removes the elements x with pred(x), keeping the others in order at the front; returns the new end
/// (what lies between it and last is unspecified).
template <class Policy, class It, class Pred, detail::enable_policy<Policy> = 0>
It remove_if(const Policy& policy, It first, It last, Pred pred) {
  return detail::select::copy_entry("remove_if", policy, first, last, first, detail::select::by_value<Pred, true>{{pred}});
}
/// Removes first[i] for every i with pred(stencil[i]); returns the new end.
template <class Policy, class It, class StIt, class Pred, detail::enable_policy<Policy> = 0>
It remove_if(const Policy& policy, It first, It last, StIt stencil, Pred pred) {
  return detail::select::copy_stencil_entry<Policy, Pred, true>("remove_if", policy, first, last, stencil, first, pred);
}
/// Removes the elements equal to value; returns the new end.
template <class Policy, class It, class T, detail::enable_policy<Policy> = 0>
It remove(const Policy& policy, It first, It last, const T& value) {
  using E = detail::select::equals_value<T>;
  return detail::select::copy_entry("remove", policy, first, last, first, detail::select::by_value<E, true>{{E{value}}});
}

// ---- partition_copy / stable_partition_copy ------------------------------------------------------------
/// The elements x with pred(x) to out_true, the others to out_false, each in input order; returns
/// the ends of both outputs. out_true == first (in place) is allowed.
template <class Policy, class InIt, class OutT, class OutF, class Pred, detail::enable_policy<Policy> = 0>
std::pair<OutT, OutF> partition_copy(const Policy& policy, InIt first, InIt last, OutT out_true, OutF out_false,
                                     Pred pred) {
  return detail::select::partition_copy_entry("partition_copy", policy, first, last, out_true, out_false,
                                              detail::select::by_value<Pred, false>{{pred}});
}
/// The stencil form: first[i] to out_true when pred(stencil[i]), else to out_false.
template <class Policy, class InIt, class StIt, class OutT, class OutF, class Pred, detail::enable_policy<Policy> = 0>
std::pair<OutT, OutF> partition_copy(const Policy& policy, InIt first, InIt last, StIt stencil, OutT out_true,
                                     OutF out_false, Pred pred) {
  const char* name = "partition_copy";
  detail::select::check_stencil<Policy, InIt>(name, policy, stencil, detail::checked_distance(name, first, last),
                                              out_true, out_false);
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  return detail::select::partition_copy_entry(name, policy, first, last, out_true, out_false,
                                              S{detail::kernel_view(policy, stencil), {pred}});
}
/// partition_copy (which keeps the input order in both outputs on every policy).
template <class Policy, class InIt, class OutT, class OutF, class Pred, detail::enable_policy<Policy> = 0>
std::pair<OutT, OutF> stable_partition_copy(const Policy& policy, InIt first, InIt last, OutT out_true, OutF out_false,
                                            Pred pred) {
  return detail::select::partition_copy_entry("stable_partition_copy", policy, first, last, out_true, out_false,
                                              detail::select::by_value<Pred, false>{{pred}});
}
/// The stencil form of stable_partition_copy.
template <class Policy, class InIt, class StIt, class OutT, class OutF, class Pred, detail::enable_policy<Policy> = 0>
std::pair<OutT, OutF> stable_partition_copy(const Policy& policy, InIt first, InIt last, StIt stencil, OutT out_true,
                                            OutF out_false, Pred pred) {
  const char* name = "stable_partition_copy";
  detail::select::check_stencil<Policy, InIt>(name, policy, stencil, detail::checked_distance(name, first, last),
                                              out_true, out_false);
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  return detail::select::partition_copy_entry(name, policy, first, last, out_true, out_false,
                                              S{detail::kernel_view(policy, stencil), {pred}});
}

// ---- partition / stable_partition (in place) --------------------------------------------------------
/// Reorders [first, last) so that the elements x with pred(x) come first, each part in input order;
/// returns the start of the second part. Goes through a temporary (algo::cuda: the rejected part;
/// the other policies: a copy of the input).
template <class Policy, class It, class Pred, detail::enable_policy<Policy> = 0>
It partition(const Policy& policy, It first, It last, Pred pred) {
  return detail::select::partition_entry("partition", policy, first, last, detail::select::by_value<Pred, false>{{pred}});
}
/// The stencil form: first[i] goes to the first part when pred(stencil[i]).
template <class Policy, class It, class StIt, class Pred, detail::enable_policy<Policy> = 0>
It partition(const Policy& policy, It first, It last, StIt stencil, Pred pred) {
  detail::select::check_stencil<Policy, It>("partition", policy, stencil, detail::checked_distance("partition", first, last));
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  return detail::select::partition_entry("partition", policy, first, last, S{detail::kernel_view(policy, stencil), {pred}});
}
/// partition (stable on every policy).
template <class Policy, class It, class Pred, detail::enable_policy<Policy> = 0>
It stable_partition(const Policy& policy, It first, It last, Pred pred) {
  return detail::select::partition_entry("stable_partition", policy, first, last,
                                         detail::select::by_value<Pred, false>{{pred}});
}
/// The stencil form of stable_partition.
template <class Policy, class It, class StIt, class Pred, detail::enable_policy<Policy> = 0>
It stable_partition(const Policy& policy, It first, It last, StIt stencil, Pred pred) {
  const char* name = "stable_partition";
  detail::select::check_stencil<Policy, It>(name, policy, stencil, detail::checked_distance(name, first, last));
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  return detail::select::partition_entry(name, policy, first, last, S{detail::kernel_view(policy, stencil), {pred}});
}

// ---- unique_copy / unique / unique_count ---------------------------------------------------------------
/// Copies the first element of each run of elements equal (under eq) to their predecessor in the
/// input; returns the end of the output.
template <class Policy, class InIt, class OutIt, class Eq, detail::enable_policy<Policy> = 0>
OutIt unique_copy(const Policy& policy, InIt first, InIt last, OutIt d_first, Eq eq) {
  return detail::select::copy_entry("unique_copy", policy, first, last, d_first, detail::select::heads<Eq>{eq});
}
/// unique_copy with eq = equal_to<>.
template <class Policy, class InIt, class OutIt, detail::enable_policy<Policy> = 0>
OutIt unique_copy(const Policy& policy, InIt first, InIt last, OutIt d_first) {
  return unique_copy(policy, first, last, d_first, equal_to<>{});
}
/// Keeps the first element of each run of equal elements, in place; returns the new end.
template <class Policy, class It, class Eq, detail::enable_policy<Policy> = 0>
It unique(const Policy& policy, It first, It last, Eq eq) {
  return detail::select::copy_entry("unique", policy, first, last, first, detail::select::heads<Eq>{eq});
}
/// unique with eq = equal_to<>.
template <class Policy, class It, detail::enable_policy<Policy> = 0>
It unique(const Policy& policy, It first, It last) {
  return unique(policy, first, last, equal_to<>{});
}
/// The number of runs of elements equal under eq (what unique would keep).
template <class Policy, class It, class Eq, detail::enable_policy<Policy> = 0>
std::int64_t unique_count(const Policy& policy, It first, It last, Eq eq) {
  return detail::select::unique_count_entry(policy, first, last, eq);
}
/// unique_count with eq = equal_to<>.
template <class Policy, class It, detail::enable_policy<Policy> = 0>
std::int64_t unique_count(const Policy& policy, It first, It last) {
  return detail::select::unique_count_entry(policy, first, last, equal_to<>{});
}

// ---- unique_by_key_copy / unique_by_key ------------------------------------------------------------------
/// For each run of keys equal (under eq) to their predecessor, the run's first key and its value;
/// returns the ends of both outputs.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, detail::enable_policy<Policy> = 0>
std::pair<KeyOut, ValOut> unique_by_key_copy(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                             KeyOut keys_out, ValOut values_out, Eq eq) {
  return detail::select::unique_by_key_entry("unique_by_key_copy", policy, keys_first, keys_last, values_first, keys_out,
                                             values_out, eq);
}
/// unique_by_key_copy with eq = equal_to<>.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, detail::enable_policy<Policy> = 0>
std::pair<KeyOut, ValOut> unique_by_key_copy(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                             KeyOut keys_out, ValOut values_out) {
  return unique_by_key_copy(policy, keys_first, keys_last, values_first, keys_out, values_out, equal_to<>{});
}
/// unique_by_key_copy in place; returns the new ends.
template <class Policy, class KeyIt, class ValIt, class Eq, detail::enable_policy<Policy> = 0>
std::pair<KeyIt, ValIt> unique_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first,
                                      Eq eq) {
  return detail::select::unique_by_key_entry("unique_by_key", policy, keys_first, keys_last, values_first, keys_first,
                                             values_first, eq);
}
/// unique_by_key with eq = equal_to<>.
template <class Policy, class KeyIt, class ValIt, detail::enable_policy<Policy> = 0>
std::pair<KeyIt, ValIt> unique_by_key(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first) {
  return unique_by_key(policy, keys_first, keys_last, values_first, equal_to<>{});
}

// ---- run_length_encode ---------------------------------------------------------------------------------
/// For each run of elements equal (under eq) to their predecessor, its first element to unique_out
/// and its length to counts_out (converted to counts_out's value type); returns the number of runs.
template <class Policy, class It, class UniqueOut, class CountOut, class Eq, detail::enable_policy<Policy> = 0>
std::int64_t run_length_encode(const Policy& policy, It first, It last, UniqueOut unique_out, CountOut counts_out, Eq eq) {
  return detail::select::run_length_encode_entry(policy, first, last, unique_out, counts_out, eq);
}
/// run_length_encode with eq = equal_to<>.
template <class Policy, class It, class UniqueOut, class CountOut, detail::enable_policy<Policy> = 0>
std::int64_t run_length_encode(const Policy& policy, It first, It last, UniqueOut unique_out, CountOut counts_out) {
  return detail::select::run_length_encode_entry(policy, first, last, unique_out, counts_out, equal_to<>{});
}

// ---- count_if / count ---------------------------------------------------------------------------------
/// The number of elements x with pred(x).
template <class Policy, class It, class Pred, detail::enable_policy<Policy> = 0>
std::int64_t count_if(const Policy& policy, It first, It last, Pred pred) {
  return detail::select::count_entry("count_if", policy, first, last, detail::select::flag_of<Pred, false>{pred});
}
/// The number of elements equal to value.
template <class Policy, class It, class T, detail::enable_policy<Policy> = 0>
std::int64_t count(const Policy& policy, It first, It last, const T& value) {
  return detail::select::count_entry("count", policy, first, last, detail::select::equals_value<T>{value});
}

// ---- the device-side count forms ------------------------------------------------------------------------
/// copy_if, with the number of copied elements written to *count_out instead of returned (device
/// policies: on the policy's stream, nothing waits on the host; usable under CUDA graph capture).
template <class Policy, class InIt, class OutIt, class CountIt, class Pred, detail::enable_policy<Policy> = 0>
void copy_if_into(const Policy& policy, InIt first, InIt last, OutIt d_first, CountIt count_out, Pred pred) {
  const char* name = "copy_if_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, d_first);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  detail::select::select_into(name, policy, detail::select::by_value<Pred, false>{{pred}}, first, n, d_first,
                              detail::select::no_output{}, count_out, n > 0 && detail::select::in_place(first, n, d_first));
}
/// The stencil form of copy_if_into.
template <class Policy, class InIt, class StIt, class OutIt, class CountIt, class Pred, detail::enable_policy<Policy> = 0>
void copy_if_into(const Policy& policy, InIt first, InIt last, StIt stencil, OutIt d_first, CountIt count_out, Pred pred) {
  const char* name = "copy_if_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, d_first);
  detail::select::check_stencil<Policy, InIt>(name, policy, stencil, n, d_first);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  detail::select::select_into(name, policy, S{detail::kernel_view(policy, stencil), {pred}}, first, n, d_first,
                              detail::select::no_output{}, count_out, n > 0 && detail::select::in_place(first, n, d_first));
}
/// *count_out = count_if(policy, first, last, pred), written as reduce_into writes (device policies:
/// on the stream, no host wait).
template <class Policy, class It, class CountIt, class Pred, detail::enable_policy<Policy> = 0>
void count_if_into(const Policy& policy, It first, It last, CountIt count_out, Pred pred) {
  const char* name = "count_if_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last);
  using F = detail::select::count_of<std::int64_t, detail::select::flag_of<Pred, false>>;
  auto in = detail::kernel_view(policy, first);
  detail::reduce_into_entry(name, policy, detail::transform_iterator<decltype(in), F>(in, F{{pred}}), n, count_out,
                            std::int64_t(0), plus<std::int64_t>{});
}

/// partition_copy, with the number of elements sent to out_true written to *count_out (out_false
/// receives the other n - *count_out) instead of returned (device policies: on the stream, no host
/// wait; usable under CUDA graph capture).
template <class Policy, class InIt, class OutT, class OutF, class CountIt, class Pred, detail::enable_policy<Policy> = 0>
void partition_copy_into(const Policy& policy, InIt first, InIt last, OutT out_true, OutF out_false, CountIt count_out,
                         Pred pred) {
  const char* name = "partition_copy_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, out_true, out_false);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  const bool inplace = n > 0 && (detail::select::in_place(first, n, out_true) || detail::select::in_place(first, n, out_false));
  detail::select::select_into(name, policy, detail::select::by_value<Pred, false>{{pred}}, first, n, out_true, out_false,
                              count_out, inplace);
}
/// The stencil form of partition_copy_into.
template <class Policy, class InIt, class StIt, class OutT, class OutF, class CountIt, class Pred,
          detail::enable_policy<Policy> = 0>
void partition_copy_into(const Policy& policy, InIt first, InIt last, StIt stencil, OutT out_true, OutF out_false,
                         CountIt count_out, Pred pred) {
  const char* name = "partition_copy_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, out_true, out_false);
  detail::select::check_stencil<Policy, InIt>(name, policy, stencil, n, out_true, out_false);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  const bool inplace = n > 0 && (detail::select::in_place(first, n, out_true) || detail::select::in_place(first, n, out_false));
  using S = detail::select::by_stencil<decltype(detail::kernel_view(policy, stencil)), Pred, false>;
  detail::select::select_into(name, policy, S{detail::kernel_view(policy, stencil), {pred}}, first, n, out_true,
                              out_false, count_out, inplace);
}
/// unique_copy, with the number of elements written to *count_out instead of returned.
template <class Policy, class InIt, class OutIt, class CountIt, class Eq, detail::enable_policy<Policy> = 0>
void unique_copy_into(const Policy& policy, InIt first, InIt last, OutIt d_first, CountIt count_out, Eq eq) {
  const char* name = "unique_copy_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, d_first);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  detail::select::select_into(name, policy, detail::select::heads<Eq>{eq}, first, n, d_first, detail::select::no_output{},
                              count_out, n > 0 && detail::select::in_place(first, n, d_first));
}
/// unique_copy_into with eq = equal_to<>.
template <class Policy, class InIt, class OutIt, class CountIt, detail::enable_policy<Policy> = 0>
void unique_copy_into(const Policy& policy, InIt first, InIt last, OutIt d_first, CountIt count_out) {
  unique_copy_into(policy, first, last, d_first, count_out, equal_to<>{});
}
/// unique_by_key_copy, with the number of runs (elements written to each output) to *count_out.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt, class Eq,
          detail::enable_policy<Policy> = 0>
void unique_by_key_copy_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                             ValOut values_out, CountIt count_out, Eq eq) {
  const char* name = "unique_by_key_copy_into";
  const std::int64_t n = detail::select::check_call(name, policy, keys_first, keys_last, keys_out, values_out);
  detail::select::check_stencil<Policy, KeyIt>(name, policy, values_first, n, keys_out, values_out);
  detail::check_iterator(name, "count output", policy, count_out, 1);
  if (n == 0) {
    detail::select::write_count(name, policy, count_out);
    return;
  }
  const bool inplace = detail::select::unique_by_key_in_place<Policy>(keys_first, values_first, n, keys_out, values_out);
  detail::select::unique_by_key_backend(name, policy, keys_first, values_first, n, keys_out, values_out, eq, inplace,
                                        count_out);
}
/// unique_by_key_copy_into with eq = equal_to<>.
template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class CountIt,
          detail::enable_policy<Policy> = 0>
void unique_by_key_copy_into(const Policy& policy, KeyIt keys_first, KeyIt keys_last, ValIt values_first, KeyOut keys_out,
                             ValOut values_out, CountIt count_out) {
  unique_by_key_copy_into(policy, keys_first, keys_last, values_first, keys_out, values_out, count_out, equal_to<>{});
}
/// run_length_encode, with the number of runs written to *runs_out instead of returned.
template <class Policy, class It, class UniqueOut, class CountOut, class RunsIt, class Eq, detail::enable_policy<Policy> = 0>
void run_length_encode_into(const Policy& policy, It first, It last, UniqueOut unique_out, CountOut counts_out,
                            RunsIt runs_out, Eq eq) {
  const char* name = "run_length_encode_into";
  const std::int64_t n = detail::select::check_call(name, policy, first, last, unique_out, counts_out);
  detail::check_iterator(name, "runs output", policy, runs_out, 1);
  if (n == 0) {
    detail::select::write_count(name, policy, runs_out);
    return;
  }
  detail::select::run_length_encode_run(name, policy, first, n, unique_out, counts_out, eq, runs_out);
}
/// run_length_encode_into with eq = equal_to<>.
template <class Policy, class It, class UniqueOut, class CountOut, class RunsIt, detail::enable_policy<Policy> = 0>
void run_length_encode_into(const Policy& policy, It first, It last, UniqueOut unique_out, CountOut counts_out,
                            RunsIt runs_out) {
  run_length_encode_into(policy, first, last, unique_out, counts_out, runs_out, equal_to<>{});
}

}  // namespace algo
