// Bad input and edge cases of the host policies: last < first, null pointers with a non-zero
// count, rows * cols overflowing, a transpose whose output overlaps its input, each raising
// algo::error naming the algorithm before anything is written; empty ranges; exceptions thrown by
// a user operator inside algo::par; algo::par called from inside an OpenMP parallel region.
#include "host_checks.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(_OPENMP)
#  include <omp.h>
#endif

using namespace host_test;

namespace {

/// REQUIREs that f() throws algo::error whose what() contains every string in `needles`.
template <class F>
void require_error(F&& f, std::initializer_list<const char*> needles) {
  bool thrown = false;
  try {
    f();
  } catch (const algo::error& e) {
    thrown = true;
    const std::string what = e.what();
    for (const char* needle : needles) {
      INFO("what(): " << what);
      CHECK(what.find(needle) != std::string::npos);
    }
  }
  REQUIRE(thrown);
}

/// [0, n) as a pointer range starting at null (the "null pointer with n elements" case), built
/// without arithmetic on a null pointer.
const std::int32_t* null_end(std::int64_t n) {
  return reinterpret_cast<const std::int32_t*>(static_cast<std::uintptr_t>(n) * sizeof(std::int32_t));
}

}  // namespace

TEST_CASE("last before first raises algo::error naming the algorithm, and writes nothing", "[errors]") {
  const auto in = random_vector<std::int32_t>(100, 61);
  for_each_policy([&](const auto& p) {
    const std::vector<std::int32_t> untouched(100, -77);
    std::vector<std::int32_t> out = untouched;
    auto first = in.begin() + 60, last = in.begin() + 10;  // last < first
    require_error([&] { algo::inclusive_scan(p, first, last, out.begin()); }, {"algo::inclusive_scan", "last precedes first"});
    require_error([&] { algo::inclusive_scan(p, first, last, out.begin(), algo::plus<>{}); }, {"algo::inclusive_scan"});
    require_error([&] { algo::inclusive_scan(p, first, last, out.begin(), algo::plus<>{}, 1); }, {"algo::inclusive_scan"});
    require_error([&] { algo::exclusive_scan(p, first, last, out.begin(), 0); }, {"algo::exclusive_scan", "last precedes first"});
    require_error([&] { algo::exclusive_scan(p, first, last, out.begin(), 0, algo::plus<>{}); }, {"algo::exclusive_scan"});
    // pointers too
    require_error([&] { algo::inclusive_scan(p, in.data() + 50, in.data() + 49, out.data()); }, {"algo::inclusive_scan"});
    REQUIRE(out == untouched);

    require_error([&] { algo::reduce(p, first, last); }, {"algo::reduce", "last precedes first"});
    require_error([&] { algo::reduce(p, first, last, 0); }, {"algo::reduce"});
    require_error([&] { algo::reduce(p, first, last, 0, algo::plus<>{}); }, {"algo::reduce"});
    require_error([&] { algo::transform_reduce(p, first, last, 0, algo::plus<>{}, tweak{}); }, {"algo::transform_reduce"});
    require_error([&] { algo::transform_reduce(p, first, last, in.begin(), 0); }, {"algo::transform_reduce", "last precedes first"});
    require_error([&] { algo::transform_reduce(p, first, last, in.begin(), 0, algo::plus<>{}, algo::multiplies<>{}); },
                  {"algo::transform_reduce"});
  });
}

