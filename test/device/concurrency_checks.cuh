// Calls of every device algorithm as users make them from many host threads and inside CUDA
// graphs, with the results checked against plain host references (exact: integer and wrapping
// integer types only, so any lost, repeated or reordered element shows).
//
//   job          one algorithm call on buffers a thread owns: inputs drawn at random, the call
//                queued on a stream (so a graph can capture it), then checked against the host
//   stress       N host threads, each with its own non-blocking stream (and, on machines with
//                several GPUs, its own current device), each running random jobs of random sizes
//   graphs       a job captured into a CUDA graph (each capture mode), replayed with new inputs
//                written between replays; two graphs of one job interleaved; replays while
//                un-captured calls run on another stream
//
// Catch2's assertions are not thread-safe: worker threads collect failures in a `failures` list
// that the test thread reports.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace algo_test::conc {

/// Failures seen by worker threads (each line names the thread, job, size and first mismatch).
class failures {
 public:
  void add(const std::string& s) {
    std::lock_guard<std::mutex> lock(m_);
    ++count_;
    if (lines_.size() < 20) lines_.push_back(s);
  }
  int count() const {
    std::lock_guard<std::mutex> lock(m_);
    return count_;
  }
  std::string report() const {
    std::lock_guard<std::mutex> lock(m_);
    std::ostringstream os;
    os << count_ << " failure(s)";
    for (auto& l : lines_) os << "\n  " << l;
    return os.str();
  }

 private:
  mutable std::mutex m_;
  int count_ = 0;
  std::vector<std::string> lines_;
};

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// Device memory for one thread's jobs: inputs and outputs of up to `cap` elements of 8 bytes.
struct arena {
  std::size_t cap;
  void* in = nullptr;
  void* out = nullptr;
  void* scalar = nullptr;
  explicit arena(std::size_t n) : cap(n) {
    cuda_ok(cudaMalloc(&in, n * 8), "cudaMalloc");
    cuda_ok(cudaMalloc(&out, n * 8), "cudaMalloc");
    cuda_ok(cudaMalloc(&scalar, 256), "cudaMalloc");
  }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(scalar);
  }
  template <class T>
  T* input() const { return static_cast<T*>(in); }
  template <class T>
  T* output() const { return static_cast<T*>(out); }
  template <class T>
  T* result() const { return static_cast<T*>(scalar); }
};

