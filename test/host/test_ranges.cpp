// <algo/ranges.hpp>: the algorithms over range-v3 ranges, for algo::seq and algo::par: views
// (iota | transform, take, filter, a non-common take_while), containers, two-range inner products,
// non-commutative operators, against plain loops. Built only where range-v3 is found.
#include <algo/ranges.hpp>

#include <range/v3/view/filter.hpp>
#include <range/v3/view/iota.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/take_while.hpp>
#include <range/v3/view/transform.hpp>

#include <list>

#include "host_checks.hpp"

using namespace host_test;
namespace rv = ranges::views;

namespace {
const auto to_map = [](std::int64_t i) {
  return affine_i{static_cast<std::int32_t>(2 * i + 1), static_cast<std::int32_t>(i * 7 + 3)};
};
const auto sq = [](std::int64_t i) { return (i % 1000) * (i % 1000) + 1; };

std::vector<std::int64_t> range_sizes() {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  return {0, 1, 33, 1025, T + 1, 3 * T - 1, 7 * T + 5, 1000003};
}
}  // namespace

TEST_CASE("reduce over iota | transform views (no memory behind them)", "[ranges][reduce]") {
  for (std::int64_t n : range_sizes()) {
    INFO("n = " << n);
    std::int64_t want = 0;
    affine_i want_map{1, 0};
    for (std::int64_t i = 0; i < n; ++i) {
      want += sq(i);
      want_map = compose_affine_i{}(want_map, to_map(i));
    }
    for_each_policy([&](const auto& p) {
      CHECK(algo::reduce(p, rv::iota(std::int64_t(0), n) | rv::transform(sq)) == want);
      CHECK(algo::reduce(p, rv::iota(std::int64_t(0), n) | rv::transform(sq), std::int64_t(5)) == want + 5);
      CHECK(algo::reduce(p, rv::iota(std::int64_t(0), n) | rv::transform(to_map), affine_i{1, 0}, compose_affine_i{}) == want_map);
      CHECK(algo::transform_reduce(p, rv::iota(std::int64_t(0), n), std::int64_t(0), algo::plus<>{}, sq) == want);
      CHECK(algo::transform_reduce(p, rv::iota(std::int64_t(0), n), affine_i{1, 0}, compose_affine_i{}, to_map) == want_map);
    });
  }
}

TEST_CASE("scans of ranges into output iterators, and in place", "[ranges][scan]") {
  for (std::int64_t n : range_sizes()) {
    INFO("n = " << n);
    const auto v = random_vector<mat2i>(static_cast<std::size_t>(n), 91);
    const mat2i init = random_scalar<mat2i>(92);
    const auto incl = ref_inclusive_scan<mat2i>(v, mat2_mul{});
    const auto incl_init = ref_inclusive_scan<mat2i>(v, mat2_mul{}, init);
    const auto excl = ref_exclusive_scan<mat2i>(v, init, mat2_mul{});
    std::vector<std::int64_t> sums(static_cast<std::size_t>(n)), sums_excl(static_cast<std::size_t>(n));
    std::int64_t acc = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      sums_excl[static_cast<std::size_t>(i)] = acc - 1;
      acc += sq(i);
      sums[static_cast<std::size_t>(i)] = acc;
    }
    for_each_policy([&](const auto& p) {
      std::vector<mat2i> out(v.size());
      CHECK(algo::inclusive_scan(p, v, out.begin(), mat2_mul{}) == out.end());
      require_equal(out, incl, nullptr, "inclusive_scan(vector, out, op)");
      algo::inclusive_scan(p, rv::all(v), out.begin(), mat2_mul{}, init);
      require_equal(out, incl_init, nullptr, "inclusive_scan(views::all(vector), out, op, init)");
      algo::exclusive_scan(p, v, out.data(), init, mat2_mul{});
      require_equal(out, excl, nullptr, "exclusive_scan(vector, pointer, init, op)");

      std::vector<mat2i> buf = v;
      algo::inclusive_scan(p, buf, buf.begin(), mat2_mul{});
      require_equal(buf, incl, nullptr, "inclusive_scan(buf, buf.begin(), op) [in place]");

      std::vector<std::int64_t> s(v.size());
      algo::inclusive_scan(p, rv::iota(std::int64_t(0), n) | rv::transform(sq), s.begin());
      require_equal(s, sums, nullptr, "inclusive_scan(iota | transform, out)");
      algo::exclusive_scan(p, rv::iota(std::int64_t(0), n) | rv::transform(sq), s.begin(), std::int64_t(-1));
      require_equal(s, sums_excl, nullptr, "exclusive_scan(iota | transform, out, init)");
      algo::exclusive_scan(p, rv::iota(std::int64_t(0), n) | rv::transform(sq), s.begin(), std::int64_t(-1), algo::plus<>{});
      require_equal(s, sums_excl, nullptr, "exclusive_scan(iota | transform, out, init, op)");
    });
  }
}

