// The keyed, segmented, group-by and selection families on algo::cuda called from many host threads
// at once, as users call them: each thread on its own stream (one on the per-thread default stream,
// one on the legacy default stream), random sizes and shapes, every result checked exactly against a
// plain host reference (unsigned values: wrapping sums, so any lost, repeated or misplaced element
// shows), and the float forms called twice in a row and compared bit for bit (the library's default
// scans by key, reduce_by_key and segmented_reduce are reproducible run to run, whatever else the
// GPU is doing).
//
// What runs concurrently here and nowhere else in the tests: the look-back tile-state pool handed
// between streams and threads, the segmented_reduce offsets check (the deferred kernel for
// long segments, whose verdict each thread's host waits for in its own mapped slot; the merge path
// for short ones), the segmented scans' heads mask, group_reduce's tables and its sample's switch to
// the partitioned build, and copy_if's count on the stream.
//
// Catch2's assertions are not thread-safe: worker threads collect failures that the test thread
// reports (concurrency_checks.cuh's `failures`, with its upload / download helpers).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "concurrency_checks.cuh"  // failures, cuda_ok, upload, download, stress_report
#include "device_checks.cuh"

namespace {

using u32 = std::uint32_t;
using i64 = std::int64_t;

using algo_test::conc::cuda_ok;
using algo_test::conc::download;
using algo_test::conc::failures;
using algo_test::conc::stress_report;
using algo_test::conc::upload;

/// Device memory of one thread, reused by its jobs (bytes grow as needed).
class dbuf {
 public:
  dbuf() = default;
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  ~dbuf() {
    if (p_) cudaFree(p_);
  }
  template <class T>
  T* as(std::size_t n) {
    const std::size_t b = std::max<std::size_t>(n * sizeof(T), 16);
    if (b > bytes_) {
      if (p_) cuda_ok(cudaFree(p_), "cudaFree");
      p_ = nullptr;
      cuda_ok(cudaMalloc(&p_, b), "cudaMalloc");
      bytes_ = b;
    }
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// "" when equal (bitwise for floats), else the first difference.
template <class T>
std::string differ(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      std::ostringstream os;
      os << "at " << i << " of " << got.size() << ": got " << got[i] << ", want " << want[i];
      return os.str();
    }
  return {};
}

/// Keys in runs of random lengths (1 .. 2 * mean - 1); consecutive runs get different keys.
std::vector<int> run_keys(std::size_t n, std::size_t mean, std::mt19937_64& g) {
  std::vector<int> k(n);
  std::uniform_int_distribution<std::size_t> len(1, 2 * mean - 1);
  int key = static_cast<int>(g() % 1000);
  for (std::size_t i = 0; i < n;) {
    const std::size_t e = std::min(n, i + len(g));
    for (; i < e; ++i) k[i] = key;
    key += 1 + static_cast<int>(g() % 3);
  }
  return k;
}

std::vector<u32> random_u32(std::size_t n, std::mt19937_64& g) {
  std::vector<u32> v(n);
  for (auto& x : v) x = static_cast<u32>(g());
  return v;
}

std::vector<float> random_f32(std::size_t n, std::mt19937_64& g) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& x : v) x = d(g);
  return v;
}

/// Offsets of S segments over n elements (offsets[0] = 0, offsets[S] = n), each about `lo`..`hi`
/// times the mean length (lengths drawn, then scaled to n).
std::vector<int> make_offsets(std::size_t n, std::size_t S, double lo, double hi, std::mt19937_64& g) {
  std::uniform_real_distribution<double> f(lo, hi);
  std::vector<double> cum(S + 1, 0.0);
  for (std::size_t k = 0; k < S; ++k) cum[k + 1] = cum[k] + f(g);
  std::vector<int> o(S + 1, 0);
  for (std::size_t k = 1; k < S; ++k)
    o[k] = std::max(o[k - 1], static_cast<int>(cum[k] / cum[S] * static_cast<double>(n)));
  o[S] = static_cast<int>(n);
  return o;
}