template <class T>
std::vector<T> download(const T* d, std::size_t n, cudaStream_t s) {
  std::vector<T> h(n);
  if (n) cuda_ok(cudaMemcpyAsync(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
  cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return h;
}
template <class T>
void upload(T* d, const std::vector<T>& h, cudaStream_t s) {
  if (!h.empty()) cuda_ok(cudaMemcpyAsync(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
  cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

template <class T>
std::string mismatch_text(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i])) {
      std::ostringstream os;
      os << "first mismatch at " << i << " of " << got.size() << ": got " << got[i] << ", want " << want[i];
      return os.str();
    }
  return {};
}

// ---- the jobs ------------------------------------------------------------------------------------
/// Algorithms a job runs. Each has three steps: prepare (fresh random inputs into the arena, on the
/// host and the device), launch (the algo call, queued on the stream: what a graph captures) and
/// verify (download and compare with the host reference).
enum class algorithm {
  inclusive_scan_i32,     // plus over int32
  inclusive_scan_affine,  // affine_i composition (non-commutative)
  exclusive_scan_i64,     // int32 in, int64 init and accumulator, a user operator
  reduce_into_i64,        // int32 in, int64 init
  reduce_into_affine,     // non-commutative reduction
  transform_reduce_into,  // sum of squares into int64
  transpose_f32,          // rows x cols floats
  reduce_host_i32,        // reduce that returns to the host (not capturable)
  count
};
inline const char* name_of(algorithm a) {
  switch (a) {
    case algorithm::inclusive_scan_i32: return "inclusive_scan int32";
    case algorithm::inclusive_scan_affine: return "inclusive_scan affine_i";
    case algorithm::exclusive_scan_i64: return "exclusive_scan int32 -> int64";
    case algorithm::reduce_into_i64: return "reduce_into int32 -> int64";
    case algorithm::reduce_into_affine: return "reduce_into affine_i";
    case algorithm::transform_reduce_into: return "transform_reduce_into squares";
    case algorithm::transpose_f32: return "transpose float";
    case algorithm::reduce_host_i32: return "reduce int32 (to the host)";
    default: return "?";
  }
}

struct wrap_add_i64 {
  ALGO_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  }
};
struct square_i64 {
  ALGO_HD std::int64_t operator()(std::int32_t x) const { return std::int64_t(x) * x; }
};

/// One job's data: n elements (for transpose: rows x cols with rows * cols = n).
struct job {
  algorithm alg;
  std::int64_t n;
  std::int64_t rows = 0, cols = 0;
  std::uint64_t seed = 0;
  std::vector<std::int32_t> in_i32;
  std::vector<affine_i> in_aff;
  std::vector<float> in_f32;
  std::int64_t host_result = 0;  // reduce_host_i32: what the call returned
};

inline void shape_of(job& j) {
  if (j.alg != algorithm::transpose_f32) return;
  std::mt19937_64 g(j.seed ^ 0x5bd1e995);
  // an awkward shape: rows in [1, n], cols = n / rows
  j.rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, j.n))));
  if (g() % 2) j.rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(double(j.n))) + static_cast<std::int64_t>(g() % 7) - 3);
  j.cols = std::max<std::int64_t>(1, j.n / j.rows);
  j.n = j.rows * j.cols;
}

/// Random values, never zero, quickly (splitmix64 per element: the graph tests refill 2^24
/// elements before every replay).
inline std::vector<std::int32_t> fast_i32(std::size_t n, std::uint64_t seed) {
  std::vector<std::int32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t x = static_cast<std::int32_t>(splitmix64(seed + i) % 601) - 300;  // -300 .. 300
    v[i] = x == 0 ? 1 : x;
  }
  return v;
}
inline std::vector<affine_i> fast_affine(std::size_t n, std::uint64_t seed) {
  std::vector<affine_i> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix64(seed + i);
    v[i] = affine_i{static_cast<std::int32_t>(r | 1u), static_cast<std::int32_t>((r >> 32) | 1u)};  // a odd: a unit
  }
  return v;
}
inline std::vector<float> fast_f32(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.25f + static_cast<float>(splitmix64(seed + i) % 1000003) * 1e-6f;
  return v;
}

/// New random inputs (host copy kept in the job) written to the arena's input, in stream order.
inline void prepare(job& j, const arena& a, cudaStream_t s, std::uint64_t seed) {
  j.seed = seed;
  const std::size_t n = static_cast<std::size_t>(j.n);
  seed = splitmix64(seed) << 24;
  switch (j.alg) {
    case algorithm::inclusive_scan_affine:
    case algorithm::reduce_into_affine:
      j.in_aff = fast_affine(n, seed);
      upload(a.input<affine_i>(), j.in_aff, s);
      break;
    case algorithm::transpose_f32:
      j.in_f32 = fast_f32(n, seed);
      upload(a.input<float>(), j.in_f32, s);
      break;
    default:
      j.in_i32 = fast_i32(n, seed);
      upload(a.input<std::int32_t>(), j.in_i32, s);
      break;
  }
}