TEST_CASE("ranges that are not random access, not sized, or not common", "[ranges]") {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(300007)}) {
    INFO("n = " << n);
    const std::list<std::int64_t> l(static_cast<std::size_t>(n), 3);
    std::int64_t want_even = 0;
    for (std::int64_t i = 0; i < n; i += 2) want_even += sq(i);
    for_each_policy([&](const auto& p) {
      CHECK(algo::reduce(p, l) == 3 * n);
      auto even = rv::iota(std::int64_t(0), n) | rv::filter([](std::int64_t i) { return i % 2 == 0; }) | rv::transform(sq);
      CHECK(algo::reduce(p, even) == want_even);
      // take_while over an unbounded iota: not sized, not common (runs through views::common)
      auto until_n = rv::iota(std::int64_t(0)) | rv::take_while([n](std::int64_t i) { return i < n; });
      CHECK(algo::reduce(p, until_n) == n * (n - 1) / 2);
      std::vector<std::int64_t> s(static_cast<std::size_t>(n));
      algo::inclusive_scan(p, until_n, s.begin());
      for (std::int64_t i = 0; i < n; ++i)
        if (s[static_cast<std::size_t>(i)] != i * (i + 1) / 2) REQUIRE(s[static_cast<std::size_t>(i)] == i * (i + 1) / 2);
      // take over an unbounded iota: random access and sized, its sentinel another type
      CHECK(algo::reduce(p, rv::iota(std::int64_t(0)) | rv::take(n)) == n * (n - 1) / 2);
    });
  }
}

TEST_CASE("transform_reduce over two ranges", "[ranges][transform_reduce]") {
  for (std::int64_t n : range_sizes()) {
    INFO("n = " << n);
    const auto a = random_vector<std::int32_t>(static_cast<std::size_t>(n), 93);
    const auto b = random_vector<std::int32_t>(static_cast<std::size_t>(n), 94);
    const auto m = random_vector<mat2i>(static_cast<std::size_t>(n), 95);
    std::int64_t dot = 7;
    mat2i want_m{1, 0, 0, 1};
    for (std::size_t i = 0; i < a.size(); ++i) {
      dot += std::int64_t(a[i]) * b[i];
      want_m = mat2_mul{}(want_m, mat2_mul{}(m[i], tweak{}(m[i])));
    }
    for_each_policy([&](const auto& p) {
      CHECK(algo::transform_reduce(p, a, b, std::int64_t(7)) == dot);
      // two ranges of the same type with both operators (the form the iterator overload could take)
      CHECK(algo::transform_reduce(p, a, b, std::int64_t(7), algo::plus<>{},
                                   [](std::int32_t x, std::int32_t y) { return std::int64_t(x) * y; }) == dot);
      CHECK(algo::transform_reduce(p, m, m | rv::transform(tweak{}), mat2i{1, 0, 0, 1}, mat2_mul{}, mat2_mul{}) == want_m);
    });
  }
  const std::vector<std::int32_t> longer(10, 1), shorter(9, 1);
  for_each_policy([&](const auto& p) {
    bool thrown = false;
    try {
      algo::transform_reduce(p, longer, shorter, 0);
    } catch (const algo::error& e) {
      thrown = true;
      INFO(e.what());
      CHECK(std::string(e.what()).find("algo::transform_reduce") != std::string::npos);
    }
    CHECK(thrown);
    CHECK(algo::transform_reduce(p, shorter, longer, 0) == 9);  // a longer second range is fine
  });
}
