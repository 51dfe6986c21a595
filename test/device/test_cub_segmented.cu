// The segmented and by-key algorithms on algo::cub (CUB's *ByKey scans, ReduceByKey for plain
// equality, DeviceSegmentedReduce for commutative operators; the lifted scan on CUB's scan
// otherwise): every overload against the host reference, int32 (CUB's primitives: 4 bytes, plus,
// plain equality) and mat2i (non-commutative: the order-keeping lifted paths); fancy iterators,
// device_vector, uniform_offsets, a custom key_equal, accumulator types (uint8 -> int32, float
// values with a double init, int32 with an int64 init), in place, bad input; [large]: past 2^31
// elements (test/device/segmented_checks.cuh). No bitwise check: CUB's scans are not reproducible.
// Left out, as they add no path of algo::cub: float values (the same CUB primitives as int32;
// algo::cub has no floating-point case; float sums stay in check_accumulators) and the comparison
// with thrust::*_by_key(thrust::device) (CUB's same by-key algorithms; those thrust calls are
// compiled and compared with algo::cuda in test_cuda_segmented.cu; the host reference is exact here).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "segmented_checks.cuh"

#include <functional>

// ReduceByKey compares raw keys with ==: only equality on the key type itself (or transparent) may
// go to it; equal_to<int> on double keys converts first and must take the lifted path.
namespace cb = algo::detail::cub_backend;
static_assert(cb::is_plain_equal_v<algo::equal_to<>, int> && cb::is_plain_equal_v<algo::equal_to<int>, int>, "");
static_assert(cb::is_plain_equal_v<std::equal_to<>, double> && cb::is_plain_equal_v<thrust::equal_to<long>, long>, "");
static_assert(cb::is_plain_equal_v<cuda::std::equal_to<double>, double>, "");
static_assert(!cb::is_plain_equal_v<algo::equal_to<int>, double> && !cb::is_plain_equal_v<std::equal_to<int>, double>, "");
static_assert(!cb::is_plain_equal_v<algo::plus<>, int>, "");

TEST_CASE("cub scans by key and reduce_by_key: int32", "[cub][segmented][by_key]") {
  seg_test::check_by_key<false, false, std::int32_t>(algo::cub);
}
TEST_CASE("cub scans by key and reduce_by_key: mat2i (non-commutative)", "[cub][segmented][by_key]") {
  seg_test::check_by_key<false, false, algo_test::mat2i>(algo::cub);
}
TEST_CASE("cub segmented reduce and scans: int32", "[cub][segmented][offsets]") {
  seg_test::check_segmented<false, std::int32_t>(algo::cub);
}
TEST_CASE("cub segmented reduce and scans: mat2i (non-commutative)", "[cub][segmented][offsets]") {
  seg_test::check_segmented<false, algo_test::mat2i>(algo::cub);
}
TEST_CASE("cub segmented: fancy iterators, uniform_offsets, device_vector", "[cub][segmented][fancy]") {
  seg_test::check_fancy(algo::cub);
}
TEST_CASE("cub segmented: keys equal modulo 10", "[cub][segmented][key_equal]") { seg_test::check_key_equal(algo::cub); }
TEST_CASE("cub segmented: accumulator types", "[cub][segmented][types]") { seg_test::check_accumulators(algo::cub); }
TEST_CASE("cub segmented: in place", "[cub][segmented][inplace]") { seg_test::check_in_place(algo::cub); }
TEST_CASE("cub reduce_by_key_into under CUDA graph capture", "[cub][segmented][graph]") {
  seg_test::check_reduce_by_key_graph(algo::cub);
}
TEST_CASE("cub segmented: bad input raises algo::error, nothing written", "[cub][segmented][errors]") {
  seg_test::check_bad_input(algo::cub);
}
TEST_CASE("cub inclusive_scan_by_key and segmented_reduce past 2^31 elements", "[cub][segmented][large]") {
  seg_test::check_large_scan_by_key(algo::cub);
  seg_test::check_large_segmented_reduce(algo::cub);
}