/// The algo call, queued on the policy's stream.
template <class Policy>
void launch(job& j, const arena& a, const Policy& p) {
  const std::int64_t n = j.n;
  switch (j.alg) {
    case algorithm::inclusive_scan_i32:
      algo::inclusive_scan(p, a.input<std::int32_t>(), a.input<std::int32_t>() + n, a.output<std::int32_t>());
      break;
    case algorithm::inclusive_scan_affine:
      algo::inclusive_scan(p, a.input<affine_i>(), a.input<affine_i>() + n, a.output<affine_i>(), compose_affine_i{});
      break;
    case algorithm::exclusive_scan_i64:
      algo::exclusive_scan(p, a.input<std::int32_t>(), a.input<std::int32_t>() + n, a.output<std::int64_t>(),
                           std::int64_t{-7}, wrap_add_i64{});
      break;
    case algorithm::reduce_into_i64:
      algo::reduce_into(p, a.input<std::int32_t>(), a.input<std::int32_t>() + n, a.result<std::int64_t>(), std::int64_t{5});
      break;
    case algorithm::reduce_into_affine:
      algo::reduce_into(p, a.input<affine_i>(), a.input<affine_i>() + n, a.result<affine_i>(), affine_i{3, -1},
                        compose_affine_i{});
      break;
    case algorithm::transform_reduce_into:
      algo::transform_reduce_into(p, a.input<std::int32_t>(), a.input<std::int32_t>() + n, a.result<std::int64_t>(),
                                  std::int64_t{0}, algo::plus<>{}, square_i64{});
      break;
    case algorithm::transpose_f32:
      algo::transpose(p, a.input<float>(), j.rows, j.cols, a.output<float>());
      break;
    case algorithm::reduce_host_i32:
      j.host_result = algo::reduce(p, a.input<std::int32_t>(), a.input<std::int32_t>() + n, std::int64_t{0});
      break;
    default:
      break;
  }
}

/// "" when the outputs match the host reference, else what differs.
inline std::string verify(const job& j, const arena& a, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(j.n);
  switch (j.alg) {
    case algorithm::inclusive_scan_i32: {
      std::vector<std::int32_t> want(n);
      std::int32_t acc = 0;
      for (std::size_t i = 0; i < n; ++i) want[i] = acc = wrap_add(acc, j.in_i32[i]);
      return mismatch_text(download(a.output<std::int32_t>(), n, s), want);
    }
    case algorithm::inclusive_scan_affine: {
      std::vector<affine_i> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = i ? compose_affine_i{}(want[i - 1], j.in_aff[i]) : j.in_aff[0];
      return mismatch_text(download(a.output<affine_i>(), n, s), want);
    }
    case algorithm::exclusive_scan_i64: {
      std::vector<std::int64_t> want(n);
      std::int64_t acc = -7;
      for (std::size_t i = 0; i < n; ++i) {
        want[i] = acc;
        acc = wrap_add_i64{}(acc, j.in_i32[i]);
      }
      return mismatch_text(download(a.output<std::int64_t>(), n, s), want);
    }
    case algorithm::reduce_into_i64:
    case algorithm::transform_reduce_into: {
      std::int64_t want = j.alg == algorithm::reduce_into_i64 ? 5 : 0;
      for (auto x : j.in_i32) want += j.alg == algorithm::reduce_into_i64 ? std::int64_t(x) : std::int64_t(x) * x;
      return mismatch_text(download(a.result<std::int64_t>(), 1, s), std::vector<std::int64_t>{want});
    }
    case algorithm::reduce_into_affine: {
      affine_i want{3, -1};
      for (auto& f : j.in_aff) want = compose_affine_i{}(want, f);
      return mismatch_text(download(a.result<affine_i>(), 1, s), std::vector<affine_i>{want});
    }
    case algorithm::transpose_f32: {
      std::vector<float> want(n);
      for (std::int64_t r = 0; r < j.rows; ++r)
        for (std::int64_t c = 0; c < j.cols; ++c) want[c * j.rows + r] = j.in_f32[r * j.cols + c];
      return mismatch_text(download(a.output<float>(), n, s), want);
    }
    case algorithm::reduce_host_i32: {
      std::int64_t want = 0;
      for (auto x : j.in_i32) want += x;
      return mismatch_text(std::vector<std::int64_t>{j.host_result}, std::vector<std::int64_t>{want});
    }
    default:
      return "unknown job";
  }
}

