// The segmented and by-key algorithms on two other algo::cuda scan strategies (each runs the
// lifted segmented scan on its own kernels): reduce_then_scan (reads its input twice: in place is
// a real hazard) and deterministic_lookback; float results run twice agree bit for bit on both.
// Against the host reference (test/device/segmented_checks.cuh; test_cuda_segmented.cu compares the
// default policy with Thrust).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "segmented_checks.cuh"

namespace {
const auto reduce_then_scan = algo::cuda.with(algo::scan_strategy::reduce_then_scan);
const auto deterministic = algo::cuda.with(algo::scan_strategy::deterministic_lookback);
}  // namespace

TEST_CASE("cuda reduce_then_scan: scans by key and reduce_by_key", "[cuda][segmented][by_key][reduce_then_scan]") {
  seg_test::check_by_key<false, true, std::int32_t, float, algo_test::mat2i>(reduce_then_scan);
}
TEST_CASE("cuda reduce_then_scan: segmented reduce and scans", "[cuda][segmented][offsets][reduce_then_scan]") {
  seg_test::check_segmented<true, float, algo_test::mat2i>(reduce_then_scan);
}
TEST_CASE("cuda reduce_then_scan: in place", "[cuda][segmented][inplace][reduce_then_scan]") {
  seg_test::check_in_place(reduce_then_scan);
}
TEST_CASE("cuda deterministic_lookback: scans by key and reduce_by_key", "[cuda][segmented][by_key][deterministic]") {
  seg_test::check_by_key<false, true, std::int32_t, float, algo_test::mat2i>(deterministic);
}
TEST_CASE("cuda deterministic_lookback: segmented reduce and scans", "[cuda][segmented][offsets][deterministic]") {
  seg_test::check_segmented<true, float, algo_test::mat2i>(deterministic);
}
TEST_CASE("cuda deterministic_lookback: in place", "[cuda][segmented][inplace][deterministic]") {
  seg_test::check_in_place(deterministic);
}
