// Checks for the algo::cuda scan strategies (included by test_cuda_scan_*.cu; one executable per
// strategy keeps each nvcc run short). The full overload / iterator / stream battery of
// test/support/device_checks.cuh runs on the default policy (test_cuda_scan_lookback.cu); every
// strategy x warp phase gets check_strategy<T...>() below: the scan forms whose code paths differ
// inside a strategy (inclusive without init, inclusive with init, exclusive, in place, plus and a
// custom operator), on raw pointers, at sizes around that strategy's own tiles.
//
// Value types: with the shuffle warp phase (the default) every one: int32, uint8 -> int64 (mixed
// input and accumulator), float, double, affine_i (8-byte non-commutative struct), big32 (32 bytes);
// with the shared-memory warp phase those whose accumulators differ in size (int32, uint8 -> int64,
// affine_i, big32: 4, 8 and 32 bytes, commutative and not): float and double go through it as int32
// and the int64 accumulator do, their own tile sizes and loads being checked with shuffles.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_types.hpp"

namespace cuda_scan_test {

using namespace algo_test;

/// Elements per tile of the kernels a scan of T (accumulated in Acc, written as Acc) runs.
template <class T, class Acc>
constexpr std::int64_t tile_items() {
  return algo::detail::cuda::scan_tuning<T, Acc, Acc>::tile_items;
}

/// True when ALGO_TEST_SMALL is set (scripts/gpu_check.sh sets it under compute-sanitizer, which
/// slows kernels 10-100x): the suites then keep to sizes of a few tiles. (device_checks.cuh's.)
using algo_test::small_run;

/// `sizes`, less those over `limit` on a small run.
inline std::vector<std::int64_t> for_this_run(std::vector<std::int64_t> sizes, std::int64_t limit = 20000) {
  if (small_run()) sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n > limit; }), sizes.end());
  return sizes;
}

/// The issue's sizes for one value type: 0, 1, 31, 32, 33, tile +- 1, many tiles +- 1, 2^20 + 7,
/// a few random ones (from device_sizes: also 1023..1025, 2t+1, 2^21 + 5, 3999971), and, for the
/// recursive strategies, one size whose spine is itself more than one tile.
template <class T>
std::vector<std::int64_t> strategy_sizes(bool deep) {
  using Acc = typename spec<T>::acc;
  const std::int64_t t = tile_items<T, Acc>(), ts = tile_items<Acc, Acc>();
  if (small_run()) return {0, 1, 31, 32, 33, t - 1, t, t + 1, 2 * t + 1, 5 * t + 3};
  std::vector<std::int64_t> s = device_sizes({t, ts});
  for (std::int64_t v : {37 * t - 1, 37 * t, 37 * t + 1, (std::int64_t(1) << 20) + 7}) s.push_back(v);
  if (deep) s.push_back(t * ts + t + 1);
  return s;
}

/// One strategy x warp phase on n random values of T: inclusive (plus for arithmetic types, and the
/// type's custom operator), inclusive with init, exclusive with init, exclusive in place; against
/// the sequential host scan (and thrust::device for the exclusive form). The output's guard tail
/// must stay untouched.
template <class T, class Policy>
void check_strategy_one(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  const spec_case<T> c(n, seed);
  INFO(case_info<Policy>(c));
  using Acc = acc_t<T>;
  using Ref = ref_t<Acc>;
  constexpr bool same_acc = std::is_same<Acc, T>::value;
  const auto un = static_cast<std::size_t>(n);
  device_buffer<T> in(c.h_in);
  device_buffer<Acc> out(un);
  const scan_scales<Acc> scales(c.h_in, c.init);
  const std::vector<double>* sc = scales.plain();
  const std::vector<double>* sc_init = scales.with_init();

  if constexpr (spec<T>::arithmetic && same_acc) {
    INFO("variant: inclusive_scan(policy, first, last, d_first) (plus)");
    out.fill_sentinel();
    CHECK(algo::inclusive_scan(policy, in.begin(), in.end(), out.begin()) == out.end());
    expect_equal("vs host", out.download(), convert<Acc>(ref_inclusive_scan<Ref>(c.h_in, algo::plus<>{})), sc);
    CHECK(out.guard_intact());
  }
  if constexpr (same_acc) {
    INFO("variant: inclusive_scan(policy, first, last, d_first, op)");
    out.fill_sentinel();
    CHECK(algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), c.op) == out.end());
    expect_equal("vs host", out.download(), convert<Acc>(ref_inclusive_scan<Ref>(c.h_in, c.op)), sc);
    CHECK(out.guard_intact());
  }
  {
    INFO("variant: inclusive_scan(policy, first, last, d_first, op, init)");
    out.fill_sentinel();
    CHECK(algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), c.op, c.init) == out.end());
    expect_equal("vs host", out.download(), convert<Acc>(ref_inclusive_scan<Ref>(c.h_in, c.op, static_cast<Ref>(c.init))),
                 sc_init);
    CHECK(out.guard_intact());
  }
  {
    INFO("variant: exclusive_scan(policy, first, last, d_first, init, op)");
    out.fill_sentinel();
    CHECK(algo::exclusive_scan(policy, in.begin(), in.end(), out.begin(), c.init, c.op) == out.end());
    const auto got = out.download();
    const auto want = convert<Acc>(ref_exclusive_scan<Ref>(c.h_in, static_cast<Ref>(c.init), c.op));
    expect_equal("vs host", got, want, sc_init);
    CHECK(out.guard_intact());
    if constexpr (std::is_same<T, std::int32_t>::value) {
      device_buffer<Acc> t(un);
      thrust_ref::exclusive_scan(in.begin(), n, t.begin(), c.init, c.op);
      expect_equal("vs thrust::exclusive_scan", got, t.download(), sc_init);
    }
    if constexpr (same_acc) {
      INFO("in place: d_first == first");
      device_buffer<T> io(c.h_in);
      CHECK(algo::exclusive_scan(policy, io.begin(), io.end(), io.begin(), c.init, c.op) == io.end());
      expect_equal("in place vs host", io.download(), want, sc_init);
      CHECK(io.guard_intact());
    }
  }
  if constexpr (std::is_same<T, std::uint8_t>::value) {
    INFO("variant: inclusive_scan(policy, uint8 first, last, int32 d_first, plus, int64 init): output type != accumulator");
    device_buffer<std::int32_t> out32(un);
    const std::int64_t init64 = 1000;
    CHECK(algo::inclusive_scan(policy, in.begin(), in.end(), out32.begin(), algo::plus<>{}, init64) == out32.end());
    expect_equal("vs host", out32.download(),
                 convert<std::int32_t>(ref_inclusive_scan<std::int64_t>(c.h_in, algo::plus<>{}, init64)));
    CHECK(out32.guard_intact());
  }
  require_device_ok("end of check_strategy_one");
}

