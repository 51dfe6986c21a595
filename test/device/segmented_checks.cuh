// Device checks of the segmented and by-key algorithms (<algo/segmented.hpp>, issue 12), shared by
// test_cuda_segmented.cu, test_cuda_segmented_{reduce_then_scan,deterministic,ordered}.cu and
// test_cub_segmented.cu. Each check takes the policy as an argument and is templated on the value
// types (the caller picks: nvcc is slow, instantiate only what is tested).
//
//   check_by_key<WithThrust, Deterministic, V...>(policy)
//                                     inclusive / exclusive_scan_by_key, reduce_by_key: every
//                                     overload, sizes around the tiles, every layout; against the
//                                     host reference and (WithThrust) thrust::*_by_key(thrust::device)
//   check_segmented<Deterministic, V...>(policy)
//                                     segmented_reduce / inclusive / exclusive scan over device
//                                     offsets (int64 and int32) not starting at 0; the host reference
//   check_fancy(policy)               counting / transform inputs, transform_output / discard outputs,
//                                     uniform_offsets, thrust::device_vector storage
//   check_key_equal(policy)           keys equal modulo 10 (against the host; values against thrust)
//   check_accumulators(policy)        uint8 -> int32 (values' type), float + double init, int32 + int64 init
//   check_in_place(policy)            out == values for both scans by key and the segmented scans
//   check_bad_input(policy)           decreasing device offsets, keys_last < keys_first, overlaps
//   check_reduce_by_key_graph(policy) reduce_by_key_into captured into a CUDA graph and replayed
//   check_large_*(policy)             [large]: past 2^31 elements with fancy inputs
//
// Value types: int32 (plus, and (a, b) -> b where order shows), float (plus, within a tolerance;
// Deterministic: twice, bit for bit), mat2i (2x2 matrix product: non-commutative, exact).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "segmented_ref.hpp"

namespace seg_test {

using namespace algo_test;
using namespace algo_test::seg;

// ==== what each value type is tested with ========================================================
template <class V>
struct vspec;
template <>
struct vspec<std::int32_t> {
  using op = algo::plus<>;
  static constexpr bool plus = true;
};
template <>
struct vspec<float> {
  using op = algo::plus<>;
  static constexpr bool plus = true;
};
template <>
struct vspec<double> {
  using op = algo::plus<>;
  static constexpr bool plus = true;
};
template <>
struct vspec<mat2i> {
  using op = mat2_mul;
  static constexpr bool plus = false;
};

/// Host references accumulate floats in double.
template <class V>
using rt = std::conditional_t<std::is_same<V, float>::value, double, V>;

/// The value whose bytes are all device_buffer's sentinel (what an unwritten element reads as).
template <class V>
V sentinel_value() {
  V v;
  std::memset(static_cast<void*>(&v), sentinel_byte, sizeof(V));
  return v;
}

/// True when h[from..] are all sentinel bytes.
template <class V>
bool unwritten_from(const std::vector<V>& h, std::size_t from) {
  for (std::size_t i = from; i < h.size(); ++i) {
    const auto* b = reinterpret_cast<const unsigned char*>(&h[i]);
    for (std::size_t j = 0; j < sizeof(V); ++j)
      if (b[j] != sentinel_byte) return false;
  }
  return true;
}

/// Bit-for-bit equality (float results run twice).
template <class V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

template <class V>
std::vector<V> prefix(const std::vector<V>& v, std::size_t k) {
  return std::vector<V>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k < v.size() ? k : v.size()));
}

template <class V, class R>
std::vector<V> narrow_to(const std::vector<R>& r) {
  return convert<V>(r);
}

/// Sizes at and around the tiles (2048-8192 elements) and past a million.
inline std::vector<std::int64_t> seg_sizes() {
  std::vector<std::int64_t> s{1, 4095, 4096, 4097, 8193, 100000, (std::int64_t(1) << 20) + 3};
  if (small_run()) s = {1, 4097, 20000};  // under compute-sanitizer: one size below a tile, one past it, several tiles
  return s;
}

/// Offsets for the device checks: `l` moved right by 3 over an input of l.size() + 5 elements
/// (positions 0..2 and the last two must stay unwritten).
inline std::vector<std::int64_t> shifted3(const layout& l) {
  std::vector<std::int64_t> o = l.offsets;
  for (auto& x : o) x += 3;
  return o;
}

/// Keys from an index: i / length (runs of `length`, the last one shorter).
struct key_of_index {
  std::int64_t length;
  ALGO_HD std::int32_t operator()(std::int64_t i) const { return static_cast<std::int32_t>(i / length); }
};

/// REQUIREs that f() throws algo::error naming algo::<algorithm>.
template <class F>
void require_error(const char* algorithm, F&& f) {
  INFO("expected algo::error naming algo::" << algorithm);
  std::string msg = "(no exception)";
  bool thrown = false;
  try {
    f();
  } catch (const algo::error& e) {
    thrown = true;
    msg = e.what();
  } catch (const std::exception& e) {
    msg = std::string("another exception: ") + e.what();
  }
  INFO("message: " << msg);
  REQUIRE(thrown);
  CHECK(msg.find(std::string("algo::") + algorithm) != std::string::npos);
}

// ==== scans by key and reduce_by_key ===============================================================
/// Every by-key overload on one layout of n elements of V.
template <bool WithThrust, bool Deterministic, class V, class Policy>
void check_by_key_one(const Policy& policy, const layout& l, std::uint64_t seed) {
  using Op = typename vspec<V>::op;
  using R = rt<V>;
  const std::int64_t n = l.size();
  const auto un = static_cast<std::size_t>(n);
  INFO("policy " << policy_name<Policy>() << ", values " << type_name_v<V> << ", n = " << n << ", layout: " << l.name
                 << ", seed = " << seed);
  const algo::equal_to<> eq;
  const Op op{};
  const auto h_k = by_key_keys(l, seed);
  const auto h_v = random_vector<V>(un, seed + 1);
  const V init = random_scalar<V>(seed + 2);
  device_buffer<std::int32_t> k(h_k);
  device_buffer<V> v(h_v), out(un), want(un);

  std::vector<double> sc, sc_init;
  if constexpr (std::is_floating_point<V>::value) {
    sc = by_key_scale(h_k, h_v, eq);
    sc_init = by_key_scale(h_k, h_v, eq, std::fabs(static_cast<double>(init)));
  }
  const std::vector<double>* psc = sc.empty() ? nullptr : &sc;
  const std::vector<double>* psc_init = sc_init.empty() ? nullptr : &sc_init;

  // ---- inclusive_scan_by_key(eq, op) ---------------------------------------------------------
  {
    INFO("variant: inclusive_scan_by_key(policy, k, k + n, v, out, eq, op)");
    const auto ref = narrow_to<V>(ref_inclusive_scan_by_key<R>(h_k, h_v, eq, op));
    CHECK(algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), eq, op) == out.end());
    const auto got = out.download();
    expect_equal("vs host", got, ref, psc);
    CHECK(out.guard_intact());
    if constexpr (WithThrust) {
      thrust::inclusive_scan_by_key(thrust::device, k.begin(), k.end(), v.begin(), want.begin(), thrust::equal_to<std::int32_t>{}, op);
      expect_equal("vs thrust::inclusive_scan_by_key", got, want.download(), psc);
    }
    if constexpr (Deterministic) {
      out.fill_sentinel();
      algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), eq, op);
      CHECK(same_bits(out.download(), got));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: inclusive_scan_by_key(policy, k, k + n, v, out) (defaults)");
      out.fill_sentinel();
      CHECK(algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin()) == out.end());
      expect_equal("vs host", out.download(), ref, psc);
    }
  }
  // ---- exclusive_scan_by_key(init, eq, op) ---------------------------------------------------
  {
    INFO("variant: exclusive_scan_by_key(policy, k, k + n, v, out, init, eq, op)");
    const auto ref = narrow_to<V>(ref_exclusive_scan_by_key<R>(h_k, h_v, static_cast<R>(init), eq, op));
    out.fill_sentinel();
    CHECK(algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), init, eq, op) == out.end());
    const auto got = out.download();
    expect_equal("vs host", got, ref, psc_init);
    CHECK(out.guard_intact());
    if constexpr (WithThrust) {
      thrust::exclusive_scan_by_key(thrust::device, k.begin(), k.end(), v.begin(), want.begin(), init,
                                    thrust::equal_to<std::int32_t>{}, op);
      expect_equal("vs thrust::exclusive_scan_by_key", got, want.download(), psc_init);
    }
    if constexpr (Deterministic) {
      out.fill_sentinel();
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), init, eq, op);
      CHECK(same_bits(out.download(), got));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: exclusive_scan_by_key(policy, k, k + n, v, out) (init V{}) and (.., init)");
      out.fill_sentinel();
      CHECK(algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin()) == out.end());
      expect_equal("vs host", out.download(), narrow_to<V>(ref_exclusive_scan_by_key<R>(h_k, h_v, R{}, eq, op)), psc);
      out.fill_sentinel();
      CHECK(algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), init) == out.end());
      expect_equal("vs host", out.download(), ref, psc_init);
    }
  }
  // ---- reduce_by_key(eq, op) ----------------------------------------------------------------------
  {
    INFO("variant: reduce_by_key(policy, k, k + n, v, keys_out, values_out, eq, op)");
    const auto ref = ref_reduce_by_key<R>(h_k, h_v, eq, op);
    const auto ref_v = narrow_to<V>(ref.second);
    const std::size_t runs = ref.first.size();
    std::vector<double> rsc;
    if constexpr (std::is_floating_point<V>::value) {
      std::vector<std::int64_t> ro{0};
      for (std::size_t i = 1; i <= un; ++i)
        if (i == un || h_k[i] != h_k[i - 1]) ro.push_back(static_cast<std::int64_t>(i));
      rsc = segment_sums_scale(h_v, ro);
    }
    const std::vector<double>* prsc = rsc.empty() ? nullptr : &rsc;
    device_buffer<std::int32_t> ko(un);
    device_buffer<V> vo(un);
    auto r = algo::reduce_by_key(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq, op);
    REQUIRE(static_cast<std::size_t>(r.first - ko.begin()) == runs);
    REQUIRE(static_cast<std::size_t>(r.second - vo.begin()) == runs);
    const auto got_k = ko.download();
    const auto got_v = vo.download();
    expect_equal("keys vs host", prefix(got_k, runs), ref.first);
    expect_equal("values vs host", prefix(got_v, runs), ref_v, prsc);
    CHECK(unwritten_from(got_k, runs));
    CHECK(unwritten_from(got_v, runs));
    CHECK(ko.guard_intact());
    CHECK(vo.guard_intact());
    if constexpr (WithThrust) {
      device_buffer<std::int32_t> tk(un);
      device_buffer<V> tv(un);
      auto t = thrust::reduce_by_key(thrust::device, k.begin(), k.end(), v.begin(), tk.begin(), tv.begin(),
                                     thrust::equal_to<std::int32_t>{}, op);
      CHECK(static_cast<std::size_t>(t.first - tk.begin()) == runs);
      expect_equal("values vs thrust::reduce_by_key", prefix(got_v, runs), prefix(tv.download(), runs), prsc);
    }
    if constexpr (Deterministic) {
      vo.fill_sentinel();
      algo::reduce_by_key(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq, op);
      CHECK(same_bits(vo.download(), got_v));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: reduce_by_key(policy, k, k + n, v, keys_out, values_out) (defaults)");
      ko.fill_sentinel();
      vo.fill_sentinel();
      auto r2 = algo::reduce_by_key(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin());
      REQUIRE(static_cast<std::size_t>(r2.second - vo.begin()) == runs);
      expect_equal("keys vs host", prefix(ko.download(), runs), ref.first);
      expect_equal("values vs host", prefix(vo.download(), runs), ref_v, prsc);
    }
    // ---- reduce_by_key_into: the count on the device (long long, then int) ----------------------
    {
      INFO("variant: reduce_by_key_into(policy, k, k + n, v, keys_out, values_out, count_out, eq, op)");
      device_buffer<long long> c(1);
      ko.fill_sentinel();
      vo.fill_sentinel();
      algo::reduce_by_key_into(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), c.begin(), eq, op);
      REQUIRE(c.download()[0] == static_cast<long long>(runs));
      CHECK(c.guard_intact());
      const auto into_k = ko.download();
      const auto into_v = vo.download();
      expect_equal("reduce_by_key_into keys vs host", prefix(into_k, runs), ref.first);
      expect_equal("reduce_by_key_into values vs host", prefix(into_v, runs), ref_v, prsc);
      CHECK(unwritten_from(into_k, runs));
      CHECK(unwritten_from(into_v, runs));
      if constexpr (Deterministic) CHECK(same_bits(into_v, got_v));  // the kernel of reduce_by_key
      if constexpr (vspec<V>::plus) {
        INFO("variant: reduce_by_key_into(policy, k, k + n, v, keys_out, values_out, int count_out) (defaults)");
        device_buffer<int> ci(1);
        vo.fill_sentinel();
        algo::reduce_by_key_into(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), ci.begin());
        REQUIRE(ci.download()[0] == static_cast<int>(runs));
        CHECK(ci.guard_intact());
        expect_equal("values vs host", prefix(vo.download(), runs), ref_v, prsc);
        INFO("variant: reduce_by_key_into of an empty input writes 0");
        algo::reduce_by_key_into(policy, k.begin(), k.begin(), v.begin(), ko.begin(), vo.begin(), ci.begin());
        REQUIRE(ci.download()[0] == 0);
      }
    }
  }
  if constexpr (std::is_same<V, std::int32_t>::value) {
    if (n > 3) {
      INFO("variant: keys + 1, values + 2, out + 3 (misaligned for 16-byte tile loads and stores), n - 3 elements");
      const std::vector<std::int32_t> hk(h_k.begin() + 1, h_k.begin() + n - 2), hv(h_v.begin() + 2, h_v.begin() + n - 1);
      const std::int64_t m = n - 3;
      out.fill_sentinel();
      CHECK(algo::inclusive_scan_by_key(policy, k.begin() + 1, k.begin() + 1 + m, v.begin() + 2, out.begin() + 3) == out.end());
      auto got = out.download();
      CHECK(unwritten_from(prefix(got, 3), 0));
      expect_equal("inclusive_scan_by_key vs host", std::vector<V>(got.begin() + 3, got.end()),
                   ref_inclusive_scan_by_key<std::int32_t>(hk, hv, eq, algo::plus<>{}));
      out.fill_sentinel();
      CHECK(algo::exclusive_scan_by_key(policy, k.begin() + 1, k.begin() + 1 + m, v.begin() + 2, out.begin() + 3, init) == out.end());
      got = out.download();
      CHECK(unwritten_from(prefix(got, 3), 0));
      expect_equal("exclusive_scan_by_key vs host", std::vector<V>(got.begin() + 3, got.end()),
                   ref_exclusive_scan_by_key<std::int32_t>(hk, hv, init, eq, algo::plus<>{}));
      const auto ref = ref_reduce_by_key<std::int32_t>(hk, hv, eq, algo::plus<>{});
      device_buffer<std::int32_t> ko(un), vo(un);
      auto r = algo::reduce_by_key(policy, k.begin() + 1, k.begin() + 1 + m, v.begin() + 2, ko.begin() + 3, vo.begin() + 1);
      REQUIRE(static_cast<std::size_t>(r.first - (ko.begin() + 3)) == ref.first.size());
      REQUIRE(static_cast<std::size_t>(r.second - (vo.begin() + 1)) == ref.first.size());
      const auto gk = ko.download(), gv = vo.download();
      expect_equal("reduce_by_key keys vs host", std::vector<V>(gk.begin() + 3, gk.begin() + 3 + static_cast<std::ptrdiff_t>(ref.first.size())), ref.first);
      expect_equal("reduce_by_key values vs host", std::vector<V>(gv.begin() + 1, gv.begin() + 1 + static_cast<std::ptrdiff_t>(ref.first.size())), ref.second);
      CHECK(unwritten_from(prefix(gk, 3), 0));
      CHECK(unwritten_from(gk, 3 + ref.first.size()));
      CHECK(unwritten_from(gv, 1 + ref.first.size()));
    }
  }
  if constexpr (std::is_same<V, std::int32_t>::value) {
    INFO("variant: reduce_by_key(.., eq, (a, b) -> b), exclusive_scan_by_key(.., init, eq, (a, b) -> b)");
    device_buffer<std::int32_t> ko(un), vo(un);
    auto r = algo::reduce_by_key(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq, take_right{});
    const auto ref = ref_reduce_by_key<std::int32_t>(h_k, h_v, eq, take_right{});
    REQUIRE(static_cast<std::size_t>(r.second - vo.begin()) == ref.second.size());
    expect_equal("each run's last value", prefix(vo.download(), ref.second.size()), ref.second);
    out.fill_sentinel();
    algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), init, eq, take_right{});
    expect_equal("init, then the previous value", out.download(),
                 ref_exclusive_scan_by_key<std::int32_t>(h_k, h_v, init, eq, take_right{}));
  }
  require_device_ok("end of check_by_key_one");
}