TEST_CASE("a null pointer with a non-zero count raises algo::error, and writes nothing", "[errors]") {
  const auto in = random_vector<std::int32_t>(64, 62);
  for_each_policy([&](const auto& p) {
    const std::vector<std::int32_t> untouched(64, -77);
    std::vector<std::int32_t> out = untouched;
    const std::int32_t* null_in = nullptr;
    std::int32_t* null_out = nullptr;

    require_error([&] { algo::inclusive_scan(p, null_in, null_end(64), out.data()); }, {"algo::inclusive_scan", "null"});
    require_error([&] { algo::exclusive_scan(p, null_in, null_end(64), out.data(), 0); }, {"algo::exclusive_scan", "null"});
    require_error([&] { algo::inclusive_scan(p, in.data(), in.data() + 64, null_out); }, {"algo::inclusive_scan", "output", "null"});
    require_error([&] { algo::exclusive_scan(p, in.data(), in.data() + 64, null_out, 0, algo::plus<>{}); },
                  {"algo::exclusive_scan", "output", "null"});
    REQUIRE(out == untouched);

    require_error([&] { algo::reduce(p, null_in, null_end(64)); }, {"algo::reduce", "null"});
    require_error([&] { algo::reduce(p, null_in, null_end(64), 0, algo::plus<>{}); }, {"algo::reduce", "null"});
    require_error([&] { algo::transform_reduce(p, null_in, null_end(64), 0, algo::plus<>{}, tweak{}); }, {"algo::transform_reduce", "null"});
    require_error([&] { algo::transform_reduce(p, in.data(), in.data() + 64, null_in, 0); }, {"algo::transform_reduce", "second input", "null"});

    require_error([&] { algo::transpose(p, null_in, 8, 8, out.data()); }, {"algo::transpose", "input", "null"});
    require_error([&] { algo::transpose(p, in.data(), 8, 8, null_out); }, {"algo::transpose", "output", "null"});
    REQUIRE(out == untouched);

    // a null pointer with no elements is an empty range
    CHECK(algo::inclusive_scan(p, null_in, null_in, null_out) == null_out);
    CHECK(algo::reduce(p, null_in, null_in, 5) == 5);
    CHECK(algo::transpose(p, null_in, 0, 8, null_out) == null_out);
  });
}

TEST_CASE("transpose shapes that overflow, are negative, or overlap raise algo::error", "[errors][transpose]") {
  const std::int64_t big = std::int64_t(1) << 32;
  auto in = random_vector<std::int32_t>(64, 63);
  for_each_policy([&](const auto& p) {
    const std::vector<std::int32_t> untouched(64, -77);
    std::vector<std::int32_t> out = untouched;
    require_error([&] { algo::transpose(p, in.data(), big, big, out.data()); }, {"algo::transpose", "overflows"});
    require_error([&] { algo::transpose(p, in.begin(), big, big, out.begin()); }, {"algo::transpose", "overflows"});
    require_error([&] { algo::transpose(p, in.data(), -1, 8, out.data()); }, {"algo::transpose", "negative"});
    require_error([&] { algo::transpose(p, in.data(), 8, -8, out.data()); }, {"algo::transpose", "negative"});
    REQUIRE(out == untouched);

    std::vector<std::int32_t> buf = in;
    const std::vector<std::int32_t> before = buf;
    require_error([&] { algo::transpose(p, buf.data(), 4, 8, buf.data() + 1); }, {"algo::transpose", "overlap"});
    require_error([&] { algo::transpose(p, buf.data() + 8, 4, 4, buf.data()); }, {"algo::transpose", "overlap"});
    require_error([&] { algo::transpose(p, buf.data(), 8, 8, buf.data()); }, {"algo::transpose", "overlap"});
    REQUIRE(buf == before);
    // adjacent is fine
    algo::transpose(p, buf.data(), 4, 8, buf.data() + 32);
    CHECK(buf[32 + 1] == buf[8]);  // out[0][1] = in[1][0]
  });
}

