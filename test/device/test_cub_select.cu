// The selection family (<algo/select.hpp>) on algo::cub (CUB's DeviceSelect, DevicePartition,
// DeviceRunLengthEncode: the baseline): every call against thrust::device and host references
// (test/device/select_checks.cuh); [large]: past 2^31 elements.
#include <algo/algo.hpp>

#include "catch.hpp"
#include "select_checks.cuh"

TEST_CASE("cub copy_if, remove_copy_if, count_if, the *_into forms, stencils", "[cub][select]") {
  sel_test::check_copy_if(algo::cub);
}
TEST_CASE("cub selection in place: remove_if, remove, copy_if onto first, unique", "[cub][select][inplace]") {
  sel_test::check_in_place(algo::cub);
}
TEST_CASE("cub partition_copy, stable_partition_copy, partition, stable_partition", "[cub][select][partition]") {
  sel_test::check_partition(algo::cub);
}
TEST_CASE("cub unique_copy, unique_count, unique_by_key, run_length_encode", "[cub][select][unique]") {
  sel_test::check_unique(algo::cub);
}
TEST_CASE("cub run_length_encode (runs across tiles, in place, converted counts) and the *_into forms",
          "[cub][select][runs]") {
  sel_test::check_runs(algo::cub);
}
TEST_CASE("cub selection: 16-byte struct, fancy iterators, stateful predicate", "[cub][select][fancy]") {
  sel_test::check_fancy(algo::cub);
}
TEST_CASE("cub copy_if of a type that is not trivially copyable", "[cub][select][types]") {
  sel_test::check_non_trivial(algo::cub, 10);
}
TEST_CASE("cub selection under graph capture", "[cub][select][graph]") { sel_test::check_graph(algo::cub); }
TEST_CASE("cub selection: bad input raises algo::error", "[cub][select][errors]") { sel_test::check_errors(algo::cub); }
TEST_CASE("cub copy_if and count past 2^31 elements", "[cub][select][large]") { sel_test::check_large(algo::cub); }