enum class job { scan_by_key, reduce_by_key, segmented_reduce_long, segmented_reduce_short, segmented_scan,
                 group_reduce, copy_if, count };

const char* name_of(job j) {
  switch (j) {
    case job::scan_by_key: return "inclusive_scan_by_key";
    case job::reduce_by_key: return "reduce_by_key_into";
    case job::segmented_reduce_long: return "segmented_reduce (long segments, offsets in memory)";
    case job::segmented_reduce_short: return "segmented_reduce (short segments, offsets in memory)";
    case job::segmented_scan: return "segmented_inclusive_scan (offsets in memory)";
    case job::group_reduce: return "group_reduce";
    case job::copy_if: return "copy_if_into";
    default: return "?";
  }
}

struct keep_third {
  __host__ __device__ bool operator()(u32 x) const { return x % 3u == 0u; }
};

/// The buffers of one thread.
struct buffers {
  dbuf keys, vals, fvals, offs, out, out2, fout, fout2, kout, count;
};

/// The keyed jobs' inputs: keys in runs of about `mean`, unsigned and float values, on the host and
/// in the thread's buffers.
struct keyed_inputs {
  std::vector<int> hk;
  std::vector<u32> hv;
  std::vector<float> hf;
  int* k;
  u32* v;
  float* f;
  keyed_inputs(std::size_t n, std::size_t mean, buffers& b, cudaStream_t s, std::mt19937_64& g)
      : hk(run_keys(n, mean, g)), hv(random_u32(n, g)), hf(random_f32(n, g)), k(b.keys.as<int>(n)),
        v(b.vals.as<u32>(n)), f(b.fvals.as<float>(n)) {
    upload(k, hk, s);
    upload(v, hv, s);
    upload(f, hf, s);
  }
};

