// group_m_sweep: where the one-pass partitioned build (detail/group/partitioned.cuh,
// onepass_aggregate_kernel: one scatter pass into 256 partitions, a block a partition) beats the
// one table, over the number of distinct keys m (issue 27 item 5: group_reduce at 2^20 keys). A
// development tool for setting oa_tuning::onepass_min_keys and the sample's sizing rule; the
// bench (`--only group_reduce`) is where claims come from.
// Rows, for each m (uniform keys, 2^log2n records, float sums of small integers: exact), ms by
// events, median of `reps`: the default (algo::group_reduce on algo::cuda), the default without
// the sample's one-pass choice, one table (no switch), the one-pass build forced, the partitioned
// build forced (P from n: two passes at 2^26), the forced builds with their scatter passes at 4 /
// 5 blocks a multiprocessor (the default: 5 the first pass, 4 the second), and Thrust's sort_by_key + reduce_by_key of the same records. Every
// build's groups are checked against the default's (the same keys in the same first-appearance
// order, the same sums: exact).
//   group_m_sweep [--log2n 26] [--reps 10] [--m LIST of log2 m, comma-separated]
//   group_m_sweep --profile [--m 20]: one call of the default, one of the one-pass build, one of the
//   partitioned build and one of the one table for each m, nothing else (for ncu / nsys)
#include <cuda_runtime.h>

#include <thrust/device_vector.h>

#include <algo/group_reduce.hpp>

#include "group_probe.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace group_probe;

/// Record i: a key uniform over m distinct values (spread over the int range), a small integer value.
__global__ void make_records(std::uint32_t* keys, float* vals, long long n, std::uint32_t m) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t r = splitmix64(static_cast<std::uint64_t>(i) + 977);
  keys[i] = static_cast<std::uint32_t>(r % m) * 2654435761u + 12345u;
  vals[i] = static_cast<float>((r >> 40) % 16);
}

namespace g = algo::detail::group;
/// The default without the sample's one-pass choice (the default before 2026-12-02's third session).
struct no_onepass : g::oa_tuning {
  static constexpr double onepass_min_keys = 0.0;
};
struct one_table : g::oa_tuning {
  static constexpr int table_choice = g::table_choice_one;
};
struct onepass : g::oa_tuning {
  static constexpr int table_choice = g::table_choice_onepass;
};
struct partitioned : g::oa_tuning {
  static constexpr int table_choice = g::table_choice_partitioned;
};
/// The scatter passes' blocks a multiprocessor: the first pass at 4 (as before 2026-12-02's third
/// session; the default 5), and both passes at 5 (the default: 5 the first, 4 the second).
struct onepass_in4 : onepass {
  static constexpr int scatter_blocks_input = 4;
};
struct partitioned_in4 : partitioned {
  static constexpr int scatter_blocks_input = 4;
};
struct partitioned_55 : partitioned {
  static constexpr int scatter_blocks = 5;
};