/// check_by_key_one for each V, each size, each layout. WithThrust: also against thrust::*_by_key;
/// Deterministic: float results run twice must agree bit for bit.
template <bool WithThrust, bool Deterministic, class... Vs, class Policy>
void check_by_key(const Policy& policy, std::uint64_t seed = 1) {
  auto one_type = [&](auto tag) {
    using V = typename decltype(tag)::type;
    for (std::int64_t n : seg_sizes())
      for (const layout& l : standard_layouts(n, case_seed<V>(seed, n)))
        check_by_key_one<WithThrust, Deterministic && std::is_floating_point<V>::value, V>(policy, l, case_seed<V>(seed + 7, n));
  };
  (one_type(type_tag<Vs>{}), ...);
}

// ==== segmented (offsets) ===========================================================================
/// Every segmented overload on one layout (shifted by 3, over l.size() + 5 elements) of V.
template <bool Deterministic, class V, class Policy>
void check_segmented_one(const Policy& policy, const layout& l, std::uint64_t seed) {
  using Op = typename vspec<V>::op;
  using R = rt<V>;
  const Op op{};
  const std::int64_t n = l.size() + 5;
  const auto un = static_cast<std::size_t>(n);
  INFO("policy " << policy_name<Policy>() << ", values " << type_name_v<V> << ", " << l.size()
                 << " elements in segments from position 3 of " << n << ", layout: " << l.name << " (" << l.segments()
                 << " segments), seed = " << seed);
  const auto h_o = shifted3(l);
  const auto h_o32 = offsets_as<std::int32_t>(h_o);
  const auto segs = static_cast<std::size_t>(l.segments());
  const auto h_x = random_vector<V>(un, seed);
  const V init = random_scalar<V>(seed + 1);
  device_buffer<V> x(h_x), out(un), red(segs);
  device_buffer<std::int64_t> o(h_o);
  device_buffer<std::int32_t> o32(h_o32);
  const std::vector<R> base(un, static_cast<R>(sentinel_value<V>()));
  const std::vector<V> vbase(un, sentinel_value<V>());
  const auto end_ix = static_cast<std::ptrdiff_t>(h_o.back());

  std::vector<double> sc, sc_init, rsc;
  if constexpr (std::is_floating_point<V>::value) {
    sc = segmented_scale(h_x, h_o, un);
    sc_init = segmented_scale(h_x, h_o, un, std::fabs(static_cast<double>(init)));
    rsc = segment_sums_scale(h_x, h_o, std::fabs(static_cast<double>(init)));
  }
  const std::vector<double>* psc = sc.empty() ? nullptr : &sc;
  const std::vector<double>* psc_init = sc_init.empty() ? nullptr : &sc_init;
  const std::vector<double>* prsc = rsc.empty() ? nullptr : &rsc;
  // the sentinel positions compare as exact copies (the reference keeps the sentinel there)
  auto ref_scan = [&](const std::vector<R>& r) {
    std::vector<V> w = narrow_to<V>(r);
    for (std::size_t i = 0; i < un; ++i)
      if (static_cast<std::int64_t>(i) < h_o.front() || static_cast<std::int64_t>(i) >= h_o.back()) w[i] = vbase[i];
    return w;
  };
  auto check_outside = [&](const std::vector<V>& got) {
    std::vector<V> outside;
    for (std::size_t i = 0; i < un; ++i)
      if (static_cast<std::int64_t>(i) < h_o.front() || static_cast<std::int64_t>(i) >= h_o.back()) outside.push_back(got[i]);
    CHECK(unwritten_from(outside, 0));
  };

  // ---- segmented_reduce ------------------------------------------------------------------------
  {
    INFO("variant: segmented_reduce(policy, x, offsets (int64), out, init, op)");
    const auto ref = narrow_to<V>(ref_segmented_reduce<R>(h_x, h_o, static_cast<R>(init), op));
    algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init, op);
    const auto got = red.download();
    expect_equal("vs host", got, ref, prsc);
    CHECK(red.guard_intact());
    if constexpr (Deterministic) {
      red.fill_sentinel();
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init, op);
      CHECK(same_bits(red.download(), got));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: segmented_reduce(policy, x, offsets (int32), out, init)");
      red.fill_sentinel();
      algo::segmented_reduce(policy, x.begin(), o32.begin(), o32.end(), red.begin(), init);
      expect_equal("vs host", red.download(), ref, prsc);
    }
  }
  if constexpr (std::is_same<V, std::int32_t>::value) {
    INFO("variant: input x + 1, output out + 0 (different alignments; out[i] is x[i + 1]'s)");
    const std::vector<std::int32_t> hx1(h_x.begin() + 1, h_x.end());
    std::vector<std::int64_t> h_o1 = h_o;
    for (auto& e : h_o1) e -= 1;  // the same elements of x, counted from x + 1
    device_buffer<std::int64_t> off1(h_o1);
    out.fill_sentinel();
    CHECK(algo::segmented_inclusive_scan(policy, x.begin() + 1, off1.begin(), off1.end(), out.begin()) ==
          out.begin() + h_o1.back());
    auto got = out.download();
    std::vector<std::int32_t> want = ref_segmented_inclusive_scan<std::int32_t>(hx1, h_o1, algo::plus<>{},
                                                                                std::vector<std::int32_t>(un - 1, sentinel_value<std::int32_t>()));
    want.push_back(sentinel_value<std::int32_t>());
    expect_equal("segmented_inclusive_scan vs host", got, want);
    red.fill_sentinel();
    algo::segmented_reduce(policy, x.begin() + 1, off1.begin(), off1.end(), red.begin(), init);
    expect_equal("segmented_reduce vs host", red.download(), ref_segmented_reduce<std::int32_t>(hx1, h_o1, init, algo::plus<>{}));
  }
  if constexpr (std::is_same<V, std::int32_t>::value) {
    INFO("variant: segmented_reduce(policy, x, offsets, out, init, (a, b) -> b): each segment's last value");
    red.fill_sentinel();
    algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init, take_right{});
    expect_equal("vs host", red.download(), ref_segmented_reduce<std::int32_t>(h_x, h_o, init, take_right{}));
  }
  // ---- segmented_inclusive_scan ------------------------------------------------------------------
  {
    INFO("variant: segmented_inclusive_scan(policy, x, offsets, out, op)");
    const auto ref = ref_scan(ref_segmented_inclusive_scan<R>(h_x, h_o, op, base));
    out.fill_sentinel();
    CHECK(algo::segmented_inclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), op) == out.begin() + end_ix);
    const auto got = out.download();
    expect_equal("vs host", got, ref, psc);
    check_outside(got);
    CHECK(out.guard_intact());
    if constexpr (Deterministic) {
      out.fill_sentinel();
      algo::segmented_inclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), op);
      CHECK(same_bits(out.download(), got));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: segmented_inclusive_scan(policy, x, offsets (int32), out)");
      out.fill_sentinel();
      CHECK(algo::segmented_inclusive_scan(policy, x.begin(), o32.begin(), o32.end(), out.begin()) == out.begin() + end_ix);
      expect_equal("vs host", out.download(), ref, psc);
    }
  }
  {
    INFO("variant: segmented_inclusive_scan(policy, x, offsets, out, op, init)");
    const auto ref = ref_scan(ref_segmented_inclusive_scan<R>(h_x, h_o, op, static_cast<R>(init), base));
    out.fill_sentinel();
    CHECK(algo::segmented_inclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), op, init) == out.begin() + end_ix);
    const auto got = out.download();
    expect_equal("vs host", got, ref, psc_init);
    check_outside(got);
    CHECK(out.guard_intact());
  }
  // ---- segmented_exclusive_scan ------------------------------------------------------------------
  {
    INFO("variant: segmented_exclusive_scan(policy, x, offsets, out, init, op)");
    const auto ref = ref_scan(ref_segmented_exclusive_scan<R>(h_x, h_o, static_cast<R>(init), op, base));
    out.fill_sentinel();
    CHECK(algo::segmented_exclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), init, op) == out.begin() + end_ix);
    const auto got = out.download();
    expect_equal("vs host", got, ref, psc_init);
    check_outside(got);
    CHECK(out.guard_intact());
    if constexpr (Deterministic) {
      out.fill_sentinel();
      algo::segmented_exclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), init, op);
      CHECK(same_bits(out.download(), got));
    }
    if constexpr (vspec<V>::plus) {
      INFO("variant: segmented_exclusive_scan(policy, x, offsets (int32), out, init)");
      out.fill_sentinel();
      CHECK(algo::segmented_exclusive_scan(policy, x.begin(), o32.begin(), o32.end(), out.begin(), init) == out.begin() + end_ix);
      expect_equal("vs host", out.download(), ref, psc_init);
    }
  }
  require_device_ok("end of check_segmented_one");
}