/// One call of `j` on n elements, checked; "" when right.
template <class Policy>
std::string run_job(job j, std::size_t n, const Policy& p, buffers& b, std::mt19937_64& g) {
  const cudaStream_t s = p.stream;
  switch (j) {
    case job::scan_by_key: {
      const keyed_inputs in(n, 1 + g() % 3000, b, s, g);
      const auto& hk = in.hk;
      const auto& hv = in.hv;
      int* k = in.k;
      u32* v = in.v;
      float* f = in.f;
      u32* o = b.out.as<u32>(n);
      float* fo = b.fout.as<float>(n);
      float* fo2 = b.fout2.as<float>(n);
      algo::inclusive_scan_by_key(p, k, k + n, v, o);
      algo::inclusive_scan_by_key(p, k, k + n, f, fo);
      algo::inclusive_scan_by_key(p, k, k + n, f, fo2);
      std::vector<u32> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = (i && hk[i] == hk[i - 1]) ? want[i - 1] + hv[i] : hv[i];
      std::string bad = differ(download(o, n, s), want);
      if (bad.empty()) bad = differ(download(fo2, n, s), download(fo, n, s));
      return bad;
    }
    case job::reduce_by_key: {
      const keyed_inputs in(n, 1 + g() % 5000, b, s, g);
      const auto& hk = in.hk;
      const auto& hv = in.hv;
      int* k = in.k;
      u32* v = in.v;
      float* f = in.f;
      int* ko = b.kout.as<int>(n);
      u32* o = b.out.as<u32>(n);
      float* fo = b.fout.as<float>(n);
      float* fo2 = b.fout2.as<float>(n);
      i64* c = b.count.as<i64>(3);
      algo::reduce_by_key_into(p, k, k + n, v, ko, o, c);
      algo::reduce_by_key_into(p, k, k + n, f, b.out2.as<int>(n), fo, c + 1);
      algo::reduce_by_key_into(p, k, k + n, f, b.out2.as<int>(n), fo2, c + 2);
      std::vector<int> wk;
      std::vector<u32> wv;
      for (std::size_t i = 0; i < n; ++i) {
        if (i && hk[i] == hk[i - 1]) wv.back() += hv[i];
        else {
          wk.push_back(hk[i]);
          wv.push_back(hv[i]);
        }
      }
      const auto hc = download(c, 3, s);
      const i64 m = static_cast<i64>(wk.size());
      if (hc[0] != m || hc[1] != m || hc[2] != m)
        return "counts " + std::to_string(hc[0]) + ", " + std::to_string(hc[1]) + ", " + std::to_string(hc[2]) +
               ", want " + std::to_string(m);
      std::string bad = differ(download(ko, wk.size(), s), wk);
      if (bad.empty()) bad = differ(download(o, wv.size(), s), wv);
      if (bad.empty()) bad = differ(download(fo2, wv.size(), s), download(fo, wv.size(), s));
      return bad;
    }
    case job::segmented_reduce_long:
    case job::segmented_reduce_short:
    case job::segmented_scan: {
      // long: at least 2048 elements a segment on average and more segments than an H100 has SMs
      // (the block-per-segment kernel with the check in its launch); short: the merge path
      std::size_t S;
      if (j == job::segmented_reduce_long) {
        S = 140 + g() % 200;
        n = std::max(n, S * (2048 + g() % 6000));
      } else {
        S = std::max<std::size_t>(1, n / (1 + g() % 300));
      }
      const auto ho = j == job::segmented_reduce_long ? make_offsets(n, S, 0.5, 1.5, g) : make_offsets(n, S, 0.0, 2.0, g);
      const auto hv = random_u32(n, g);
      const auto hf = random_f32(n, g);
      int* off = b.offs.as<int>(S + 1);
      u32* v = b.vals.as<u32>(n);
      float* f = b.fvals.as<float>(n);
      upload(off, ho, s);
      upload(v, hv, s);
      upload(f, hf, s);
      if (j == job::segmented_scan) {
        u32* o = b.out.as<u32>(n);
        float* fo = b.fout.as<float>(n);
        float* fo2 = b.fout2.as<float>(n);
        algo::segmented_inclusive_scan(p, v, off, off + S + 1, o);
        algo::segmented_inclusive_scan(p, f, off, off + S + 1, fo);
        algo::segmented_inclusive_scan(p, f, off, off + S + 1, fo2);
        std::vector<u32> want(n);
        for (std::size_t k = 0; k < S; ++k)
          for (int i = ho[k]; i < ho[k + 1]; ++i) want[i] = i > ho[k] ? want[i - 1] + hv[i] : hv[i];
        std::string bad = differ(download(o, n, s), want);
        if (bad.empty()) bad = differ(download(fo2, n, s), download(fo, n, s));
        return bad;
      }
      u32* o = b.out.as<u32>(S);
      float* fo = b.fout.as<float>(S);
      float* fo2 = b.fout2.as<float>(S);
      algo::segmented_reduce(p, v, off, off + S + 1, o, u32{7});
      algo::segmented_reduce(p, f, off, off + S + 1, fo, 0.0f);
      algo::segmented_reduce(p, f, off, off + S + 1, fo2, 0.0f);
      std::vector<u32> want(S, 7u);
      for (std::size_t k = 0; k < S; ++k)
        for (int i = ho[k]; i < ho[k + 1]; ++i) want[k] += hv[i];
      std::string bad = differ(download(o, S, s), want);
      if (bad.empty()) bad = differ(download(fo2, S, s), download(fo, S, s));
      return bad;
    }
    case job::group_reduce: {
      // from a handful of keys to about as many as records (the partitioned build past 2^18 records)
      const u32 m = static_cast<u32>(std::max<std::size_t>(1, static_cast<std::size_t>(std::exp2(
                                                                 std::uniform_real_distribution<double>(0, std::log2(n + 1.0))(g)))));
      std::vector<u32> hk(n);
      for (auto& x : hk) x = static_cast<u32>(g() % m) * 2654435761u;
      const auto hv = random_u32(n, g);
      u32* k = b.keys.as<u32>(n);
      u32* v = b.vals.as<u32>(n);
      upload(k, hk, s);
      upload(v, hv, s);
      u32* ko = b.kout.as<u32>(n);
      u32* o = b.out.as<u32>(n);
      const i64 got = algo::group_reduce(p, k, k + n, v, ko, o);
      std::vector<u32> wk, wv;
      std::unordered_map<u32, std::size_t> at;
      for (std::size_t i = 0; i < n; ++i) {
        auto it = at.find(hk[i]);
        if (it == at.end()) {
          at.emplace(hk[i], wk.size());
          wk.push_back(hk[i]);
          wv.push_back(hv[i]);
        } else {
          wv[it->second] += hv[i];
        }
      }
      if (got != static_cast<i64>(wk.size()))
        return "groups " + std::to_string(got) + ", want " + std::to_string(wk.size());
      std::string bad = differ(download(ko, wk.size(), s), wk);
      if (bad.empty()) bad = differ(download(o, wv.size(), s), wv);
      return bad;
    }
    case job::copy_if: {
      const auto hv = random_u32(n, g);
      u32* v = b.vals.as<u32>(n);
      upload(v, hv, s);
      u32* o = b.out.as<u32>(n);
      i64* c = b.count.as<i64>(1);
      algo::copy_if_into(p, v, v + n, o, c, keep_third{});
      std::vector<u32> want;
      for (auto x : hv)
        if (keep_third{}(x)) want.push_back(x);
      const auto hc = download(c, 1, s);
      if (hc[0] != static_cast<i64>(want.size()))
        return "count " + std::to_string(hc[0]) + ", want " + std::to_string(want.size());
      return differ(download(o, want.size(), s), want);
    }
    default:
      return "unknown job";
  }
}

