// inclusive_scan / exclusive_scan of algo::seq and algo::par over user structs, most with
// non-commutative operators (2x2 matrix product, affine-map composition), against a sequential
// left-to-right scan; scans over iterators that are not random access; par's look-back.
#include "scan_checks.hpp"

#include <atomic>
#include <chrono>
#include <iterator>
#include <list>
#include <memory>
#include <thread>

using namespace host_test;

TEST_CASE("the test operators are not commutative", "[scan]") {
  const auto m = random_vector<mat2i>(2, 1);
  CHECK(mat2_mul{}(m[0], m[1]) != mat2_mul{}(m[1], m[0]));
  const auto f = random_vector<affine_i>(2, 1);
  CHECK(compose_affine_i{}(f[0], f[1]) != compose_affine_i{}(f[1], f[0]));
  const auto b = random_vector<big32>(2, 1);
  CHECK(big32_mul{}(b[0], b[1]) != big32_mul{}(b[1], b[0]));
  CHECK(take_right{}(1, 2) != take_right{}(2, 1));
}

TEST_CASE("host scans of a user struct with operator+ (pt)", "[scan][struct]") {
  check_scans_over<pt>(host_sizes(21), {}, 21);
}

TEST_CASE("host scans of 2x2 matrices keep the order of the product", "[scan][struct][noncommutative]") {
  check_scans_over<mat2i>(host_sizes(22), large_sizes(), 22);
}

TEST_CASE("host scans of integer affine maps keep the order of composition", "[scan][struct][noncommutative]") {
  check_scans_over<affine_i>(host_sizes(23), {}, 23);
}

// Contractive float maps: their a-products sink to the smallest denormal and stay there (every
// later op is a slow denormal op on a CPU), hence fewer sizes.
TEST_CASE("host scans of float affine maps keep the order of composition", "[scan][struct][noncommutative]") {
  check_scans_over<affine>(few_sizes(), {}, 24);
}

TEST_CASE("host scans of 32-byte matrices keep the order of the product", "[scan][struct][noncommutative]") {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(33), 3 * algo::detail::host::scan_block_elements + 1,
                         std::int64_t(1000003)}) {
    INFO("n = " << n);
    const scan_case<big32> c(n, 25);
    for_each_policy([&](const auto& policy) { check_scans<big32>(policy, c); });
  }
}

TEST_CASE("host scans over std::list (not random access)", "[scan][list]") {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(33), std::int64_t(1025), 5 * T + 3}) {
    INFO("n = " << n);
    const auto v = random_vector<mat2i>(static_cast<std::size_t>(n), 26);
    const std::list<mat2i> in(v.begin(), v.end());
    const mat2i init = random_scalar<mat2i>(27);
    const auto incl = ref_inclusive_scan<mat2i>(v, mat2_mul{});
    const auto excl = ref_exclusive_scan<mat2i>(v, init, mat2_mul{});
    for_each_policy([&](const auto& policy) {
      std::list<mat2i> out(v.size(), sentinel<mat2i>());
      auto end = algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), mat2_mul{});
      REQUIRE(end == out.end());
      require_equal(std::vector<mat2i>(out.begin(), out.end()), incl, nullptr, "inclusive_scan list -> list");

      std::vector<mat2i> got;
      algo::exclusive_scan(policy, in.begin(), in.end(), std::back_inserter(got), init, mat2_mul{});
      require_equal(got, excl, nullptr, "exclusive_scan list -> back_inserter");

      std::vector<std::int64_t> sums(v.size(), -1);
      const std::list<std::int32_t> ints(static_cast<std::size_t>(n), 3);
      algo::inclusive_scan(policy, ints.begin(), ints.end(), sums.begin(), algo::plus<>{}, std::int64_t(5));
      for (std::int64_t i = 0; i < n; ++i) {
        if (sums[static_cast<std::size_t>(i)] != 5 + 3 * (i + 1)) {
          INFO("list of int32 into vector<int64>: index " << i);
          REQUIRE(sums[static_cast<std::size_t>(i)] == 5 + 3 * (i + 1));
        }
      }
    });
  }
}