/// check_segmented_one for each V, each size, each layout (Deterministic: as check_by_key).
template <bool Deterministic, class... Vs, class Policy>
void check_segmented(const Policy& policy, std::uint64_t seed = 2) {
  auto one_type = [&](auto tag) {
    using V = typename decltype(tag)::type;
    for (std::int64_t n : seg_sizes())
      for (const layout& l : standard_layouts(n, case_seed<V>(seed, n)))
        check_segmented_one<Deterministic && std::is_floating_point<V>::value, V>(policy, l, case_seed<V>(seed + 7, n));
  };
  (one_type(type_tag<Vs>{}), ...);
}

// ==== fancy iterators and thrust::device_vector ========================================================
/// int32 values from a counting + transform iterator; keys from a counting + transform iterator
/// (runs of L); outputs through a transform_output_iterator, a discard_iterator; uniform_offsets;
/// thrust::device_vector storage.
template <class Policy>
void check_fancy(const Policy& policy) {
  const algo::equal_to<> eq;
  for (std::int64_t n : {std::int64_t(4097), std::int64_t(100000), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    for (std::int64_t L : {std::int64_t(1), std::int64_t(32), std::int64_t(1000), std::int64_t(8193)}) {
      INFO("policy " << policy_name<Policy>() << ", n = " << n << ", runs / segments of " << L);
      const auto un = static_cast<std::size_t>(n);
      const std::uint64_t seed = 900 + static_cast<std::uint64_t>(n + L);
      auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), key_of_index{L});
      auto vals = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), hashed_value<std::int32_t>{seed});
      std::vector<std::int32_t> h_k(un);
      for (std::size_t i = 0; i < un; ++i) h_k[i] = key_of_index{L}(static_cast<std::int64_t>(i));
      const auto h_v = hashed_vector<std::int32_t>(un, seed);
      device_buffer<std::int32_t> out(un);

      {
        INFO("variant: inclusive_scan_by_key(fancy keys, fancy values, transform_output_iterator)");
        auto d_first = thrust::make_transform_output_iterator(out.begin(), flip{});
        auto r = algo::inclusive_scan_by_key(policy, keys, keys + n, vals, d_first);
        CHECK(r - d_first == n);
        expect_equal("vs host", out.download(), map(ref_inclusive_scan_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{}), flip{}));
        CHECK(out.guard_intact());
      }
      {
        INFO("variant: exclusive_scan_by_key(fancy keys, fancy values, discard_iterator, init)");
        auto d_first = thrust::make_discard_iterator();
        auto r = algo::exclusive_scan_by_key(policy, keys, keys + n, vals, d_first, 5);
        CHECK(r - d_first == n);
        require_device_ok("after the scan into a discard_iterator");
      }
      {
        INFO("variant: reduce_by_key(fancy keys, fancy values, discard_iterator keys, values)");
        const auto ref = ref_reduce_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{});
        out.fill_sentinel();
        auto kd = thrust::make_discard_iterator();
        auto r = algo::reduce_by_key(policy, keys, keys + n, vals, kd, out.begin());
        REQUIRE(static_cast<std::size_t>(r.first - kd) == ref.second.size());
        REQUIRE(static_cast<std::size_t>(r.second - out.begin()) == ref.second.size());
        const auto got = out.download();
        expect_equal("vs host", prefix(got, ref.second.size()), ref.second);
        CHECK(unwritten_from(got, ref.second.size()));
      }
      {
        INFO("variant: segmented_reduce / inclusive / exclusive scan (fancy values, uniform_offsets(L), transform_output_iterator)");
        const std::int64_t S = n / L;  // the last n % L elements are in no segment
        const auto uo = algo::uniform_offsets(L);
        std::vector<std::int64_t> h_o;
        for (std::int64_t s = 0; s <= S; ++s) h_o.push_back(s * L);
        device_buffer<std::int32_t> red(static_cast<std::size_t>(S));
        algo::segmented_reduce(policy, vals, uo, uo + (S + 1), thrust::make_transform_output_iterator(red.begin(), flip{}), -9);
        expect_equal("segmented_reduce vs host", red.download(), map(ref_segmented_reduce<std::int32_t>(h_v, h_o, -9, algo::plus<>{}), flip{}));
        CHECK(red.guard_intact());
        const std::vector<std::int32_t> base(un, sentinel_value<std::int32_t>());
        out.fill_sentinel();
        auto d_first = thrust::make_transform_output_iterator(out.begin(), flip{});
        auto r = algo::segmented_inclusive_scan(policy, vals, uo, uo + (S + 1), d_first, algo::plus<>{}, 11);
        CHECK(r - d_first == S * L);
        auto want = ref_segmented_inclusive_scan<std::int32_t>(h_v, h_o, algo::plus<>{}, 11, base);
        for (std::int64_t i = 0; i < S * L; ++i) want[static_cast<std::size_t>(i)] = flip{}(want[static_cast<std::size_t>(i)]);
        expect_equal("segmented_inclusive_scan vs host", out.download(), want);
        out.fill_sentinel();
        CHECK(algo::segmented_exclusive_scan(policy, vals, uo, uo + (S + 1), out.begin(), 11) == out.begin() + S * L);
        expect_equal("segmented_exclusive_scan vs host", out.download(),
                     ref_segmented_exclusive_scan<std::int32_t>(h_v, h_o, 11, algo::plus<>{}, base));
      }
      {
        INFO("variant: thrust::device_vector keys, values, outputs and offsets");
        thrust::device_vector<std::int32_t> dk(h_k.begin(), h_k.end()), dv(h_v.begin(), h_v.end()), dout(un), dko(un), dvo(un);
        auto r = algo::inclusive_scan_by_key(policy, dk.begin(), dk.end(), dv.begin(), dout.begin());
        CHECK(r == dout.end());
        std::vector<std::int32_t> got(un);
        thrust::copy(dout.begin(), dout.end(), got.begin());
        expect_equal("inclusive_scan_by_key vs host", got, ref_inclusive_scan_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{}));
        auto rr = algo::reduce_by_key(policy, dk.begin(), dk.end(), dv.begin(), dko.begin(), dvo.begin());
        const auto ref = ref_reduce_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{});
        REQUIRE(static_cast<std::size_t>(rr.first - dko.begin()) == ref.first.size());
        std::vector<std::int32_t> gk(ref.first.size()), gv(ref.first.size());
        thrust::copy(dko.begin(), dko.begin() + static_cast<std::ptrdiff_t>(gk.size()), gk.begin());
        thrust::copy(dvo.begin(), dvo.begin() + static_cast<std::ptrdiff_t>(gv.size()), gv.begin());
        expect_equal("reduce_by_key keys vs host", gk, ref.first);
        expect_equal("reduce_by_key values vs host", gv, ref.second);
        const layout lay = random_layout(n, 3 * L, seed + 5);
        thrust::device_vector<std::int64_t> doff(lay.offsets.begin(), lay.offsets.end());
        thrust::device_vector<std::int32_t> dred(static_cast<std::size_t>(lay.segments()));
        algo::segmented_reduce(policy, dv.begin(), doff.begin(), doff.end(), dred.begin(), 3);
        std::vector<std::int32_t> gr(dred.size());
        thrust::copy(dred.begin(), dred.end(), gr.begin());
        expect_equal("segmented_reduce vs host", gr, ref_segmented_reduce<std::int32_t>(h_v, lay.offsets, 3, algo::plus<>{}));
        auto re = algo::segmented_exclusive_scan(policy, dv.begin(), doff.begin(), doff.end(), dout.begin(), 3);
        CHECK(re == dout.end());
        thrust::copy(dout.begin(), dout.end(), got.begin());
        expect_equal("segmented_exclusive_scan vs host", got,
                     ref_segmented_exclusive_scan<std::int32_t>(h_v, lay.offsets, 3, algo::plus<>{}, h_v));
      }
      require_device_ok("end of check_fancy");
    }
  }
}

// ==== custom key_equal ==============================================================================
/// Keys equal modulo 10 (the raw keys vary inside a run): scans and reduce_by_key against thrust
/// and the host; reduce_by_key writes each run's first raw key.
template <class Policy>
void check_key_equal(const Policy& policy) {
  const equal_mod10 eq;
  for (std::int64_t n : {std::int64_t(4097), std::int64_t(100000), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    for (const layout& l : {random_layout(n, 8, 950), random_layout(n, 3000, 951), giant_layout(n), ones_layout(n)}) {
      INFO("policy " << policy_name<Policy>() << ", n = " << n << ", layout: " << l.name);
      const auto un = static_cast<std::size_t>(n);
      const auto h_k = mod10_keys(l, 952 + un);
      const auto h_v = random_vector<std::int32_t>(un, 953 + un);
      device_buffer<std::int32_t> k(h_k), v(h_v), out(un), want(un), ko(un), vo(un), tko(un), tvo(un);
      CHECK(algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), eq) == out.end());
      const auto got = out.download();
      expect_equal("inclusive_scan_by_key vs host", got, ref_inclusive_scan_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{}));
      thrust::inclusive_scan_by_key(thrust::device, k.begin(), k.end(), v.begin(), want.begin(), eq);
      expect_equal("inclusive_scan_by_key vs thrust", got, want.download());
      out.fill_sentinel();
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin(), -4, eq, take_right{});
      expect_equal("exclusive_scan_by_key((a, b) -> b) vs host", out.download(),
                   ref_exclusive_scan_by_key<std::int32_t>(h_k, h_v, -4, eq, take_right{}));
      const auto ref = ref_reduce_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{});
      auto r = algo::reduce_by_key(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq);
      REQUIRE(static_cast<std::size_t>(r.first - ko.begin()) == ref.first.size());
      REQUIRE(static_cast<std::size_t>(r.second - vo.begin()) == ref.first.size());
      expect_equal("reduce_by_key keys (each run's first raw key) vs host", prefix(ko.download(), ref.first.size()), ref.first);
      expect_equal("reduce_by_key values vs host", prefix(vo.download(), ref.first.size()), ref.second);
      auto t = thrust::reduce_by_key(thrust::device, k.begin(), k.end(), v.begin(), tko.begin(), tvo.begin(), eq);
      CHECK(static_cast<std::size_t>(t.first - tko.begin()) == ref.first.size());
      expect_equal("reduce_by_key values vs thrust", prefix(vo.download(), ref.first.size()), prefix(tvo.download(), ref.first.size()));
      // Thrust's keys are not compared: thrust::reduce_by_key of CUDA 13's CCCL (CUB's ReduceByKey)
      // writes each run's last key, not its first, when keys are equal only under key_equal (seen
      // on the H100, 2026-11-23). algo writes the first, as Thrust's documentation says; say once
      // what Thrust wrote.
      static bool told = false;
      const auto tk = prefix(tko.download(), ref.first.size());
      if (!told && tk != ref.first) {
        told = true;
        std::vector<std::int32_t> last_keys;
        for (std::size_t i = 0; i < un; ++i)
          if (i + 1 == un || !eq(h_k[i], h_k[i + 1])) last_keys.push_back(h_k[i]);
        WARN("thrust::reduce_by_key with a custom key_equal wrote keys other than each run's first; each run's last: "
             << (tk == last_keys ? "yes" : "no") << " (first run: thrust " << tk[0] << ", first key " << ref.first[0]
             << ", last key " << last_keys[0] << ")");
      }
      require_device_ok("end of check_key_equal");
    }
  }
}

