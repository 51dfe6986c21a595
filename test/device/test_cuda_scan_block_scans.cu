// algo::cuda scans with the block scans of seed 001 (algo::block_scan::kogge_stone and
// algo::block_scan::brent_kung) in place of the default warp scans + spine:
//   - under the decoupled look-back (the default strategy) and reduce-then-scan (a multi-pass
//     strategy whose spine recurses): int32, float, affine_i (non-commutative) and big32
//     (32 bytes, non-commutative) at sizes around each type's tiles (check_strategy), and the full
//     overload / iterator / stream battery (check_scans);
//   - scan_then_fan and two_level with affine_i: every strategy runs with every block scan;
//   - the look-back with 256-thread tiles (the other thread count the tunings use);
//   - the block scans on their own in a user kernel at 32..1024 threads, powers of two and not,
//     one and two shared-memory buffers (Kogge-Stone), as block_scan is in test_cuda_scan_strategies.cu.
#include <algo/algo.hpp>

#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_cuda_scan_checks.cuh"

using namespace algo_test;
using cuda_scan_test::check_strategy;

namespace {
const auto ks = algo::cuda.with(algo::block_scan::kogge_stone);  // decoupled look-back (default)
const auto bk = algo::cuda.with(algo::block_scan::brent_kung);
const auto ks_rts = ks.with(algo::scan_strategy::reduce_then_scan);
const auto bk_rts = bk.with(algo::scan_strategy::reduce_then_scan);

template <class P>
using policy_t = std::decay_t<P>;
static_assert(std::is_same<policy_t<decltype(ks)>::block_scan, algo::block_scan::kogge_stone_t>::value,
              "with(block_scan tag)");
static_assert(std::is_same<policy_t<decltype(ks)>::scan_strategy, algo::scan_strategy::automatic_t>::value,
              "with(block_scan tag) keeps the strategy");
static_assert(std::is_same<policy_t<decltype(bk_rts)>::block_scan, algo::block_scan::brent_kung_t>::value,
              "with(strategy) keeps the block scan");
static_assert(std::is_same<policy_t<decltype(algo::cuda)>::block_scan, algo::block_scan::warp_scans_t>::value,
              "warp_scans is the default");

/// Tiles of each type (128 threads): int32 / float 4096, affine_i 2048, big32 512.
std::vector<std::int64_t> battery_sizes() { return cuda_scan_test::for_this_run(device_sizes({512, 2048, 4096})); }
}  // namespace

// ---- decoupled look-back -----------------------------------------------------------------------------
TEST_CASE("cuda scans: decoupled look-back, Kogge-Stone block scan", "[cuda][scan][block_scan][lookback]") {
  check_strategy<std::int32_t, float, affine_i, big32>(ks, false);
}
TEST_CASE("cuda scans: decoupled look-back, Brent-Kung block scan", "[cuda][scan][block_scan][lookback]") {
  check_strategy<std::int32_t, float, affine_i, big32>(bk, false);
}
TEST_CASE("cuda scans: decoupled look-back, Kogge-Stone block scan, every overload and iterator kind",
          "[cuda][scan][block_scan][lookback]") {
  check_scans<std::int32_t, float, affine_i, big32>(ks, battery_sizes());
}
TEST_CASE("cuda scans: decoupled look-back, Brent-Kung block scan, every overload and iterator kind",
          "[cuda][scan][block_scan][lookback]") {
  check_scans<std::int32_t, float, affine_i, big32>(bk, battery_sizes());
}

// ---- reduce-then-scan (recursive spine) --------------------------------------------------------------
TEST_CASE("cuda scans: reduce_then_scan, Kogge-Stone block scan", "[cuda][scan][block_scan][reduce_then_scan]") {
  check_strategy<std::int32_t, float, affine_i, big32>(ks_rts, true);
}
TEST_CASE("cuda scans: reduce_then_scan, Brent-Kung block scan", "[cuda][scan][block_scan][reduce_then_scan]") {
  check_strategy<std::int32_t, float, affine_i, big32>(bk_rts, true);
}

// ---- the other strategies ----------------------------------------------------------------------------
TEST_CASE("cuda scans: scan_then_fan and two_level with the Kogge-Stone and Brent-Kung block scans",
          "[cuda][scan][block_scan]") {
  check_strategy<affine_i>(ks.with(algo::scan_strategy::scan_then_fan), true);
  check_strategy<affine_i>(bk.with(algo::scan_strategy::scan_then_fan), true);
  check_strategy<affine_i>(ks.with(algo::scan_strategy::two_level), false);
  check_strategy<affine_i>(bk.with(algo::scan_strategy::two_level), false);
}

// ---- 256-thread tiles ------------------------------------------------------------------------------------
namespace {
struct t256 : algo::detail::cuda::scan_tuning_base {
  static constexpr int threads = 256;
};

/// The look-back with 256-thread tiles and the block scan `Block`.
template <class Block, class T, class Op>
void check_t256(std::int64_t n, bool exclusive, Op op, std::uint64_t seed) {
  cuda_scan_test::check_lookback_tuned<Block, t256, T>("look-back with 256-thread tiles", n, exclusive, op, seed);
}
}  // namespace

