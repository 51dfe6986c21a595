// algo::cuda reduce, default policy (retirement_count, shuffle warp phase), beyond the generic battery
// (test_cuda_reduce_retirement.cu runs device_checks.cuh's every-overload checks on algo::cuda):
// run-to-run bit-identity of float results; reductions in flight on several streams at once and
// back to back on one (per-call temporaries, epochs); bad input to reduce_into and empty ranges; and
// inputs past 2^31 elements ([large]).
#include <algo/algo.hpp>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_reduce_checks.cuh"

using namespace algo_test;

namespace {
/// 1 + i % 251 as uint8 (never zero; the sum over [0, n) has a closed form).
struct cyclic_byte {
  ALGO_HD std::uint8_t operator()(std::int64_t i) const { return static_cast<std::uint8_t>(1 + i % 251); }
};
std::int64_t cyclic_sum(std::int64_t n) {
  const std::int64_t full = n / 251, rest = n % 251;
  return full * (251 * 252 / 2) + rest * (rest + 1) / 2;
}
}  // namespace

TEST_CASE("cuda reduces (default policy): take_right over a counting iterator gives the last element", "[cuda][reduce][default]") {
  cuda_reduce_test::check_take_right_counting(algo::cuda);
}

TEST_CASE("cuda reduces (default policy): float results are bit-identical over 20 calls", "[cuda][reduce][default]") {
  std::vector<std::int64_t> ns{1000, std::int64_t(1) << 20, (std::int64_t(1) << 24) + 3};
  if (cuda_reduce_test::small_run()) ns = {1000, 20000};
  for (std::int64_t n : ns) {
    INFO("n = " << n);
    const std::vector<float> h = random_vector<float>(static_cast<std::size_t>(n), 5150 + n);
    device_buffer<float> in(h);
    device_buffer<float> out(1);
    const float first = algo::reduce(algo::cuda, in.begin(), in.end(), 0.5f);
    double scale = 0.5;
    for (float x : h) scale += std::fabs(x);
    expect_value("vs host", first, static_cast<float>(ref_fold(h, 0.5, algo::plus<>{})), scale, n);
    int differ = 0;
    for (int call = 0; call < 20; ++call) {
      const float again = algo::reduce(algo::cuda, in.begin(), in.end(), 0.5f);
      algo::reduce_into(algo::cuda, in.begin(), in.end(), out.begin(), 0.5f, algo::plus<>{});
      const float into = out.download()[0];
      if (std::memcmp(&again, &first, sizeof(float)) != 0 || std::memcmp(&into, &first, sizeof(float)) != 0) ++differ;
    }
    CHECK(differ == 0);
    const float dot0 = algo::transform_reduce(algo::cuda, in.begin(), in.end(), in.begin(), 0.0f);
    for (int call = 0; call < 20; ++call) {
      const float dot = algo::transform_reduce(algo::cuda, in.begin(), in.end(), in.begin(), 0.0f);
      if (std::memcmp(&dot, &dot0, sizeof(float)) != 0) ++differ;
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("cuda reduces: concurrent reductions on several streams, back-to-back ones on one", "[cuda][reduce][default]") {
  // Each call has its own temporaries (ticket, partials); calls on one stream reuse the same memory
  // with a new epoch. Non-commutative (mat2i), so any mix-up of partials shows.
  std::vector<std::int64_t> ns{5000000, 1 << 20, 777777, 3 * 1024 + 1, 4000000, 100003};
  if (cuda_reduce_test::small_run()) ns = {20000, 3 * 1024 + 1, 15000, 1000};
  std::vector<std::vector<mat2i>> h(ns.size());
  std::vector<std::unique_ptr<device_buffer<mat2i>>> in;
  std::vector<std::unique_ptr<device_buffer<mat2i>>> out;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    h[i] = random_vector<mat2i>(static_cast<std::size_t>(ns[i]), 300 + i);
    in.push_back(std::make_unique<device_buffer<mat2i>>(h[i]));
    out.push_back(std::make_unique<device_buffer<mat2i>>(3));
  }
  const mat2_mul op{};
  const mat2i one{1, 0, 0, 1};
  auto run_one = [&](cudaStream_t s, std::size_t i, int round) {
    algo::reduce_into(algo::cuda.on(s), in[i]->begin(), in[i]->end(), out[i]->begin() + round, one, op);
  };
  SECTION("one stream per reduction, all in flight at once") { launch_on_own_streams(ns.size(), 3, run_one); }
  SECTION("one stream, back to back, no host synchronization in between") { launch_back_to_back(ns.size(), 3, run_one); }
  for (std::size_t i = 0; i < ns.size(); ++i) {
    INFO("reduction " << i << ", n = " << ns[i]);
    const mat2i want = ref_fold(h[i], one, op);
    expect_equal("three rounds vs host fold", out[i]->download(), std::vector<mat2i>(3, want));
  }
}

TEST_CASE("cuda reduce_into: bad input throws algo::error and writes nothing", "[cuda][reduce][default]") {
  const std::vector<int> h = random_vector<int>(1000, 77);
  device_buffer<int> in(h);
  device_buffer<int> out(1);
  int* null = nullptr;
  std::vector<int> pageable(1, 0x5a5a5a5a);
  CHECK_THROWS_AS(algo::reduce_into(algo::cuda, in.begin(), in.end(), null, 0, algo::plus<>{}), algo::error);
  CHECK_THROWS_AS(algo::reduce_into(algo::cuda, in.end(), in.begin(), out.begin(), 0, algo::plus<>{}), algo::error);
  CHECK_THROWS_AS(algo::reduce_into(algo::cuda, null, null + 5, out.begin(), 0, algo::plus<>{}), algo::error);
  CHECK_THROWS_AS(algo::transform_reduce_into(algo::cuda, in.begin(), in.end(), null, out.begin(), 0), algo::error);
  int dev = 0, pageable_ok = 0;
  require_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  require_cuda(cudaDeviceGetAttribute(&pageable_ok, cudaDevAttrPageableMemoryAccess, dev), "cudaDeviceGetAttribute");
  if (!pageable_ok) {
    CHECK_THROWS_AS(algo::reduce_into(algo::cuda, in.begin(), in.end(), pageable.data(), 0, algo::plus<>{}), algo::error);
    CHECK(pageable[0] == 0x5a5a5a5a);
  }
  require_device_ok("after the bad calls");
  CHECK(out.untouched());
  SECTION("an empty range writes init") {
    algo::reduce_into(algo::cuda, in.begin(), in.begin(), out.begin(), 1234, algo::plus<>{});
    CHECK(out.download()[0] == 1234);
    algo::reduce_into(algo::cuda, in.begin(), in.begin(), out.begin(), 4321, take_right{});
    CHECK(out.download()[0] == 4321);
  }
}

TEST_CASE("cub reduce_into: pointers and fancy outputs, commutative and not, empty ranges", "[cub][reduce][default]") {
  // algo::cub's reduce_into (the baseline's device-result form), next to the in-house one.
  const std::vector<mat2i> hm = random_vector<mat2i>(100003, 91);
  const std::vector<float> hf = random_vector<float>(100003, 92);
  device_buffer<mat2i> m(hm);
  device_buffer<float> f(hf);
  device_buffer<mat2i> mo(1);
  device_buffer<float> fo(1);
  const mat2i one{1, 0, 0, 1};
  test_stream s;
  require_device_ok("setup");
  algo::reduce_into(algo::cub.on(s.get()), m.begin(), m.end(), mo.begin(), one, mat2_mul{});
  algo::reduce_into(algo::cub.on(s.get()), f.begin(), f.end(), fo.begin(), 0.25f, algo::plus<>{});
  s.sync();
  CHECK(mo.download()[0] == ref_fold(hm, one, mat2_mul{}));
  double scale = 0.25;
  for (float x : hf) scale += std::fabs(x);
  expect_value("cub reduce_into float", fo.download()[0], static_cast<float>(ref_fold(hf, 0.25, algo::plus<>{})), scale,
               static_cast<std::int64_t>(hf.size()));
  CHECK(mo.guard_intact());
  algo::reduce_into(algo::cub, m.begin(), m.begin(), mo.begin(), hm[5], mat2_mul{});  // empty, non-commutative
  CHECK(mo.download()[0] == hm[5]);
  algo::reduce_into(algo::cub, f.begin(), f.begin(), fo.begin(), 4.5f, algo::plus<>{});  // empty, commutative
  CHECK(fo.download()[0] == 4.5f);
  algo::reduce_into(algo::cub, m.begin(), m.end(), thrust::device_pointer_cast(mo.begin()), one, mat2_mul{});  // a fancy output
  CHECK(mo.download()[0] == ref_fold(hm, one, mat2_mul{}));
  algo::reduce_into(algo::cuda, m.begin(), m.begin(), thrust::device_pointer_cast(mo.begin()), hm[7], mat2_mul{});
  CHECK(mo.download()[0] == hm[7]);
}

TEST_CASE("cuda reduces past 2^31 elements", "[cuda][reduce][default][large]") {
  SECTION("2^31 + 17 uint8 in device memory, int64 accumulator (16-byte loads)") {
    const std::int64_t n = (std::int64_t(1) << 31) + 17;
    std::uint8_t* d = nullptr;
    require_cuda(cudaMalloc(&d, static_cast<std::size_t>(n)), "cudaMalloc 2 GiB");
    std::unique_ptr<std::uint8_t, decltype(&cudaFree)> guard(d, &cudaFree);
    auto gen = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), cyclic_byte{});
    thrust::copy(thrust::device, gen, gen + n, d);
    require_device_ok("fill");
    CHECK(algo::reduce(algo::cuda, d, d + n, std::int64_t{7}) == 7 + cyclic_sum(n));
    CHECK(algo::reduce(algo::cuda.with(algo::warp_phase::smem), d + 1, d + n, std::int64_t{0}) == cyclic_sum(n) - 1);
    CHECK(algo::reduce(algo::cuda.with(algo::reduce_strategy::two_pass), d, d + n, std::int64_t{0}) == cyclic_sum(n));
  }
  SECTION("2^32 + 5 elements of a fancy iterator (element-wise loads)") {
    const std::int64_t n = (std::int64_t(1) << 32) + 5;
    auto gen = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), cyclic_byte{});
    CHECK(algo::reduce(algo::cuda, gen, gen + n, std::int64_t{0}) == cyclic_sum(n));
    CHECK(algo::reduce(algo::cuda, thrust::counting_iterator<std::int64_t>(1), thrust::counting_iterator<std::int64_t>(n + 1),
                       std::int64_t{0}, take_right{}) == n);
  }
}