// ==== accumulator types ===============================================================================
/// uint8 values -> int32 output: inclusive_scan_by_key accumulates in uint8 (wrapping), as thrust;
/// float values with a double init: exclusive_scan_by_key accumulates in double (exact here, not
/// in float); int32 values near 2^30 with an int64 init: every segmented form and
/// exclusive_scan_by_key accumulate in int64.
template <class Policy>
void check_accumulators(const Policy& policy) {
  const algo::equal_to<> eq;
  for (std::int64_t n : {std::int64_t(8193), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    INFO("policy " << policy_name<Policy>() << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const layout l = random_layout(n, 3000, 960);
    const auto h_k = by_key_keys(l, 961);
    device_buffer<std::int32_t> k(h_k);
    {
      INFO("inclusive_scan_by_key: uint8 values, int32 output");
      const auto h_v = random_vector<std::uint8_t>(un, 962);
      device_buffer<std::uint8_t> v(h_v);
      device_buffer<std::int32_t> out(un), want(un);
      algo::inclusive_scan_by_key(policy, k.begin(), k.end(), v.begin(), out.begin());
      const auto ref = ref_inclusive_scan_by_key<std::uint8_t>(h_k, h_v, eq, algo::plus<>{});
      expect_equal("vs host (uint8 accumulator)", out.download(), convert<std::int32_t>(ref));
      thrust::inclusive_scan_by_key(thrust::device, k.begin(), k.end(), v.begin(), want.begin());
      expect_equal("vs thrust::inclusive_scan_by_key", out.download(), want.download());
    }
    std::vector<float> h_f(un);
    for (std::size_t i = 0; i < un; ++i) h_f[i] = (i % 3 == 0) ? 16777216.0f : 1.0f;
    const auto r = random_vector<std::int32_t>(un, 963);
    std::vector<std::int32_t> h_big(un);
    for (std::size_t i = 0; i < un; ++i) h_big[i] = (1 << 30) + (r[i] & 0xffff);
    device_buffer<float> f(h_f);
    device_buffer<std::int32_t> big(h_big);
    {
      INFO("exclusive_scan_by_key: float values, double init, double output");
      device_buffer<double> out(un);
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), f.begin(), out.begin(), 0.5);
      expect_equal("vs host (double accumulator)", out.download(), ref_exclusive_scan_by_key<double>(h_k, h_f, 0.5, eq, algo::plus<>{}));
    }
    {
      INFO("exclusive_scan_by_key: int32 values, int64 init, int64 output");
      device_buffer<std::int64_t> out(un);
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), big.begin(), out.begin(), std::int64_t(-7), eq, algo::plus<>{});
      expect_equal("vs host (int64 accumulator)", out.download(),
                   ref_exclusive_scan_by_key<std::int64_t>(h_k, h_big, std::int64_t(-7), eq, algo::plus<>{}));
    }
    {
      INFO("segmented forms: int32 values, int64 init");
      const auto& h_o = l.offsets;
      device_buffer<std::int64_t> o(h_o), red(static_cast<std::size_t>(l.segments())), out(un);
      algo::segmented_reduce(policy, big.begin(), o.begin(), o.end(), red.begin(), std::int64_t(3));
      expect_equal("segmented_reduce vs host", red.download(), ref_segmented_reduce<std::int64_t>(h_big, h_o, std::int64_t(3), algo::plus<>{}));
      const std::vector<std::int64_t> base(un, 0);
      algo::segmented_inclusive_scan(policy, big.begin(), o.begin(), o.end(), out.begin(), algo::plus<>{}, std::int64_t(3));
      expect_equal("segmented_inclusive_scan vs host", out.download(),
                   ref_segmented_inclusive_scan<std::int64_t>(h_big, h_o, algo::plus<>{}, std::int64_t(3), base));
      algo::segmented_exclusive_scan(policy, big.begin(), o.begin(), o.end(), out.begin(), std::int64_t(3));
      expect_equal("segmented_exclusive_scan vs host", out.download(),
                   ref_segmented_exclusive_scan<std::int64_t>(h_big, h_o, std::int64_t(3), algo::plus<>{}, base));
      device_buffer<double> dred(static_cast<std::size_t>(l.segments()));
      algo::segmented_reduce(policy, f.begin(), o.begin(), o.end(), dred.begin(), 0.5);
      expect_equal("segmented_reduce (float values, double init) vs host", dred.download(),
                   ref_segmented_reduce<double>(h_f, h_o, 0.5, algo::plus<>{}));
    }
    require_device_ok("end of check_accumulators");
  }
}

// ==== in place =========================================================================================
template <class Policy>
void check_in_place(const Policy& policy) {
  const algo::equal_to<> eq;
  for (std::int64_t n : {std::int64_t(4097), std::int64_t(100000), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    for (const layout& l : {random_layout(n, 8, 970), random_layout(n, 3000, 971), giant_layout(n), fixed_layout(n, 32)}) {
      INFO("policy " << policy_name<Policy>() << ", n = " << n << ", layout: " << l.name);
      const auto un = static_cast<std::size_t>(n);
      const auto h_k = by_key_keys(l, 972);
      const auto h_v = random_vector<std::int32_t>(un, 973);
      const auto h_m = random_vector<mat2i>(un, 974);
      const mat2i init = random_scalar<mat2i>(975);
      device_buffer<std::int32_t> k(h_k), io(h_v);
      device_buffer<mat2i> mo(h_m);
      device_buffer<std::int64_t> o(l.offsets);
      CHECK(algo::inclusive_scan_by_key(policy, k.begin(), k.end(), io.begin(), io.begin()) == io.end());
      expect_equal("inclusive_scan_by_key in place", io.download(), ref_inclusive_scan_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{}));
      io.upload(h_v);
      CHECK(algo::exclusive_scan_by_key(policy, k.begin(), k.end(), io.begin(), io.begin(), 17) == io.end());
      expect_equal("exclusive_scan_by_key in place", io.download(), ref_exclusive_scan_by_key<std::int32_t>(h_k, h_v, 17, eq, algo::plus<>{}));
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), mo.begin(), mo.begin(), init, eq, mat2_mul{});
      expect_equal("exclusive_scan_by_key in place, matrix product", mo.download(),
                   ref_exclusive_scan_by_key<mat2i>(h_k, h_m, init, eq, mat2_mul{}));
      mo.upload(h_m);
      algo::inclusive_scan_by_key(policy, k.begin(), k.end(), mo.begin(), mo.begin(), eq, mat2_mul{});
      expect_equal("inclusive_scan_by_key in place, matrix product", mo.download(),
                   ref_inclusive_scan_by_key<mat2i>(h_k, h_m, eq, mat2_mul{}));
      mo.upload(h_m);
      algo::segmented_exclusive_scan(policy, mo.begin(), o.begin(), o.end(), mo.begin(), init, mat2_mul{});
      expect_equal("segmented_exclusive_scan in place, matrix product", mo.download(),
                   ref_segmented_exclusive_scan<mat2i>(h_m, l.offsets, init, mat2_mul{}, h_m));
      io.upload(h_v);
      algo::segmented_inclusive_scan(policy, io.begin(), o.begin(), o.end(), io.begin());
      expect_equal("segmented_inclusive_scan in place", io.download(),
                   ref_segmented_inclusive_scan<std::int32_t>(h_v, l.offsets, algo::plus<>{}, h_v));
      // the output is the keys (Thrust allows first1 == result): the heads read keys i - 1 and i + 1
      io.upload(h_v);
      algo::inclusive_scan_by_key(policy, k.begin(), k.end(), io.begin(), k.begin());
      expect_equal("inclusive_scan_by_key into the keys", k.download(),
                   ref_inclusive_scan_by_key<std::int32_t>(h_k, h_v, eq, algo::plus<>{}));
      k.upload(h_k);
      algo::exclusive_scan_by_key(policy, k.begin(), k.end(), io.begin(), k.begin(), 17);
      expect_equal("exclusive_scan_by_key into the keys", k.download(),
                   ref_exclusive_scan_by_key<std::int32_t>(h_k, h_v, 17, eq, algo::plus<>{}));
      k.upload(h_k);
      require_device_ok("end of check_in_place");
    }
  }
}

// ==== bad input ==========================================================================================
template <class Policy>
void check_bad_input(const Policy& policy) {
  INFO("policy " << policy_name<Policy>());
  const std::int64_t n = 1000;
  const auto h_v = random_vector<std::int32_t>(static_cast<std::size_t>(n), 980);
  const auto h_k = by_key_keys(random_layout(n, 30, 981), 982);
  device_buffer<std::int32_t> v(h_v), k(h_k), out(static_cast<std::size_t>(n)), ko(static_cast<std::size_t>(n));
  {
    INFO("decreasing offsets (device memory): nothing written");
    device_buffer<std::int64_t> bad(std::vector<std::int64_t>{0, 10, 400, 300, 600, 1000});
    device_buffer<std::int32_t> bad32(std::vector<std::int32_t>{0, 500, 500, 499, 1000});
    require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, v.begin(), bad.begin(), bad.end(), out.begin(), 0); });
    require_error("segmented_reduce",
                  [&] { algo::segmented_reduce(policy, v.begin(), bad32.begin(), bad32.end(), out.begin(), 0, take_right{}); });
    require_error("segmented_inclusive_scan",
                  [&] { algo::segmented_inclusive_scan(policy, v.begin(), bad.begin(), bad.end(), out.begin()); });
    require_error("segmented_inclusive_scan", [&] {
      algo::segmented_inclusive_scan(policy, v.begin(), bad32.begin(), bad32.end(), out.begin(), algo::plus<>{}, 1);
    });
    require_error("segmented_exclusive_scan",
                  [&] { algo::segmented_exclusive_scan(policy, v.begin(), bad.begin(), bad.end(), out.begin(), 0); });
    require_device_ok("after the decreasing offsets");
    CHECK(out.untouched());
  }
  {
    INFO("keys_last before keys_first: nothing written");
    require_error("inclusive_scan_by_key",
                  [&] { algo::inclusive_scan_by_key(policy, k.begin() + 60, k.begin() + 10, v.begin(), out.begin()); });
    require_error("exclusive_scan_by_key",
                  [&] { algo::exclusive_scan_by_key(policy, k.begin() + 60, k.begin() + 10, v.begin(), out.begin(), 0); });
    require_error("reduce_by_key", [&] {
      algo::reduce_by_key(policy, k.begin() + 60, k.begin() + 10, v.begin(), ko.begin(), out.begin());
    });
    device_buffer<long long> c(1);
    require_error("reduce_by_key_into", [&] {
      algo::reduce_by_key_into(policy, k.begin() + 60, k.begin() + 10, v.begin(), ko.begin(), out.begin(), c.begin());
    });
    CHECK(c.untouched());
    require_device_ok("after keys_last < keys_first");
    CHECK(out.untouched());
    CHECK(ko.untouched());
  }
  {
    INFO("an output partly overlapping an input (raw device pointers, device_vector iterators)");
    device_buffer<std::int64_t> o(std::vector<std::int64_t>{0, 10, 10, 500, 990});
    require_error("inclusive_scan_by_key", [&] { algo::inclusive_scan_by_key(policy, k.begin(), k.end() - 1, v.begin(), v.begin() + 1); });
    require_error("exclusive_scan_by_key",
                  [&] { algo::exclusive_scan_by_key(policy, k.begin(), k.end() - 2, v.begin() + 2, v.begin(), 0); });
    require_error("inclusive_scan_by_key", [&] { algo::inclusive_scan_by_key(policy, k.begin(), k.end() - 3, v.begin(), k.begin() + 3); });
    require_error("reduce_by_key", [&] { algo::reduce_by_key(policy, k.begin(), k.end() - 1, v.begin(), ko.begin(), v.begin() + 1); });
    require_error("reduce_by_key_into", [&] {
      algo::reduce_by_key_into(policy, k.begin(), k.end() - 1, v.begin(), ko.begin(), v.begin() + 1, o.begin());
    });
    require_error("segmented_inclusive_scan", [&] { algo::segmented_inclusive_scan(policy, v.begin(), o.begin(), o.end(), v.begin() + 1); });
    require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, v.begin(), o.begin(), o.end(), v.begin() + 20, 0); });
    thrust::device_vector<std::int32_t> dv(h_v.begin(), h_v.end()), dk(h_k.begin(), h_k.end());
    require_error("inclusive_scan_by_key", [&] { algo::inclusive_scan_by_key(policy, dk.begin(), dk.end() - 1, dv.begin(), dv.begin() + 1); });
    require_device_ok("after the overlaps");
    CHECK(v.download() == h_v);
    CHECK(k.download() == h_k);
    CHECK(ko.untouched());
  }
  require_device_ok("end of check_bad_input");
}