TEST_CASE("cuda scans: look-back with 256-thread tiles, Kogge-Stone and Brent-Kung block scans",
          "[cuda][scan][block_scan][lookback]") {
  // affine_i: 16 items a thread, 4096 a tile at 256 threads.
  const std::vector<std::int64_t> ns = cuda_scan_test::small_run()
                                           ? std::vector<std::int64_t>{1, 4095, 4096, 4097, 3 * 4096 + 1}
                                           : std::vector<std::int64_t>{1, 4095, 4096, 4097, 3 * 4096 + 1, 70 * 4096 - 1,
                                                                       (1 << 20) + 7};
  std::uint64_t seed = 1700;
  for (std::int64_t n : ns) {
    for (bool exclusive : {false, true}) {
      check_t256<algo::block_scan::kogge_stone_t, affine_i>(n, exclusive, compose_affine_i{}, ++seed);
      check_t256<algo::block_scan::brent_kung_t, affine_i>(n, exclusive, compose_affine_i{}, ++seed);
    }
  }
}

// ---- the block scans on their own, inside a user kernel ---------------------------------------------------
namespace {
constexpr int user_items = 3;  // items per thread: not a power of two

template <class Scan, int Threads, class T, class Op>
__global__ void __launch_bounds__(Threads)
    user_block_scan_kernel(const T* in, T* inclusive, T* exclusive, T* aggregate, T init, Op op) {
  __shared__ typename Scan::temp_storage tmp;
  const int base = static_cast<int>(threadIdx.x) * user_items;
  T a[user_items], b[user_items];
  for (int i = 0; i < user_items; ++i) a[i] = b[i] = in[base + i];
  Scan(tmp).inclusive_scan(a, op);
  Scan(tmp).exclusive_scan(b, init, op);  // the storage is reused at once: no barrier in between
  const T total = Scan(tmp).reduce(in[base], op);
  for (int i = 0; i < user_items; ++i) {
    inclusive[base + i] = a[i];
    exclusive[base + i] = b[i];
  }
  aggregate[threadIdx.x] = total;
}

template <template <class, int> class Scan, int Threads, class T, class Op>
void check_user_kernel(std::uint64_t seed) {
  using scan_t = Scan<T, Threads>;
  INFO("block scan " << policy_name<scan_t>() << ", " << Threads << " threads");
  const int n = Threads * user_items;
  const std::vector<T> h = random_vector<T>(static_cast<std::size_t>(n), seed);
  const T init = random_scalar<T>(seed + 1);
  const Op op{};
  device_buffer<T> in(h), incl(static_cast<std::size_t>(n)), excl(static_cast<std::size_t>(n)),
      agg(static_cast<std::size_t>(Threads));
  user_block_scan_kernel<scan_t, Threads>
      <<<1, Threads>>>(in.begin(), incl.begin(), excl.begin(), agg.begin(), init, op);
  require_device_ok("user kernel");
  expect_equal("inclusive_scan", incl.download(), ref_inclusive_scan<T>(h, op));
  expect_equal("exclusive_scan", excl.download(), ref_exclusive_scan<T>(h, init, op));
  // reduce of each thread's first item: the same aggregate in every thread
  std::vector<T> firsts;
  for (int t = 0; t < Threads; ++t) firsts.push_back(h[static_cast<std::size_t>(t * user_items)]);
  const T total = ref_inclusive_scan<T>(firsts, op).back();
  expect_equal("reduce", agg.download(), std::vector<T>(static_cast<std::size_t>(Threads), total));
}

template <template <class, int> class Scan>
void check_user_kernels() {
  using affine_op = compose_affine_i;
  check_user_kernel<Scan, 32, affine_i, affine_op>(31);
  check_user_kernel<Scan, 96, affine_i, affine_op>(32);
  check_user_kernel<Scan, 128, affine_i, affine_op>(33);
  check_user_kernel<Scan, 160, affine_i, affine_op>(34);
  check_user_kernel<Scan, 256, affine_i, affine_op>(35);
  check_user_kernel<Scan, 1024, affine_i, affine_op>(36);  // Kogge-Stone: two buffers (16 KiB)
  check_user_kernel<Scan, 256, big32, big32_mul>(37);      // Kogge-Stone: two buffers (16 KiB)
  check_user_kernel<Scan, 1024, big32, big32_mul>(38);     // Kogge-Stone: one buffer (32 KiB), two barriers a step
}
}  // namespace

TEST_CASE("cuda scan layers: Kogge-Stone and Brent-Kung block scans in a user kernel",
          "[cuda][scan][block_scan][layers]") {
  SECTION("Kogge-Stone") { check_user_kernels<algo::detail::cuda::block_scan_kogge_stone>(); }
  SECTION("Brent-Kung") { check_user_kernels<algo::detail::cuda::block_scan_brent_kung>(); }
}