TEST_CASE("par's look-back folds the tiles whose owner is late, in order", "[scan][lookback]") {
  using status_t = algo::detail::host::scan_tile_status<mat2i>;
  const std::int64_t T = algo::detail::host::tuning::scan_tile;
  const std::int64_t tiles = 6, n = tiles * T - 5;  // the last tile is short
  const auto in = random_vector<mat2i>(static_cast<std::size_t>(n), 28);
  const mat2i init = random_scalar<mat2i>(29);
  const mat2_mul op{};
  auto fold_tiles = [&](std::int64_t t0, std::int64_t t1) {  // tiles [t0, t1), left to right
    return ref_fold(in.begin() + t0 * T + 1, in.begin() + std::min(n, t1 * T), in[static_cast<std::size_t>(t0 * T)], op);
  };
  const std::optional<mat2i> seed(init), none;
  const std::atomic<bool> stop{false};

  SECTION("a published inclusive prefix ends the walk; missing aggregates are folded") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    st[0].inclusive.emplace(op(init, fold_tiles(0, 1)));
    st[0].state = status_t::inclusive_ready;
    st[0].aggregate.emplace(fold_tiles(0, 1));
    // tile 1: nothing published (its owner is late)
    st[2].aggregate.emplace(fold_tiles(2, 3));
    st[2].state = status_t::aggregate_ready;
    // tile 3, 4: nothing published
    const auto got = algo::detail::host::look_back(st.get(), 5, in.begin(), n, op, seed, true, stop);
    REQUIRE(got.has_value());
    CHECK(*got == op(init, fold_tiles(0, 5)));
    // the late tiles were claimed and their aggregates published for the next look-back
    for (int t : {1, 3, 4}) {
      INFO("tile " << t);
      REQUIRE(st[t].load() == status_t::aggregate_ready);
      CHECK(*st[t].aggregate == fold_tiles(t, t + 1));
    }
    CHECK(st[0].load() == status_t::inclusive_ready);
  }
  SECTION("a tile claimed by another thread is waited for, not folded twice") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    st[0].inclusive.emplace(op(init, fold_tiles(0, 1)));
    st[0].aggregate.emplace(fold_tiles(0, 1));
    st[0].state = status_t::inclusive_ready;
    REQUIRE(st[1].try_claim());
    std::thread other([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      st[1].publish_aggregate(fold_tiles(1, 2));
    });
    const auto got = algo::detail::host::look_back(st.get(), 2, in.begin(), n, op, seed, true, stop);
    other.join();
    REQUIRE(got.has_value());
    CHECK(*got == op(init, fold_tiles(0, 2)));
  }
  SECTION("when the output cannot overlap the input, a tile claimed by a stuck thread is folded here") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    REQUIRE(st[2].try_claim());  // held, never published (its holder lost its core)
    const auto got = algo::detail::host::look_back(st.get(), 4, in.begin(), n, op, seed, false, stop);
    REQUIRE(got.has_value());
    CHECK(*got == op(init, fold_tiles(0, 4)));
    CHECK(st[2].load() == status_t::claimed);  // left to its holder
  }
  SECTION("a late aggregate does not hide a published inclusive prefix") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    REQUIRE(st[0].try_claim());
    st[0].publish_inclusive(op(init, fold_tiles(0, 1)));  // the owner, in a single pass
    st[0].publish_aggregate(fold_tiles(0, 1));            // the claim holder, later
    CHECK(st[0].load() == status_t::inclusive_ready);
    st[0].release_claim();
    CHECK(st[0].load() == status_t::inclusive_ready);
  }
  SECTION("with nothing published the walk reaches the start and adds init") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    st[3].aggregate.emplace(fold_tiles(3, 4));
    st[3].state = status_t::aggregate_ready;
    const auto got = algo::detail::host::look_back(st.get(), 5, in.begin(), n, op, seed, true, stop);
    REQUIRE(got.has_value());
    CHECK(*got == op(init, fold_tiles(0, 5)));
    const auto got_no_init = algo::detail::host::look_back(st.get(), 5, in.begin(), n, op, none, true, stop);
    REQUIRE(got_no_init.has_value());
    CHECK(*got_no_init == fold_tiles(0, 5));
  }
  SECTION("the first tile has no prefix without init") {
    std::unique_ptr<status_t[]> st(new status_t[tiles]);
    CHECK_FALSE(algo::detail::host::look_back(st.get(), 0, in.begin(), n, op, none, true, stop).has_value());
    const auto got = algo::detail::host::look_back(st.get(), 0, in.begin(), n, op, seed, true, stop);
    REQUIRE(got.has_value());
    CHECK(*got == init);
  }
}

TEST_CASE("par's scan knows when the output may overlap the input", "[scan][lookback]") {
  using algo::detail::alias_between;
  using algo::detail::alias_kind;
  std::vector<std::int32_t> a(100), b(100);
  const std::vector<std::int32_t>& ca = a;
  CHECK(alias_between(a.data(), 100, a.data(), 100) == alias_kind::same_position);
  CHECK(alias_between(a.data() + 10, 90, a.data(), 90) == alias_kind::other);  // partly
  CHECK(alias_between(a.data(), 100, b.data(), 100) == alias_kind::none);
  CHECK(alias_between(ca.begin(), 100, a.begin(), 100) == alias_kind::same_position);
  CHECK(alias_between(ca.begin(), 100, b.begin(), 100) == alias_kind::none);
  CHECK(alias_between(a.data(), 50, a.data() + 50, 50) == alias_kind::none);  // adjacent
  // computed elements, but by an iterator type the library does not know: it may read anything
  CHECK(alias_between(counting_iterator(0), 100, a.data(), 100) == alias_kind::other);
  std::vector<mat2i> m(4);
  CHECK(alias_between(m.begin(), 4, m.begin(), 4) == alias_kind::same_position);
  const std::list<std::int32_t> l(3);
  CHECK(alias_between(l.begin(), 3, a.begin(), 3) == alias_kind::other);
}