// ==== reduce_by_key_into under CUDA graph capture =============================================================
/// reduce_by_key_into captured into a graph on a non-blocking stream (float values: the default
/// deterministic look-back on algo::cuda, int32 values with a custom equality: the lifted path on
/// algo::cub), replayed three times; each replay against the host reference, the float values
/// bitwise equal to an uncaptured call; reduce_by_key itself is refused inside the capture.
template <class Policy>
void check_reduce_by_key_graph(const Policy& policy) {
  INFO("policy " << policy_name<Policy>());
  const std::int64_t n = 5 * 8192 + 77;
  const auto un = static_cast<std::size_t>(n);
  const auto h_k = by_key_keys(random_layout(n, 13, 990), 991);
  const auto h_vf = random_vector<float>(un, 992);
  const auto h_vi = random_vector<std::int32_t>(un, 993);
  const algo::equal_to<> eq;
  const auto ref_f = ref_reduce_by_key<double>(h_k, h_vf, eq, algo::plus<>{});
  const equal_mod10 eq10{};
  const auto ref_i = ref_reduce_by_key<std::int32_t>(h_k, h_vi, eq10, algo::plus<>{});
  device_buffer<std::int32_t> k(h_k), ko(un), ko2(un), ki(un);
  device_buffer<float> vf(h_vf), vo(un), want(un);
  device_buffer<std::int32_t> vi(h_vi), vio(un);
  device_buffer<long long> c(2);
  // the uncaptured call, for the bitwise comparison
  algo::reduce_by_key_into(policy, k.begin(), k.end(), vf.begin(), ko2.begin(), want.begin(), c.begin());
  require_device_ok("uncaptured reduce_by_key_into");
  REQUIRE(c.download()[0] == static_cast<long long>(ref_f.first.size()));
  const auto want_v = prefix(want.download(), ref_f.first.size());
  test_stream s;
  auto p = policy.on(s.get());
  cudaGraph_t graph;
  REQUIRE(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  algo::reduce_by_key_into(p, k.begin(), k.end(), vf.begin(), ko.begin(), vo.begin(), c.begin());
  algo::reduce_by_key_into(p, k.begin(), k.end(), vi.begin(), ki.begin(), vio.begin(), c.begin() + 1, eq10);
  bool refused = false;
  try {
    algo::reduce_by_key(p, k.begin(), k.end(), vf.begin(), ko.begin(), vo.begin());
  } catch (const algo::error&) {
    refused = true;
  }
  REQUIRE(cudaStreamEndCapture(s.get(), &graph) == cudaSuccess);
  REQUIRE(refused);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  std::vector<double> rsc;
  {
    std::vector<std::int64_t> ro{0};
    for (std::size_t i = 1; i <= un; ++i)
      if (i == un || h_k[i] != h_k[i - 1]) ro.push_back(static_cast<std::int64_t>(i));
    rsc = segment_sums_scale(h_vf, ro);
  }
  for (int rep = 0; rep < 3; ++rep) {
    INFO("replay " << rep);
    c.fill_sentinel();
    vo.fill_sentinel();
    vio.fill_sentinel();
    REQUIRE(cudaGraphLaunch(exec, s.get()) == cudaSuccess);
    s.sync();
    const auto got_c = c.download();
    REQUIRE(got_c[0] == static_cast<long long>(ref_f.first.size()));
    REQUIRE(got_c[1] == static_cast<long long>(ref_i.first.size()));
    const auto got_v = prefix(vo.download(), ref_f.first.size());
    expect_equal("float keys vs host", prefix(ko.download(), ref_f.first.size()), ref_f.first);
    expect_equal("float values vs host", got_v, narrow_to<float>(ref_f.second), &rsc);
    CHECK(same_bits(got_v, want_v));
    expect_equal("int32 (keys mod 10) keys vs host", prefix(ki.download(), ref_i.first.size()), ref_i.first);
    expect_equal("int32 (keys mod 10) values vs host", prefix(vio.download(), ref_i.first.size()), ref_i.second);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  require_device_ok("end of check_reduce_by_key_graph");
}

// ==== past 2^31 elements ([large]) ==========================================================================
/// 1 where out[i] != (i % length) + 1.
struct run_position_mismatch {
  const std::uint8_t* out;
  std::int64_t length;
  ALGO_HD std::int64_t operator()(std::int64_t i) const {
    return out[i] != static_cast<std::uint8_t>(i % length + 1) ? 1 : 0;
  }
};

/// inclusive_scan_by_key over 2^31 + 2^20 + 3 elements: keys i / 100 (counting + transform),
/// values constant 1 (uint8), output 2 GiB of uint8: out[i] = (i % 100) + 1 everywhere (a run
/// straddles 2^31); counted on the device.
template <class Policy>
void check_large_scan_by_key(const Policy& policy) {
  const std::int64_t n = (std::int64_t(1) << 31) + (std::int64_t(1) << 20) + 3;
  const std::int64_t L = 100;
  INFO("policy " << policy_name<Policy>() << ", inclusive_scan_by_key over n = " << n);
  std::uint8_t* d = nullptr;
  require_cuda(cudaMalloc(&d, static_cast<std::size_t>(n)), "cudaMalloc 2 GiB");
  std::unique_ptr<std::uint8_t, decltype(&cudaFree)> guard(d, &cudaFree);
  require_cuda(cudaMemset(d, 0, static_cast<std::size_t>(n)), "cudaMemset");
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), key_of_index{L});
  auto ones = thrust::constant_iterator<std::uint8_t>(1);
  CHECK(algo::inclusive_scan_by_key(policy, keys, keys + n, ones, d) == d + n);
  require_device_ok("after the scan");
  const std::int64_t bad = thrust::transform_reduce(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                                                    thrust::counting_iterator<std::int64_t>(n),
                                                    run_position_mismatch{d, L}, std::int64_t(0), thrust::plus<std::int64_t>{});
  CHECK(bad == 0);
  std::uint8_t tail[4] = {};
  require_cuda(cudaMemcpy(tail, d + n - 4, 4, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  for (int j = 0; j < 4; ++j) CHECK(int(tail[j]) == int((n - 4 + j) % L + 1));
}

/// segmented_reduce over uniform_offsets(L, first) with S segments, for each {L, S, first}: float
/// against a double-precision host fold and bitwise equal when run again, mat2i (non-commutative)
/// against the host.
struct uniform_shape {
  std::int64_t L, S, first;
};
template <class Policy>
void check_uniform_shapes(const Policy& policy, const std::vector<uniform_shape>& shapes) {
  for (const uniform_shape& sh : shapes) {
    const std::int64_t n = sh.first + sh.L * sh.S + 3;
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::int64_t> h_o;
    for (std::int64_t k = 0; k <= sh.S; ++k) h_o.push_back(sh.first + k * sh.L);
    const auto o = algo::uniform_offsets(sh.L, sh.first);
    {
      INFO("policy " << policy_name<Policy>() << ", float, uniform_offsets(" << sh.L << ", " << sh.first << "), " << sh.S
                     << " segments");
      const auto h_x = random_vector<float>(un, static_cast<std::uint64_t>(sh.L + sh.first));
      const float init = 0.25f;
      device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o, o + (sh.S + 1), red.begin(), init);
      const auto got = red.download();
      const auto rsc = segment_sums_scale(h_x, h_o, 0.25);
      expect_equal("vs host", got, narrow_to<float>(ref_segmented_reduce<double>(h_x, h_o, 0.25, algo::plus<>{})), &rsc);
      CHECK(red.guard_intact());
      red.fill_sentinel();
      algo::segmented_reduce(policy, x.begin(), o, o + (sh.S + 1), red.begin(), init);
      CHECK(same_bits(red.download(), got));
    }
    {
      INFO("policy " << policy_name<Policy>() << ", mat2i (non-commutative), uniform_offsets(" << sh.L << ", " << sh.first
                     << "), " << sh.S << " segments");
      const auto h_x = random_vector<mat2i>(un, static_cast<std::uint64_t>(sh.L * 3 + sh.first));
      const mat2i init = random_scalar<mat2i>(5);
      device_buffer<mat2i> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o, o + (sh.S + 1), red.begin(), init, mat2_mul{});
      expect_equal("vs host", red.download(), ref_segmented_reduce<mat2i>(h_x, h_o, init, mat2_mul{}));
      CHECK(red.guard_intact());
    }
  }
}

/// segmented_reduce over uniform_offsets(L) with long segments (L >= 4096: algo::cuda's
/// block-per-segment path): 16-byte loads (L a multiple of 4, start aligned or not), element loads
/// (L odd), one block per segment and segments split over blocks (L ~ 2^20), float bitwise
/// reproducible, mat2i (non-commutative), and more than 65535 segments of a counting iterator.
template <class Policy>
void check_long_uniform(const Policy& policy) {
  check_uniform_shapes(policy, {{4096, 37, 0}, {4096, 37, 1}, {5001, 20, 3}, {8192, 3, 2}, {4096, 300, 1}, {2500, 400, 0},
                                {(std::int64_t(1) << 20) + 4, 3, 0}, {(std::int64_t(1) << 20) + 3, 2, 1}});
  {
    auto series = [](std::int64_t a, std::int64_t b) { return (a + b - 1) * (b - a) / 2; };  // a + ... + (b - 1)
    const std::int64_t L = 4096, S = 70000;
    INFO("policy " << policy_name<Policy>() << ", counting iterator, uniform_offsets(4096), 70000 segments");
    const auto o = algo::uniform_offsets(L);
    device_buffer<std::int64_t> out(static_cast<std::size_t>(S));
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o, o + (S + 1), out.begin(), std::int64_t(3));
    std::vector<std::int64_t> want;
    for (std::int64_t k = 0; k < S; ++k) want.push_back(3 + series(k * L, (k + 1) * L));
    expect_equal("vs closed form", out.download(), want);
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o, o + (S + 1), out.begin(), std::int64_t(-1),
                           take_right{});
    for (std::int64_t k = 0; k < S; ++k) want[static_cast<std::size_t>(k)] = (k + 1) * L - 1;
    expect_equal("(a, b) -> b: each segment's last element", out.download(), want);
  }
  require_device_ok("end of check_long_uniform");
}

/// (a, b) -> a: associative, not commutative; a fold keeps its first operand.
struct keep_first {
  template <class T>
  ALGO_HD T operator()(const T& a, const T&) const { return a; }
};

/// algo::cuda's group-of-lanes kernel (reduce_groups.cuh) folds a segment in a shape fixed by L and
/// the alignment: a lane folds its VI elements in order (VI = 4 on the 16-byte path: floats, L a
/// multiple of 4, segments on 16-byte boundaries; else 1), a group of G lanes (the fewest, a power
/// of two up to 32, whose row of G * VI elements covers the segment) folds its lanes pairwise (lane
/// i with lane i + d, d = 1, 2, 4, ..., lanes past the end holding nothing), and the rows are folded
/// in order, then init op that. This is that fold on the host, for float plus.
inline std::vector<float> groups_fold_emulated(const std::vector<float>& x, std::int64_t L, std::int64_t S, float init,
                                               int vi) {
  const std::int64_t lanes = (L + vi - 1) / vi;
  std::int64_t group = 1;
  while (group < 32 && group < lanes) group *= 2;
  const std::int64_t row = group * vi;
  std::vector<float> out(static_cast<std::size_t>(S));
  std::vector<float> v(static_cast<std::size_t>(group));
  std::vector<char> has(static_cast<std::size_t>(group));
  for (std::int64_t k = 0; k < S; ++k) {
    float acc = 0;
    for (std::int64_t r = 0; r < L; r += row) {
      for (std::int64_t l = 0; l < group; ++l) {
        const std::int64_t i0 = r + l * vi;
        has[static_cast<std::size_t>(l)] = i0 < L;
        if (i0 < L) {
          float a = x[static_cast<std::size_t>(k * L + i0)];
          for (std::int64_t j = 1; j < vi; ++j) a = a + x[static_cast<std::size_t>(k * L + i0 + j)];
          v[static_cast<std::size_t>(l)] = a;
        }
      }
      for (std::int64_t d = 1; d < group; d *= 2)
        for (std::int64_t l = 0; l + d < group; l += 2 * d)
          if (has[static_cast<std::size_t>(l)] && has[static_cast<std::size_t>(l + d)])
            v[static_cast<std::size_t>(l)] = v[static_cast<std::size_t>(l)] + v[static_cast<std::size_t>(l + d)];
      acc = r == 0 ? v[0] : acc + v[0];
    }
    out[static_cast<std::size_t>(k)] = init + acc;
  }
  return out;
}

