// The segmented and by-key algorithms (<algo/segmented.hpp>) on the default algo::cuda policy:
// every overload against the host reference and thrust::*_by_key(thrust::device), sizes around the
// tiles, every segment layout; int32, float (results run twice agree bit for bit: the default is
// deterministic for floating point), double (bit for bit too), mat2i (non-commutative); fancy
// iterators, device_vector storage, uniform_offsets, a custom key_equal, accumulator types, in
// place, bad input; [large]: past 2^31 elements (test/device/segmented_checks.cuh).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "segmented_checks.cuh"

TEST_CASE("cuda scans by key and reduce_by_key: int32", "[cuda][segmented][by_key]") {
  seg_test::check_by_key<true, false, std::int32_t>(algo::cuda);
}
TEST_CASE("cuda scans by key and reduce_by_key: float, bitwise reproducible", "[cuda][segmented][by_key][float]") {
  seg_test::check_by_key<true, true, float>(algo::cuda);
}
TEST_CASE("cuda scans by key and reduce_by_key: double, bitwise reproducible", "[cuda][segmented][by_key][float]") {
  seg_test::check_by_key<false, true, double>(algo::cuda);
}
TEST_CASE("cuda scans by key and reduce_by_key: mat2i (non-commutative)", "[cuda][segmented][by_key]") {
  seg_test::check_by_key<true, false, algo_test::mat2i>(algo::cuda);
}
TEST_CASE("cuda segmented reduce and scans: int32", "[cuda][segmented][offsets]") {
  seg_test::check_segmented<false, std::int32_t>(algo::cuda);
}
TEST_CASE("cuda segmented reduce and scans: float, bitwise reproducible", "[cuda][segmented][offsets][float]") {
  seg_test::check_segmented<true, float>(algo::cuda);
}
TEST_CASE("cuda segmented reduce and scans: mat2i (non-commutative)", "[cuda][segmented][offsets]") {
  seg_test::check_segmented<false, algo_test::mat2i>(algo::cuda);
}
TEST_CASE("cuda segmented: fancy iterators, uniform_offsets, device_vector", "[cuda][segmented][fancy]") {
  seg_test::check_fancy(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: long uniform segments (block per segment)", "[cuda][segmented][long]") {
  seg_test::check_long_uniform(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: short and middling uniform segments (a group of lanes a segment)",
          "[cuda][segmented][uniform]") {
  seg_test::check_short_uniform(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: the group-of-lanes fold, bit for bit against its host emulation",
          "[cuda][segmented][uniform]") {
  seg_test::check_groups_fold_bits();
}
TEST_CASE("cuda segmented_reduce: offsets in memory of one short length (the uniform kernels)",
          "[cuda][segmented][uniform][offsets]") {
  seg_test::check_uniform_in_memory(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: long segments, offsets in memory (block per segment)", "[cuda][segmented][long]") {
  seg_test::check_long_in_memory(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: a long segment folded as reduce folds it, bit for bit", "[cuda][segmented][long]") {
  seg_test::check_long_matches_reduce(algo::cuda);
  // the warps' folds in volatile shared memory instead of shuffles (the same tree)
  seg_test::check_long_matches_reduce(algo::cuda.with(algo::warp_phase::smem));
}
TEST_CASE("cuda segmented_reduce: long segments in memory, many a block (results held before the verdict)",
          "[cuda][segmented][long]") {
  seg_test::check_long_many_per_block(algo::cuda);
}
TEST_CASE("cuda segmented: offsets in memory (heads mask, or uniform from the check), the check in the block-per-segment kernel", "[cuda][segmented][offsets]") {
  seg_test::check_offsets_in_memory(algo::cuda);
}
TEST_CASE("cuda segmented: keys equal modulo 10", "[cuda][segmented][key_equal]") { seg_test::check_key_equal(algo::cuda); }
TEST_CASE("cuda segmented: accumulator types", "[cuda][segmented][types]") { seg_test::check_accumulators(algo::cuda); }
TEST_CASE("cuda segmented: in place", "[cuda][segmented][inplace]") { seg_test::check_in_place(algo::cuda); }
TEST_CASE("cuda reduce_by_key_into under CUDA graph capture", "[cuda][segmented][graph]") {
  seg_test::check_reduce_by_key_graph(algo::cuda);
}
TEST_CASE("cuda segmented: bad input raises algo::error, nothing written", "[cuda][segmented][errors]") {
  seg_test::check_bad_input(algo::cuda);
}
TEST_CASE("cuda inclusive_scan_by_key and segmented_reduce past 2^31 elements", "[cuda][segmented][large]") {
  seg_test::check_large_scan_by_key(algo::cuda);
  seg_test::check_large_segmented_reduce(algo::cuda);
}
TEST_CASE("cuda segmented_reduce: the deferred kernel's length test before the verdict never refuses a segment a "
          "good verdict folds",
          "[cuda][segmented][long][offsets]") {
  // (host logic: length_may_suit, a division-free necessary condition of suits; refusing a segment
  // that a good verdict allows would leave its result unwritten)
  namespace sb = algo::detail::segmented::segment_blocks;
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  long long allowed = 0, refused_unsuited = 0;
  for (int it = 0; it < 400000; ++it) {
    const long long S = 1 + static_cast<long long>(next() % (it % 3 == 0 ? 100000ull : (1ull << 32)));
    const long long n = static_cast<long long>(next() % (1ull << (1 + next() % 62)));
    long long longest = static_cast<long long>(next() % (static_cast<unsigned long long>(n) + 1));
    if (it % 4 == 0 && n / S > 0) longest = sb::max_skew * (n / S) - static_cast<long long>(next() % 3);  // the edge
    if (longest < 0) longest = 0;
    const long long some = static_cast<long long>(next() % (static_cast<unsigned long long>(longest) + 1));
    if (sb::suits(S, n, longest, 1)) {
      ++allowed;
      INFO("S " << S << ", n " << n << ", longest " << longest << ", a segment of " << some);
      REQUIRE(sb::length_may_suit(longest, n, S));
      REQUIRE(sb::length_may_suit(some, n, S));
      REQUIRE(sb::length_may_suit(0, n, S));
    } else if (!sb::length_may_suit(longest, n, S)) {
      ++refused_unsuited;
    }
    if (n / S >= sb::min_mean) {  // one element past max_skew means: refused
      INFO("S " << S << ", n " << n);
      REQUIRE_FALSE(sb::length_may_suit(sb::max_skew * (n / S) + 1, n, S));
    }
  }
  CHECK(allowed > 1000);
  CHECK(refused_unsuited > 1000);
}
