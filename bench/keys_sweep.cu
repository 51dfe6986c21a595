// Look-back tunings of the keyed scans (issue 27, item 1): a development tool beside the bench
// program (which alone makes the claims). 2^26 f32 values, int keys in runs of L, against
// cub::DeviceScan::InclusiveSumByKey and cub::DeviceReduce::ReduceByKey in the same run; the
// lifted scans (detail/segmented) run straight through run_lookback_tuned /
// run_deterministic_lookback_tuned / run_ordered_lookback_tuned (tunings derived from
// ordered_tuning_base) with bench-only tunings, each output checked against CUB's
// (bitwise: the values are small integers, exact in float while a run's sum stays below 2^24:
// runs of 2^20 and over are flagged [WRONG] by this check alone, the order of their adds differing).
//
//   keys_sweep [--reps R] [--csv FILE] [--commit SHA] [--L L,L,...] [--profile] [--stats]
//
// --stats: one untimed call of each variant with look-back instrumentation
// (scan_tuning_base::lookback_stats): per tile, polls, sleeps, windows and the look-back's length.
// --profile: one call of each main variant (for ncu), nothing timed.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace ks {
namespace adc = algo::detail::cuda;
namespace seg = algo::detail::segmented;
using base = adc::scan_tuning_base;

__device__ unsigned long long g_stats[5];

template <class B>
struct stats : B {
  static constexpr bool lookback_stats = true;
  static __device__ void lookback_record(int polls, int sleeps, int windows, long long cycles) {
    atomicAdd(&g_stats[0], 1ull);
    atomicAdd(&g_stats[1], static_cast<unsigned long long>(polls));
    atomicAdd(&g_stats[2], static_cast<unsigned long long>(sleeps));
    atomicAdd(&g_stats[3], static_cast<unsigned long long>(windows));
    atomicAdd(&g_stats[4], static_cast<unsigned long long>(cycles));
  }
};

struct dflt : base {};
struct skip : base {  // timing only: wrong results
  static constexpr bool timing_skip_lookback = true;
};
// the ordered look-back (the policy's default for the keyed scans)
using obase = adc::ordered_tuning_base;
struct ord : obase {};
// reduce_by_key without count-only tiles (every tile walks to an inclusive prefix and folds: the
// code before 2026-11-28)
struct ord_nocw : obase {
  static constexpr bool count_walk = false;
};
// every head-less tile that can count-only (none folding every 32 tiles: the first form, 2026-11-28)
struct ord_cw_all : obase {
  static constexpr int count_walk_fold_every = 0;
};
// reduce_by_key's keys loaded again by the store (keep_staged_keys off: the code before)
struct ord_reload : obase {
  static constexpr bool keep_staged_keys = false;
};
// the kept keys without the staged run store (each head and tail its own element; keys and counts
// in registers: the code of 300cbae)
struct ord_unstaged : obase {
  static constexpr bool staged_run_store = false;
  static constexpr int inplace_runs = 1;
};
// the in-place warps beside the staged ones: keys read again from the staging and run indices from
// the head bits by popc (the code of d4008f9) or as a running count (inplace_runs 2); the default
// keeps keys and counts in registers (1)
struct ord_ip0 : obase {
  static constexpr int inplace_runs = 0;
};
struct ord_ip2 : obase {
  static constexpr int inplace_runs = 2;
};

// the ordered kernel bounded to 5 blocks an SM (48 registers with 152-byte spills; 4 unbounded: 64
// registers, 39 KB of shared memory a block, so 5 fit): 25-43 % slower (H100, 2026-11-27)
struct ord_5blocks : obase {
  static constexpr int min_blocks_override = 5;
};

// the ordered look-back in the classic kernel's tile shape (reduce_by_key 128 x 16 = 2048 pairs, 8
// blocks an SM; the scan by key 128 x 32)
struct ord_t128 : obase {
  static constexpr int threads = 128;
};

using Eq = algo::equal_to<>;
using AOp = algo::detail::accumulate_with<algo::plus<>, float>;
using SOp = seg::segmented_op<AOp>;
using Heads = seg::key_heads<const int*, Eq>;
using Phase = algo::warp_phase::shfl_t;
using Block = algo::block_scan::warp_scans_t;