/// algo::cuda's group-of-lanes segmented_reduce, bit for bit against groups_fold_emulated: float
/// segments of every group size, full and part-filled last rows, one row and many (whole rows of 32
/// lanes take the four-rows kernel: 1, 2, 3, 4, 5, 8, 9, 12, 15 rows a segment, units of segments
/// cut short at the end), segment counts that leave a warp's last sets part empty, and (not
/// ALGO_TEST_SMALL) more segments than the looping kernel's grid holds at once; int32 sums through
/// the same kernels against the host.
inline void check_groups_fold_bits() {
  const auto o_of = [](std::int64_t L) { return algo::uniform_offsets(L); };
  struct shape {
    std::int64_t L, S;
  };
  std::vector<shape> shapes = {{4, 4097},  {8, 999},   {12, 50},   {36, 777},  {100, 90},  {128, 31},  {256, 1025},
                               {260, 33},  {1028, 40}, {2044, 13}, {1, 1000},  {3, 77},    {7, 2000},  {33, 40},
                               {255, 20},  {1500, 30}, {2047, 11}, {1024, 70}, {1152, 41}, {1536, 50},
                               {384, 55},  {640, 33},  {1920, 9},  {512, 4},   {128, 1}};
  if (!small_run()) {
    shapes.push_back({4, 3000001});
    shapes.push_back({256, 300001});
    shapes.push_back({1028, 70001});
    shapes.push_back({33, 500001});
    shapes.push_back({512, 100003});
  }
  for (const shape& sh : shapes) {
    INFO("float plus, uniform_offsets(" << sh.L << "), " << sh.S << " segments: the group-of-lanes fold, bit for bit");
    const auto h_x = random_vector<float>(static_cast<std::size_t>(sh.L * sh.S), static_cast<std::uint64_t>(sh.L * 7 + 1));
    const auto o = algo::uniform_offsets(sh.L);
    device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S));
    algo::segmented_reduce(algo::cuda, x.begin(), o, o + (sh.S + 1), red.begin(), 0.5f);
    CHECK(same_bits(red.download(), groups_fold_emulated(h_x, sh.L, sh.S, 0.5f, sh.L % 4 == 0 ? 4 : 1)));
    CHECK(red.guard_intact());
  }
  // int32 values (the rows kernel's other 4-byte accumulator) against a plain host sum
  for (const shape& sh : std::vector<shape>{{128, 37}, {256, 1025}, {1536, 50}, {384, 9}, {260, 33}}) {
    INFO("int32 plus, uniform_offsets(" << sh.L << "), " << sh.S << " segments");
    std::vector<std::int32_t> h_x(static_cast<std::size_t>(sh.L * sh.S));
    std::uint64_t z = static_cast<std::uint64_t>(sh.L) * 977 + 3;
    for (auto& e : h_x) {
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      e = static_cast<std::int32_t>((z >> 33) % 2001) - 1000;
    }
    device_buffer<std::int32_t> x(h_x), red(static_cast<std::size_t>(sh.S));
    algo::segmented_reduce(algo::cuda, x.begin(), o_of(sh.L), o_of(sh.L) + (sh.S + 1), red.begin(), std::int32_t(7));
    std::vector<std::int32_t> want(static_cast<std::size_t>(sh.S), 7);
    for (std::int64_t i = 0; i < sh.L * sh.S; ++i) want[static_cast<std::size_t>(i / sh.L)] += h_x[static_cast<std::size_t>(i)];
    expect_equal("vs host", red.download(), want);
    CHECK(red.guard_intact());
  }
  require_device_ok("end of check_groups_fold_bits");
}

/// segmented_reduce over offsets in memory whose segments all have one length L < 2048 (algo::cuda:
/// the check finds it, and the call runs uniform_offsets' group-of-lanes kernels, which read no
/// offsets): float bit for bit against the same call over uniform_offsets(L, first) and near a
/// double host fold, offsets starting past 0 (unaligned and aligned starts), mat2i
/// (non-commutative) against the host, a Thrust transform iterator (bit for bit against the same
/// over uniform_offsets, near the host); and offsets one element off uniform (one
/// segment shorter, the next longer: the count times the longest is not the element count), which
/// take the general kernel, against the host.
struct negate_float {
  ALGO_HD float operator()(float x) const { return -x; }
};
template <class Policy>
void check_uniform_in_memory(const Policy& policy) {
  struct shape {
    std::int64_t L, S, first;
  };
  std::vector<shape> shapes = {{1, 1000, 0}, {4, 4097, 0}, {4, 300, 3},   {32, 4100, 0}, {33, 40, 1},
                               {256, 1025, 0}, {256, 77, 4}, {1000, 45, 0}, {1536, 20, 0}, {2047, 11, 2}};
  if (!small_run()) shapes.push_back({4, 3000000, 0});
  for (const shape& sh : shapes) {
    const std::int64_t n = sh.first + sh.L * sh.S + 3;
    std::vector<std::int64_t> h_o;
    for (std::int64_t k = 0; k <= sh.S; ++k) h_o.push_back(sh.first + k * sh.L);
    const std::vector<int> h_o32(h_o.begin(), h_o.end());
    device_buffer<int> o(h_o32);
    {
      INFO("policy " << policy_name<Policy>() << ", float, offsets in memory, " << sh.S << " segments of " << sh.L
                     << " from " << sh.first);
      const auto h_x = random_vector<float>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(sh.L + 5 * sh.first));
      device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S)), red_u(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), 0.25f);
      const auto uo = algo::uniform_offsets(sh.L, sh.first);
      algo::segmented_reduce(policy, x.begin(), uo, uo + (sh.S + 1), red_u.begin(), 0.25f);
      const auto got = red.download();
      CHECK(same_bits(got, red_u.download()));
      const auto rsc = segment_sums_scale(h_x, h_o, 0.25);
      expect_equal("vs host", got, narrow_to<float>(ref_segmented_reduce<double>(h_x, h_o, 0.25, algo::plus<>{})), &rsc);
      CHECK(red.guard_intact());
      // through a Thrust transform iterator (element loads: another fold shape than the pointer's
      // 16-byte one, so its bits are compared with the same input over uniform_offsets)
      const auto tx = thrust::make_transform_iterator(x.begin(), negate_float{});
      algo::segmented_reduce(policy, tx, o.begin(), o.end(), red.begin(), -0.25f);
      algo::segmented_reduce(policy, tx, uo, uo + (sh.S + 1), red_u.begin(), -0.25f);
      const auto neg = red.download();
      CHECK(same_bits(neg, red_u.download()));
      std::vector<float> h_neg(h_x.size());
      for (std::size_t i = 0; i < h_x.size(); ++i) h_neg[i] = -h_x[i];
      expect_equal("negated, vs host", neg, narrow_to<float>(ref_segmented_reduce<double>(h_neg, h_o, -0.25, algo::plus<>{})),
                   &rsc);
    }
    if (sh.S <= 5000) {
      INFO("policy " << policy_name<Policy>() << ", mat2i (non-commutative), offsets in memory, " << sh.S
                     << " segments of " << sh.L << " from " << sh.first);
      const auto h_x = random_vector<mat2i>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(sh.L * 3 + sh.first));
      const mat2i init = random_scalar<mat2i>(9);
      device_buffer<mat2i> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init, mat2_mul{});
      expect_equal("vs host", red.download(), ref_segmented_reduce<mat2i>(h_x, h_o, init, mat2_mul{}));
      CHECK(red.guard_intact());
    }
    if (sh.S >= 3 && sh.L >= 2) {
      // one element moved from segment 1 to segment 2: no longer of one length
      std::vector<std::int64_t> h_b = h_o;
      h_b[2] -= 1;
      const std::vector<int> h_b32(h_b.begin(), h_b.end());
      device_buffer<int> ob(h_b32);
      INFO("policy " << policy_name<Policy>() << ", float, offsets in memory one element off uniform, " << sh.S
                     << " segments of about " << sh.L);
      const auto h_x = random_vector<float>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(sh.L + 11));
      device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), ob.begin(), ob.end(), red.begin(), 0.25f);
      const auto rsc = segment_sums_scale(h_x, h_b, 0.25);
      expect_equal("vs host", red.download(), narrow_to<float>(ref_segmented_reduce<double>(h_x, h_b, 0.25, algo::plus<>{})),
                   &rsc);
      CHECK(red.guard_intact());
    }
  }
  require_device_ok("end of check_uniform_in_memory");
}

/// segmented_reduce over uniform_offsets(L) with short and middling segments (1 <= L < 2048:
/// algo::cuda's group-of-lanes path): every group size (L from 1 to 2047, rows of one and of several
/// loads a lane, rows that end part way), 16-byte loads (L a multiple of 4, start aligned) and
/// element loads (start unaligned, L odd), segment counts that leave a warp's last groups or a
/// block's last warps without a segment, more segments than the grid holds at once; an int64
/// counting iterator (closed form) with (a, b) -> b.
template <class Policy>
void check_short_uniform(const Policy& policy) {
  std::vector<uniform_shape> shapes = {{1, 1000, 0},  {2, 333, 1},  {3, 77, 0},    {4, 4097, 0},  {4, 100, 1},
                                       {5, 61, 2},    {8, 999, 0},  {12, 50, 4},   {31, 33, 0},   {32, 4100, 0},
                                       {32, 7, 3},    {33, 40, 0},  {64, 257, 0},  {100, 90, 4},  {128, 31, 0},
                                       {255, 20, 1},  {256, 1025, 0}, {256, 3, 2}, {512, 17, 0},  {1000, 45, 0},
                                       {1024, 9, 4},  {2047, 11, 0}, {2044, 13, 0}};
  if (!small_run()) {
    shapes.push_back({4, 3000000, 0});  // more segments than the grid holds: the grid-stride loop
    shapes.push_back({256, 300000, 0});
  }
  check_uniform_shapes(policy, shapes);
  // operand order on the 16-byte path (aligned floats, L a multiple of 4): (a, b) -> b gives each
  // segment's last element, (a, b) -> a the init
  for (const std::int64_t L : {std::int64_t(4), std::int64_t(8), std::int64_t(36), std::int64_t(256), std::int64_t(1028)}) {
    const std::int64_t S = 777;
    INFO("policy " << policy_name<Policy>() << ", float, (a, b) -> b and (a, b) -> a, uniform_offsets(" << L << ")");
    const auto h_x = random_vector<float>(static_cast<std::size_t>(L * S), static_cast<std::uint64_t>(L + 17));
    const auto o = algo::uniform_offsets(L);
    device_buffer<float> x(h_x), red(static_cast<std::size_t>(S));
    algo::segmented_reduce(policy, x.begin(), o, o + (S + 1), red.begin(), -1.0f, take_right{});
    std::vector<float> want;
    for (std::int64_t k = 0; k < S; ++k) want.push_back(h_x[static_cast<std::size_t>((k + 1) * L - 1)]);
    CHECK(same_bits(red.download(), want));
    algo::segmented_reduce(policy, x.begin(), o, o + (S + 1), red.begin(), -1.0f, keep_first{});
    CHECK(same_bits(red.download(), std::vector<float>(static_cast<std::size_t>(S), -1.0f)));
  }
  for (const std::int64_t L : {std::int64_t(1), std::int64_t(7), std::int64_t(32), std::int64_t(1500)}) {
    const std::int64_t S = 2000;
    INFO("policy " << policy_name<Policy>() << ", counting iterator, uniform_offsets(" << L << "), " << S << " segments");
    const auto o = algo::uniform_offsets(L);
    device_buffer<std::int64_t> out(static_cast<std::size_t>(S));
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o, o + (S + 1), out.begin(), std::int64_t(3));
    std::vector<std::int64_t> want;
    for (std::int64_t k = 0; k < S; ++k) want.push_back(3 + (k * L + (k + 1) * L - 1) * L / 2);
    expect_equal("vs closed form", out.download(), want);
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o, o + (S + 1), out.begin(), std::int64_t(-1),
                           take_right{});
    for (std::int64_t k = 0; k < S; ++k) want[static_cast<std::size_t>(k)] = (k + 1) * L - 1;
    expect_equal("(a, b) -> b: each segment's last element", out.download(), want);
  }
  require_device_ok("end of check_short_uniform");
}