TEST_CASE("empty ranges do nothing: scans return d_first, reduces return init", "[errors][empty]") {
  const std::vector<mat2i> in(3, random_scalar<mat2i>(64));
  const mat2i init = random_scalar<mat2i>(65), sentinel = random_scalar<mat2i>(66);
  for_each_policy([&](const auto& p) {
    std::vector<mat2i> out(3, sentinel);
    CHECK(algo::inclusive_scan(p, in.begin(), in.begin(), out.begin(), mat2_mul{}) == out.begin());
    CHECK(algo::inclusive_scan(p, in.begin(), in.begin(), out.begin(), mat2_mul{}, init) == out.begin());
    CHECK(algo::exclusive_scan(p, in.begin(), in.begin(), out.begin(), init, mat2_mul{}) == out.begin());
    CHECK(out == std::vector<mat2i>(3, sentinel));
    CHECK(algo::reduce(p, in.begin(), in.begin(), init, mat2_mul{}) == init);
    CHECK(algo::transform_reduce(p, in.begin(), in.begin(), init, mat2_mul{}, tweak{}) == init);
    CHECK(algo::transform_reduce(p, in.begin(), in.begin(), in.begin(), init, mat2_mul{}, mat2_mul{}) == init);
    const std::vector<double> d;
    CHECK(algo::reduce(p, d.begin(), d.end()) == 0.0);
    CHECK(algo::reduce(p, d.begin(), d.end(), 2.5) == 2.5);
    CHECK(algo::transform_reduce(p, d.begin(), d.end(), d.begin(), 1.5) == 1.5);
    CHECK(algo::transpose(p, in.begin(), 0, 3, out.begin()) == out.begin());
    CHECK(algo::transpose(p, in.begin(), 3, 0, out.begin()) == out.begin());
    CHECK(out == std::vector<mat2i>(3, sentinel));
  });
}

namespace {
struct boom : std::runtime_error {
  boom() : std::runtime_error("boom") {}
};
/// plus, except that it throws when it meets `bad`.
struct throwing_plus {
  std::int64_t bad;
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    if (b == bad) throw boom{};
    return a + b;
  }
};
}  // namespace

TEST_CASE("an exception thrown by the operator leaves algo::par as it leaves algo::seq", "[errors][exceptions]") {
  const std::int64_t n = 40 * algo::detail::host::scan_block_elements + 5;
  std::vector<std::int64_t> in(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i + 1;
  std::vector<std::int64_t> out(in.size());
  for (std::int64_t bad : {std::int64_t(2), n / 3, n - 1, n}) {
    INFO("the operator throws at element " << bad);
    for_each_policy([&](const auto& p) {
      const throwing_plus op{bad};
      CHECK_THROWS_AS(algo::inclusive_scan(p, in.begin(), in.end(), out.begin(), op), boom);
      CHECK_THROWS_AS(algo::exclusive_scan(p, in.begin(), in.end(), out.begin(), std::int64_t(0), op), boom);
      CHECK_THROWS_AS(algo::reduce(p, in.begin(), in.end(), std::int64_t(0), op), boom);
      CHECK_THROWS_AS(algo::transform_reduce(p, in.begin(), in.end(), std::int64_t(0), op, [](std::int64_t x) { return x; }), boom);
      // and the policy still works afterwards
      CHECK(algo::reduce(p, in.begin(), in.end(), std::int64_t(0)) == n * (n + 1) / 2);
    });
  }
}

TEST_CASE("algo::par inside an OpenMP parallel region", "[par][nested]") {
#if defined(_OPENMP)
  const std::int64_t n = 9 * algo::detail::host::scan_block_elements + 3;
  const auto in = random_vector<mat2i>(static_cast<std::size_t>(n), 67);
  const auto want = ref_inclusive_scan<mat2i>(in, mat2_mul{});
  const mat2i want_fold = want.back();
  int failures = 0;
#  pragma omp parallel num_threads(2) reduction(+ : failures)
  {
    std::vector<mat2i> out(in.size());
    algo::inclusive_scan(algo::par, in.begin(), in.end(), out.begin(), mat2_mul{});
    if (out != want) ++failures;
    if (algo::reduce(algo::par.with_threads(3), in.begin(), in.end(), mat2i{1, 0, 0, 1}, mat2_mul{}) != want_fold) ++failures;
  }
  CHECK(failures == 0);
#else
  SUCCEED("built without OpenMP: algo::par runs algo::seq");
#endif
}
