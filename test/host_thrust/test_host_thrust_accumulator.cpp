// Accumulator types where input, init and output types differ, against thrust::host (Thrust 3.0's
// sequential backend): algo accumulates in the type op(init, x) returns, with Thrust's default
// operators (reduce and exclusive_scan: plus<T> of init's type T; the inner product: plus<T>,
// multiplies<T>). Values are chosen so that every grouping of the additions is exact: algo::par
// must give bit-for-bit Thrust's sequential result.
//
// Where thrust::host itself departs from that rule (its sequential reduce keeps init's type as the
// accumulator, its exclusive_scan converts each element to init's type first, its transform_reduce
// converts each transformed value to init's type) while thrust::device (CUB) follows it, algo is
// checked against the rule (a loop), and the test says so.
//
// exclusive_scan_by_key is the exception algo follows: Thrust accumulates it in init's type on every
// backend (each value converted to it first), so algo does too; checked bit for bit against
// thrust::exclusive_scan_by_key(thrust::host) and a loop (a port of Thrust's
// TestExclusiveScanByKeyInPlace, whose 8-bit values wrap even into its int keys).
#include "../host/host_checks.hpp"
#include "segmented_ref.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include <cmath>

using namespace host_test;

namespace {

/// a + b in 64 bits: an operator that returns a wider type than its int32 input and init.
struct plus_wide {
  std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a + b; }
};
/// a + b in double, for float input and init.
struct plus_double {
  double operator()(double a, double b) const { return a + b; }
};

const std::int64_t tile = algo::detail::host::scan_block_elements;
const std::vector<std::int64_t> sizes{1, 2, 33, 1025, 5 * tile + 3, 9 * tile + 1};

}  // namespace

TEST_CASE("accumulators: the three cases of issue 16 match thrust::host", "[thrust][accumulator]") {
  for_each_policy([](const auto& p) {
    // reduce with an int init: Thrust's plus<int> makes every element an int
    const std::vector<float> r{2.5f, -1.5f, 2.5f, -1.5f};
    CHECK(thrust::reduce(thrust::host, r.begin(), r.end(), 0) == 2);
    CHECK(algo::reduce(p, r.begin(), r.end(), 0) == 2);

    // inclusive_scan with an int init: accumulated in float, what plus<>(int, float) returns
    const std::vector<float> s{1.5f, 2.5f, 3.5f};
    std::vector<float> want(3), got(3);
    thrust::inclusive_scan(thrust::host, s.begin(), s.end(), want.begin(), 0, thrust::plus<>{});
    CHECK(want == std::vector<float>{1.5f, 4.0f, 7.5f});
    algo::inclusive_scan(p, s.begin(), s.end(), got.begin(), algo::plus<>{}, 0);
    CHECK(got == want);
    algo::inclusive_scan(p, s.begin(), s.end(), got.begin(), thrust::plus<>{}, 0);
    CHECK(got == want);

    // exclusive_scan with an int init: Thrust's plus<int>, every element an int
    for (const std::vector<float>& e : {std::vector<float>{2.5f, -1.5f, 2.5f}, std::vector<float>{2.5f, 2.5f, 0.5f}}) {
      std::vector<float> we(3), ge(3);
      thrust::exclusive_scan(thrust::host, e.begin(), e.end(), we.begin(), 0);
      algo::exclusive_scan(p, e.begin(), e.end(), ge.begin(), 0);
      CHECK(ge == we);
      std::vector<int> wi(3), gi(3);
      thrust::exclusive_scan(thrust::host, e.begin(), e.end(), wi.begin(), 0);
      algo::exclusive_scan(p, e.begin(), e.end(), gi.begin(), 0);
      CHECK(gi == wi);
    }
    const std::vector<float> e{2.5f, -1.5f, 2.5f};
    std::vector<float> ge(3);
    algo::exclusive_scan(p, e.begin(), e.end(), ge.begin(), 0);
    CHECK(ge == std::vector<float>{0, 2, 1});
  });
}

