// In-place scans whose input reads the output through fancy iterators (issue 16), on algo::cuda
// (the default strategy: decoupled look-back) and algo::cub, against a host reference, each run
// repeated (a race shows only now and then):
//   Thrust's TestTransformScan   inclusive_scan(transform_iterator(d, negate), ..., d), the other
//                                forms too, and a non-commutative operator (affine_i);
//   zip                          transform_iterator(zip_iterator(d, other)) into d, and
//                                zip_iterator(a, b) scanned into zip_iterator(a, b);
//   permutation                  permutation_iterator(d, identity) into d.
// In all of these the input's element i reads, of the output, only element i: every device
// strategy loads a tile in full before it stores it, and a tile reads and writes only its own
// positions, so these are safe by construction (as std::inclusive_scan with d_first == first).
//
// The hidden test cases ([.ahead]: run with `test_inplace_fancy "[.ahead]"` or "[ahead]") read
// output positions after their own (permutation_iterator(d, i -> i + 1000)). A decoupled look-back
// stores a tile only after every earlier tile has published its aggregate, i.e. has loaded its
// input, so a later tile can never overwrite what an earlier one has yet to read: these hold for
// algo::cuda's default strategy and, by the same argument, for CUB's single-pass scan, but neither
// library promises it (CUB's documentation allows no overlap except d_in == d_out), and the
// multi-pass algo::cuda strategies (reduce-then-scan, two-level, scan-then-fan) do not give it.
#include <thrust/functional.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

using namespace algo_test;

namespace {

constexpr int repeats = 3;

/// One tile, several tiles of every device scan (a few thousand items each), a million.
std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> s{1, 1000, 4097, 100003};
  if (!small_run()) s.push_back((std::int64_t(1) << 20) + 7);
  return s;
}

struct shift_affine {
  __host__ __device__ affine_i operator()(const affine_i& f) const { return affine_i{f.a, wrap_add(f.b, 5)}; }
};
/// 3 a - b of a zipped (int64, int64).
struct weigh_pair {
  template <class Tuple>
  __host__ __device__ std::int64_t operator()(const Tuple& t) const {
    return 3 * thrust::get<0>(t) - thrust::get<1>(t);
  }
};
/// (affine_i composed, int64 added): a non-commutative operator on zipped values.
using pair_t = thrust::tuple<affine_i, std::int64_t>;
struct pair_op {
  template <class A, class B>
  __host__ __device__ pair_t operator()(const A& a, const B& b) const {
    return pair_t(compose_affine_i{}(thrust::get<0>(a), thrust::get<0>(b)), thrust::get<1>(a) + thrust::get<1>(b));
  }
};

/// Uploads `start`, runs scan(d) (in place in d), downloads and compares with `want`, `repeats` times.
template <class T, class Scan>
void check_repeated(const std::string& what, const std::vector<T>& start, const std::vector<T>& want, Scan scan) {
  device_buffer<T> d(start);
  for (int r = 0; r < repeats; ++r) {
    INFO("repeat " << r);
    d.upload(start);
    scan(d.begin());
    require_device_ok(what.c_str());
    expect_equal(what, d.download(), want);
    CHECK(d.guard_intact());
  }
}

template <class Policy>
void check_transform_scan(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    INFO("policy " << policy_name<Policy>() << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    {  // Thrust's TestTransformScan: int64, negate
      const auto start = random_vector<std::int64_t>(un, 1801 + n);
      const auto x = map(start, [](std::int64_t v) { return -v; });
      const std::int64_t init = -12345;
      auto in = [](std::int64_t* d) { return thrust::make_transform_iterator(d, thrust::negate<std::int64_t>()); };
      check_repeated("inclusive_scan(transform(d, negate), ..., d)", start, ref_inclusive_scan<std::int64_t>(x, algo::plus<>{}),
                     [&](std::int64_t* d) { algo::inclusive_scan(policy, in(d), in(d) + n, d); });
      check_repeated("exclusive_scan(transform(d, negate), ..., d, init)", start,
                     ref_exclusive_scan<std::int64_t>(x, init, algo::plus<>{}),
                     [&](std::int64_t* d) { algo::exclusive_scan(policy, in(d), in(d) + n, d, init); });
    }
    {  // affine_i, composed (not commutative)
      const auto start = random_vector<affine_i>(un, 1802 + n);
      const auto x = map(start, shift_affine{});
      const affine_i init{3, -7};
      const compose_affine_i op{};
      auto in = [](affine_i* d) { return thrust::make_transform_iterator(d, shift_affine{}); };
      check_repeated("inclusive_scan(transform(d, shift_affine), ..., d, op)", start, ref_inclusive_scan<affine_i>(x, op),
                     [&](affine_i* d) { algo::inclusive_scan(policy, in(d), in(d) + n, d, op); });
      check_repeated("inclusive_scan(transform(d, shift_affine), ..., d, op, init)", start,
                     ref_inclusive_scan<affine_i>(x, op, init),
                     [&](affine_i* d) { algo::inclusive_scan(policy, in(d), in(d) + n, d, op, init); });
      check_repeated("exclusive_scan(transform(d, shift_affine), ..., d, init, op)", start,
                     ref_exclusive_scan<affine_i>(x, init, op),
                     [&](affine_i* d) { algo::exclusive_scan(policy, in(d), in(d) + n, d, init, op); });
    }
  }
}

