// algo::cuda's selection family (select.hpp's device backend; algo::cub's is detail/cub/select.cuh):
//
//   device_select        the single-pass look-back kernel (select/select_lookback.cuh) with the
//                        count in a temporary, read back to the host (synchronizes the stream);
//   device_select_into   the same kernel, the count written to the caller's location on the stream;
//   run_length_encode_backend  the selection of run heads in one pass, each head writing the
//                        length of the run before it (select/run_length_lookback.cuh);
//   unique_by_key_backend  unique_by_key(_copy): the same kernel over (key, value) pairs (a zip of the
//                        keys and values in, of both outputs out), heads compared on the keys; in
//                        place too (each element is compared with its predecessor as the unique
//                        in place is: a tile reads the element before it, which an earlier tile
//                        may have overwritten only with itself);
//   device_partition     partition / stable_partition in place: one pass writes the selected
//                        elements to the front of the range (in place, as remove_if) and the
//                        rejected ones to a temporary, which is then copied after them. Costs a
//                        write, a read and a write of the rejected part on top of the pass (plus
//                        a copy of the input on algo::cub, whose DevicePartition is not in place).
//
// Every selection runs on the decoupled look-back whatever the policy's scan strategy (counts are
// integers: exact, and reproducible, on any strategy); the policy's block scan and warp phase are
// used for the block scan of the warp counts.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include "../../policy.hpp"
#include "../select/common.hpp"
#include "runtime.cuh"
#include "scan/scan_tile.cuh"
#include "select/run_length_lookback.cuh"
#include "select/select_lookback.cuh"