/// The row's look-back: classic, the fixed-anchor one ("det") or the ordered one (Det with a tuning
/// derived from ordered_tuning_base).
template <class Tuning, bool Det>
std::string kind() {
  if (!Det) return "classic ";
  return std::is_base_of<adc::ordered_tuning_base, Tuning>::value ? "ordered " : "det ";
}

/// Det: the fixed-anchor look-back, or the ordered one for tunings derived from its base.
template <class Tuning, bool Det, class P>
void run_problem(const P& p) {
  if constexpr (Det && std::is_base_of<adc::ordered_tuning_base, Tuning>::value)
    adc::run_ordered_lookback_tuned<Phase, Block, Tuning>(p, 0);
  else if constexpr (Det) adc::run_deterministic_lookback_tuned<Phase, Block, Tuning>(p, 0);
  else adc::run_lookback_tuned<Phase, Block, Tuning>(p, 0);
}

/// inclusive_scan_by_key (keys, values -> out), as segmented_scan_run builds it.
template <class Tuning, bool Det>
void scan_by_key(const int* keys, const float* v, float* out, std::int64_t n) {
  using L = seg::lift<float, Heads, const float*, AOp, seg::lift_plain>;
  using In = seg::indexed_iterator<L>;
  using W = seg::value_writer<float*>;
  using Out = seg::indexed_output<W>;
  using Acc = seg::seg_value<float>;
  using Op = algo::detail::accumulate_with<SOp, Acc>;
  const adc::scan_problem<Acc, In, Out, Op> p{In(L{Heads{keys, Eq{}}, v, AOp{}, 0.0f}, 0), Out(W{out}, 0), n,
                                              Op{SOp{AOp{}}}, adc::none<Acc>(), false, "inclusive_scan"};
  run_problem<Tuning, Det>(p);
}

/// reduce_by_key (32-bit run counts), as reduce_by_key_lifted builds it.
template <class Tuning, bool Det>
void reduce_by_key(const int* keys, const float* v, int* keys_out, float* values_out, long long* count,
                   std::int64_t n) {
  using L = seg::lift_runs<float, Heads, const float*, int>;
  using In = seg::indexed_iterator<L>;
  using W = seg::run_writer<float, const int*, Eq, int*, float*>;
  using Out = seg::indexed_output<W>;
  using Acc = seg::run_value<float, int>;
  using Op = algo::detail::accumulate_with<SOp, Acc>;
  const adc::scan_problem<Acc, In, Out, Op> p{In(L{Heads{keys, Eq{}}, v, n}, 0), Out(W{keys, Eq{}, keys_out, values_out, n, count}, 0),
                                              n, Op{SOp{AOp{}}}, adc::none<Acc>(), false, "inclusive_scan"};
  run_problem<Tuning, Det>(p);
}

/// A plain f32 inclusive scan (the 1-2 % case, for comparison).
template <class Tuning, bool Det>
void plain_scan(const float* v, float* out, std::int64_t n) {
  const adc::scan_problem<float, const float*, float*, AOp> p{v, out, n, AOp{}, adc::none<float>(), false, "inclusive_scan"};
  run_problem<Tuning, Det>(p);
}

__global__ void mismatch_kernel(const float* a, const float* b, std::int64_t n, unsigned long long* bad) {
  unsigned long long c = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    c += __float_as_uint(a[i]) != __float_as_uint(b[i]);
  if (c) atomicAdd(bad, c);
}

struct ctx {
  const bench::options& opt;
  bench::report& rep;
  std::int64_t n;
  std::string type;
  const int* keys;
  const float* v;
  float* out;
  int* keys_out;
  long long* count;
  const float* want_scan;    // CUB's scan by key
  const float* want_reduce;  // CUB's reduce_by_key values
  long long want_runs;
  const float* want_plain;   // plain scan of v: not checked bitwise (order)
  unsigned long long* bad;
  bool stats_mode;
  bool profile_mode;
  double clock_ghz;