template <class Tuning>
std::int64_t call(const std::uint32_t* k, const float* v, std::int64_t n, std::uint32_t* ko, float* vo) {
  return g::group_reduce_open_addressing<false, Tuning>(algo::cuda, k, v, n, ko, vo, algo::plus<>{}, algo::hash<>{},
                                                         algo::equal_to<>{});
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 26, reps = 10;
  bool profile = false;
  std::vector<int> ms = {14, 16, 17, 18, 19, 20, 21, 22};
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--log2n") && a + 1 < argc) log2n = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc) reps = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--profile")) profile = true;
    else if (!std::strcmp(argv[a], "--m") && a + 1 < argc) {
      ms.clear();
      for (const char* p = argv[++a]; *p;) {
        ms.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    }
  }
  const long long n = 1ll << log2n;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("group_m_sweep: %s, n = 2^%d, f32 uniform keys, ms (median of %d); ratio = sort / row\n", prop.name,
              log2n, reps);
  using call_t = std::int64_t (*)(const std::uint32_t*, const float*, std::int64_t, std::uint32_t*, float*);
  struct column {
    const char* name;
    call_t fn;
  };
  const column cols[] = {{"no one pass", call<no_onepass>},     {"one table", call<one_table>},
                         {"one pass", call<onepass>},           {"1 pass, in 4", call<onepass_in4>},
                         {"partitioned", call<partitioned>},    {"part., in 4", call<partitioned_in4>},
                         {"part., 5 + 5", call<partitioned_55>}};
  std::printf("%-6s %9s | %-16s", "m", "groups", "default");
  for (const column& c : cols) std::printf(" | %-16s", c.name);
  std::printf(" | sort\n");
  thrust::device_vector<std::uint32_t> keys(n), ko(n), ko2(n);
  thrust::device_vector<float> vals(n), vo(n), vo2(n);
  bool all_ok = true;
  for (const int lm : ms) {
    const std::uint32_t m = 1u << lm;
    make_records<<<static_cast<unsigned>((n + 255) / 256), 256>>>(keys.data().get(), vals.data().get(), n, m);
    check(cudaDeviceSynchronize(), "make_records");
    const std::uint32_t* k = keys.data().get();
    const float* v = vals.data().get();
    if (profile) {
      algo::group_reduce(algo::cuda, k, k + n, v, ko.data().get(), vo.data().get());
      call<onepass>(k, v, n, ko2.data().get(), vo2.data().get());
      call<partitioned>(k, v, n, ko2.data().get(), vo2.data().get());
      call<one_table>(k, v, n, ko2.data().get(), vo2.data().get());
      check(cudaDeviceSynchronize(), "profile");
      continue;
    }
    // the default's groups: the reference the others must equal
    const std::int64_t groups = algo::group_reduce(algo::cuda, k, k + n, v, ko.data().get(), vo.data().get());
    check(cudaDeviceSynchronize(), "default");
    std::vector<std::uint32_t> rk(static_cast<std::size_t>(groups));
    std::vector<float> rv(static_cast<std::size_t>(groups));
    thrust::copy(ko.begin(), ko.begin() + groups, rk.begin());
    thrust::copy(vo.begin(), vo.begin() + groups, rv.begin());
    const auto verify = [&](const char* what, std::int64_t got) {
      std::vector<std::uint32_t> gk(static_cast<std::size_t>(got > 0 ? got : 0));
      std::vector<float> gv(gk.size());
      thrust::copy(ko2.begin(), ko2.begin() + static_cast<std::ptrdiff_t>(gk.size()), gk.begin());
      thrust::copy(vo2.begin(), vo2.begin() + static_cast<std::ptrdiff_t>(gk.size()), gv.begin());
      if (got != groups || gk != rk || gv != rv) {
        std::printf("  [WRONG] m = 2^%d, %s: %lld groups against %lld\n", lm, what, static_cast<long long>(got),
                    static_cast<long long>(groups));
        all_ok = false;
      }
    };
    for (const column& c : cols) verify(c.name, c.fn(k, v, n, ko2.data().get(), vo2.data().get()));
    const double t_def =
        time_ms([&] { algo::group_reduce(algo::cuda, k, k + n, v, ko.data().get(), vo.data().get()); }, reps);
    std::vector<double> ts;
    for (const column& c : cols) ts.push_back(time_ms([&] { c.fn(k, v, n, ko2.data().get(), vo2.data().get()); }, reps));
    const double t_sort = time_thrust_sort_reduce(keys, vals, reps);
    const auto cell = [&](double t) { std::printf(" | %7.3f (%5.2fx)", t, t_sort / t); };
    std::printf("2^%-4d %9lld", lm, static_cast<long long>(groups));
    cell(t_def);
    for (const double t : ts) cell(t);
    std::printf(" | %7.3f\n", t_sort);
    std::fflush(stdout);
  }
  std::printf("%s\n", all_ok ? "every build's groups equal the default's" : "SOME GROUPS DIFFER");
  return all_ok ? 0 : 1;
}