template <class... Ts, class Policy>
void check_strategy(const Policy& policy, bool deep, std::uint64_t seed = 11) {
  auto one_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t n : strategy_sizes<T>(deep)) check_strategy_one<T>(policy, n, case_seed<T>(seed, n));
  };
  (one_type(type_tag<Ts>{}), ...);
}

/// adc::run_lookback_tuned<shfl, Block, Tuning> (a look-back with tunings the policy does not
/// pick) on n random values of T, with the middle one as init, inclusive or exclusive, against the
/// host scan; `what` names the run in the messages.
template <class Block, class Tuning, class T, class Op>
void check_lookback_tuned(const char* what, std::int64_t n, bool exclusive, Op op, std::uint64_t seed) {
  namespace ad = algo::detail;
  namespace adc = algo::detail::cuda;
  using Acc = ad::accumulate_with<Op, T>;
  const std::vector<T> h = random_vector<T>(static_cast<std::size_t>(n), seed);
  device_buffer<T> in(h), out(h.size());
  const T init = h[static_cast<std::size_t>(n / 2)];
  const adc::scan_problem<T, const T*, T*, Acc> p{in.begin(), out.begin(), n, Acc{op}, adc::some(init), exclusive,
                                                   exclusive ? "exclusive_scan" : "inclusive_scan"};
  adc::run_lookback_tuned<algo::warp_phase::shfl_t, Block, Tuning>(p, nullptr);
  require_device_ok(what);
  // host reference: init op x_0 op ... (inclusive), or init op x_0 ... x_{i-1} (exclusive)
  const std::vector<T> ref = exclusive ? ref_exclusive_scan<T>(h, init, op) : ref_inclusive_scan<T>(h, op, init);
  INFO("n = " << n << (exclusive ? ", exclusive" : ", inclusive"));
  expect_equal(std::string(what) + " vs host", out.download(), ref);
  CHECK(out.guard_intact());
}

