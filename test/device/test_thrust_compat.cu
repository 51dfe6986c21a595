// algo::cuda and algo::cub take what thrust:: takes:
//   - function objects whose operator() is not const (Thrust's examples write bbox_union,
//     estimate_pi, abs_diff that way) as reduce, scan and transform operators;
//   - Thrust's, libcu++'s and the standard function objects count as commutative
//     (algo::is_commutative) as algo's own do: algo::cub reduces with them through
//     cub::DeviceReduce, and hands a plus to CUB as its primitive ::cuda::std::plus;
//   - accumulator types where input, init and output types differ are Thrust's (thrust::device,
//     i.e. CUB's): the type op(init, x) returns, with Thrust's default operators;
//     exclusive_scan_by_key accumulates in init's type, as thrust::device (a port of Thrust's
//     TestExclusiveScanByKeyInPlace with 8-bit values).
// Kept small (nvcc is slow): each check is instantiated for the few types it tests.
#include <algo/algo.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include <cuda/functional>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "commutative_checks.hpp"
#include "device_checks.cuh"
#include "segmented_ref.hpp"

using namespace algo_test;

// ==== commutative function objects ==================================================================
ALGO_TEST_COMMUTATIVE_STD()
ALGO_TEST_COMMUTATIVE_CCCL()
ALGO_TEST_COMMUTATIVE_THRUST()

namespace {
/// algo::cub's reduce takes the same path (cub::DeviceReduce, not the order-preserving scan) with
/// Op on T as with algo's own operator Own.
template <class Op, class Own, class T>
inline constexpr bool same_cub_path = algo::detail::cub_backend::uses_device_reduce_v<Op, T> ==
                                          algo::detail::cub_backend::uses_device_reduce_v<Own, T> &&
                                      algo::detail::cub_backend::uses_device_reduce_v<Own, T>;
/// ... and hands Op to CUB as the same operator.
template <class Op, class Own, class T>
inline constexpr bool same_cub_operator =
    std::is_same<decltype(algo::detail::cub_backend::cub_operator<T>(std::declval<Op>())),
                 decltype(algo::detail::cub_backend::cub_operator<T>(std::declval<Own>()))>::value;
}  // namespace

static_assert(same_cub_path<thrust::plus<int>, algo::plus<int>, int> && same_cub_path<thrust::plus<>, algo::plus<>, float>);
static_assert(same_cub_path<std::plus<int>, algo::plus<int>, int> && same_cub_path<::cuda::std::plus<>, algo::plus<>, double>);
static_assert(same_cub_path<thrust::maximum<float>, algo::maximum<float>, float> &&
              same_cub_path<thrust::minimum<>, algo::minimum<>, std::int64_t>);
static_assert(same_cub_path<std::multiplies<>, algo::multiplies<>, double> &&
              same_cub_path<thrust::bit_xor<unsigned>, algo::bit_xor<unsigned>, unsigned>);
static_assert(same_cub_path<std::logical_and<>, algo::logical_and<>, bool> &&
              same_cub_path<::cuda::std::bit_or<int>, algo::bit_or<int>, int>);
static_assert(!algo::detail::cub_backend::uses_device_reduce_v<std::minus<int>, int> &&
              !algo::detail::cub_backend::uses_device_reduce_v<commutative::user_plus, int>);
static_assert(same_cub_operator<thrust::plus<int>, algo::plus<int>, int> && same_cub_operator<std::plus<>, algo::plus<>, float> &&
              same_cub_operator<::cuda::std::plus<double>, algo::plus<>, double>);
static_assert(std::is_same<decltype(algo::detail::cub_backend::cub_operator<int>(std::plus<int>{})), ::cuda::std::plus<int>>::value);