TEST_CASE("accumulators: uint8 input, int64 init match thrust::host", "[thrust][accumulator]") {
  for (std::int64_t n : sizes) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto in = random_vector<std::uint8_t>(un, 401 + un);
    const std::int64_t init = -1000;
    std::vector<std::int64_t> want(un), got(un);
    for_each_policy_few([&](const auto& p) {
      CHECK(algo::reduce(p, in.begin(), in.end(), init) == thrust::reduce(thrust::host, in.begin(), in.end(), init));
      CHECK(algo::reduce(p, in.begin(), in.end(), init, algo::plus<>{}) ==
            thrust::reduce(thrust::host, in.begin(), in.end(), init, thrust::plus<>{}));
      CHECK(algo::reduce(p, in.begin(), in.end()) == thrust::reduce(thrust::host, in.begin(), in.end()));  // wraps at 256
      thrust::inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init, thrust::plus<>{});
      algo::inclusive_scan(p, in.begin(), in.end(), got.begin(), algo::plus<>{}, init);
      CHECK(got == want);
      thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init);
      algo::exclusive_scan(p, in.begin(), in.end(), got.begin(), init);
      CHECK(got == want);
      thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init, thrust::plus<>{});
      algo::exclusive_scan(p, in.begin(), in.end(), got.begin(), init, algo::plus<>{});
      CHECK(got == want);
      std::vector<std::uint8_t> w8(un), g8(un);  // no init: the input's type, wrapping
      thrust::inclusive_scan(thrust::host, in.begin(), in.end(), w8.begin());
      algo::inclusive_scan(p, in.begin(), in.end(), g8.begin());
      CHECK(g8 == w8);
    });
  }
}

TEST_CASE("accumulators: double input, float init match thrust::host", "[thrust][accumulator]") {
  for (std::int64_t n : sizes) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    // k + 0.5 + 2^-30: as float k + 0.5 (exact float sums), in double exact sums too
    std::vector<double> in(un);
    const auto k = random_vector<std::uint8_t>(un, 411 + un);
    for (std::size_t i = 0; i < un; ++i) in[i] = (k[i] % 8) + 0.5 + 0x1p-30;
    const float init = 0.25f;
    double exact = init;
    for (double x : in) exact += x;
    std::vector<float> want(un), got(un);
    for_each_policy_few([&](const auto& p) {
      // reduce(first, last, init): plus<float>, each element a float first
      CHECK(algo::reduce(p, in.begin(), in.end(), init) == thrust::reduce(thrust::host, in.begin(), in.end(), init));
      // with plus<>: float + double is double, the accumulator; the result is returned as float.
      // (thrust::reduce(thrust::host) keeps a float accumulator here; thrust::device, as CUB, a double)
      CHECK(algo::reduce(p, in.begin(), in.end(), init, algo::plus<>{}) == static_cast<float>(exact));
      // inclusive_scan with init: double accumulator, as thrust
      thrust::inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init, thrust::plus<>{});
      algo::inclusive_scan(p, in.begin(), in.end(), got.begin(), algo::plus<>{}, init);
      CHECK(got == want);
      CHECK(got.back() == static_cast<float>(exact));
      // exclusive_scan(first, last, d_first, init): plus<float>
      thrust::exclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), init);
      algo::exclusive_scan(p, in.begin(), in.end(), got.begin(), init);
      CHECK(got == want);
    });
  }
}

TEST_CASE("accumulators: an operator returning a wider type", "[thrust][accumulator]") {
  for (std::int64_t n : sizes) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::int32_t> in(un);
    const auto r = random_vector<std::int32_t>(un, 421 + un);
    for (std::size_t i = 0; i < un; ++i) in[i] = (1 << 30) + (r[i] & 0xffff);  // sums leave int32 at once
    std::vector<std::int64_t> ref_incl(un), ref_excl(un), want(un), got(un);
    std::int64_t acc = 0;
    for (std::size_t i = 0; i < un; ++i) {
      ref_excl[i] = acc;
      acc += in[i];
      ref_incl[i] = acc;
    }
    // floats whose sums are exact in double, not in float
    std::vector<float> f(un);
    for (std::size_t i = 0; i < un; ++i) f[i] = (i % 3 == 0) ? 16777216.0f : 1.0f;
    double fsum = 0.5;
    for (float x : f) fsum += x;

    for_each_policy_few([&](const auto& p) {
      // inclusive_scan with an int init: plus_wide returns int64, the accumulator (as thrust)
      thrust::inclusive_scan(thrust::host, in.begin(), in.end(), want.begin(), 0, plus_wide{});
      CHECK(want == ref_incl);
      algo::inclusive_scan(p, in.begin(), in.end(), got.begin(), plus_wide{}, 0);
      CHECK(got == ref_incl);
      // exclusive_scan with an int init: int64 accumulator (as cub::DeviceScan::ExclusiveScan;
      // thrust::exclusive_scan keeps init's type, int, and wraps)
      algo::exclusive_scan(p, in.begin(), in.end(), got.begin(), 0, plus_wide{});
      CHECK(got == ref_excl);
      // reduce returns init's type: the int64 sum converted to int
      CHECK(algo::reduce(p, in.begin(), in.end(), 0, plus_wide{}) == static_cast<std::int32_t>(acc));
      CHECK(algo::reduce(p, in.begin(), in.end(), std::int64_t(0), plus_wide{}) == acc);
      // float input and init, double accumulator (thrust::host: float; thrust::device: double)
      CHECK(algo::reduce(p, f.begin(), f.end(), 0.5f, plus_double{}) == static_cast<float>(fsum));
      float into = 0;
      algo::reduce_into(p, f.begin(), f.end(), &into, 0.5f, plus_double{});
      CHECK(into == static_cast<float>(fsum));
      algo::reduce_into(p, f.begin(), f.begin(), &into, 0.5f, plus_double{});
      CHECK(into == 0.5f);
      std::int64_t into64 = 0;  // empty, int64 init, float accumulator: init itself, not via float
      algo::reduce_into(p, f.begin(), f.begin(), &into64, std::int64_t(16777217), algo::plus<>{});
      CHECK(into64 == 16777217);
      algo::reduce_into(p, f.begin(), f.end(), &into64, std::int64_t(1), algo::plus<>{});
      CHECK(into64 == static_cast<std::int64_t>(algo::reduce(p, f.begin(), f.end(), std::int64_t(1), algo::plus<>{})));
      // transform_reduce: the transformed values (double) join an int init under plus<>: double
      // accumulator (as CUB's TransformReduce; thrust::host converts each to int first)
      const auto half = [](std::int32_t x) { return x + 0.5; };
      CHECK(algo::transform_reduce(p, in.begin(), in.end(), std::int64_t(0), algo::plus<>{}, half) ==
            static_cast<std::int64_t>(static_cast<double>(acc) + 0.5 * n));
    });
  }
}

