// group_reduce / group_count on algo::cuda's default strategy (open_addressing) and on
// group_strategy::deterministic (test/device/group_checks.cuh): every key distribution and size
// against the unordered_map reference, growth past the first table, struct keys, key_equal modulo
// 10, group_count, empty and bad input; the deterministic float sums bit for bit against the
// correctly rounded sums, twice. Then each way the table combines values: native atomics (int32,
// int64, float plus), a compare-and-swap loop from an identity (float maximum), one without (a
// commutative user operator on int64), and a per-slot lock (a 12-byte accumulator).
#include <algo/algo.hpp>

#include "catch.hpp"
#include "group_checks.cuh"

namespace {
/// (a, b) -> a + b + a * b on int64 wrapped (commutative, associative): the cas combination.
struct mix_op {
  ALGO_HD long long operator()(long long a, long long b) const {
    return static_cast<long long>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b) +
                                  static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
  }
};
struct tri {
  int x, y, z;
};
struct tri_plus {
  ALGO_HD tri operator()(const tri& a, const tri& b) const { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
};
}  // namespace
template <>
struct algo::is_commutative<mix_op, long long> : std::true_type {};
template <>
struct algo::is_commutative<tri_plus, tri> : std::true_type {};

using namespace group_test;

TEST_CASE("cuda group_reduce: int32 sums", "[cuda][group]") { check_groups<std::int32_t>(algo::cuda, "cuda", false); }
TEST_CASE("cuda group_reduce: int64 sums", "[cuda][group]") { check_groups<std::int64_t>(algo::cuda, "cuda", false); }
TEST_CASE("cuda group_reduce: float sums", "[cuda][group][float]") { check_groups<float>(algo::cuda, "cuda", false); }
TEST_CASE("cuda group_reduce deterministic: float sums correctly rounded, bit for bit twice", "[cuda][group][float]") {
  check_groups<float>(algo::cuda.with(algo::group_strategy::deterministic), "cuda deterministic", true, true);
}
TEST_CASE("cuda group_reduce: growth past the first table", "[cuda][group][growth]") {
  check_growth<float>(algo::cuda, "cuda");
  check_growth<float>(algo::cuda.with(algo::group_strategy::deterministic), "cuda deterministic", true, true);
}
TEST_CASE("cuda group_reduce: struct keys, key_equal, group_count", "[cuda][group][struct]") {
  check_struct_keys(algo::cuda, "cuda");
}
TEST_CASE("cuda group_reduce: empty and bad input", "[cuda][group][errors]") { check_empty_and_errors(algo::cuda); }

TEST_CASE("cuda group_reduce: every way of combining (atomic, CAS with and without identity, lock)", "[cuda][group][combine]") {
  for (const std::int64_t n : {std::int64_t(4097), std::int64_t(300000)}) {
    for (const dist d : {dist::uniform, dist::skewed}) {
      INFO(dist_name(d, 2000) << ", n = " << n);
      const auto hk = make_keys(d, n, 2000, 9);
      const device_buffer<std::int32_t> keys(hk);
      // float maximum
      const auto hf = make_float_values(n, 3);
      const device_buffer<float> fv(hf);
      device_buffer<std::int32_t> ko(hk.size());
      device_buffer<float> fo(hk.size());
      auto m = algo::group_reduce(algo::cuda, keys.begin(), keys.end(), fv.begin(), ko.begin(), fo.begin(), algo::maximum<>{});
      const auto rf = ref_group_reduce<float>(hk, hf, algo::maximum<>{});
      REQUIRE(m == static_cast<std::int64_t>(rf.keys.size()));
      auto gf = fo.download();
      REQUIRE(std::vector<float>(gf.begin(), gf.begin() + m) == rf.values);
      // a user operator on int64
      std::vector<long long> hl(hk.size());
      for (std::size_t i = 0; i < hl.size(); ++i) hl[i] = static_cast<long long>(i % 13) - 6;
      const device_buffer<long long> lv(hl);
      device_buffer<long long> lo(hk.size());
      m = algo::group_reduce(algo::cuda, keys.begin(), keys.end(), lv.begin(), ko.begin(), lo.begin(), mix_op{});
      const auto rl = ref_group_reduce<long long>(hk, hl, mix_op{});
      REQUIRE(m == static_cast<std::int64_t>(rl.keys.size()));
      auto gl = lo.download();
      REQUIRE(std::vector<long long>(gl.begin(), gl.begin() + m) == rl.values);
      auto gk = ko.download();
      REQUIRE(std::vector<std::int32_t>(gk.begin(), gk.begin() + m) == rl.keys);
      // a 12-byte accumulator (per-slot lock)
      std::vector<tri> ht(hk.size());
      for (std::size_t i = 0; i < ht.size(); ++i) ht[i] = tri{1, static_cast<int>(i % 7), -static_cast<int>(i % 5)};
      const device_buffer<tri> tv(ht);
      device_buffer<tri> to(hk.size());
      m = algo::group_reduce(algo::cuda, keys.begin(), keys.end(), tv.begin(), ko.begin(), to.begin(), tri_plus{});
      const auto rt = ref_group_reduce<tri>(hk, ht, tri_plus{});
      REQUIRE(m == static_cast<std::int64_t>(rt.keys.size()));
      const auto gt = to.download();
      bool ok = true;
      for (std::size_t j = 0; j < static_cast<std::size_t>(m) && ok; ++j)
        ok = gt[j].x == rt.values[j].x && gt[j].y == rt.values[j].y && gt[j].z == rt.values[j].z;
      REQUIRE(ok);
    }
  }
}
