// Host benchmark: algo::seq and algo::par against std:: (sequential <numeric>) and, when the CCCL
// headers are found, thrust::omp::par (Thrust's OpenMP system), for inclusive_scan, reduce,
// transform_reduce (inner product) and transpose, at several sizes. Prints a markdown table (time,
// GB/s, speed-ups) and the two targets as ratios measured in this one run.
//
// Method. The CPU is shared (other processes come and go), so the implementations of one row
// group run interleaved, round-robin (A B C D A B C D ...), each after one untimed warm-up call:
// drift hits all of them alike. Each is timed `--reps` times with std::chrono::steady_clock; the
// table quotes the minimum (the run least disturbed) and the median. Speed-ups are min over min;
// the targets also give the median of the per-round ratios, which pairs runs taken moments apart.
// Inputs are random (never zero), written once before timing. Sizes of 2^24 elements and up are
// far larger than the L2 (2 MB per core) and 2^26 larger than the whole L3 share of this VM; the
// smaller sizes measure in-cache speed, on purpose. GB/s counts bytes read + written once.
//
//   bench_host [--reps N] [--sizes 16,20,24,26] [--only scan|reduce|transform_reduce|transpose]
//              [--threads K] [--quick]
#include <algo/algo.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

#if defined(ALGO_BENCH_WITH_THRUST)
#  include <thrust/inner_product.h>
#  include <thrust/reduce.h>
#  include <thrust/scan.h>
#  include <thrust/system/omp/execution_policy.h>
#endif

namespace {

// ==== options =====================================================================================
struct options {
  int reps = 15;
  std::vector<int> log2_sizes{16, 20, 24, 26};
  std::string only;  // "", "scan", "reduce", "transform_reduce", "transpose"
  int threads = 0;   // algo::par's thread count (0: OpenMP's default)
  bool wants(const char* section) const { return only.empty() || only == section; }
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_host: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--reps") o.reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--only") o.only = next();
    else if (a == "--threads") o.threads = std::atoi(next().c_str());
    else if (a == "--quick") { o.reps = 5; o.log2_sizes = {20, 26}; }
    else if (a == "--sizes") {
      o.log2_sizes.clear();
      std::stringstream ss(next());
      for (std::string k; std::getline(ss, k, ',');) o.log2_sizes.push_back(std::atoi(k.c_str()));
    } else {
      std::fprintf(stderr, "usage: bench_host [--reps N] [--sizes 16,20,24,26] [--only scan|reduce|transform_reduce|transpose] [--threads K] [--quick]\n");
      std::exit(2);
    }
  }
  return o;
}

// ==== timing ======================================================================================
struct candidate {
  std::string name;
  std::function<void()> run;
};

struct timing {
  std::string name;
  double min_ms = 0, median_ms = 0;
  std::vector<double> samples;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// One warm-up each, then `reps` rounds, each running every candidate once, in turn.
std::vector<timing> measure(const std::vector<candidate>& cands, int reps) {
  std::vector<timing> t(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    t[i].name = cands[i].name;
    cands[i].run();
  }
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      cands[i].run();
      const auto t1 = std::chrono::steady_clock::now();
      t[i].samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
  for (auto& x : t) {
    x.min_ms = *std::min_element(x.samples.begin(), x.samples.end());
    x.median_ms = median(x.samples);
  }
  return t;
}

/// Median over rounds of a.samples[r] / b.samples[r] (b's speed-up over a when a is the baseline).
double paired_ratio(const timing& a, const timing& b) {
  std::vector<double> r;
  for (std::size_t i = 0; i < a.samples.size() && i < b.samples.size(); ++i) r.push_back(a.samples[i] / b.samples[i]);
  return median(r);
}

const timing* find(const std::vector<timing>& t, const std::string& name) {
  for (const auto& x : t)
    if (x.name == name) return &x;
  return nullptr;
}

// ==== report ======================================================================================
struct target {
  std::string what;
  double need;  // at least
  double ratio_min, ratio_paired;
};

struct report {
  std::vector<target> targets;