namespace {

// ==== non-const function objects ================================================================
const std::vector<std::int64_t> functor_sizes{0, 1, 33, 1025, 70001, (std::int64_t(1) << 20) + 3};

/// Reduce and/or scan operators on one policy (the strategies its type names).
template <bool Reduces, bool Scans, class Policy>
void check_mutable_reduce_scan_ops(const Policy& policy) {
  for (std::int64_t n : functor_sizes) {
    INFO("policy " << policy_name<Policy>() << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto hv = convert<std::int64_t>(random_vector<std::int32_t>(un, 191 + un));
    const auto hf = random_vector<affine_i>(un, 192 + un);
    const std::int64_t init = 12345;
    const affine_i id{1, 0};
    device_buffer<std::int64_t> v(hv), out(un);
    device_buffer<affine_i> f(hf), fout(un);
    compose_affine_i_mutable compose;
    counting_plus add;

    if constexpr (Reduces) {
      CHECK(algo::reduce(policy, v.begin(), v.end(), init, add) == ref_fold(hv, init, counting_plus{}));
      CHECK(algo::reduce(policy, f.begin(), f.end(), id, compose) == ref_fold(hf, id, compose));
      algo::reduce_into(policy, f.begin(), f.end(), fout.begin(), id, compose);
      require_device_ok("reduce_into");
      if (n > 0) CHECK(fout.download()[0] == ref_fold(hf, id, compose));
    }
    if constexpr (Scans) {
      algo::inclusive_scan(policy, v.begin(), v.end(), out.begin(), add);
      require_device_ok("inclusive_scan");
      CHECK(out.download() == ref_inclusive_scan<std::int64_t>(hv, counting_plus{}));
      algo::exclusive_scan(policy, v.begin(), v.end(), out.begin(), init, add);
      require_device_ok("exclusive_scan");
      CHECK(out.download() == ref_exclusive_scan<std::int64_t>(hv, init, counting_plus{}));
      algo::inclusive_scan(policy, f.begin(), f.end(), fout.begin(), compose, id);
      require_device_ok("inclusive_scan with init");
      CHECK(fout.download() == ref_inclusive_scan<affine_i>(hf, compose, id));
    }
  }
}

/// Transform operators (and non-const reduce operators next to them) on one policy.
template <class Policy>
void check_mutable_transform_ops(const Policy& policy) {
  for (std::int64_t n : functor_sizes) {
    INFO("policy " << policy_name<Policy>() << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto ha = random_vector<std::int32_t>(un, 193 + un);
    const auto hb = random_vector<std::int32_t>(un, 194 + un);
    std::vector<std::int32_t> hp(un);
    for (std::size_t i = 0; i < un; ++i) hp[i] = static_cast<std::int32_t>((static_cast<std::uint32_t>(ha[i]) >> 1) % 1000000);
    device_buffer<std::int32_t> a(ha), b(hb), pts(hp);

    const box empty{1 << 30, 1 << 30, -(1 << 30), -(1 << 30)};
    box want_box = empty;
    for (std::int32_t p : hp) want_box = box_union{}(want_box, point_box{}(p));
    std::int64_t want_hits = 0;
    for (std::int64_t i = 0; i < n; ++i) want_hits += in_quarter_disc{}(i);
    std::int64_t want_max = 0;
    for (std::size_t i = 0; i < un; ++i) want_max = std::max(want_max, abs_diff_i{}(ha[i], hb[i]));

    CHECK(algo::transform_reduce(policy, pts.begin(), pts.end(), empty, box_union{}, point_box{}) == want_box);
    const thrust::counting_iterator<std::int64_t> first(0), last(n);
    CHECK(algo::transform_reduce(policy, first, last, std::int64_t(0), algo::plus<>{}, in_quarter_disc{}) == want_hits);
    CHECK(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), std::int64_t(0), algo::maximum<>{}, abs_diff_i{}) ==
          want_max);
  }
}

// ==== accumulator types ============================================================================
/// a + b in 64 bits: wider than its int32 input and init.
struct plus_wide {
  ALGO_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a + b; }
};
/// a + b in double, for float input and init.
struct plus_double {
  ALGO_HD double operator()(double a, double b) const { return a + b; }
};
/// x + 0.5 as a double.
struct add_half {
  ALGO_HD double operator()(std::int32_t x) const { return x + 0.5; }
};

/// Values whose sums are exact in every grouping (so any order gives thrust's value bit for bit).
struct accumulator_data {
  std::vector<std::uint8_t> bytes;      // uint8 input (int64 init)
  std::vector<double> doubles;          // k + 0.5 + 2^-30: exact as float sums (k + 0.5) and double sums
  std::vector<std::int32_t> big;        // 2^30 + small: sums leave int32 at once
  std::vector<float> floats;            // 2^24 and 1: sums exact in double, not in float
  std::vector<float> a, b;              // 16-bit fractions: products exact in double, not in float
  explicit accumulator_data(std::size_t n) {
    bytes = random_vector<std::uint8_t>(n, 501 + n);
    const auto r = random_vector<std::int32_t>(n, 502 + n);
    for (std::size_t i = 0; i < n; ++i) {
      doubles.push_back((r[i] & 7) + 0.5 + 0x1p-30);
      big.push_back((1 << 30) + (r[i] & 0xffff));
      floats.push_back(i % 3 == 0 ? 16777216.0f : 1.0f);
      a.push_back(static_cast<float>(((r[i] >> 8) & 0xffff) | 0x8001) * 0x1p-16f);
      b.push_back(static_cast<float>((static_cast<std::uint32_t>(r[i]) >> 16) | 0x8001) * 0x1p-16f);
    }
  }
};

