// The selection family (<algo/select.hpp>) on algo::cuda's own kernel (single-pass look-back,
// detail/cuda/select/): every call against thrust::device and host references
// (test/device/select_checks.cuh); [large]: past 2^31 elements.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "select_checks.cuh"

TEST_CASE("cuda copy_if, remove_copy_if, count_if, the *_into forms, stencils", "[cuda][select]") {
  sel_test::check_copy_if(algo::cuda);
}
TEST_CASE("cuda selection in place: remove_if, remove, copy_if onto first, unique", "[cuda][select][inplace]") {
  sel_test::check_in_place(algo::cuda);
}
TEST_CASE("cuda partition_copy, stable_partition_copy, partition, stable_partition", "[cuda][select][partition]") {
  sel_test::check_partition(algo::cuda);
}
TEST_CASE("cuda unique_copy, unique_count, unique_by_key, run_length_encode", "[cuda][select][unique]") {
  sel_test::check_unique(algo::cuda);
}
TEST_CASE("cuda run_length_encode (runs across tiles, in place, converted counts) and the *_into forms",
          "[cuda][select][runs]") {
  sel_test::check_runs(algo::cuda);
}
TEST_CASE("cuda selection: 16-byte struct, fancy iterators, stateful predicate", "[cuda][select][fancy]") {
  sel_test::check_fancy(algo::cuda);
}
TEST_CASE("cuda copy_if of a type that is not trivially copyable", "[cuda][select][types]") {
  sel_test::check_non_trivial(algo::cuda, 1 << 20);
}
TEST_CASE("cuda copy_if with the Kogge-Stone block scan and shared-memory warp scans", "[cuda][select][variants]") {
  sel_test::check_variant(algo::cuda.with(algo::block_scan::kogge_stone).with(algo::warp_phase::smem));
  sel_test::check_variant(algo::cuda.with(algo::block_scan::brent_kung));
}
TEST_CASE("cuda selection under graph capture", "[cuda][select][graph]") { sel_test::check_graph(algo::cuda); }
TEST_CASE("cuda selection: bad input raises algo::error", "[cuda][select][errors]") { sel_test::check_errors(algo::cuda); }
TEST_CASE("cuda copy_if and count past 2^31 elements", "[cuda][select][large]") { sel_test::check_large(algo::cuda); }