/// For each policy: over 2^31 uint8 values scanned into int64 (plus, init 0 and an exclusive form), checked at
/// sampled positions (both ends, around 2^28, 2^29 and 2^31, and 2000 random ones) against a host
/// prefix sum: the 64-bit offsets and the accumulator width. Needs about 20 GB of device memory.
template <class... Policy>
void check_large(const Policy&... policies) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  INFO("uint8 -> int64, n = " << n);
  std::size_t free_bytes = 0, total_bytes = 0;
  require_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t need = static_cast<std::size_t>(n) * (1 + 8) + (std::size_t(1) << 30);
  if (free_bytes < need) {
    std::printf("note: [large] scan test needs %zu MB of device memory, %zu MB free: not run\n", need >> 20, free_bytes >> 20);
    WARN("not enough device memory for the [large] scan test");
    return;
  }
  std::vector<std::uint8_t> h_in(static_cast<std::size_t>(n));
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& v : h_in) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = static_cast<std::uint8_t>(1 + (x >> 56) % 255);
  }
  std::uint8_t* in = nullptr;
  std::int64_t* out = nullptr;
  require_cuda(cudaMalloc(&in, static_cast<std::size_t>(n)), "cudaMalloc");
  require_cuda(cudaMalloc(&out, static_cast<std::size_t>(n) * 8), "cudaMalloc");
  require_cuda(cudaMemcpy(in, h_in.data(), static_cast<std::size_t>(n), cudaMemcpyHostToDevice), "cudaMemcpy");

  // Sample positions: both ends, around 2^31 and 2^32 bytes of output, random ones.
  std::vector<std::int64_t> at{0, 1, 2, n - 3, n - 2, n - 1};
  for (std::int64_t c : {std::int64_t(1) << 28, std::int64_t(1) << 29, std::int64_t(1) << 31})
    for (std::int64_t d = -3; d <= 3; ++d)
      if (c + d >= 0 && c + d < n) at.push_back(c + d);
  std::mt19937_64 g(5);
  for (int i = 0; i < 2000; ++i) at.push_back(static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(n)));
  std::sort(at.begin(), at.end());

  auto sampled = [&](bool exclusive) {
    std::vector<std::int64_t> want;
    std::int64_t sum = 0, i = 0;
    for (std::int64_t p : at) {
      for (; i < p; ++i) sum += h_in[static_cast<std::size_t>(i)];
      want.push_back(exclusive ? sum : sum + h_in[static_cast<std::size_t>(p)]);
    }
    return want;
  };
  auto got_at = [&]() {
    std::vector<std::int64_t> got;
    for (std::int64_t p : at) {
      std::int64_t v = 0;
      require_cuda(cudaMemcpy(&v, out + p, 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
      got.push_back(v);
    }
    return got;
  };

  const std::vector<std::int64_t> want_inclusive = sampled(false), want_exclusive = sampled(true);
  auto one = [&](const auto& policy) {
    INFO("policy " << policy_name<std::decay_t<decltype(policy)>>());
    require_cuda(cudaMemset(out, 0xA5, static_cast<std::size_t>(n) * 8), "cudaMemset");
    algo::inclusive_scan(policy, in, in + n, out, algo::plus<>{}, std::int64_t{0});
    require_device_ok("after the large inclusive scan");
    expect_equal("inclusive, sampled", got_at(), want_inclusive);
    algo::exclusive_scan(policy, in, in + n, out, std::int64_t{0});
    require_device_ok("after the large exclusive scan");
    expect_equal("exclusive, sampled", got_at(), want_exclusive);
  };
  (one(policies), ...);

  cudaFree(in);
  cudaFree(out);
}

/// Affine-map scans (8 bytes, non-commutative) of several sizes on `policy`: one stream per scan, all
/// in flight at once, and back to back on one stream without a host synchronization (the tile
/// state's epochs, over state earlier, larger calls left behind); each against the host.
template <class Policy>
void check_concurrent_scans(const Policy& policy, std::uint64_t seed) {
  const std::vector<std::int64_t> ns = small_run()
                                           ? std::vector<std::int64_t>{20000, 4097, 7777, 3 * 3072 + 1}
                                           : std::vector<std::int64_t>{5000000, 1 << 20, 777777, 3 * 3072 + 1, 4000000, 100003};
  std::vector<std::vector<affine_i>> h(ns.size());
  std::vector<std::unique_ptr<device_buffer<affine_i>>> in, out;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    h[i] = random_vector<affine_i>(static_cast<std::size_t>(ns[i]), seed + i);
    in.push_back(std::make_unique<device_buffer<affine_i>>(h[i]));
    out.push_back(std::make_unique<device_buffer<affine_i>>(h[i].size()));
  }
  const compose_affine_i op{};
  SECTION("one stream per scan, all in flight at once") {
    std::vector<std::unique_ptr<test_stream>> streams;
    for (std::size_t i = 0; i < ns.size(); ++i) streams.push_back(std::make_unique<test_stream>());
    require_device_ok("setup");
    for (int round = 0; round < 3; ++round)
      for (std::size_t i = 0; i < ns.size(); ++i)
        algo::inclusive_scan(policy.on(streams[i]->get()), in[i]->begin(), in[i]->end(), out[i]->begin(), op);
    for (auto& s : streams) s->sync();
  }
  SECTION("one stream, back to back, no host synchronization in between") {
    test_stream s;
    require_device_ok("setup");
    for (int round = 0; round < 3; ++round)
      for (std::size_t i = 0; i < ns.size(); ++i)
        algo::inclusive_scan(policy.on(s.get()), in[i]->begin(), in[i]->end(), out[i]->begin(), op);
    s.sync();
  }
  for (std::size_t i = 0; i < ns.size(); ++i) {
    INFO("scan " << i << ", n = " << ns[i]);
    expect_equal("vs host", out[i]->download(), ref_inclusive_scan<affine_i>(h[i], op));
  }
}

}  // namespace cuda_scan_test