/// Every mixed-type case on one device policy against thrust::device (or, where thrust's
/// exclusive_scan keeps init's type, against a loop).
template <class Policy>
void check_accumulators(const Policy& p) {
  INFO("policy " << policy_name<Policy>());
  {  // the three cases of issue 16
    device_buffer<float> r(std::vector<float>{2.5f, -1.5f, 2.5f, -1.5f});
    CHECK(algo::reduce(p, r.begin(), r.end(), 0) == thrust::reduce(thrust::device, r.begin(), r.end(), 0));
    CHECK(algo::reduce(p, r.begin(), r.end(), 0) == 2);
    device_buffer<float> s(std::vector<float>{1.5f, 2.5f, 3.5f}), out(3), want(3);
    thrust::inclusive_scan(thrust::device, s.begin(), s.end(), want.begin(), 0, thrust::plus<>{});
    algo::inclusive_scan(p, s.begin(), s.end(), out.begin(), algo::plus<>{}, 0);
    CHECK(out.download() == want.download());
    CHECK(out.download() == std::vector<float>{1.5f, 4.0f, 7.5f});
    device_buffer<float> e(std::vector<float>{2.5f, -1.5f, 2.5f});
    thrust::exclusive_scan(thrust::device, e.begin(), e.end(), want.begin(), 0);
    algo::exclusive_scan(p, e.begin(), e.end(), out.begin(), 0);
    CHECK(out.download() == want.download());
    CHECK(out.download() == std::vector<float>{0, 2, 1});
  }
  for (std::int64_t n : {std::int64_t(1000), (std::int64_t(1) << 20) + 3}) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const accumulator_data h(un);
    device_buffer<std::uint8_t> bytes(h.bytes);
    device_buffer<double> doubles(h.doubles);
    device_buffer<std::int32_t> big(h.big);
    device_buffer<float> floats(h.floats), a(h.a), b(h.b), fout(un), fwant(un);
    device_buffer<std::int64_t> iout(un), iwant(un), one(1);

    // uint8 input, int64 init
    const std::int64_t init = -1000;
    CHECK(algo::reduce(p, bytes.begin(), bytes.end(), init) == thrust::reduce(thrust::device, bytes.begin(), bytes.end(), init));
    thrust::inclusive_scan(thrust::device, bytes.begin(), bytes.end(), iwant.begin(), init, thrust::plus<>{});
    algo::inclusive_scan(p, bytes.begin(), bytes.end(), iout.begin(), algo::plus<>{}, init);
    CHECK(iout.download() == iwant.download());
    thrust::exclusive_scan(thrust::device, bytes.begin(), bytes.end(), iwant.begin(), init);
    algo::exclusive_scan(p, bytes.begin(), bytes.end(), iout.begin(), init);
    CHECK(iout.download() == iwant.download());

    // double input, float init
    CHECK(algo::reduce(p, doubles.begin(), doubles.end(), 0.25f) ==
          thrust::reduce(thrust::device, doubles.begin(), doubles.end(), 0.25f));
    CHECK(algo::reduce(p, doubles.begin(), doubles.end(), 0.25f, algo::plus<>{}) ==
          thrust::reduce(thrust::device, doubles.begin(), doubles.end(), 0.25f, thrust::plus<>{}));
    thrust::inclusive_scan(thrust::device, doubles.begin(), doubles.end(), fwant.begin(), 0.25f, thrust::plus<>{});
    algo::inclusive_scan(p, doubles.begin(), doubles.end(), fout.begin(), algo::plus<>{}, 0.25f);
    CHECK(fout.download() == fwant.download());
    thrust::exclusive_scan(thrust::device, doubles.begin(), doubles.end(), fwant.begin(), 0.25f);
    algo::exclusive_scan(p, doubles.begin(), doubles.end(), fout.begin(), 0.25f);
    CHECK(fout.download() == fwant.download());

    // operators returning a wider type
    thrust::inclusive_scan(thrust::device, big.begin(), big.end(), iwant.begin(), 0, plus_wide{});
    algo::inclusive_scan(p, big.begin(), big.end(), iout.begin(), plus_wide{}, 0);
    const auto incl = iout.download();
    CHECK(incl == iwant.download());
    CHECK(incl.back() > std::int64_t(1) << 31);
    algo::exclusive_scan(p, big.begin(), big.end(), iout.begin(), 0, plus_wide{});  // int64 accumulator, as CUB
    CHECK(iout.download() == ref_exclusive_scan<std::int64_t>(h.big, std::int64_t(0), plus_wide{}));
    CHECK(algo::reduce(p, big.begin(), big.end(), 0, plus_wide{}) == thrust::reduce(thrust::device, big.begin(), big.end(), 0, plus_wide{}));
    CHECK(algo::reduce(p, floats.begin(), floats.end(), 0.5f, plus_double{}) ==
          thrust::reduce(thrust::device, floats.begin(), floats.end(), 0.5f, plus_double{}));
    CHECK(algo::transform_reduce(p, big.begin(), big.end(), std::int64_t(0), algo::plus<>{}, add_half{}) ==
          thrust::transform_reduce(thrust::device, big.begin(), big.end(), add_half{}, std::int64_t(0), thrust::plus<>{}));

    // reduce_into: the result in init's type; an empty range writes init itself
    device_buffer<float> fone(1);
    algo::reduce_into(p, floats.begin(), floats.end(), fone.begin(), 0.5f, plus_double{});
    require_device_ok("reduce_into");
    CHECK(fone.download()[0] == thrust::reduce(thrust::device, floats.begin(), floats.end(), 0.5f, plus_double{}));
    algo::reduce_into(p, floats.begin(), floats.begin(), one.begin(), std::int64_t(16777217), algo::plus<>{});  // float accumulator
    require_device_ok("reduce_into, empty");
    CHECK(one.download()[0] == 16777217);

    // inner product: products in init's type (double), as thrust::inner_product
    CHECK(algo::transform_reduce(p, a.begin(), a.end(), b.begin(), 0.0) ==
          thrust::inner_product(thrust::device, a.begin(), a.end(), b.begin(), 0.0));
  }
}

