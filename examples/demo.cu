// The demo (scripts/demo.sh): all five algorithms on generated data with every available policy,
// each result checked against Thrust (thrust::host for algo::seq / algo::par, thrust::device for
// algo::cub / algo::cuda), and a table of times. Without a GPU it says so and runs the host rows.
//
//   demo [n] [--require-gpu]
//
// n: elements per algorithm (default 2^24; transpose uses a near-square matrix of about n).
// --require-gpu: without a GPU, exit 77 after the host rows (CTest reports SKIP, not a pass).
//
// Compiled by nvcc this is the full demo. The same file also builds as plain C++ (the host-only
// preset, no nvcc): then it checks against thrust::host when the CCCL headers are on the include
// path, otherwise against the standard library.
#include <algo/algo.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#  include <omp.h>
#endif

#if defined(__CUDACC__)
#  define DEMO_HAVE_THRUST 1
#  define DEMO_HD __host__ __device__
#else
#  if __has_include(<thrust/version.h>)
#    define DEMO_HAVE_THRUST 1
#  endif
#  define DEMO_HD
#endif

#ifdef DEMO_HAVE_THRUST
#  include <thrust/execution_policy.h>
#  include <thrust/functional.h>
#  include <thrust/gather.h>
#  include <thrust/inner_product.h>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#  include <thrust/reduce.h>
#  include <thrust/scan.h>
#endif
#if defined(__CUDACC__)
#  include <cuda_runtime_api.h>
#  include <thrust/copy.h>
#  include <thrust/device_vector.h>
#endif
#if defined(__CUDACC__) && defined(ALGO_DEMO_NCCL)
#  include <algo/nccl.hpp>  // the multi-GPU rows (built so when CMake finds NCCL)
#  include <thread>
#endif

namespace {

// ---- the generated problem (host memory) ----------------------------------------------------------
struct problem {
  std::int64_t n = 0;
  std::vector<int> ints;        // uniform in [-50, 50]: scans stay far from int overflow
  std::vector<float> x, y;      // uniform in [-1, 1]: the dot product
  std::int64_t rows = 0, cols = 0;
  std::vector<float> matrix;    // rows x cols, row-major
};

problem generate(std::int64_t n) {
  problem p;
  p.n = n;
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int> small(-50, 50);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  p.ints.resize(n);
  p.x.resize(n);
  p.y.resize(n);
  for (auto& v : p.ints) v = small(rng);
  for (auto& v : p.x) v = unit(rng);
  for (auto& v : p.y) v = unit(rng);
  // Near-square and deliberately not a multiple of any tile size.
  p.rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(n))) - 1);
  p.cols = std::max<std::int64_t>(1, n / p.rows);
  p.matrix.resize(p.rows * p.cols);
  for (auto& v : p.matrix) v = unit(rng);
  return p;
}

/// out[c * rows + r] = in[r * cols + c], as an index map for a gather.
struct transposed_index {
  std::int64_t rows, cols;
  DEMO_HD std::int64_t operator()(std::int64_t k) const { return (k % rows) * cols + k / rows; }
};

// ---- buffers in one memory space (std::vector on the host, thrust::device_vector on the GPU) -----
template <template <class...> class Vec>
struct buffers {
  Vec<int> ints, out, ref;
  Vec<float> x, y, matrix, out_matrix, ref_matrix;
  explicit buffers(const problem& p)
      : ints(p.ints.begin(), p.ints.end()), out(p.n), ref(p.n), x(p.x.begin(), p.x.end()),
        y(p.y.begin(), p.y.end()), matrix(p.matrix.begin(), p.matrix.end()), out_matrix(p.matrix.size()),
        ref_matrix(p.matrix.size()) {}
};

template <class T>
const std::vector<T>& to_host(const std::vector<T>& v) { return v; }
#if defined(__CUDACC__)
template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& v) {
  std::vector<T> h(v.size());
  thrust::copy(v.begin(), v.end(), h.begin());
  return h;
}
#endif