template <class Policy>
void check_zip(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    INFO("policy " << policy_name<Policy>() << ", n = " << n);
    const auto un = static_cast<std::size_t>(n);
    {  // transform(zip(d, other)) into d
      const auto start = random_vector<std::int64_t>(un, 1811 + n);
      const auto h_other = random_vector<std::int64_t>(un, 1812 + n);
      device_buffer<std::int64_t> other(h_other);
      std::vector<std::int64_t> x(un);
      for (std::size_t i = 0; i < un; ++i) x[i] = 3 * start[i] - h_other[i];
      const std::int64_t* o = other.begin();
      check_repeated("inclusive_scan(transform(zip(d, other), weigh_pair), ..., d)", start,
                     ref_inclusive_scan<std::int64_t>(x, algo::plus<>{}), [&](std::int64_t* d) {
                       auto in = thrust::make_transform_iterator(thrust::make_zip_iterator(d, o), weigh_pair{});
                       algo::inclusive_scan(policy, in, in + n, d);
                     });
    }
    {  // zip(a, b) into zip(a, b)
      const auto a0 = random_vector<affine_i>(un, 1813 + n);
      const auto b0 = random_vector<std::int64_t>(un, 1814 + n);
      std::vector<pair_t> x;
      for (std::size_t i = 0; i < un; ++i) x.emplace_back(a0[i], b0[i]);
      const auto want = ref_inclusive_scan<pair_t>(x, pair_op{});
      std::vector<affine_i> wa;
      std::vector<std::int64_t> wb;
      for (const pair_t& p : want) {
        wa.push_back(thrust::get<0>(p));
        wb.push_back(thrust::get<1>(p));
      }
      device_buffer<affine_i> a(a0);
      device_buffer<std::int64_t> b(b0);
      for (int r = 0; r < repeats; ++r) {
        INFO("repeat " << r);
        a.upload(a0);
        b.upload(b0);
        auto z = thrust::make_zip_iterator(a.begin(), b.begin());
        algo::inclusive_scan(policy, z, z + n, z, pair_op{});
        require_device_ok("inclusive_scan(zip(a, b), ..., zip(a, b), op)");
        expect_equal("inclusive_scan(zip(a, b), ..., zip(a, b), op): a", a.download(), wa);
        expect_equal("inclusive_scan(zip(a, b), ..., zip(a, b), op): b", b.download(), wb);
      }
    }
  }
}

/// permutation_iterator(d, map) into d; map(i) must be >= i (see the top of the file).
template <class Policy>
void check_permutation(const Policy& policy, std::int64_t ahead) {
  for (std::int64_t n : sizes()) {
    INFO("policy " << policy_name<Policy>() << ", n = " << n << ", element i reads position min(i + " << ahead
                   << ", n - 1)");
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::int64_t> h_map(un);
    for (std::int64_t i = 0; i < n; ++i) h_map[i] = std::min(n - 1, i + ahead);
    device_buffer<std::int64_t> idx(h_map);
    const std::int64_t* m = idx.begin();
    const auto start = random_vector<affine_i>(un, 1821 + n);
    std::vector<affine_i> x(un);
    for (std::size_t i = 0; i < un; ++i) x[i] = start[h_map[i]];
    const affine_i init{5, 1};
    const compose_affine_i op{};
    check_repeated("inclusive_scan(permutation(d, map), ..., d, op, init)", start,
                   ref_inclusive_scan<affine_i>(x, op, init), [&](affine_i* d) {
                     auto in = thrust::make_permutation_iterator(d, m);
                     algo::inclusive_scan(policy, in, in + n, d, op, init);
                   });
  }
}

}  // namespace

TEST_CASE("cuda: in place through a transform_iterator (Thrust's TestTransformScan)", "[cuda][scan][inplace]") {
  check_transform_scan(algo::cuda);
}
TEST_CASE("cub: in place through a transform_iterator (Thrust's TestTransformScan)", "[cub][scan][inplace]") {
  check_transform_scan(algo::cub);
}
TEST_CASE("cuda: in place through zip iterators", "[cuda][scan][inplace]") { check_zip(algo::cuda); }
TEST_CASE("cub: in place through zip iterators", "[cub][scan][inplace]") { check_zip(algo::cub); }
TEST_CASE("cuda: in place through a permutation_iterator (identity)", "[cuda][scan][inplace]") {
  check_permutation(algo::cuda, 0);
}
TEST_CASE("cub: in place through a permutation_iterator (identity)", "[cub][scan][inplace]") {
  check_permutation(algo::cub, 0);
}
TEST_CASE("cuda: a permutation_iterator reading 1000 positions ahead", "[cuda][scan][inplace][.ahead]") {
  check_permutation(algo::cuda, 1000);
}
TEST_CASE("cub: a permutation_iterator reading 1000 positions ahead", "[cub][scan][inplace][.ahead]") {
  check_permutation(algo::cub, 1000);
}