// ==== exclusive_scan_by_key: init's type ============================================================
/// a + b as int: wider than an 8-bit init (thrust::device keeps init's type all the same).
struct plus_int {
  ALGO_HD int operator()(int a, int b) const { return a + b; }
};

/// A port of Thrust's TestExclusiveScanByKeyInPlace: random T values, int keys, init T(11), in place
/// on the values and on the keys (sums in T written into the int keys: they wrap at 8 bits), bit for
/// bit against thrust::exclusive_scan_by_key(thrust::device) and the host loop. For unsigned char
/// also an op returning int into an int output (algo::cub hands CUB that op through
/// accumulate_with, not as its primitive plus).
template <class T, class Policy>
void check_exclusive_scan_by_key_in_place(const Policy& p) {
  std::vector<std::int64_t> sizes{1, 4095, 4097, 8193, 100000, (std::int64_t(1) << 20) + 3};
  if (small_run()) sizes = {1, 4097, 20000};
  for (std::int64_t n : sizes) {
    INFO("policy " << policy_name<Policy>() << ", values " << type_name_v<T> << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto h_k = seg::thrust_test_keys(un, 461 + un);
    const auto h_v = random_vector<T>(un, 462 + un);
    const T init = 11;
    const auto ref = seg::ref_exclusive_scan_by_key_in_init(h_k, h_v, init, algo::plus<>{});
    device_buffer<std::int32_t> k(h_k);
    {
      INFO("in place on the values");
      device_buffer<T> got(h_v), want(h_v);
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), got.begin(), got.begin(), init);
      thrust::exclusive_scan_by_key(thrust::device, k.begin(), k.end(), want.begin(), want.begin(), init);
      require_device_ok("exclusive_scan_by_key in place on the values");
      CHECK(want.download() == ref);
      CHECK(got.download() == want.download());
    }
    {
      INFO("in place on the keys");
      device_buffer<T> v(h_v);
      device_buffer<std::int32_t> got(h_k), want(h_k);
      algo::exclusive_scan_by_key(p, got.begin(), got.end(), v.begin(), got.begin(), init);
      thrust::exclusive_scan_by_key(thrust::device, want.begin(), want.end(), v.begin(), want.begin(), init);
      require_device_ok("exclusive_scan_by_key in place on the keys");
      CHECK(want.download() == convert<std::int32_t>(ref));
      CHECK(got.download() == want.download());
    }
    if constexpr (std::is_same<T, unsigned char>::value) {
      INFO("init, key_equal and an op returning int, into int");
      device_buffer<T> v(h_v);
      device_buffer<std::int32_t> got(un), want(un);
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), got.begin(), init, algo::equal_to<>{}, plus_int{});
      thrust::exclusive_scan_by_key(thrust::device, k.begin(), k.end(), v.begin(), want.begin(), init,
                                    thrust::equal_to<>{}, plus_int{});
      require_device_ok("exclusive_scan_by_key with an op returning int");
      CHECK(want.download() == convert<std::int32_t>(seg::ref_exclusive_scan_by_key_in_init(h_k, h_v, init, plus_int{})));
      CHECK(got.download() == want.download());
    }
  }
}

}  // namespace