// ---- the references: Thrust on the host or the device; the standard library without Thrust ------
#ifdef DEMO_HAVE_THRUST
template <class Exec>
struct thrust_reference {
  const char* name;
  Exec exec;
  std::function<void()> sync;
  template <class V>
  void inclusive_scan(const V& in, V& out) const { thrust::inclusive_scan(exec, in.begin(), in.end(), out.begin()); }
  template <class V, class T>
  void exclusive_scan(const V& in, V& out, T init) const {
    thrust::exclusive_scan(exec, in.begin(), in.end(), out.begin(), init);
  }
  template <class V, class T>
  T reduce(const V& in, T init) const { return thrust::reduce(exec, in.begin(), in.end(), init); }
  /// thrust::inner_product's defaults, plus<T> and multiplies<T> (products in T): the arithmetic of
  /// algo::transform_reduce(policy, first1, last1, first2, init).
  template <class V, class T>
  T dot(const V& x, const V& y, T init) const { return thrust::inner_product(exec, x.begin(), x.end(), y.begin(), init); }
  template <class V>
  void transpose(const V& in, std::int64_t rows, std::int64_t cols, V& out) const {
    auto index = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), transposed_index{rows, cols});
    thrust::gather(exec, index, index + rows * cols, in.begin(), out.begin());
  }
};
#endif

struct std_reference {
  const char* name = "std::";
  std::function<void()> sync = [] {};
  template <class V>
  void inclusive_scan(const V& in, V& out) const { std::inclusive_scan(in.begin(), in.end(), out.begin()); }
  template <class V, class T>
  void exclusive_scan(const V& in, V& out, T init) const { std::exclusive_scan(in.begin(), in.end(), out.begin(), init); }
  template <class V, class T>
  T reduce(const V& in, T init) const { return std::reduce(in.begin(), in.end(), init); }
  /// Products in T, as algo's (and Thrust's) inner product; std::inner_product's defaults would
  /// multiply in the inputs' type.
  template <class V, class T>
  T dot(const V& x, const V& y, T init) const {
    return std::inner_product(x.begin(), x.end(), y.begin(), init, std::plus<T>{}, std::multiplies<T>{});
  }
  template <class V>
  void transpose(const V& in, std::int64_t rows, std::int64_t cols, V& out) const {
    const transposed_index index{rows, cols};
    for (std::int64_t k = 0; k < rows * cols; ++k) out[k] = in[index(k)];
  }
};

auto host_reference() {
#ifdef DEMO_HAVE_THRUST
  return thrust_reference<std::decay_t<decltype(thrust::host)>>{"thrust::host", thrust::host, [] {}};
#else
  return std_reference{};
#endif
}

// ---- the table ------------------------------------------------------------------------------------
struct row {
  int algorithm;  // index into algorithm_names, the sort key
  std::string label, policy;
  std::int64_t n;
  double ms;
  const char* check;
};
const char* const algorithm_names[] = {"inclusive_scan", "exclusive_scan", "reduce", "transform_reduce",
                                       "transpose"};