// ---- stress: many host threads ----------------------------------------------------------------------
struct stress_report {
  int calls = 0;
  int failed = 0;
  std::string failures;
};

/// `threads` host threads, each with its own non-blocking stream (and current device t % devices),
/// each running `rounds` random jobs of sizes 1 .. 2^max_log2 (log-uniform), each checked.
template <class Policy>
stress_report stress(const Policy& base, int threads, int rounds, int max_log2, int devices, std::uint64_t seed) {
  failures fails;
  std::atomic<int> calls{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        cuda_ok(cudaSetDevice(t % devices), "cudaSetDevice");
        cudaStream_t s;
        cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
        arena a(std::size_t(1) << max_log2);
        std::mt19937_64 g(seed * 1000 + t);
        const Policy p = base.on(s);
        for (int r = 0; r < rounds; ++r) {
          job j;
          j.alg = static_cast<algorithm>(g() % static_cast<unsigned>(algorithm::count));
          const double e = std::uniform_real_distribution<double>(0, max_log2)(g);
          j.n = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::exp2(e)));
          j.seed = g();
          shape_of(j);
          std::ostringstream what;
          what << "thread " << t << " (device " << t % devices << ") round " << r << ": " << name_of(j.alg) << ", n = " << j.n;
          try {
            prepare(j, a, s, j.seed);
            launch(j, a, p);
            calls.fetch_add(1);
            const std::string bad = verify(j, a, s);
            if (!bad.empty()) fails.add(what.str() + ": " + bad);
          } catch (const std::exception& ex) {
            fails.add(what.str() + ": threw " + ex.what());
          }
        }
        cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        cudaStreamDestroy(s);
      } catch (const std::exception& ex) {
        fails.add("thread " + std::to_string(t) + ": " + ex.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  return {calls.load(), fails.count(), fails.report()};
}

// ---- graphs -----------------------------------------------------------------------------------------
/// A CUDA graph of one job: captured once, replayed with new inputs.
class captured_job {
 public:
  captured_job(const captured_job&) = delete;
  captured_job& operator=(const captured_job&) = delete;
  template <class Policy>
  captured_job(job j, const Policy& base, cudaStream_t s, cudaStreamCaptureMode mode, std::uint64_t seed)
      : job_(std::move(j)), arena_(static_cast<std::size_t>(std::max<std::int64_t>(job_.n, 1))), stream_(s) {
    prepare(job_, arena_, s, seed);
    cuda_ok(cudaStreamBeginCapture(s, mode), "cudaStreamBeginCapture");
    try {
      launch(job_, arena_, base.on(s));
    } catch (...) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s, &g);
      if (g) cudaGraphDestroy(g);
      throw;
    }
    cuda_ok(cudaStreamEndCapture(s, &graph_), "cudaStreamEndCapture");
    cuda_ok(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }
  ~captured_job() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  /// New inputs, then one replay (queued, not waited for).
  void replay(std::uint64_t seed) {
    prepare(job_, arena_, stream_, seed);
    cuda_ok(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
  }
  std::string verify() const { return conc::verify(job_, arena_, stream_); }
  const job& the_job() const { return job_; }

 private:
  job job_;
  arena arena_;
  cudaStream_t stream_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

inline job make_job(algorithm alg, std::int64_t n) {
  job j;
  j.alg = alg;
  j.n = n;
  j.seed = 0x1234 + static_cast<std::uint64_t>(n);
  shape_of(j);
  return j;
}

inline const char* mode_name(cudaStreamCaptureMode m) {
  return m == cudaStreamCaptureModeGlobal ? "global" : m == cudaStreamCaptureModeThreadLocal ? "thread-local" : "relaxed";
}

/// Captures `alg` of n elements in each mode and replays it `replays` times with new inputs,
/// checking every replay.
template <class Policy>
void check_graph_replays(const Policy& base, algorithm alg, std::int64_t n, int replays) {
  for (auto mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    test_stream s;
    captured_job g(make_job(alg, n), base, s.get(), mode, 99);
    for (int r = 0; r < replays; ++r) {
      g.replay(1000 + r);
      const std::string bad = g.verify();
      INFO(name_of(alg) << ", n = " << g.the_job().n << ", capture mode " << mode_name(mode) << ", replay " << r << ": " << bad);
      REQUIRE(bad.empty());
    }
  }
}

/// The same job captured into two graphs (separate buffers), replayed alternately.
template <class Policy>
void check_graphs_interleaved(const Policy& base, algorithm alg, std::int64_t n, int replays) {
  test_stream s1, s2;
  captured_job g1(make_job(alg, n), base, s1.get(), cudaStreamCaptureModeThreadLocal, 1);
  captured_job g2(make_job(alg, n), base, s2.get(), cudaStreamCaptureModeThreadLocal, 2);
  for (int r = 0; r < replays; ++r) {
    g1.replay(2 * r);
    g2.replay(2 * r + 1);
    const std::string bad1 = g1.verify(), bad2 = g2.verify();
    INFO(name_of(alg) << ", n = " << n << ", replay " << r << ": graph 1: " << bad1 << " graph 2: " << bad2);
    REQUIRE(bad1.empty());
    REQUIRE(bad2.empty());
  }
}

/// Replays of a graph on one stream while another thread makes un-captured calls of the same
/// algorithm on its own stream; both checked.
template <class Policy>
void check_graph_beside_calls(const Policy& base, algorithm alg, std::int64_t n, int replays) {
  test_stream s;
  captured_job g(make_job(alg, n), base, s.get(), cudaStreamCaptureModeThreadLocal, 5);
  std::atomic<bool> stop{false};
  failures fails;
  std::thread other([&] {
    try {
      cudaStream_t s2;
      cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
      arena a(static_cast<std::size_t>(n));
      job j = make_job(alg, n);
      for (int r = 0; !stop.load() || r < 4; ++r) {
        prepare(j, a, s2, 77 + r);
        launch(j, a, base.on(s2));
        const std::string bad = verify(j, a, s2);
        if (!bad.empty()) fails.add("un-captured call " + std::to_string(r) + ": " + bad);
      }
      cudaStreamDestroy(s2);
    } catch (const std::exception& e) {
      fails.add(std::string("un-captured calls: ") + e.what());
    }
  });
  for (int r = 0; r < replays; ++r) {
    g.replay(500 + r);
    const std::string bad = g.verify();
    if (!bad.empty()) fails.add("replay " + std::to_string(r) + ": " + bad);
  }
  stop = true;
  other.join();
  INFO(name_of(alg) << ", n = " << n << ": " << fails.report());
  REQUIRE(fails.count() == 0);
}

/// A reduce that returns to the host, called under capture: an algo::error that names
/// reduce_into, nothing queued, and the capture still ends in a valid (empty) graph.
template <class Policy>
void check_host_reduce_refused_in_capture(const Policy& base, cudaStreamCaptureMode mode) {
  test_stream s;
  arena a(4096);
  job j = make_job(algorithm::reduce_host_i32, 4096);
  prepare(j, a, s.get(), 3);
  REQUIRE(cudaStreamBeginCapture(s.get(), mode) == cudaSuccess);
  std::string message;
  try {
    launch(j, a, base.on(s.get()));
  } catch (const algo::error& e) {
    message = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(s.get(), &graph);
  INFO("capture mode " << mode_name(mode) << ": message \"" << message << "\"");
  CHECK(message.find("algo::reduce") == 0);
  CHECK(message.find("reduce_into") != std::string::npos);
  CHECK(end == cudaSuccess);
  if (graph) {
    std::size_t nodes = 99;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
    CHECK(nodes == 0);
    cudaGraphDestroy(graph);
  }
  // the stream works normally afterwards
  launch(j, a, base.on(s.get()));
  CHECK(verify(j, a, s.get()).empty());
}

}  // namespace algo_test::conc