TEST_CASE("thrust compat: reductions with Thrust's and the standard function objects", "[cuda][cub][commutative]") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), (std::int64_t(1) << 20) + 3}) {
    INFO("n = " << n);
    const auto hi = random_vector<std::int32_t>(static_cast<std::size_t>(n), 321);
    const auto hf = random_vector<float>(static_cast<std::size_t>(n), 322);
    device_buffer<std::int32_t> i(hi);
    device_buffer<float> f(hf);
    const int want_sum = thrust::reduce(thrust::device, i.begin(), i.end(), 7, thrust::plus<int>{});
    const float want_max = thrust::reduce(thrust::device, f.begin(), f.end(), -2.0f, thrust::maximum<float>{});
    const int want_xor = thrust::reduce(thrust::device, i.begin(), i.end(), 7, thrust::bit_xor<>{});
    CHECK(algo::reduce(algo::cub, i.begin(), i.end(), 7, thrust::plus<int>{}) == want_sum);
    CHECK(algo::reduce(algo::cub, i.begin(), i.end(), 7, std::plus<>{}) == want_sum);
    CHECK(algo::reduce(algo::cub, f.begin(), f.end(), -2.0f, thrust::maximum<float>{}) == want_max);
    CHECK(algo::reduce(algo::cub, i.begin(), i.end(), 7, ::cuda::std::bit_xor<int>{}) == want_xor);
    CHECK(algo::reduce(algo::cuda, i.begin(), i.end(), 7, thrust::plus<int>{}) == want_sum);
    CHECK(algo::reduce(algo::cuda, f.begin(), f.end(), -2.0f, ::cuda::maximum<>{}) == want_max);
  }
}

TEST_CASE("thrust compat: non-const reduce and scan operators, algo::cuda", "[cuda][functor]") {
  check_mutable_reduce_scan_ops<true, true>(algo::cuda);
  check_mutable_reduce_scan_ops<false, true>(algo::cuda.with(algo::scan_strategy::scan_then_fan));
  check_mutable_reduce_scan_ops<false, true>(algo::cuda.with(algo::scan_strategy::reduce_then_scan));
  check_mutable_reduce_scan_ops<false, true>(algo::cuda.with(algo::scan_strategy::two_level).with(algo::warp_phase::smem));
}
TEST_CASE("thrust compat: non-const reduce and scan operators, algo::cuda reduce strategies", "[cuda][functor]") {
  check_mutable_reduce_scan_ops<true, false>(algo::cuda.with(algo::reduce_strategy::two_pass));
  check_mutable_reduce_scan_ops<true, false>(algo::cuda.with(algo::reduce_strategy::locked).with(algo::warp_phase::smem));
}
TEST_CASE("thrust compat: non-const reduce and scan operators, algo::cub", "[cub][functor]") {
  check_mutable_reduce_scan_ops<true, true>(algo::cub);
}
TEST_CASE("thrust compat: non-const transform operators", "[cuda][cub][functor]") {
  check_mutable_transform_ops(algo::cuda);
  check_mutable_transform_ops(algo::cub);
}

TEST_CASE("thrust compat: accumulator types, algo::cuda", "[cuda][accumulator]") { check_accumulators(algo::cuda); }
TEST_CASE("thrust compat: accumulator types, algo::cub", "[cub][accumulator]") { check_accumulators(algo::cub); }

TEST_CASE("thrust compat: exclusive_scan_by_key accumulates in init's type (Thrust's in-place test), algo::cuda",
          "[cuda][accumulator][by_key]") {
  check_exclusive_scan_by_key_in_place<signed char>(algo::cuda);
  check_exclusive_scan_by_key_in_place<unsigned char>(algo::cuda);
}
TEST_CASE("thrust compat: exclusive_scan_by_key accumulates in init's type (Thrust's in-place test), algo::cub",
          "[cub][accumulator][by_key]") {
  check_exclusive_scan_by_key_in_place<signed char>(algo::cub);
  check_exclusive_scan_by_key_in_place<unsigned char>(algo::cub);
}