/// segmented_reduce with offsets in memory whose segments are all long (algo::cuda's block per
/// segment, chosen from the offsets check): random lengths of 2048-8191 (a few empty segments among
/// them), a misaligned start, float (bit for bit run to run) and mat2i (non-commutative) against the
/// host; fewer segments than SMs (40; 12 of 16 times that length), which algo::cuda splits over
/// several blocks each (reduce_long.cuh: segments of one block and of many, their partials folded in
/// order); then lengths those paths must leave to the merge path (one segment over four times the
/// mean), which must be as right.
template <class Policy>
void check_long_in_memory(const Policy& policy) {
  struct shape {
    std::int64_t S, first;
    bool skewed;
    std::int64_t scale = 1;  // lengths scale x (2048-8191)
  };
  const std::vector<shape> shapes = {{300, 0, false}, {1000, 5, false}, {300, 3, true},
                                     {40, 1, false},  {12, 2, false, 16}, {40, 6, true}};
  for (const shape& sh : shapes) {
    std::vector<std::int64_t> h_o{sh.first};
    std::uint64_t state = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(sh.S * 31 + sh.first);
    for (std::int64_t k = 0; k < sh.S; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      std::int64_t len = sh.scale * (2048 + static_cast<std::int64_t>((state >> 33) % 6144));
      if (k % 97 == 13) len = 0;
      if (sh.skewed && k == sh.S / 2) len = 200000;
      h_o.push_back(h_o.back() + len);
    }
    const std::int64_t n = h_o.back() + 7;
    const auto un = static_cast<std::size_t>(n);
    device_buffer<std::int64_t> o(h_o);
    {
      INFO("policy " << policy_name<Policy>() << ", float, offsets in memory, " << sh.S << " segments of 2048-8191 x "
                     << sh.scale << (sh.skewed ? " and one of 200000" : "") << ", from " << sh.first);
      const auto h_x = random_vector<float>(un, static_cast<std::uint64_t>(sh.S + 17 * sh.first));
      const float init = 0.5f;
      device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init);
      const auto got = red.download();
      const auto rsc = segment_sums_scale(h_x, h_o, 0.5);
      expect_equal("vs host", got, narrow_to<float>(ref_segmented_reduce<double>(h_x, h_o, 0.5, algo::plus<>{})), &rsc);
      CHECK(red.guard_intact());
      red.fill_sentinel();
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init);
      CHECK(same_bits(red.download(), got));
    }
    {
      INFO("policy " << policy_name<Policy>() << ", mat2i (non-commutative), offsets in memory, " << sh.S
                     << " segments" << (sh.skewed ? ", one of 200000" : "") << ", from " << sh.first);
      const auto h_x = random_vector<mat2i>(un, static_cast<std::uint64_t>(sh.S * 3 + sh.first));
      const mat2i init = random_scalar<mat2i>(9);
      device_buffer<mat2i> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), init, mat2_mul{});
      expect_equal("vs host", red.download(), ref_segmented_reduce<mat2i>(h_x, h_o, init, mat2_mul{}));
      CHECK(red.guard_intact());
    }
    {
      INFO("policy " << policy_name<Policy>() << ", int32 through a transform iterator, offsets in memory, " << sh.S
                     << " segments");
      const auto h_x = random_vector<std::int32_t>(un, static_cast<std::uint64_t>(sh.S * 5 + sh.first));
      device_buffer<std::int32_t> x(h_x), red(static_cast<std::size_t>(sh.S));
      algo::segmented_reduce(policy, thrust::make_transform_iterator(x.begin(), flip{}), o.begin(), o.end(), red.begin(),
                             std::int32_t(-3));
      std::vector<std::int32_t> fx(h_x.size());
      for (std::size_t i = 0; i < h_x.size(); ++i) fx[i] = flip{}(h_x[i]);
      expect_equal("vs host", red.download(), ref_segmented_reduce<std::int32_t>(fx, h_o, std::int32_t(-3), algo::plus<>{}));
    }
    if (!sh.skewed && sh.S >= 300) {
      // algo::cuda queues the block-per-segment kernel before the host has the offsets' verdict:
      // bad offsets, and an output inside the input, must still raise before anything is written
      INFO("policy " << policy_name<Policy>() << ", long segments in memory: bad input raises, nothing written");
      const auto h_x = random_vector<float>(un, 77);
      device_buffer<float> x(h_x), red(static_cast<std::size_t>(sh.S));
      std::vector<std::int64_t> h_bad = h_o;
      std::swap(h_bad[static_cast<std::size_t>(sh.S / 2)], h_bad[static_cast<std::size_t>(sh.S / 2 + 1)]);
      device_buffer<std::int64_t> bad(h_bad);
      bool threw = false;
      try {
        algo::segmented_reduce(policy, x.begin(), bad.begin(), bad.end(), red.begin(), 0.0f);
      } catch (const algo::error& e) {
        threw = std::string(e.what()).find("offsets decrease") != std::string::npos;
      }
      CHECK(threw);
      CHECK(red.untouched());
      threw = false;
      try {
        algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), x.begin() + 1000, 0.0f);
      } catch (const algo::error& e) {
        threw = std::string(e.what()).find("the output overlaps the input") != std::string::npos;
      }
      CHECK(threw);
      CHECK(x.download() == h_x);
    }
  }
  require_device_ok("end of check_long_in_memory");
}

/// The segmented scans over offsets in memory (algo::cuda: the heads mask built after the check, a
/// block of 32768 elements at a time, or uniform heads when every segment has one length) and the
/// block-per-segment kernel's check in its own first phase: layouts around the warp chunks (512
/// elements), the tiles and the mask's blocks (32768 elements), runs of empty segments (longer
/// than the tiles' walk step of 128 offsets, the path before the mask) and at a mask block's start,
/// heads only near the end, offsets from 0 and 4 (16-byte aligned values: the vector load) and
/// from 1 (element loads; every head one element further into its mask word), int32 and int64
/// offsets; int32 values (exact) and float values holding small integers (exact, and the same bits
/// twice). Bad offsets that would send a speculative fold out of range (a huge offset, offsets[0] <
/// 0) raise before anything is written.
template <class Policy>
void check_offsets_in_memory(const Policy& policy) {
  std::vector<layout> layouts;
  {
    layout l{"heads at 512 k - 1, 512 k, 512 k + 1", {0}};
    const std::int64_t n = 4096 * 3 + 100;
    for (std::int64_t c = 512; c < n; c += 512)
      for (std::int64_t d : {-1, 0, 1})
        if (c + d > l.offsets.back() && c + d < n) l.offsets.push_back(c + d);
    l.offsets.push_back(n);
    layouts.push_back(l);
  }
  {
    layout l{"300 empty segments at 700, 200 at 4095, 200 at the end", {0, 700}};
    for (int i = 0; i < 300; ++i) l.offsets.push_back(700);
    l.offsets.push_back(701);
    for (int i = 0; i < 200; ++i) l.offsets.push_back(4095);
    l.offsets.push_back(5000);
    l.offsets.push_back(9000);
    for (int i = 0; i < 200; ++i) l.offsets.push_back(9000);
    layouts.push_back(l);
  }
  {
    layout l{"heads at 32768 k - 1, 32768 k, 32768 k + 1", {0}};
    const std::int64_t n = 32768 * 3 + 100;
    for (std::int64_t c = 32768; c < n; c += 32768)
      for (std::int64_t d : {-1, 0, 1}) l.offsets.push_back(c + d);
    l.offsets.push_back(n);
    layouts.push_back(l);
  }
  {
    layout l{"1000 empty segments at 32768, then one over two mask blocks, then 1-element ones", {0, 5, 32768}};
    for (int i = 0; i < 1000; ++i) l.offsets.push_back(32768);
    l.offsets.push_back(32768 * 3 + 7);
    for (int i = 0; i < 3000; ++i) l.offsets.push_back(l.offsets.back() + 1);
    layouts.push_back(l);
  }
  layouts.push_back(layout{"one segment of 100000", {0, 100000}});
  {
    layout l{"heads only in the last chunk", {0, 20000 - 300, 20000 - 5, 20000 - 1, 20000}};
    layouts.push_back(l);
  }
  {
    // far from evenly spread (algo::cuda's tiles search for each chunk's segment; evenly spread
    // ones, such as the layout of 512 k - 1 .. 512 k + 1 above or all ones below, start the walk at
    // the place even offsets put it): the even estimate is far too high in one, too low in the other
    layout big_first{"a giant segment, then 5000 of 1-3 elements", {0, 90001}};
    layout big_last{"5000 segments of 1-3 elements, then a giant one", {0}};
    for (int i = 0; i < 5000; ++i) {
      big_first.offsets.push_back(big_first.offsets.back() + 1 + i % 3);
      big_last.offsets.push_back(big_last.offsets.back() + 1 + (i * 7) % 3);
    }
    big_last.offsets.push_back(big_last.offsets.back() + 90001);
    layouts.push_back(big_first);
    layouts.push_back(big_last);
  }
  layouts.push_back(ones_layout(5000));
  for (const std::int64_t L : {std::int64_t(4), std::int64_t(37), std::int64_t(4096)}) {
    // every segment of one length: algo::cuda's check finds it and scans as with uniform_offsets
    layout l{"segments of exactly " + std::to_string(L), {0}};
    const std::int64_t S = L == 4096 ? 40 : 40000 / L + 3;
    for (std::int64_t k = 1; k <= S; ++k) l.offsets.push_back(k * L);
    layouts.push_back(l);
  }
  layouts.push_back(random_layout(small_run() ? 30000 : 300000, 20, 1201));
  layouts.push_back(random_layout(small_run() ? 30000 : 300000, 2000, 1202));
  for (const layout& l0 : layouts) {
    for (std::int64_t from : {std::int64_t(0), std::int64_t(4), std::int64_t(1)}) {
      std::vector<std::int64_t> h_o = l0.offsets;
      for (auto& v : h_o) v += from;
      const std::int64_t n = h_o.back() + 3;
      const auto un = static_cast<std::size_t>(n);
      INFO("policy " << policy_name<Policy>() << ", layout: " << l0.name << " (" << l0.segments() << " segments), from "
                     << from);
      std::vector<std::int32_t> h_x(un);
      std::uint64_t st = 77 + static_cast<std::uint64_t>(from);
      for (auto& v : h_x) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<std::int32_t>((st >> 40) % 8);
      }
      std::vector<float> h_f(h_x.begin(), h_x.end());
      device_buffer<std::int64_t> o(h_o);
      device_buffer<std::int32_t> o32(offsets_as<std::int32_t>(h_o));
      device_buffer<std::int32_t> x(h_x), out(un), red(static_cast<std::size_t>(l0.segments()));
      device_buffer<float> xf(h_f), outf(un);
      const std::vector<std::int32_t> base(un, sentinel_value<std::int32_t>());
      {
        INFO("segmented_inclusive_scan, int64 offsets");
        algo::segmented_inclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin());
        CHECK(out.download() == ref_segmented_inclusive_scan<std::int32_t>(h_x, h_o, algo::plus<>{}, base));
        CHECK(out.guard_intact());
      }
      {
        INFO("segmented_inclusive_scan with init 5, int32 offsets");
        out.fill_sentinel();
        algo::segmented_inclusive_scan(policy, x.begin(), o32.begin(), o32.end(), out.begin(), algo::plus<>{}, 5);
        CHECK(out.download() == ref_segmented_inclusive_scan<std::int32_t>(h_x, h_o, algo::plus<>{}, 5, base));
      }
      {
        INFO("segmented_exclusive_scan with init -2");
        out.fill_sentinel();
        algo::segmented_exclusive_scan(policy, x.begin(), o.begin(), o.end(), out.begin(), -2);
        CHECK(out.download() == ref_segmented_exclusive_scan<std::int32_t>(h_x, h_o, -2, algo::plus<>{}, base));
      }
      {
        INFO("segmented_reduce");
        algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), 1);
        CHECK(red.download() == ref_segmented_reduce<std::int32_t>(h_x, h_o, 1, algo::plus<>{}));
        CHECK(red.guard_intact());
      }
      {
        INFO("segmented_inclusive_scan, float (small integers: exact), twice");
        algo::segmented_inclusive_scan(policy, xf.begin(), o.begin(), o.end(), outf.begin());
        const auto got = outf.download();
        const std::vector<float> fbase(un, sentinel_value<float>());
        CHECK(same_bits(got, ref_segmented_inclusive_scan<float>(h_f, h_o, algo::plus<>{}, fbase)));
        outf.fill_sentinel();
        algo::segmented_inclusive_scan(policy, xf.begin(), o.begin(), o.end(), outf.begin());
        CHECK(same_bits(outf.download(), got));
      }
    }
  }
  // 400 segments: one block checks them all in algo::cuda's deferred kernel; 4500: three blocks do
  // (about 8 segments a thread), the last of them to finish publishes the verdict
  for (const std::int64_t S : small_run() ? std::vector<std::int64_t>{400} : std::vector<std::int64_t>{400, 4500}) {
    INFO("long segments in memory (" << S << "), bad offsets the kernel must not follow: raises, nothing written");
    std::vector<std::int64_t> h_o{0};
    for (std::int64_t k = 0; k < S; ++k) h_o.push_back(h_o.back() + 2048 + (k * 37) % 3000);
    const auto un = static_cast<std::size_t>(h_o.back());
    device_buffer<float> x(std::vector<float>(un, 1.0f)), red(static_cast<std::size_t>(S));
    {
      std::vector<std::int64_t> bad = h_o;
      bad[static_cast<std::size_t>(S / 3)] = std::int64_t(1) << 40;
      device_buffer<std::int64_t> d(bad);
      require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.0f); });
      require_error("segmented_inclusive_scan",
                    [&] { algo::segmented_inclusive_scan(policy, x.begin(), d.begin(), d.end(), x.begin()); });
    }
    {
      std::vector<std::int64_t> bad = h_o;
      bad[0] = -5;
      device_buffer<std::int64_t> d(bad);
      require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.0f); });
    }
    {
      std::vector<std::int64_t> bad = h_o;
      bad[301] = bad[300] - 1;  // segment 300 decreases (the second checking block's, at 4500 segments)
      device_buffer<std::int64_t> d(bad);
      require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.0f); });
    }
    {
      std::vector<std::int64_t> bad = h_o;
      bad[static_cast<std::size_t>(S - 1)] = bad[static_cast<std::size_t>(S)] + 1;  // the last segment decreases
      device_buffer<std::int64_t> d(bad);
      require_error("segmented_reduce", [&] { algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.0f); });
    }
    if constexpr (std::is_same<Policy, std::decay_t<decltype(algo::cuda)>>::value) {
      // offsets past the input's allocation: algo::cuda folds long segments before the offsets'
      // verdict, and must read nothing past the allocation then (a fault would end the context
      // where algo::error is owed): the tail of the offsets moved 2^34 elements on (monotone
      // there, each segment as long as before) with a decrease early on raises "offsets
      // decrease", nothing written, the device fine after. (Offsets monotone but past the input,
      // a range longer than its storage, fault as on every policy and in Thrust: not tested.)
      const auto message = [&](const std::vector<std::int64_t>& offsets) {
        device_buffer<std::int64_t> d(offsets);
        try {
          algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.0f);
        } catch (const algo::error& e) {
          return std::string(e.what());
        }
        return std::string("(no algo::error)");
      };
      std::vector<std::int64_t> far = h_o;
      for (std::size_t k = static_cast<std::size_t>(S / 2); k < far.size(); ++k) far[k] += std::int64_t(1) << 34;
      far[5] = far[4] - 1;
      const std::string m1 = message(far);
      INFO("message: " << m1);
      CHECK(m1.find("segmented_reduce") != std::string::npos);
      CHECK(m1.find("offsets decrease at segment 4") != std::string::npos);
    }
    require_device_ok("after the bad long offsets");
    CHECK(red.untouched());
    CHECK(x.download() == std::vector<float>(un, 1.0f));
    {
      INFO("the same offsets, good: every segment's sum, twice");
      device_buffer<std::int64_t> d(h_o);
      for (int rep = 0; rep < 2; ++rep) {
        red.fill_sentinel();
        algo::segmented_reduce(policy, x.begin(), d.begin(), d.end(), red.begin(), 0.5f);
        std::vector<float> want;
        for (std::int64_t k = 0; k < S; ++k) want.push_back(0.5f + static_cast<float>(h_o[k + 1] - h_o[k]));
        CHECK(red.download() == want);
      }
    }
  }
  require_device_ok("end of check_offsets_in_memory");
}