  unsigned long long mismatches(const float* a, const float* b, std::int64_t m) {
    bench::check(cudaMemset(bad, 0, sizeof(unsigned long long)), "memset");
    mismatch_kernel<<<1024, 256>>>(a, b, m, bad);
    unsigned long long h = 0;
    bench::check(cudaMemcpy(&h, bad, sizeof(h), cudaMemcpyDeviceToHost), "memcpy");
    return h;
  }

  template <class F>
  void timed(const char* alg, const std::string& impl, F&& call, double bytes, bool check_scan, bool check_reduce,
             bool check_reduce_count = true) {
    if (profile_mode) {
      call();
      bench::check(cudaDeviceSynchronize(), impl.c_str());
      return;
    }
    const double ms = bench::median_ms(opt, [&](int) { call(); });
    std::string label = impl;
    if (check_scan || check_reduce) {
      bench::check(cudaMemset(out, 0xff, sizeof(float) * n), "poison");
      call();
      bench::check(cudaDeviceSynchronize(), impl.c_str());
      if (check_scan && mismatches(out, want_scan, n) != 0) label += " [WRONG]";
      if (check_reduce) {
        long long runs = 0;
        if (check_reduce_count) bench::check(cudaMemcpy(&runs, count, sizeof(runs), cudaMemcpyDeviceToHost), "memcpy");
        else runs = want_runs;  // the public call writes its count elsewhere (returned, not checked here)
        if (runs != want_runs || mismatches(out, want_reduce, runs) != 0) label += " [WRONG]";
      }
    }
    rep.add({alg, type, n, label, ms, bytes, "cub"});
  }

  template <class Tuning, bool Det>
  void stats_of(const char* alg, const std::string& impl, int which) {
    const unsigned long long zero[5] = {};
    bench::check(cudaMemcpyToSymbol(g_stats, zero, sizeof(zero)), "stats");
    if (which == 0) scan_by_key<stats<Tuning>, Det>(keys, v, out, n);
    else if (which == 1) reduce_by_key<stats<Tuning>, Det>(keys, v, keys_out, out, count, n);
    else plain_scan<stats<Tuning>, Det>(v, out, n);
    bench::check(cudaDeviceSynchronize(), "stats run");
    unsigned long long s[5];
    bench::check(cudaMemcpyFromSymbol(s, g_stats, sizeof(s)), "stats");
    const double t = s[0] ? static_cast<double>(s[0]) : 1.0;
    std::printf("STATS %-14s %-10s %-30s tiles %8llu polls/tile %6.3f sleeps/tile %6.3f windows/tile %6.3f look-back %7.3f us\n",
                alg, type.c_str(), impl.c_str(), s[0], s[1] / t, s[2] / t, s[3] / t, s[4] / t / (clock_ghz * 1e3));
  }

  template <class Tuning, bool Det>
  void variant(const std::string& name, bool timing_only = false) {
    const std::string impl = kind<Tuning, Det>() + name + (timing_only ? " (timing only)" : "");
    const double sbytes = 12.0 * n, rbytes = 8.0 * n;
    if (stats_mode) return;
    timed("scan_by_key", impl, [&] { scan_by_key<Tuning, Det>(keys, v, out, n); }, sbytes, !timing_only, false);
    timed("reduce_by_key", impl, [&] { reduce_by_key<Tuning, Det>(keys, v, keys_out, out, count, n); }, rbytes, false,
          !timing_only);
  }
  template <class Tuning, bool Det>
  void stats_variant(const std::string& name) {
    const std::string impl = kind<Tuning, Det>() + name;
    stats_of<Tuning, Det>("scan_by_key", impl, 0);
    stats_of<Tuning, Det>("reduce_by_key", impl, 1);
    stats_of<Tuning, Det>("plain_scan", impl, 2);
  }
};

}  // namespace ks

