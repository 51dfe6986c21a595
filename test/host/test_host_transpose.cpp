// transpose of algo::seq and algo::par against a plain double loop: shapes at and around the
// tile (32) and par's block (256), thin and empty shapes, a few million elements; int32, uint8,
// double and a user struct; pointers and vector iterators.
#include "host_checks.hpp"

#include <utility>

using namespace host_test;

namespace {

std::vector<std::pair<std::int64_t, std::int64_t>> shapes() {
  std::vector<std::pair<std::int64_t, std::int64_t>> s{
      {0, 0},     {0, 5},     {5, 0},     {1, 1},     {1, 1000},  {1000, 1},  {31, 33},  {32, 32},
      {33, 31},   {64, 96},   {255, 257}, {256, 256}, {257, 255}, {511, 3},   {3, 511},  {1000, 999},
      {513, 1025}};
  for (std::int64_t v : random_sizes(3, 1, 700, 51)) s.emplace_back(v, 1 + (v * 7919) % 601);
  return s;
}

template <class T, class Policy>
void check_transpose(const Policy& policy, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  INFO("type " << type_name_v<T> << ", " << rows << " x " << cols);
  const auto in = random_vector<T>(static_cast<std::size_t>(rows * cols), seed);
  const auto want = ref_transpose(in, rows, cols);
  {
    std::vector<T> out(in.size(), random_scalar<T>(0xdead));
    auto end = algo::transpose(policy, in.begin(), rows, cols, out.begin());
    REQUIRE(end - out.begin() == rows * cols);
    require_equal(out, want, nullptr, "transpose [vector iterators]");
  }
  {
    std::vector<T> out(in.size() + 16, random_scalar<T>(0xbeef));  // a guard after the end
    T* end = algo::transpose(policy, in.data(), rows, cols, out.data());
    REQUIRE(end - out.data() == rows * cols);
    const std::vector<T> guard(out.end() - 16, out.end());
    out.resize(in.size());
    require_equal(out, want, nullptr, "transpose [pointers]");
    require_equal(guard, std::vector<T>(16, random_scalar<T>(0xbeef)), nullptr, "nothing written past the end");
  }
}

template <class T>
void check_transposes(std::uint64_t seed) {
  for (auto [rows, cols] : shapes())
    for_each_policy([&](const auto& policy) { check_transpose<T>(policy, rows, cols, seed); });
}

}  // namespace

TEST_CASE("host transpose of int32", "[transpose][int32]") { check_transposes<std::int32_t>(52); }
TEST_CASE("host transpose of uint8", "[transpose][uint8]") { check_transposes<std::uint8_t>(53); }
TEST_CASE("host transpose of double", "[transpose][double]") { check_transposes<double>(54); }
TEST_CASE("host transpose of a user struct", "[transpose][struct]") { check_transposes<mat2i>(55); }

TEST_CASE("host transpose of a few million elements", "[transpose][millions]") {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1731, 1733}, {2048, 1536}, {1, 3000017}, {3000017, 1}})
    for_each_policy_few([&](const auto& policy) { check_transpose<std::int32_t>(policy, rows, cols, 56); });
}

TEST_CASE("host transpose twice is the identity", "[transpose]") {
  const std::int64_t rows = 777, cols = 1234;
  const auto in = random_vector<float>(static_cast<std::size_t>(rows * cols), 57);
  for_each_policy([&](const auto& policy) {
    std::vector<float> t(in.size()), back(in.size());
    algo::transpose(policy, in.data(), rows, cols, t.data());
    algo::transpose(policy, t.data(), cols, rows, back.data());
    require_equal(back, in, nullptr, "transpose(transpose(x))");
  });
}