/// `threads` host threads: thread 0 on the per-thread default stream, thread 1 on the legacy
/// default stream, the others on non-blocking streams of their own; each runs `rounds` random jobs
/// of 1 .. 2^max_log2 elements (log-uniform; the long segments more).
stress_report stress(int threads, int rounds, int max_log2, std::uint64_t seed) {
  failures fails;
  std::atomic<int> calls{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        cudaStream_t s = t == 0 ? cudaStreamPerThread : nullptr;
        if (t > 1) cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
        {
          buffers b;
          std::mt19937_64 g(seed * 7919 + static_cast<std::uint64_t>(t));
          const auto p = algo::cuda.on(s);
          for (int r = 0; r < rounds; ++r) {
            const job j = static_cast<job>(g() % static_cast<unsigned>(job::count));
            const double e = std::uniform_real_distribution<double>(0, max_log2)(g);
            const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(std::exp2(e)));
            std::ostringstream what;
            what << "thread " << t << " round " << r << ": " << name_of(j) << ", n = " << n;
            try {
              const std::string bad = run_job(j, n, p, b, g);
              calls.fetch_add(1);
              if (!bad.empty()) fails.add(what.str() + ": " + bad);
            } catch (const std::exception& ex) {
              fails.add(what.str() + ": threw " + ex.what());
            }
          }
          cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        }
        if (t > 1) cudaStreamDestroy(s);
      } catch (const std::exception& ex) {
        fails.add("thread " + std::to_string(t) + ": " + ex.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  return {calls.load(), fails.count(), fails.report()};
}

}  // namespace

TEST_CASE("cuda families from 8 host threads: keyed, segmented, group-by, copy_if, exact and bit for bit",
          "[cuda][threads]") {
  const bool small = algo_test::small_run();
  const stress_report r = stress(8, small ? 6 : 40, small ? 14 : 22, 20261127);
  INFO(r.calls << " calls: " << r.failures);
  CHECK(r.calls > 0);
  REQUIRE(r.failed == 0);
}

TEST_CASE("cuda families: one thread alone, the same jobs (the reference for the threaded run's failures)",
          "[cuda][threads]") {
  const stress_report r = stress(1, algo_test::small_run() ? 8 : 40, algo_test::small_run() ? 14 : 22, 11);
  INFO(r.calls << " calls: " << r.failures);
  CHECK(r.calls > 0);
  REQUIRE(r.failed == 0);
}