/// segmented_reduce's block per segment folds a segment as `reduce` folds the same elements: every
/// segment of at most a reduce block's worth (4096 floats, from any alignment), over offsets in
/// memory (the fused kernel: 600 segments of 2048-4000, some empty, from offset 0..3) and over
/// uniform_offsets(4096) (300 segments: a block a segment), float, bit for bit against
/// algo::reduce of each segment with the same init. The segments' folds differ in how many warps
/// have values (whole warps of a power of two, folded warp by warp with one barrier, or any other
/// count, by the block's tree), and both must build the reduce's tree.
template <class Policy>
void check_long_matches_reduce(const Policy& policy) {
  for (const std::int64_t first : {std::int64_t(0), std::int64_t(1), std::int64_t(3)}) {
    const std::int64_t S = 600;
    std::vector<std::int64_t> h_o{first};
    std::uint64_t state = 0x2545f4914f6cdd1dull + static_cast<std::uint64_t>(first);
    for (std::int64_t k = 0; k < S; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      std::int64_t len = 2048 + static_cast<std::int64_t>((state >> 33) % 1953);
      if (k % 7 == 0) len = 4000;  // 32 warp tiles (from offset 0)
      if (k % 7 == 1) len = 2048 - static_cast<std::int64_t>(h_o.back() % 4);  // 16 warp tiles from its alignment
      if (k % 101 == 50) len = 0;
      h_o.push_back(h_o.back() + len);
    }
    const std::int64_t n = h_o.back() + 5;
    INFO("policy " << policy_name<Policy>() << ", float, offsets in memory from " << first
                   << ", segments of 2048-4000: bit for bit as algo::reduce of each");
    const auto h_x = random_vector<float>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(91 + first));
    device_buffer<float> x(h_x), red(static_cast<std::size_t>(S));
    device_buffer<std::int64_t> o(h_o);
    algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), 0.75f);
    const auto got = red.download();
    std::vector<float> want;
    for (std::int64_t k = 0; k < S; ++k)
      want.push_back(algo::reduce(policy, x.begin() + h_o[k], x.begin() + h_o[k + 1], 0.75f));
    CHECK(same_bits(got, want));
  }
  {
    const std::int64_t L = 4096, S = 300;
    INFO("policy " << policy_name<Policy>() << ", float, uniform_offsets(4096): bit for bit as algo::reduce of each");
    const auto h_x = random_vector<float>(static_cast<std::size_t>(L * S), 5);
    device_buffer<float> x(h_x), red(static_cast<std::size_t>(S));
    const auto o = algo::uniform_offsets(L);
    algo::segmented_reduce(policy, x.begin(), o, o + (S + 1), red.begin(), -0.5f);
    std::vector<float> want;
    for (std::int64_t k = 0; k < S; ++k) want.push_back(algo::reduce(policy, x.begin() + k * L, x.begin() + (k + 1) * L, -0.5f));
    CHECK(same_bits(red.download(), want));
  }
  require_device_ok("end of check_long_matches_reduce");
}

/// segmented_reduce over long segments in memory, many more than the blocks resident at once
/// (algo::cuda's deferred kernel: the blocks that start before the offsets' verdict is out leave
/// their results, empty segments too, in a side buffer that a second kernel copies once the host
/// has the verdict; the later ones write directly; here both): int32 (exact) and float (bit for bit run to run) against the host,
/// empty segments among them, from offset 3; then offsets that decrease, or reach past the end,
/// late in some block's segments (beyond its first 32), mid-way and among its first: raise,
/// nothing written.
template <class Policy>
void check_long_many_per_block(const Policy& policy) {
  const std::int64_t S = small_run() ? 900 : 40000;
  std::vector<std::int64_t> h_o{3};
  for (std::int64_t k = 0; k < S; ++k) h_o.push_back(h_o.back() + (k % 101 == 7 ? 0 : 2048 + (k * 37) % 400));
  const auto un = static_cast<std::size_t>(h_o.back() + 5);
  device_buffer<std::int64_t> o(h_o);
  {
    INFO("policy " << policy_name<Policy>() << ", int32, " << S << " segments of 2048-2447 in memory");
    const auto h_x = random_vector<std::int32_t>(un, 4242);
    device_buffer<std::int32_t> x(h_x), red(static_cast<std::size_t>(S));
    algo::segmented_reduce(policy, x.begin(), o.begin(), o.end(), red.begin(), std::int32_t(11));
    expect_equal("vs host", red.download(), ref_segmented_reduce<std::int32_t>(h_x, h_o, std::int32_t(11), algo::plus<>{}));
    CHECK(red.guard_intact());
  }
  const auto h_f = random_vector<float>(un, 4343);
  device_buffer<float> xf(h_f), redf(static_cast<std::size_t>(S));
  {
    INFO("policy " << policy_name<Policy>() << ", float, " << S << " segments of 2048-2447 in memory, twice");
    algo::segmented_reduce(policy, xf.begin(), o.begin(), o.end(), redf.begin(), 0.25f);
    const auto got = redf.download();
    const auto rsc = segment_sums_scale(h_f, h_o, 0.25);
    expect_equal("vs host", got, narrow_to<float>(ref_segmented_reduce<double>(h_f, h_o, 0.25, algo::plus<>{})), &rsc);
    redf.fill_sentinel();
    algo::segmented_reduce(policy, xf.begin(), o.begin(), o.end(), redf.begin(), 0.25f);
    CHECK(same_bits(redf.download(), got));
  }
  redf.fill_sentinel();
  for (const std::int64_t at : {S - 3, S / 2 + 1, std::int64_t(5)}) {
    for (int kind = 0; kind < 2; ++kind) {
      INFO("bad offsets at segment " << at << (kind == 0 ? ": a decrease" : ": past the end"));
      std::vector<std::int64_t> bad = h_o;
      if (kind == 0) bad[static_cast<std::size_t>(at + 1)] = bad[static_cast<std::size_t>(at)] - 1;
      else bad[static_cast<std::size_t>(at + 1)] = h_o.back() + 100000;
      device_buffer<std::int64_t> d(bad);
      require_error("segmented_reduce",
                    [&] { algo::segmented_reduce(policy, xf.begin(), d.begin(), d.end(), redf.begin(), 0.0f); });
    }
  }
  require_device_ok("after the bad offsets");
  CHECK(redf.untouched());
  require_device_ok("end of check_long_many_per_block");
}

/// segmented_reduce over more than 2^31 elements of a counting iterator: uniform segments of
/// 2^20 + 7 (2049 of them), and device offsets {0, 5, n} with a giant second segment.
template <class Policy>
void check_large_segmented_reduce(const Policy& policy) {
  auto series = [](std::int64_t a, std::int64_t b) { return (a + b - 1) * (b - a) / 2; };  // a + ... + (b - 1)
  {
    const std::int64_t L = (std::int64_t(1) << 20) + 7, S = 2049;
    INFO("policy " << policy_name<Policy>() << ", segmented_reduce over uniform_offsets(" << L << "), " << S << " segments, "
                   << L * S << " elements");
    const auto o = algo::uniform_offsets(L);
    device_buffer<std::int64_t> out(static_cast<std::size_t>(S));
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o, o + (S + 1), out.begin(), std::int64_t(0));
    const auto got = out.download();
    std::vector<std::int64_t> want;
    for (std::int64_t s = 0; s < S; ++s) want.push_back(series(s * L, (s + 1) * L));
    expect_equal("vs closed form", got, want);
  }
  {
    const std::int64_t n = (std::int64_t(1) << 31) + 1000;
    INFO("policy " << policy_name<Policy>() << ", segmented_reduce with a giant segment of " << n - 5 << " elements");
    device_buffer<std::int64_t> o(std::vector<std::int64_t>{0, 5, n}), out(2);
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o.begin(), o.end(), out.begin(), std::int64_t(7));
    expect_equal("vs closed form", out.download(), std::vector<std::int64_t>{7 + series(0, 5), 7 + series(5, n)});
    device_buffer<std::int64_t> out2(2);
    algo::segmented_reduce(policy, thrust::counting_iterator<std::int64_t>(0), o.begin(), o.end(), out2.begin(), std::int64_t(-1),
                           take_right{});
    expect_equal("(a, b) -> b: each segment's last element", out2.download(), std::vector<std::int64_t>{4, n - 1});
  }
  require_device_ok("end of check_large_segmented_reduce");
}

}  // namespace seg_test