TEST_CASE("accumulators: the inner product multiplies in init's type, as thrust::inner_product", "[thrust][accumulator]") {
  for (std::int64_t n : sizes) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    // 16-bit fractions: products exact in double, not in float; double sums exact
    auto ka = random_vector<std::uint32_t>(un, 431 + un), kb = random_vector<std::uint32_t>(un, 432 + un);
    std::vector<float> a(un), b(un);
    for (std::size_t i = 0; i < un; ++i) {
      a[i] = static_cast<float>((ka[i] & 0xffff) | 0x8001) * 0x1p-16f;
      b[i] = static_cast<float>((kb[i] & 0xffff) | 0x8001) * 0x1p-16f;
      ka[i] = (ka[i] & 0xfffff) | 0x80000;  // 20 bits: products above 2^32, sums within int64
      kb[i] = (kb[i] & 0xfffff) | 0x80000;
    }
    const double want = thrust::inner_product(thrust::host, a.begin(), a.end(), b.begin(), 0.0);
    const std::int64_t wi = thrust::inner_product(thrust::host, ka.begin(), ka.end(), kb.begin(), std::int64_t(0));
    for_each_policy_few([&](const auto& p) {
      CHECK(algo::transform_reduce(p, a.begin(), a.end(), b.begin(), 0.0) == want);
      double into = 0;
      algo::transform_reduce_into(p, a.begin(), a.end(), b.begin(), &into, 0.0);
      CHECK(into == want);
      // uint32 products in int64 (not wrapping at 2^32)
      CHECK(algo::transform_reduce(p, ka.begin(), ka.end(), kb.begin(), std::int64_t(0)) == wi);
    });
  }
}

