// transpose of algo::seq and algo::par (several team sizes): the plain, pitched and batched forms
// against a direct loop, gaps between rows and between matrices left untouched; and bad input
// (algo::error, nothing written). Plain C++: no CUDA.
#include <algo/algo.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {

struct shape {
  std::int64_t rows, cols, ld_in, ld_out, count, stride_in, stride_out;
};

std::int64_t extent_in(const shape& s) { return (s.count - 1) * s.stride_in + (s.rows - 1) * s.ld_in + s.cols; }
std::int64_t extent_out(const shape& s) { return (s.count - 1) * s.stride_out + (s.cols - 1) * s.ld_out + s.rows; }

constexpr std::int32_t poison = -7;  // inputs are positive: a leftover poison is an unwritten element

std::vector<std::int32_t> random_input(std::int64_t n, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = 1 + static_cast<std::int32_t>(g() % 1000000);
  return v;
}

std::vector<std::int32_t> expected(const std::vector<std::int32_t>& in, const shape& s) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(extent_out(s)), poison);
  for (std::int64_t b = 0; b < s.count; ++b)
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t c = 0; c < s.cols; ++c)
        out[b * s.stride_out + c * s.ld_out + r] = in[b * s.stride_in + r * s.ld_in + c];
  return out;
}

/// The form that `s` needs: plain, pitched, packed batch or general batch.
template <class Policy>
std::int32_t* run(const Policy& p, const std::int32_t* in, std::int32_t* out, const shape& s, bool general) {
  if (general) {
    return algo::transpose(p, in, s.rows, s.cols, s.ld_in, out, s.ld_out, algo::batch{s.count, s.stride_in, s.stride_out});
  }
  if (s.count > 1) return algo::transpose(p, in, s.rows, s.cols, out, algo::batch{s.count});
  if (s.ld_in != s.cols || s.ld_out != s.rows) return algo::transpose(p, in, s.rows, s.cols, s.ld_in, out, s.ld_out);
  return algo::transpose(p, in, s.rows, s.cols, out);
}

template <class Policy>
void check(const Policy& p, const shape& s, bool general, std::uint32_t seed) {
  INFO(s.rows << " x " << s.cols << ", ld " << s.ld_in << " / " << s.ld_out << ", batch " << s.count << " strides "
               << s.stride_in << " / " << s.stride_out << (general ? " (general form)" : ""));
  const auto in = random_input(extent_in(s), seed);
  const auto want = expected(in, s);
  std::vector<std::int32_t> out(want.size(), poison);
  std::int32_t* end = run(p, in.data(), out.data(), s, general);
  CHECK(end == out.data() + out.size());
  REQUIRE(out == want);
}

template <class Policy>
void check_all_forms(const Policy& p) {
  const std::int64_t sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {31, 33}, {32, 32}, {33, 31}, {257, 513}, {600, 70}};
  std::uint32_t seed = 1;
  for (auto& rc : sizes) {
    const std::int64_t r = rc[0], c = rc[1];
    check(p, {r, c, c, r, 1, 0, 0}, false, seed++);                                      // plain
    check(p, {r, c, c + 5, r + 3, 1, 0, 0}, false, seed++);                              // pitched
    check(p, {r, c, c, r, 3, r * c, r * c}, false, seed++);                              // packed batch
    check(p, {r, c, c, r, 3, r * c, r * c}, true, seed++);                               // same, general form
    check(p, {r, c, c + 1, r + 2, 3, r * (c + 1) + 4, c * (r + 2) + 9}, true, seed++);  // pitched, gaps between matrices
    check(p, {r, c, c, r + 1, 2, 0, c * (r + 1)}, true, seed++);                         // one input, transposed twice
    check(p, {r, c, c, 4 * r, 4, r * c, r}, true, seed++);                               // outputs side by side
  }
}

}  // namespace

TEST_CASE("host transpose forms: seq", "[host][transpose]") { check_all_forms(algo::seq); }

TEST_CASE("host transpose forms: par", "[host][transpose]") {
  check_all_forms(algo::par);
  check_all_forms(algo::par.with_threads(3));
}

TEST_CASE("host transpose: bad input throws algo::error and writes nothing", "[host][transpose]") {
  const std::int64_t rows = 20, cols = 30, n = rows * cols;
  std::vector<std::int32_t> a = random_input(3 * n, 9);
  const std::vector<std::int32_t> a_before = a;
  std::vector<std::int32_t> b(3 * n, poison);
  const std::vector<std::int32_t> untouched = b;
  for (int k = 0; k < 2; ++k) {
    auto go = [&](auto policy) {
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, a.data() + 1), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, a.data() + 2 * n, algo::batch{3}), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), std::int64_t(1) << 40, std::int64_t(1) << 40, b.data()),
                      algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), -2, cols, b.data()), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, static_cast<const std::int32_t*>(nullptr), rows, cols, b.data()),
                      algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, static_cast<std::int32_t*>(nullptr)), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, cols - 1, b.data(), rows), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, cols, b.data(), rows - 1), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, cols, b.data(), rows, algo::batch{2, n, n - 1}),
                      algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, cols, b.data(), rows, algo::batch{-1}), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, a.data(), rows, cols, b.data(),
                                      algo::batch{std::numeric_limits<std::int64_t>::max() / 2}),
                      algo::error);
      try {
        algo::transpose(policy, a.data(), rows, cols, cols - 1, b.data(), rows);
      } catch (const algo::error& e) {
        const std::string what = e.what();
        CHECK(what.find("algo::transpose") != std::string::npos);
        CHECK(what.find("leading dimension") != std::string::npos);
      }
      // empty shapes and batches: nothing to do
      CHECK(algo::transpose(policy, a.data(), 0, cols, b.data()) == b.data());
      CHECK(algo::transpose(policy, a.data(), rows, cols, b.data(), algo::batch{0}) == b.data());
    };
    if (k == 0) go(algo::seq);
    else go(algo::par);
  }
  CHECK(a == a_before);
  CHECK(b == untouched);
}
