// Uses the installed algo from plain C++: every algorithm with algo::seq and algo::par, checked
// against a loop. Prints "consumer: ok" on success (the package test looks for it).
#include <algo/algo.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  const std::int64_t n = 100'003;
  std::vector<int> in(n);
  for (std::int64_t i = 0; i < n; ++i) in[i] = static_cast<int>((i * 7919) % 201) - 100;

  // ---- the loop references ----
  std::vector<long long> inclusive(n), exclusive(n);
  long long sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    exclusive[i] = sum;
    sum += in[i];
    inclusive[i] = sum;
  }
  long long dot = 0;
  for (std::int64_t i = 0; i < n; ++i) dot += static_cast<long long>(in[i]) * in[i];

  bool ok = true;
  auto expect = [&](const char* what, bool good) {
    if (!good) std::printf("consumer: %s is WRONG\n", what);
    ok = ok && good;
  };

  std::vector<long long> out(n);
  algo::inclusive_scan(algo::seq, in.begin(), in.end(), out.begin(), algo::plus<>{}, 0LL);
  expect("inclusive_scan (seq)", out == inclusive);
  algo::exclusive_scan(algo::par, in.begin(), in.end(), out.begin(), 0LL);
  expect("exclusive_scan (par)", out == exclusive);
  expect("reduce (par)", algo::reduce(algo::par, in.begin(), in.end(), 0LL) == sum);
  expect("transform_reduce (par)", algo::transform_reduce(algo::par, in.begin(), in.end(), in.begin(), 0LL) == dot);

  // 3 x 5 -> 5 x 3
  const std::vector<int> m{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  std::vector<int> t(15, -1);
  algo::transpose(algo::par, m.data(), 3, 5, t.data());
  expect("transpose (par)", t == std::vector<int>{0, 5, 10, 1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14});

  // Bad input is refused before anything is written.
  try {
    algo::transpose(algo::seq, m.data(), -1, 5, t.data());
    expect("transpose with a negative shape throws", false);
  } catch (const algo::error&) {
  }

  std::printf(ok ? "consumer: ok\n" : "consumer: FAILED\n");
  return ok ? 0 : 1;
}
