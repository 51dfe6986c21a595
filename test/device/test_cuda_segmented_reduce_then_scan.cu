// The segmented and by-key algorithms on algo::cuda's reduce_then_scan strategy (it runs the
// lifted segmented scan on its own kernels and reads its input twice: in place is a real hazard).
// Split by strategy (test_cuda_segmented_reduce_then_scan.cu, _deterministic.cu, _ordered.cu: one
// unit was the GPU machine's longest compile, ~240 s of one core). Against the host reference
// (test/device/segmented_checks.cuh; test_cuda_segmented.cu compares the default policy with
// Thrust).
#include <algo/algo.hpp>

#include <cstdint>

#include "catch.hpp"
#include "segmented_checks.cuh"

namespace {
const auto reduce_then_scan = algo::cuda.with(algo::scan_strategy::reduce_then_scan);
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