/// Best of three timed runs after one warm-up (which also pays for first-touch allocations).
template <class F>
double time_ms(F&& f, const std::function<void()>& sync) {
  f();
  sync();
  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    sync();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

/// Runs the five algorithms with one policy, and the reference's five, adding rows to `table`.
/// Returns false when a result differs from the reference.
template <class Policy, class Ref, template <class...> class Vec>
bool run_policy(const char* policy_name, const Policy& policy, const Ref& ref, buffers<Vec>& b, const problem& p,
                bool with_reference_rows, std::vector<row>& table) {
  bool all_ok = true;
  const std::string shape = std::to_string(p.rows) + "x" + std::to_string(p.cols);
  auto add = [&](int algorithm, std::string label, std::int64_t n, double ms, double ref_ms, bool ok) {
    if (with_reference_rows) table.push_back({algorithm, label, ref.name, n, ref_ms, "reference"});
    table.push_back({algorithm, std::move(label), policy_name, n, ms, ok ? "ok" : "WRONG"});
    all_ok = all_ok && ok;
  };

  // ---- inclusive_scan: int, accumulated in int ----
  {
    const double ms = time_ms([&] { algo::inclusive_scan(policy, b.ints.begin(), b.ints.end(), b.out.begin()); }, ref.sync);
    const double ref_ms = time_ms([&] { ref.inclusive_scan(b.ints, b.ref); }, ref.sync);
    add(0, algorithm_names[0], p.n, ms, ref_ms, to_host(b.out) == to_host(b.ref));
  }
  // ---- exclusive_scan: int with init ----
  {
    const int init = 7;
    const double ms =
        time_ms([&] { algo::exclusive_scan(policy, b.ints.begin(), b.ints.end(), b.out.begin(), init); }, ref.sync);
    const double ref_ms = time_ms([&] { ref.exclusive_scan(b.ints, b.ref, init); }, ref.sync);
    add(1, algorithm_names[1], p.n, ms, ref_ms, to_host(b.out) == to_host(b.ref));
  }
  // ---- reduce: int input, accumulated in init's type (int64) ----
  {
    std::int64_t sum = 0, expect = 0;
    const double ms = time_ms([&] { sum = algo::reduce(policy, b.ints.begin(), b.ints.end(), std::int64_t{0}); }, ref.sync);
    const double ref_ms = time_ms([&] { expect = ref.reduce(b.ints, std::int64_t{0}); }, ref.sync);
    add(2, algorithm_names[2], p.n, ms, ref_ms, sum == expect);
  }
  // ---- transform_reduce: dot product of floats, accumulated in double ----
  {
    double dot = 0, expect = 0;
    const double ms =
        time_ms([&] { dot = algo::transform_reduce(policy, b.x.begin(), b.x.end(), b.y.begin(), 0.0); }, ref.sync);
    const double ref_ms = time_ms([&] { expect = ref.dot(b.x, b.y, 0.0); }, ref.sync);
    // Summation order differs: allow n rounding errors of the largest possible partial sum.
    double magnitude = 0;
    for (std::int64_t i = 0; i < p.n; ++i) magnitude += std::fabs(static_cast<double>(p.x[i]) * p.y[i]);
    const double tolerance = static_cast<double>(p.n) * 0x1p-52 * magnitude + 1e-12;
    add(3, "transform_reduce (dot)", p.n, ms, ref_ms, std::fabs(dot - expect) <= tolerance);
  }
  // ---- transpose: rows x cols floats, exact ----
  {
    const double ms = time_ms(
        [&] { algo::transpose(policy, b.matrix.begin(), p.rows, p.cols, b.out_matrix.begin()); }, ref.sync);
    const double ref_ms = time_ms([&] { ref.transpose(b.matrix, p.rows, p.cols, b.ref_matrix); }, ref.sync);
    add(4, "transpose " + shape, p.rows * p.cols, ms, ref_ms, to_host(b.out_matrix) == to_host(b.ref_matrix));
  }
  return all_ok;
}

void print_table(std::vector<row> table) {
  std::stable_sort(table.begin(), table.end(), [](const row& a, const row& b) { return a.algorithm < b.algorithm; });
  std::printf("\n%-32s %-15s %12s %11s  %s\n", "algorithm", "policy", "n", "time (ms)", "check");
  std::printf("%s\n", std::string(84, '-').c_str());
  for (const auto& r : table)
    std::printf("%-32s %-15s %12lld %11.3f  %s\n", r.label.c_str(), r.policy.c_str(), static_cast<long long>(r.n),
                r.ms, r.check);
  std::printf("\ntime: best of 3 runs after a warm-up, wall clock, including the device synchronization.\n");
}

#if defined(__CUDACC__)
/// True when a CUDA device can be used; otherwise prints why.
bool have_gpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("No usable CUDA device (%s): running the host policies only.\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    (void)cudaGetLastError();
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    std::printf("GPU: %s (sm_%d%d, %.1f GiB)\n", prop.name, prop.major, prop.minor,
                prop.totalGlobalMem / double(1 << 30));
  return true;
}

void device_sync() {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) throw std::runtime_error(std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e));
}
#endif


#if defined(__CUDACC__) && defined(ALGO_DEMO_NCCL)
// ---- two GPUs over NCCL (algo::nccl): each GPU holds half of every input ---------------------------
struct gpu_part {
  int dev = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  std::int64_t off = 0, len = 0;      // this GPU's elements of the sequences
  std::int64_t rb = 0, re = 0;        // its rows of the matrix
  std::int64_t ob = 0, oe = 0;        // its rows of the transposed matrix
  int *ints = nullptr, *out = nullptr;
  float *x = nullptr, *y = nullptr, *m = nullptr, *mt = nullptr;
  std::int64_t sum = 0;
  double dot = 0;
};

void demo_check(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + cudaGetErrorString(e));
}

/// Best of three runs after a warm-up of f on both GPUs at once (a thread each), wall clock.
template <class F>
double time_both(std::vector<gpu_part>& g, F&& f) {
  auto round = [&] {
    std::vector<std::thread> t;
    for (auto& part : g)
      t.emplace_back([&part, &f] {
        demo_check(cudaSetDevice(part.dev));
        f(part);
        demo_check(cudaStreamSynchronize(part.stream));
      });
    for (auto& th : t) th.join();
  };
  return time_ms(round, [] {});
}

