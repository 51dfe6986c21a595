// The segmented and by-key algorithms on algo::cuda's ordered_lookback strategy (it runs the
// lifted segmented scan on its own kernels; float results run twice agree bit for bit), and the
// default policy's keyed float scans, which run it, 20 times bit for bit.
// Split by strategy (test_cuda_segmented_reduce_then_scan.cu, _deterministic.cu, _ordered.cu: one
// unit was the GPU machine's longest compile, ~240 s of one core). Against the host reference
// (test/device/segmented_checks.cuh; test_cuda_segmented.cu compares the default policy with
// Thrust).
#include <algo/algo.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "segmented_checks.cuh"

namespace {
const auto ordered = algo::cuda.with(algo::scan_strategy::ordered_lookback);
}  // namespace

TEST_CASE("cuda ordered_lookback: scans by key and reduce_by_key", "[cuda][segmented][by_key][ordered]") {
  seg_test::check_by_key<false, true, std::int32_t, float, algo_test::mat2i>(ordered);
}
TEST_CASE("cuda ordered_lookback: segmented reduce and scans", "[cuda][segmented][offsets][ordered]") {
  seg_test::check_segmented<true, float, algo_test::mat2i>(ordered);
}
TEST_CASE("cuda ordered_lookback: in place", "[cuda][segmented][inplace][ordered]") {
  seg_test::check_in_place(ordered);
}

// The default policy's floating-point keyed scans and reduce_by_key run the ordered look-back: 20
// runs at 2^22 + 5 elements (runs of 3, of ~1000 and of 2^18 keys: heads in every tile, in some, in
// few), float and double values (double: tiles of 128 x 8 (value, head) pairs, 16 bytes each, where
// float's are 256 x 32), every run bitwise equal to the first and within rounding of a host fold in
// a wider type (double for float, long double for double; relative to the sum of the magnitudes
// folded).
namespace {
template <class V>
void check_default_keyed_runs(double tolerance) {
  using algo_test::device_buffer;
  using W = std::conditional_t<std::is_same<V, float>::value, double, long double>;
  const std::int64_t n = algo_test::small_run() ? 20000 : (1 << 22) + 5;
  for (const std::int64_t run : {std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 18}) {
    INFO("values " << algo_test::type_name_v<V> << ", run length " << run << ", n = " << n);
    std::vector<std::int32_t> h_k(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h_k[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i / run);
    const std::vector<V> h_v = algo_test::random_vector<V>(static_cast<std::size_t>(n), 77 + run + sizeof(V));
    device_buffer<std::int32_t> k(h_k), ko(h_k.size());
    device_buffer<V> v(h_v), out(h_v.size());
    device_buffer<long long> count(1);
    std::vector<V> first_scan, first_sums;
    int differing = 0;
    for (int r = 0; r < 20; ++r) {
      algo::inclusive_scan_by_key(algo::cuda, k.begin(), k.end(), v.begin(), out.begin());
      std::vector<V> s = out.download();
      algo::reduce_by_key_into(algo::cuda, k.begin(), k.end(), v.begin(), ko.begin(), out.begin(), count.begin());
      const long long runs = count.download()[0];
      REQUIRE(runs == (n + run - 1) / run);
      std::vector<V> sums = out.download();
      sums.resize(static_cast<std::size_t>(runs));
      if (r == 0) {
        first_scan = std::move(s);
        first_sums = std::move(sums);
        // within rounding of a wider fold of each run
        W acc = 0, mag = 0;
        double worst = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          if (i % run == 0) acc = mag = 0;
          acc += static_cast<W>(h_v[static_cast<std::size_t>(i)]);
          mag += std::fabs(static_cast<W>(h_v[static_cast<std::size_t>(i)]));
          const double err =
              static_cast<double>(std::fabs(static_cast<W>(first_scan[static_cast<std::size_t>(i)]) - acc) / (1 + mag));
          worst = err > worst ? err : worst;
          if ((i + 1) % run == 0 || i + 1 == n) {
            const double e2 =
                static_cast<double>(std::fabs(static_cast<W>(first_sums[static_cast<std::size_t>(i / run)]) - acc) / (1 + mag));
            worst = e2 > worst ? e2 : worst;
          }
        }
        INFO("worst relative error " << worst);
        CHECK(worst < tolerance);
      } else {
        differing += !seg_test::same_bits(s, first_scan) || !seg_test::same_bits(sums, first_sums);
      }
    }
    INFO("runs 1..19 that differ from run 0 in any bit: " << differing);
    CHECK(differing == 0);
  }
}
}  // namespace

TEST_CASE("cuda default keyed float scans and reduce_by_key (ordered look-back): 20 runs bit for bit",
          "[cuda][segmented][by_key][ordered]") {
  check_default_keyed_runs<float>(1e-4);
}
TEST_CASE("cuda default keyed double scans and reduce_by_key (ordered look-back): 20 runs bit for bit",
          "[cuda][segmented][by_key][ordered]") {
  check_default_keyed_runs<double>(1e-10);
}