namespace algo::detail::select {

/// The selector with its iterators as the device reads them (raw pointers for device storage).
template <class Pred, bool Negate>
by_value<Pred, Negate> device_view(const by_value<Pred, Negate>& s) {
  return s;
}
template <class StIt, class Pred, bool Negate>
auto device_view(const by_stencil<StIt, Pred, Negate>& s) {
  auto st = cuda::unwrap(s.stencil);
  return by_stencil<decltype(st), Pred, Negate>{st, s.flag};
}
template <class Eq>
heads<Eq> device_view(const heads<Eq>& s) {
  return s;
}

template <class O>
auto device_output(const O& o) {
  if constexpr (has_output_v<O>) return cuda::unwrap(o);
  else return o;
}

/// The selection into the outputs, its count to *count (an iterator the device writes), on the
/// policy's stream.
template <class... S, class Sel, class InIt, class OutT, class OutF, class CountIt>
void device_select_into(const char* name, const cuda_policy<S...>& policy, const Sel& sel, InIt first, std::int64_t n,
                        OutT out_true, OutF out_false, CountIt count, bool in_place) {
  using Policy = cuda_policy<S...>;
  auto c = cuda::unwrap(count);
  if (n == 0) {
    cuda::write_value_kernel<<<1, 1, 0, policy.stream>>>(c, 0LL);
    cuda::check_launch(name, "write_value_kernel");
    return;
  }
  auto in = cuda::unwrap(first);
  const auto d_sel = device_view(sel);
  auto ot = cuda::unwrap(out_true);
  auto of = device_output(out_false);
  bool aligned = false;
  if constexpr (std::is_pointer<decltype(in)>::value) aligned = reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
  const auto run = [&](auto offset) {
    using Offset = decltype(offset);
    const cuda::select_problem<decltype(in), std::remove_const_t<decltype(d_sel)>, decltype(ot), decltype(of),
                               decltype(c)>
        p{in, d_sel, n, ot, of, c, in_place, name, aligned};
    cuda::run_select<Offset, typename Policy::warp_phase, typename Policy::block_scan>(policy, p);
  };
  if (n <= INT_MAX) run(0);
  else run(0LL);
}

/// The selection; returns the number selected (waits for the policy's stream).
template <class... S, class Sel, class InIt, class OutT, class OutF>
std::int64_t device_select(const char* name, const cuda_policy<S...>& policy, const Sel& sel, InIt first, std::int64_t n,
                           OutT out_true, OutF out_false, bool in_place) {
  cuda::temporary_buffer count(policy, sizeof(long long));
  device_select_into(name, policy, sel, first, n, out_true, out_false, count.as<long long>(), in_place);
  return cuda::copy_to_host(name, count.as<long long>(), policy.stream);
}

/// Equality of (key, value) pairs by their keys.
template <class Eq>
struct key_equal {
  mutable Eq eq;
  ALGO_EXEC_CHECK_DISABLE
  template <class A, class B>
  ALGO_HD bool operator()(const A& a, const B& b) const { return static_cast<bool>(eq(thrust::get<0>(a), thrust::get<0>(b))); }
};

template <class... S, class KeyIt, class ValIt, class KeyOut, class ValOut, class Eq, class CountIt>
void unique_by_key_backend(const char* name, const cuda_policy<S...>& policy, KeyIt kf, ValIt vf, std::int64_t n,
                           KeyOut kout, ValOut vout, Eq eq, bool in_place, CountIt count_out) {
  const auto in = thrust::make_zip_iterator(cuda::unwrap(kf), cuda::unwrap(vf));
  const auto out = thrust::make_zip_iterator(cuda::unwrap(kout), cuda::unwrap(vout));
  device_select_into(name, policy, heads<key_equal<Eq>>{key_equal<Eq>{eq}}, in, n, out, no_output{}, count_out, in_place);
}

/// run_length_encode: the single pass of cuda/select/run_length_lookback.cuh, the number of runs to
/// *runs_out on the stream. n >= 1.
template <class... S, class It, class UniqueOut, class CountOut, class Eq, class RunsIt>
void run_length_encode_backend(const char* name, const cuda_policy<S...>& policy, It first, std::int64_t n,
                               UniqueOut unique_out, CountOut counts_out, Eq eq, bool in_place, RunsIt runs_out) {
  using Policy = cuda_policy<S...>;
  auto in = cuda::unwrap(first);
  auto uo = cuda::unwrap(unique_out);
  auto co = cuda::unwrap(counts_out);
  auto ro = cuda::unwrap(runs_out);
  const auto run = [&](auto offset) {
    using Offset = decltype(offset);
    const cuda::rle_problem<decltype(in), heads<Eq>, decltype(uo), decltype(co), run_count_t<CountOut>, decltype(ro)> p{
        in, heads<Eq>{eq}, n, uo, co, ro, in_place, name};
    cuda::run_rle<Offset, typename Policy::warp_phase, typename Policy::block_scan>(policy, p);
  };
  if (n <= INT_MAX) run(0);
  else run(0LL);
}

namespace device_detail {
/// out[i] = in[i] for i < n (grid-stride).
template <class InIt, class OutIt>
__global__ void copy_kernel(InIt in, OutIt out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}
template <class InIt, class OutIt>
void copy(const char* name, cudaStream_t stream, InIt in, OutIt out, std::int64_t n) {
  if (n <= 0) return;
  const std::int64_t blocks = (n + 255) / 256;
  copy_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(in, out, n);
  cuda::check_launch(name, "copy_kernel");
}
}  // namespace device_detail

/// partition / stable_partition in place on a device policy (see the top of this file). n >= 1.
template <class Policy, class Sel, class It>
It device_partition(const char* name, const Policy& policy, const Sel& sel, It first, std::int64_t n) {
  using V = iter_value_t<It>;
  cuda::temporary_buffer rejected(policy, static_cast<std::size_t>(n) * sizeof(V));
  V* r = rejected.as<V>();
  auto f = cuda::unwrap(first);
  const std::int64_t kept = device_select(name, policy, sel, f, n, f, r, true);
  device_detail::copy(name, policy.stream, r, f + kept, n - kept);
  return first + kept;
}

}  // namespace algo::detail::select