int main(int argc, char** argv) {
  bench::options opt;
  opt.reps = 20;
  std::string commit = "unknown";
  std::vector<std::int64_t> Ls = {32, 4096};
  bool stats_mode = false, profile_mode = false;
  int log2n = 26;
  opt.csv = "keys_sweep.csv";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--reps") opt.reps = std::atoi(next().c_str());
    else if (a == "--csv") opt.csv = next();
    else if (a == "--commit") commit = next();
    else if (a == "--log2") log2n = std::atoi(next().c_str());
    else if (a == "--stats") stats_mode = true;
    else if (a == "--profile") profile_mode = true;
    else if (a == "--L") {
      Ls.clear();
      std::stringstream ss(next());
      std::string t;
      while (std::getline(ss, t, ',')) Ls.push_back(std::atoll(t.c_str()));
    } else {
      std::fprintf(stderr, "usage: %s [--reps R] [--csv FILE] [--commit SHA] [--log2 K] [--L L,...] [--stats] [--profile]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop{};
  bench::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  std::printf("device: %s, %d SMs, clock %.3f GHz\n", prop.name, prop.multiProcessorCount, clock_khz / 1e6);
  bench::report rep(opt);
  const std::int64_t n = std::int64_t(1) << log2n;
  bench::rotating_buffers<float> values(n, 1);
  float *out = nullptr, *want_scan = nullptr, *want_reduce = nullptr, *want_plain = nullptr;
  int *keys = nullptr, *keys_out = nullptr;
  long long *count = nullptr, *cub_count = nullptr;
  unsigned long long* bad = nullptr;
  bench::check(cudaMalloc(&out, sizeof(float) * n), "cudaMalloc");
  bench::check(cudaMalloc(&want_scan, sizeof(float) * n), "cudaMalloc");
  bench::check(cudaMalloc(&want_reduce, sizeof(float) * n), "cudaMalloc");
  bench::check(cudaMalloc(&want_plain, sizeof(float) * n), "cudaMalloc");
  bench::check(cudaMalloc(&keys, sizeof(int) * n), "cudaMalloc");
  bench::check(cudaMalloc(&keys_out, sizeof(int) * n), "cudaMalloc");
  bench::check(cudaMalloc(&count, sizeof(long long)), "cudaMalloc");
  bench::check(cudaMalloc(&cub_count, sizeof(long long)), "cudaMalloc");
  bench::check(cudaMalloc(&bad, sizeof(unsigned long long)), "cudaMalloc");
  const float* v = values[0];
  for (const std::int64_t L : Ls) {
    std::vector<int> h(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<int>(i / L);
    bench::check(cudaMemcpy(keys, h.data(), sizeof(int) * n, cudaMemcpyHostToDevice), "cudaMemcpy");
    const std::string type = "f32 L=" + std::to_string(L);
    // CUB, timed, and its results
    long long runs = 0;
    {
      std::size_t b = 0;
      cub::DeviceScan::InclusiveSumByKey(nullptr, b, keys, v, want_scan, static_cast<int>(n));
      void* t = nullptr;
      bench::check(cudaMalloc(&t, b + 1), "cudaMalloc");
      if (!profile_mode && !stats_mode)
        rep.add({"scan_by_key", type, n, "cub", bench::median_ms(opt, [&](int) {
                   cub::DeviceScan::InclusiveSumByKey(t, b, keys, v, out, static_cast<int>(n));
                 }), 12.0 * n, "cub"});
      cub::DeviceScan::InclusiveSumByKey(t, b, keys, v, want_scan, static_cast<int>(n));
      bench::check(cudaDeviceSynchronize(), "cub");
      cudaFree(t);
    }
    {
      std::size_t b = 0;
      cub::DeviceReduce::ReduceByKey(nullptr, b, keys, keys_out, v, want_reduce, cub_count, cuda::std::plus<float>{},
                                     static_cast<int>(n));
      void* t = nullptr;
      bench::check(cudaMalloc(&t, b + 1), "cudaMalloc");
      if (!profile_mode && !stats_mode)
        rep.add({"reduce_by_key", type, n, "cub", bench::median_ms(opt, [&](int) {
                   cub::DeviceReduce::ReduceByKey(t, b, keys, keys_out, v, out, cub_count, cuda::std::plus<float>{},
                                                  static_cast<int>(n));
                 }), 8.0 * n, "cub"});
      cub::DeviceReduce::ReduceByKey(t, b, keys, keys_out, v, want_reduce, cub_count, cuda::std::plus<float>{},
                                     static_cast<int>(n));
      bench::check(cudaMemcpy(&runs, cub_count, sizeof(runs), cudaMemcpyDeviceToHost), "memcpy");
      cudaFree(t);
    }
    if (!profile_mode && !stats_mode) {
      std::size_t b = 0;
      cub::DeviceScan::InclusiveSum(nullptr, b, v, out, n);
      void* t = nullptr;
      bench::check(cudaMalloc(&t, b + 1), "cudaMalloc");
      rep.add({"plain_scan", type, n, "cub", bench::median_ms(opt, [&](int) { cub::DeviceScan::InclusiveSum(t, b, v, out, n); }),
               8.0 * n, "cub"});
      cudaFree(t);
    }
    ks::ctx c{opt, rep, n, type, keys, v, out, keys_out, count, want_scan, want_reduce, runs, want_plain, bad,
              stats_mode, profile_mode, clock_khz / 1e6};
    // the public calls (algo::cuda default = deterministic for floats; classic named)
    if (!stats_mode) {
      c.timed("scan_by_key", "algo::cuda", [&] { algo::inclusive_scan_by_key(algo::cuda, keys, keys + n, v, out); }, 12.0 * n,
              true, false);
      c.timed("scan_by_key", "algo::cuda decoupled_lookback", [&] {
        algo::inclusive_scan_by_key(algo::cuda.with(algo::scan_strategy::decoupled_lookback), keys, keys + n, v, out);
      }, 12.0 * n, true, false);
      c.timed("reduce_by_key", "algo::cuda", [&] { algo::reduce_by_key(algo::cuda, keys, keys + n, v, keys_out, out); },
              8.0 * n, false, true, false);
      c.timed("reduce_by_key", "algo::cuda reduce_by_key_into", [&] {
        algo::reduce_by_key_into(algo::cuda, keys, keys + n, v, keys_out, out, count);
      }, 8.0 * n, false, true);
      c.timed("reduce_by_key", "algo::cuda decoupled_lookback", [&] {
        algo::reduce_by_key(algo::cuda.with(algo::scan_strategy::decoupled_lookback), keys, keys + n, v, keys_out, out);
      }, 8.0 * n, false, true, false);
      // reproducibility of the default: two calls, bitwise
      if (!profile_mode) {
        algo::inclusive_scan_by_key(algo::cuda, keys, keys + n, v, out);
        algo::inclusive_scan_by_key(algo::cuda, keys, keys + n, v, want_plain);
        bench::check(cudaDeviceSynchronize(), "repro");
        std::printf("reproducible (two default scans by key, bitwise): %s\n",
                    c.mismatches(out, want_plain, n) == 0 ? "yes" : "NO");
      }
    }
    c.variant<ks::dflt, false>("dflt");
    c.variant<ks::ord, true>("policy tuning");
    c.variant<ks::ord_nocw, true>("no count walk");
    c.variant<ks::ord_cw_all, true>("count walk, no folding tiles");
    c.variant<ks::ord, true>("policy tuning again");  // (the order of the rows: the same kernel timed later)
    if (profile_mode) continue;
    // reduce_by_key's tile I/O: the keys loaded again; the runs stored in place / staged, and how
    // the in-place warps find keys and run indices (tuning inplace_runs)
    c.variant<ks::ord_reload, true>("keys reloaded");
    c.variant<ks::ord_unstaged, true>("unstaged runs");
    c.variant<ks::ord_ip0, true>("in place: popc");
    c.variant<ks::ord_ip2, true>("in place: count");
    c.variant<ks::ord_5blocks, true>("5 blocks an SM");
    c.variant<ks::ord_t128, true>("128 threads");
    c.variant<ks::skip, false>("skip", true);
    if (L == Ls.front() || stats_mode) {
      c.stats_variant<ks::dflt, false>("dflt");
      c.stats_variant<ks::ord, true>("policy tuning");
      c.stats_variant<ks::ord_nocw, true>("no count walk");
      c.stats_variant<ks::ord_cw_all, true>("count walk, no folding tiles");
    }
  }
  if (!profile_mode && !stats_mode) rep.finish(prop.name, commit);
  return 0;
}
