// algo::cuda and algo::cub take what thrust:: takes:
//   - function objects whose operator() is not const (Thrust's examples write bbox_union,
//     estimate_pi, abs_diff that way) as reduce, scan and transform operators;
//   - Thrust's, libcu++'s and the standard function objects count as commutative
//     (algo::is_commutative) as algo's own do: algo::cub reduces with them through
//     cub::DeviceReduce, and hands a plus to CUB as its primitive ::cuda::std::plus;
// Kept small (nvcc is slow): each check is instantiated for the few types it tests.
#include <algo/algo.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include <cuda/functional>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "commutative_checks.hpp"
#include "device_checks.cuh"

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
