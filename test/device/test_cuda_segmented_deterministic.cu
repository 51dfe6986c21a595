// The segmented and by-key algorithms on algo::cuda's deterministic_lookback strategy (it runs
// the lifted segmented scan on its own kernels; float results run twice agree bit for bit).
// Split by strategy (test_cuda_segmented_reduce_then_scan.cu, _deterministic.cu, _ordered.cu: one
// unit was the GPU machine's longest compile, ~240 s of one core). Against the host reference
// (test/device/segmented_checks.cuh; test_cuda_segmented.cu compares the default policy with
// Thrust).
#include <algo/algo.hpp>

#include <cstdint>

#include "catch.hpp"
#include "segmented_checks.cuh"

namespace {
const auto deterministic = algo::cuda.with(algo::scan_strategy::deterministic_lookback);
}  // namespace

TEST_CASE("cuda deterministic_lookback: scans by key and reduce_by_key", "[cuda][segmented][by_key][deterministic]") {
  seg_test::check_by_key<false, true, std::int32_t, float, algo_test::mat2i>(deterministic);
}
TEST_CASE("cuda deterministic_lookback: segmented reduce and scans", "[cuda][segmented][offsets][deterministic]") {
  seg_test::check_segmented<true, float, algo_test::mat2i>(deterministic);
}
TEST_CASE("cuda deterministic_lookback: in place", "[cuda][segmented][inplace][deterministic]") {
  seg_test::check_in_place(deterministic);
}
