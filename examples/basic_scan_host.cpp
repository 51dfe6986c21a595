// Prefix sums on the CPU, from a plain C++ translation unit (no CUDA toolkit needed): algo::seq and
// algo::par (OpenMP) with the same calls as the device policies. Checked against std::.
#include <algo/algo.hpp>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

int main() {
  // ---- data: random bytes ----
  const std::size_t n = 3'000'017;
  std::vector<std::uint8_t> in(n);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> dist(0, 255);
  for (auto& v : in) v = static_cast<std::uint8_t>(dist(rng));

  bool ok = true;
  auto report = [&](const char* what, bool same) {
    std::printf("%-44s %s\n", what, same ? "ok" : "WRONG");
    ok = ok && same;
  };

  // ---- inclusive scan of bytes, accumulated in int64 because init is an int64 ----
  std::vector<std::int64_t> got(n), want(n);
  std::inclusive_scan(in.begin(), in.end(), want.begin(), std::plus<>{}, std::int64_t{0});
  algo::inclusive_scan(algo::seq, in.begin(), in.end(), got.begin(), algo::plus<>{}, std::int64_t{0});
  report("inclusive_scan uint8 -> int64 (algo::seq)", got == want);
  got.assign(n, -1);
  algo::inclusive_scan(algo::par, in.begin(), in.end(), got.begin(), algo::plus<>{}, std::int64_t{0});
  report("inclusive_scan uint8 -> int64 (algo::par)", got == want);

  // ---- exclusive scan in place (d_first == first) ----
  std::vector<std::int64_t> values(in.begin(), in.end());
  std::exclusive_scan(values.begin(), values.end(), want.begin(), std::int64_t{5});
  algo::exclusive_scan(algo::par, values.begin(), values.end(), values.begin(), std::int64_t{5});
  report("exclusive_scan in place, init 5 (algo::par)", values == want);

  // ---- reduce: the total, from the same bytes ----
  const std::int64_t total = algo::reduce(algo::par, in.begin(), in.end(), std::int64_t{0});
  report("reduce (algo::par)", total == std::accumulate(in.begin(), in.end(), std::int64_t{0}));

  return ok ? 0 : 1;
}