// ==== exclusive_scan_by_key: init's type, as Thrust =================================================
namespace {

/// a + b as int: an operator whose result is wider than the 8-bit init (Thrust still keeps init's type).
struct plus_int {
  int operator()(int a, int b) const { return a + b; }
};

const std::vector<std::int64_t> by_key_sizes{1, 2, 33, 1025, tile - 1, tile + 1, 4 * tile - 1, 4 * tile + 1, 9 * tile + 1};

/// Thrust's TestExclusiveScanByKeyInPlace on random T values and int keys, plus the forms without
/// init and with init, key_equal and an op returning int, each into an int output.
template <class T>
void check_exclusive_scan_by_key_in_place() {
  using algo_test::seg::ref_exclusive_scan_by_key_in_init;
  for (std::int64_t n : by_key_sizes) {
    INFO("values " << algo_test::type_name_v<T> << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto keys = algo_test::seg::thrust_test_keys(un, 441 + un);
    const auto vals = random_vector<T>(un, 442 + un);
    const T init = 11;
    const auto ref = ref_exclusive_scan_by_key_in_init(keys, vals, init, algo::plus<>{});
    const std::vector<int> ref_int(ref.begin(), ref.end());
    // the test means something: accumulating in int (op's result type) would differ
    if (n > 100) REQUIRE(ref_int != ref_exclusive_scan_by_key_in_init(keys, vals, int(init), algo::plus<>{}));
    const auto ref0 = ref_exclusive_scan_by_key_in_init(keys, vals, T{}, algo::plus<>{});
    const auto ref_op = ref_exclusive_scan_by_key_in_init(keys, vals, init, plus_int{});

    for_each_policy_few([&](const auto& p) {
      // in place on the values
      std::vector<T> got = vals, want = vals;
      algo::exclusive_scan_by_key(p, keys.begin(), keys.end(), got.begin(), got.begin(), init);
      thrust::exclusive_scan_by_key(thrust::host, keys.begin(), keys.end(), want.begin(), want.begin(), init);
      CHECK(want == ref);
      CHECK(got == want);
      // in place on the keys: T sums written into int keys (Thrust wraps them at 8 bits)
      std::vector<int> gk = keys, wk = keys;
      algo::exclusive_scan_by_key(p, gk.begin(), gk.end(), vals.begin(), gk.begin(), init);
      thrust::exclusive_scan_by_key(thrust::host, wk.begin(), wk.end(), vals.begin(), wk.begin(), init);
      CHECK(wk == ref_int);
      CHECK(gk == wk);
      // without init (T{}), into int
      std::vector<int> gi(un, -1), wi(un, -2);
      algo::exclusive_scan_by_key(p, keys.begin(), keys.end(), vals.begin(), gi.begin());
      thrust::exclusive_scan_by_key(thrust::host, keys.begin(), keys.end(), vals.begin(), wi.begin());
      CHECK(wi == std::vector<int>(ref0.begin(), ref0.end()));
      CHECK(gi == wi);
      // init, key_equal and an op returning int, into int: still in T
      algo::exclusive_scan_by_key(p, keys.begin(), keys.end(), vals.begin(), gi.begin(), init, algo::equal_to<>{}, plus_int{});
      thrust::exclusive_scan_by_key(thrust::host, keys.begin(), keys.end(), vals.begin(), wi.begin(), init,
                                    thrust::equal_to<>{}, plus_int{});
      CHECK(wi == std::vector<int>(ref_op.begin(), ref_op.end()));
      CHECK(gi == wi);
    });
  }
}

}  // namespace

TEST_CASE("exclusive_scan_by_key accumulates in init's type as thrust::host: Thrust's in-place test, signed char",
          "[thrust][accumulator][by_key]") {
  check_exclusive_scan_by_key_in_place<signed char>();
}
TEST_CASE("exclusive_scan_by_key accumulates in init's type as thrust::host: Thrust's in-place test, unsigned char",
          "[thrust][accumulator][by_key]") {
  check_exclusive_scan_by_key_in_place<unsigned char>();
}

TEST_CASE("exclusive_scan_by_key converts each value to init's type first, as thrust::host", "[thrust][accumulator][by_key]") {
  for (std::int64_t n : {std::int64_t(1000), 4 * tile + 1}) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto keys = algo_test::seg::thrust_test_keys(un, 451 + un);
    // k + 0.5 or -(k + 0.5): truncated to int one by one, the sums differ from the float ones'
    const auto r = random_vector<std::int32_t>(un, 452 + un);
    std::vector<float> vals(un);
    for (std::size_t i = 0; i < un; ++i) vals[i] = static_cast<float>((r[i] & 7) + 0.5) * (r[i] < 0 ? -1.0f : 1.0f);
    const auto ref = algo_test::seg::ref_exclusive_scan_by_key_in_init(keys, vals, 3, algo::plus<>{});
    // the test means something: a float accumulator (op(int, float)'s type) would differ
    REQUIRE(std::vector<float>(ref.begin(), ref.end()) !=
            algo_test::seg::ref_exclusive_scan_by_key_in_init(keys, vals, 3.0f, algo::plus<>{}));
    std::vector<float> want(un), got(un);
    thrust::exclusive_scan_by_key(thrust::host, keys.begin(), keys.end(), vals.begin(), want.begin(), 3);
    CHECK(want == std::vector<float>(ref.begin(), ref.end()));
    for_each_policy_few([&](const auto& p) {
      std::fill(got.begin(), got.end(), -1.0f);
      algo::exclusive_scan_by_key(p, keys.begin(), keys.end(), vals.begin(), got.begin(), 3);
      CHECK(got == want);
      std::fill(got.begin(), got.end(), -1.0f);
      algo::exclusive_scan_by_key(p, keys.begin(), keys.end(), vals.begin(), got.begin(), 3, algo::equal_to<>{}, algo::plus<>{});
      CHECK(got == want);
    });
  }
}