  void header() {
    std::printf("| algorithm | type | n | implementation | min ms | median ms | GB/s | vs std:: | vs thrust::omp |\n");
    std::printf("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n");
  }
  /// Rows of one group; `baseline` / `thrust` name the candidates the speed-up columns divide.
  void rows(const char* algorithm, const char* type, const std::string& n, double bytes, const std::vector<timing>& t,
            const char* baseline, const char* thrust) {
    const timing* b = find(t, baseline);
    const timing* th = find(t, thrust);
    for (const auto& x : t) {
      char vs_b[32] = "", vs_t[32] = "";
      if (b) std::snprintf(vs_b, sizeof vs_b, "%.2fx", b->min_ms / x.min_ms);
      if (th) std::snprintf(vs_t, sizeof vs_t, "%.2fx", th->min_ms / x.min_ms);
      std::printf("| %s | %s | %s | %s | %.3f | %.3f | %.1f | %s | %s |\n", algorithm, type, n.c_str(), x.name.c_str(),
                  x.min_ms, x.median_ms, bytes / (x.min_ms * 1e6), vs_b, vs_t);
    }
    std::fflush(stdout);
  }
};

std::string pow2(int k) { return "2^" + std::to_string(k); }

// ==== data ========================================================================================
template <class T>
std::vector<T> random_data(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral<T>::value) {
    std::uniform_int_distribution<int> d(1, 6);  // +-1..3: no overflow in int32 sums of 2^28
    for (auto& x : v) x = static_cast<T>(d(g) <= 3 ? d(g) % 3 + 1 : -(d(g) % 3 + 1));
  } else {
    std::uniform_real_distribution<T> d(T(0.5), T(1.5));
    for (auto& x : v) x = d(g);
  }
  return v;
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same<T, std::int32_t>::value) return "i32";
  else if constexpr (std::is_same<T, float>::value) return "f32";
  else return "f64";
}

volatile double sink;  // keeps reductions from being optimized away

// ==== sections ====================================================================================
template <class T>
void bench_scan(const options& opt, report& rep, int k, const algo::par_policy& par) {
  const std::size_t n = std::size_t(1) << k;
  const auto in = random_data<T>(n, 1);
  std::vector<T> out(n);
  std::vector<candidate> c{
      {"algo::seq", [&] { algo::inclusive_scan(algo::seq, in.data(), in.data() + n, out.data()); }},
      {"algo::par", [&] { algo::inclusive_scan(par, in.data(), in.data() + n, out.data()); }},
      {"std::inclusive_scan", [&] { std::inclusive_scan(in.data(), in.data() + n, out.data()); }},
#if defined(ALGO_BENCH_WITH_THRUST)
      {"thrust::omp", [&] { thrust::inclusive_scan(thrust::omp::par, in.data(), in.data() + n, out.data()); }},
#endif
  };
  const auto t = measure(c, opt.reps);
  rep.rows("inclusive_scan", type_name<T>(), pow2(k), 2.0 * n * sizeof(T), t, "std::inclusive_scan", "thrust::omp");
  if (k == 26 && std::is_same<T, std::int32_t>::value) {
    const timing *s = find(t, "std::inclusive_scan"), *p = find(t, "algo::par");
    rep.targets.push_back({"inclusive_scan 2^26 i32: algo::par speed-up over std::inclusive_scan", 1.4, s->min_ms / p->min_ms,
                           paired_ratio(*s, *p)});
  }
}

template <class T>
void bench_reduce(const options& opt, report& rep, int k, const algo::par_policy& par) {
  const std::size_t n = std::size_t(1) << k;
  const auto in = random_data<T>(n, 2);
  std::vector<candidate> c{
      {"algo::seq", [&] { sink = static_cast<double>(algo::reduce(algo::seq, in.data(), in.data() + n)); }},
      {"algo::par", [&] { sink = static_cast<double>(algo::reduce(par, in.data(), in.data() + n)); }},
      {"std::reduce", [&] { sink = static_cast<double>(std::reduce(in.data(), in.data() + n)); }},
#if defined(ALGO_BENCH_WITH_THRUST)
      {"thrust::omp", [&] { sink = static_cast<double>(thrust::reduce(thrust::omp::par, in.data(), in.data() + n)); }},
#endif
  };
  const auto t = measure(c, opt.reps);
  rep.rows("reduce", type_name<T>(), pow2(k), 1.0 * n * sizeof(T), t, "std::reduce", "thrust::omp");
#if defined(ALGO_BENCH_WITH_THRUST)
  if (k == 26 && std::is_same<T, std::int32_t>::value) {
    const timing *o = find(t, "thrust::omp"), *p = find(t, "algo::par");
    rep.targets.push_back({"reduce 2^26 i32: algo::par speed-up over thrust::reduce(thrust::omp::par)", 1.0, o->min_ms / p->min_ms,
                           paired_ratio(*o, *p)});
  }
#endif
}

