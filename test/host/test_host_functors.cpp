// Function objects whose operator() is not const (as Thrust's examples write them: bbox_union,
// estimate_pi, abs_diff), as reduce, scan and transform operators, on every host policy, against
// sequential loops.
#include "host_checks.hpp"

using namespace host_test;

namespace {

std::vector<std::int64_t> functor_sizes() {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  return {0, 1, 2, 33, 1025, T - 1, 2 * T + 1, 4 * T + 3, 9 * T + 5};
}

}  // namespace

TEST_CASE("host: non-const operators as reduce and scan operators", "[functor][reduce][scan]") {
  for (std::int64_t n : functor_sizes()) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto v = narrow<std::int64_t>(random_vector<std::int32_t>(un, 91 + un));
    const auto f = random_vector<affine_i>(un, 92 + un);
    const std::int64_t init = 12345;
    const affine_i id{1, 0};
    for_each_policy([&](const auto& policy) {
      counting_plus add;
      CHECK(algo::reduce(policy, v.begin(), v.end(), init, add) == ref_fold(v, init, counting_plus{}));
      CHECK(add.calls == 0);  // the algorithm works on copies
      compose_affine_i_mutable compose;
      CHECK(algo::reduce(policy, f.begin(), f.end(), id, compose) == ref_fold(f, id, compose));

      std::vector<std::int64_t> out(un);
      CHECK(algo::inclusive_scan(policy, v.begin(), v.end(), out.begin(), add) == out.end());
      CHECK(out == ref_inclusive_scan<std::int64_t>(v, counting_plus{}));
      algo::inclusive_scan(policy, v.begin(), v.end(), out.begin(), add, init);
      CHECK(out == ref_inclusive_scan<std::int64_t>(v, counting_plus{}, init));
      algo::exclusive_scan(policy, v.begin(), v.end(), out.begin(), init, add);
      CHECK(out == ref_exclusive_scan<std::int64_t>(v, init, counting_plus{}));

      std::vector<affine_i> fout(un);
      algo::inclusive_scan(policy, f.begin(), f.end(), fout.begin(), compose);
      CHECK(fout == ref_inclusive_scan<affine_i>(f, compose));
      algo::exclusive_scan(policy, f.begin(), f.end(), fout.begin(), id, compose);
      CHECK(fout == ref_exclusive_scan<affine_i>(f, id, compose));
    });
  }
}

TEST_CASE("host: non-const operators as transform operators", "[functor][reduce]") {
  for (std::int64_t n : functor_sizes()) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto a = random_vector<std::int32_t>(un, 93 + un);
    const auto b = random_vector<std::int32_t>(un, 94 + un);
    std::vector<std::int32_t> pts(un);
    for (std::size_t i = 0; i < un; ++i) pts[i] = static_cast<std::int32_t>((static_cast<std::uint32_t>(a[i]) >> 1) % 1000000);

    // bounding box (transform: point -> box, reduce: box_union), as thrust's bounding_box example
    const box empty{1 << 30, 1 << 30, -(1 << 30), -(1 << 30)};
    box want_box = empty;
    for (std::int32_t p : pts) want_box = box_union{}(want_box, point_box{}(p));
    // estimate_pi's kind: a transform of the index
    std::int64_t want_hits = 0;
    for (std::int64_t i = 0; i < n; ++i) want_hits += in_quarter_disc{}(i);
    // max_abs_diff's kind: the inner-product form with a binary transform
    std::int64_t want_max = 0;
    for (std::size_t i = 0; i < un; ++i) want_max = std::max(want_max, abs_diff_i{}(a[i], b[i]));

    for_each_policy([&](const auto& policy) {
      CHECK(algo::transform_reduce(policy, pts.begin(), pts.end(), empty, box_union{}, point_box{}) == want_box);
      CHECK(algo::transform_reduce(policy, counting_iterator(0), counting_iterator(n), std::int64_t(0), algo::plus<>{},
                                   in_quarter_disc{}) == want_hits);
      CHECK(algo::transform_reduce(policy, a.begin(), a.end(), b.begin(), std::int64_t(0), algo::maximum<>{},
                                   abs_diff_i{}) == want_max);
      std::int64_t got = -1;
      algo::transform_reduce_into(policy, a.begin(), a.end(), b.begin(), &got, std::int64_t(0), algo::maximum<>{},
                                  abs_diff_i{});
      CHECK(got == want_max);
      box got_box{};
      algo::transform_reduce_into(policy, pts.begin(), pts.end(), &got_box, empty, box_union{}, point_box{});
      CHECK(got_box == want_box);
    });
  }
}