/// The multi-GPU rows: every algorithm split across two GPUs, checked against the standard library.
bool run_multi_gpu(const problem& p, std::vector<row>& table) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("One GPU: the multi-GPU rows (algo::nccl over two GPUs) are left out.\n");
    (void)cudaGetLastError();
    return true;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // keep NVLink multicast off (unless the environment says otherwise)
  ncclComm_t comms[2];
  int devs[2] = {0, 1};
  if (ncclCommInitAll(comms, 2, devs) != ncclSuccess) {
    std::printf("ncclCommInitAll failed: the multi-GPU rows are left out.\n");
    return true;
  }
  std::vector<gpu_part> g(2);
  const std::int64_t half = p.n / 3;  // uneven on purpose: GPU 0 a third, GPU 1 the rest
  const std::int64_t row_half = p.rows / 2, col_half = p.cols / 3;
  for (int r = 0; r < 2; ++r) {
    gpu_part& q = g[r];
    q.dev = r;
    q.comm = comms[r];
    q.off = r == 0 ? 0 : half;
    q.len = r == 0 ? half : p.n - half;
    q.rb = r == 0 ? 0 : row_half;
    q.re = r == 0 ? row_half : p.rows;
    q.ob = r == 0 ? 0 : col_half;
    q.oe = r == 0 ? col_half : p.cols;
    demo_check(cudaSetDevice(r));
    demo_check(cudaStreamCreate(&q.stream));
    auto upload = [](auto*& d, const auto* h, std::int64_t count) {
      demo_check(cudaMalloc(reinterpret_cast<void**>(&d), (count ? count : 1) * sizeof(*h)));
      demo_check(cudaMemcpy(d, h, count * sizeof(*h), cudaMemcpyHostToDevice));
    };
    upload(q.ints, p.ints.data() + q.off, q.len);
    upload(q.x, p.x.data() + q.off, q.len);
    upload(q.y, p.y.data() + q.off, q.len);
    upload(q.m, p.matrix.data() + q.rb * p.cols, (q.re - q.rb) * p.cols);
    demo_check(cudaMalloc(reinterpret_cast<void**>(&q.out), (q.len ? q.len : 1) * sizeof(int)));
    demo_check(cudaMalloc(reinterpret_cast<void**>(&q.mt), ((q.oe - q.ob) * p.rows + 1) * sizeof(float)));
  }
  auto gather_ints = [&] {
    std::vector<int> h(p.n);
    for (auto& q : g) {
      demo_check(cudaSetDevice(q.dev));
      demo_check(cudaMemcpy(h.data() + q.off, q.out, q.len * sizeof(int), cudaMemcpyDeviceToHost));
    }
    return h;
  };
  bool all_ok = true;
  auto add = [&](int algorithm, std::string label, std::int64_t n, double ms, bool ok) {
    table.push_back({algorithm, std::move(label), "algo::nccl x2", n, ms, ok ? "ok" : "WRONG"});
    all_ok = all_ok && ok;
  };
  std::vector<int> expect(p.n);

  double ms = time_both(g, [](gpu_part& q) {
    algo::inclusive_scan(algo::nccl(q.comm).on(q.stream), q.ints, q.ints + q.len, q.out);
  });
  std::inclusive_scan(p.ints.begin(), p.ints.end(), expect.begin());
  add(0, algorithm_names[0], p.n, ms, gather_ints() == expect);

  ms = time_both(g, [](gpu_part& q) {
    algo::exclusive_scan(algo::nccl(q.comm).on(q.stream), q.ints, q.ints + q.len, q.out, 7);
  });
  std::exclusive_scan(p.ints.begin(), p.ints.end(), expect.begin(), 7);
  add(1, algorithm_names[1], p.n, ms, gather_ints() == expect);

  ms = time_both(g, [](gpu_part& q) {
    q.sum = algo::reduce(algo::nccl(q.comm).on(q.stream), q.ints, q.ints + q.len, std::int64_t{0});
  });
  const std::int64_t sum = std::accumulate(p.ints.begin(), p.ints.end(), std::int64_t{0});
  add(2, algorithm_names[2], p.n, ms, g[0].sum == sum && g[1].sum == sum);

  ms = time_both(g, [](gpu_part& q) {
    q.dot = algo::transform_reduce(algo::nccl(q.comm).on(q.stream), q.x, q.x + q.len, q.y, 0.0);
  });
  double dot = 0, magnitude = 0;
  for (std::int64_t i = 0; i < p.n; ++i) {
    dot += static_cast<double>(p.x[i]) * p.y[i];  // products in double, as algo's inner product
    magnitude += std::fabs(static_cast<double>(p.x[i]) * p.y[i]);
  }
  const double tolerance = static_cast<double>(p.n) * 0x1p-52 * magnitude + 1e-12;
  // the same bits on both GPUs
  add(3, "transform_reduce (dot)", p.n, ms,
      std::memcmp(&g[0].dot, &g[1].dot, sizeof dot) == 0 && std::fabs(g[0].dot - dot) <= tolerance);

  ms = time_both(g, [&p](gpu_part& q) {
    algo::transpose(algo::nccl(q.comm).on(q.stream), q.m, p.rows, p.cols, algo::row_range{q.rb, q.re}, q.mt,
                    algo::row_range{q.ob, q.oe});
  });
  bool same = true;
  for (auto& q : g) {
    demo_check(cudaSetDevice(q.dev));
    std::vector<float> h((q.oe - q.ob) * p.rows);
    demo_check(cudaMemcpy(h.data(), q.mt, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t c = q.ob; c < q.oe && same; ++c)
      for (std::int64_t r = 0; r < p.rows; ++r)
        if (h[(c - q.ob) * p.rows + r] != p.matrix[r * p.cols + c]) {
          same = false;
          break;
        }
  }
  add(4, "transpose " + std::to_string(p.rows) + "x" + std::to_string(p.cols), p.rows * p.cols, ms, same);

  for (auto& q : g) {
    demo_check(cudaSetDevice(q.dev));
    for (void* d : {static_cast<void*>(q.ints), static_cast<void*>(q.out), static_cast<void*>(q.x),
                    static_cast<void*>(q.y), static_cast<void*>(q.m), static_cast<void*>(q.mt)})
      cudaFree(d);
    cudaStreamDestroy(q.stream);
    ncclCommDestroy(q.comm);
  }
  demo_check(cudaSetDevice(0));
  return all_ok;
}
#endif
}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = std::int64_t{1} << 24;
  bool require_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-gpu") == 0) {
      require_gpu = true;
    } else {
      char* end = nullptr;
      const long long v = std::strtoll(argv[i], &end, 0);
      if (*end != '\0' || v < 1) {
        std::fprintf(stderr, "usage: %s [n >= 1] [--require-gpu]\n", argv[0]);
        return 2;
      }
      n = v;
    }
  }

  try {
    std::printf("algo demo: n = %lld elements per algorithm\n", static_cast<long long>(n));
#ifdef _OPENMP
    std::printf("CPU: algo::par with %d OpenMP threads\n", omp_get_max_threads());
#else
    std::printf("CPU: built without OpenMP, algo::par runs on one thread\n");
#endif
    const problem p = generate(n);
    std::vector<row> table;
    bool ok = true;

    // ---- host policies against thrust::host ----
    {
      buffers<std::vector> b(p);
      const auto ref = host_reference();
      ok = run_policy("algo::seq", algo::seq, ref, b, p, true, table) && ok;
      ok = run_policy("algo::par", algo::par, ref, b, p, false, table) && ok;
    }

    // ---- device policies against thrust::device ----
    bool ran_device = false;
#if defined(__CUDACC__)
    if (have_gpu()) {
      buffers<thrust::device_vector> b(p);
      const thrust_reference<std::decay_t<decltype(thrust::device)>> ref{"thrust::device", thrust::device, device_sync};
      ok = run_policy("algo::cub", algo::cub, ref, b, p, true, table) && ok;
      ok = run_policy("algo::cuda", algo::cuda, ref, b, p, false, table) && ok;
      ran_device = true;
#  if defined(ALGO_DEMO_NCCL)
      ok = run_multi_gpu(p, table) && ok;
#  endif
    }
#else
    std::printf("Host-only build (not compiled by nvcc): the device policies algo::cub and algo::cuda are not available.\n");
#endif

    print_table(table);
    if (!ok) {
      std::printf("\nFAILED: some results differ from the reference (rows marked WRONG).\n");
      return 1;
    }
    std::printf("\nAll results match the reference.\n");
    if (!ran_device && require_gpu) {
      std::printf("SKIP: no GPU, so the device policies were not run.\n");
      return 77;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "demo failed: %s\n", e.what());
    return 1;
  }
}