template <class T>
void bench_inner_product(const options& opt, report& rep, int k, const algo::par_policy& par) {
  using W = std::conditional_t<std::is_integral<T>::value, std::int64_t, T>;
  const std::size_t n = std::size_t(1) << k;
  const auto a = random_data<T>(n, 3), b = random_data<T>(n, 4);
  std::vector<candidate> c{
      {"algo::seq", [&] { sink = static_cast<double>(algo::transform_reduce(algo::seq, a.data(), a.data() + n, b.data(), W{})); }},
      {"algo::par", [&] { sink = static_cast<double>(algo::transform_reduce(par, a.data(), a.data() + n, b.data(), W{})); }},
      {"std::transform_reduce", [&] { sink = static_cast<double>(std::transform_reduce(a.data(), a.data() + n, b.data(), W{})); }},
#if defined(ALGO_BENCH_WITH_THRUST)
      {"thrust::omp", [&] { sink = static_cast<double>(thrust::inner_product(thrust::omp::par, a.data(), a.data() + n, b.data(), W{})); }},
#endif
  };
  const auto t = measure(c, opt.reps);
  rep.rows("transform_reduce (dot)", type_name<T>(), pow2(k), 2.0 * n * sizeof(T), t, "std::transform_reduce", "thrust::omp");
}

template <class T>
void bench_transpose(const options& opt, report& rep, std::int64_t rows, std::int64_t cols, const algo::par_policy& par) {
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  const auto in = random_data<T>(n, 5);
  std::vector<T> out(n);
  std::vector<candidate> c{
      {"algo::seq", [&] { algo::transpose(algo::seq, in.data(), rows, cols, out.data()); }},
      {"algo::par", [&] { algo::transpose(par, in.data(), rows, cols, out.data()); }},
      {"naive loop", [&] {
         const T* src = in.data();
         T* dst = out.data();
         for (std::int64_t r = 0; r < rows; ++r)
           for (std::int64_t col = 0; col < cols; ++col) dst[col * rows + r] = src[r * cols + col];
       }},
      {"memcpy (bandwidth)", [&] { std::memcpy(out.data(), in.data(), n * sizeof(T)); }},
  };
  const auto t = measure(c, opt.reps);
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
  rep.rows("transpose", type_name<T>(), shape, 2.0 * n * sizeof(T), t, "naive loop", "");
}

// ==== machine =====================================================================================
std::string first_line_with(const char* file, const char* key) {
  std::ifstream f(file);
  for (std::string line; std::getline(f, line);)
    if (line.find(key) != std::string::npos) return line;
  return "";
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse(argc, argv);
  const algo::par_policy par = algo::par.with_threads(opt.threads);
  report rep;

  std::string cpu = first_line_with("/proc/cpuinfo", "model name");
  if (const auto p = cpu.find(':'); p != std::string::npos) cpu = cpu.substr(p + 2);
  int omp_threads = 1;
#if defined(_OPENMP)
  omp_threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
#endif
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  std::printf("# algo host benchmark\n\n");
  std::printf("- date: %s; CPU: %s; hardware threads: %u; algo::par threads: %d\n", date, cpu.c_str(),
              std::thread::hardware_concurrency(), omp_threads);
  std::printf("- method: interleaved rounds, 1 warm-up + %d timed runs each; min and median wall time; "
              "speed-ups are min/min\n",
              opt.reps);
  std::printf("- load average at start: %s\n\n", loadavg().c_str());
  rep.header();

  for (int k : opt.log2_sizes) {
    if (opt.wants("scan")) {
      bench_scan<std::int32_t>(opt, rep, k, par);
      bench_scan<float>(opt, rep, k, par);
      bench_scan<double>(opt, rep, k, par);
    }
    if (opt.wants("reduce")) {
      bench_reduce<std::int32_t>(opt, rep, k, par);
      bench_reduce<float>(opt, rep, k, par);
      bench_reduce<double>(opt, rep, k, par);
    }
    if (opt.wants("transform_reduce")) {
      bench_inner_product<std::int32_t>(opt, rep, k, par);
      bench_inner_product<double>(opt, rep, k, par);
    }
    if (opt.wants("transpose")) {
      const std::int64_t side = std::int64_t(1) << (k / 2);
      bench_transpose<std::int32_t>(opt, rep, side, (std::int64_t(1) << k) / side, par);
      bench_transpose<double>(opt, rep, side, (std::int64_t(1) << k) / side, par);
      if (k == opt.log2_sizes.back()) bench_transpose<std::int32_t>(opt, rep, side - 1, (std::int64_t(1) << k) / side + 1, par);
    }
  }

  std::printf("\n- load average at end: %s\n", loadavg().c_str());
  if (!rep.targets.empty()) {
    std::printf("\n## Targets (issue 2), measured in this run\n\n");
    std::printf("| target | need | min/min | median of paired ratios | met |\n| --- | ---: | ---: | ---: | --- |\n");
    for (const auto& t : rep.targets)
      std::printf("| %s | >= %.2fx | %.2fx | %.2fx | %s |\n", t.what.c_str(), t.need, t.ratio_min, t.ratio_paired,
                  t.ratio_min >= t.need ? "yes" : "no");
  }
  return 0;
}
