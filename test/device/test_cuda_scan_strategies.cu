// algo::cuda scans with the two_level, reduce_then_scan and scan_then_fan strategies: both warp
// phases (the value types of each: test_cuda_scan_checks.cuh) at sizes around their tiles; the full
// overload / iterator / stream battery (device_checks.cuh) for int32 (fancy iterators in and out,
// discard output); and the block and warp layers used on their own in a user kernel. One
// translation unit for the three (test/COMPILE_TIMES.md: nvcc's fixed cost per unit); the look-backs
// have their own.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

// ==== two_level =====================================================================================
namespace two_level_policies {
const auto shfl = algo::cuda.with(algo::scan_strategy::two_level);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace two_level_policies

TEST_CASE("cuda scans: two_level, shuffle warp phase", "[cuda][scan][two_level]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(two_level_policies::shfl, false);
}
TEST_CASE("cuda scans: two_level, shared-memory warp phase", "[cuda][scan][two_level]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(two_level_policies::smem, false);
}
TEST_CASE("cuda scans: two_level, every overload and iterator kind (int32)", "[cuda][scan][two_level]") {
  check_scans<std::int32_t>(two_level_policies::shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}

// ==== reduce_then_scan ==============================================================================
namespace reduce_then_scan_policies {
const auto shfl = algo::cuda.with(algo::scan_strategy::reduce_then_scan);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace reduce_then_scan_policies

TEST_CASE("cuda scans: reduce_then_scan, shuffle warp phase", "[cuda][scan][reduce_then_scan]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(reduce_then_scan_policies::shfl, true);
}
TEST_CASE("cuda scans: reduce_then_scan, shared-memory warp phase", "[cuda][scan][reduce_then_scan]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(reduce_then_scan_policies::smem, true);
}
TEST_CASE("cuda scans: reduce_then_scan, every overload and iterator kind (int32)", "[cuda][scan][reduce_then_scan]") {
  check_scans<std::int32_t>(reduce_then_scan_policies::shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}

// ==== scan_then_fan =================================================================================
namespace scan_then_fan_policies {
const auto shfl = algo::cuda.with(algo::scan_strategy::scan_then_fan);
const auto smem = shfl.with(algo::warp_phase::smem);
}  // namespace scan_then_fan_policies

TEST_CASE("cuda scans: scan_then_fan, shuffle warp phase", "[cuda][scan][scan_then_fan]") {
  check_strategy<std::int32_t, std::uint8_t, float, double, affine_i, big32>(scan_then_fan_policies::shfl, true);
}
TEST_CASE("cuda scans: scan_then_fan, shared-memory warp phase", "[cuda][scan][scan_then_fan]") {
  check_strategy<std::int32_t, std::uint8_t, affine_i, big32>(scan_then_fan_policies::smem, true);
}
TEST_CASE("cuda scans: scan_then_fan, every overload and iterator kind (int32)", "[cuda][scan][scan_then_fan]") {
  check_scans<std::int32_t>(scan_then_fan_policies::shfl, cuda_scan_test::for_this_run(device_sizes({3072})));
}

// ---- the block and warp layers on their own, inside a user kernel ---------------------------------
namespace {
template <class Phase>
__global__ void user_block_scan_kernel(const affine_i* in, affine_i* inclusive, affine_i* exclusive, affine_i init) {
  using scan_t = algo::detail::cuda::block_scan<affine_i, 128, Phase>;
  __shared__ typename scan_t::temp_storage tmp;
  affine_i a[3], b[3];
  for (int i = 0; i < 3; ++i) a[i] = b[i] = in[threadIdx.x * 3 + i];
  scan_t(tmp).inclusive_scan(a, compose_affine_i{});
  __syncthreads();  // the storage is reused
  scan_t(tmp).exclusive_scan(b, init, compose_affine_i{});
  for (int i = 0; i < 3; ++i) {
    inclusive[threadIdx.x * 3 + i] = a[i];
    exclusive[threadIdx.x * 3 + i] = b[i];
  }
}
template <class Phase>
__global__ void user_warp_scan_kernel(const affine_i* in, affine_i* inclusive) {
  using scan_t = algo::detail::cuda::warp_scan<affine_i, Phase>;
  __shared__ typename scan_t::temp_storage tmp[2];
  const int w = threadIdx.x / 32;
  inclusive[threadIdx.x] = scan_t(tmp[w]).inclusive(in[threadIdx.x], compose_affine_i{});
}
template <class Phase>
void check_layers() {
  const std::vector<affine_i> h = random_vector<affine_i>(384, 3);
  const affine_i init = random_scalar<affine_i>(4);
  device_buffer<affine_i> in(h), incl(384), excl(384), warp(64);
  user_block_scan_kernel<Phase><<<1, 128>>>(in.begin(), incl.begin(), excl.begin(), init);
  user_warp_scan_kernel<Phase><<<1, 64>>>(in.begin(), warp.begin());
  require_device_ok("user kernels");
  expect_equal("block_scan inclusive_scan", incl.download(), ref_inclusive_scan<affine_i>(h, compose_affine_i{}));
  expect_equal("block_scan exclusive_scan", excl.download(), ref_exclusive_scan<affine_i>(h, init, compose_affine_i{}));
  const std::vector<affine_i> first(h.begin(), h.begin() + 32), second(h.begin() + 32, h.begin() + 64);
  auto want = ref_inclusive_scan<affine_i>(first, compose_affine_i{});
  const auto want2 = ref_inclusive_scan<affine_i>(second, compose_affine_i{});
  want.insert(want.end(), want2.begin(), want2.end());
  expect_equal("warp_scan inclusive (two warps)", warp.download(), want);
}
}  // namespace

TEST_CASE("cuda scan layers: block_scan and warp_scan in a user kernel", "[cuda][scan][layers]") {
  SECTION("shuffle warp phase") { check_layers<algo::warp_phase::shfl_t>(); }
  SECTION("shared-memory warp phase") { check_layers<algo::warp_phase::smem_t>(); }
}
