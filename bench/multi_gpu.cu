// Multi-GPU bench: algo::nccl's reduce, scan and transpose against one GPU (algo::cuda), against the
// hand-glued code a user writes today (CUB + ncclAllReduce / ncclAllGather + a fix-up pass; cuBLAS
// geam + grouped ncclSend / ncclRecv + an unpack, one after the other) and against NCCL's collectives
// alone. One process, one thread per GPU (communicators from ncclCommInitAll), as GUIDE.md's NCCL
// figures were taken: every time is host wall clock from a common start (a spin barrier) until every
// rank's stream is idle, median of --reps repetitions after 3 warm-ups.
//
//   multi_gpu [--gpus N] [--reps R] [--quick] [--csv file]
//   multi_gpu --scaling [--gpus N] [--reps R] [--quick] [--csv file] [--commit id]
//
// --scaling (issue 26, item 6): weak and strong scaling at 1, 2, 4 and 8 GPUs of reduce,
// transform_reduce, inclusive_scan and transpose, each beside the cost model's prediction (sizes, the
// model and its measured constants: the comment above run_scaling); --gpus defaults to 4 there, --reps
// to 10, --csv to scaling.csv (mode,op,gpus,elements_total,elements_per_gpu,time_ms,model_ms,
// model_terms,efficiency,commit,device); bench/plot_scaling.py draws it. Without it, the rows below.
//
// Sizes as in the issue: reduce and scan of 2^28 int32 per GPU, transpose of a 16384 x 16384 float
// matrix split by rows over the GPUs, a reduce of 2^10 per GPU returned to the host. With one GPU it
// runs the one-rank rows (algo::nccl over a communicator of one) and says what it left out.
#include <algo/algo.hpp>
#include <algo/nccl.hpp>
#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness.cuh"

namespace {

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) {
    std::fprintf(stderr, "bench: %s: %s\n", what, ncclGetErrorString(r));
    std::exit(1);
  }
}
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench: %s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

/// A spin barrier for P threads (microsecond wake-up: the small cases are tens of microseconds).
class spin_barrier {
 public:
  explicit spin_barrier(int n) : n_(n) {}
  void arrive_and_wait() {
    const int gen = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      gen_.fetch_add(1, std::memory_order_acq_rel);
    } else {
      while (gen_.load(std::memory_order_acquire) == gen) {
      }
    }
  }

 private:
  int n_;
  std::atomic<int> count_{0};
  std::atomic<int> gen_{0};
};

/// One GPU's state: its communicator (of P ranks, and of one) and a stream.
struct gpu {
  int dev = 0;
  ncclComm_t comm = nullptr;   // the P-rank communicator
  ncclComm_t solo = nullptr;   // a one-rank communicator of this GPU
  cudaStream_t stream = nullptr;
};

/// Median wall time (ms) of fn(rank, rep) run by `ranks` threads (GPUs 0..ranks-1) from a common
/// start until every stream is idle, after `warmups` untimed runs.
double wall_ms(std::vector<gpu>& gpus, int ranks, int reps, const std::function<void(gpu&, int, int)>& fn,
               int warmups = 3) {
  spin_barrier bar(ranks);
  std::vector<double> t;
  std::chrono::steady_clock::time_point t0;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      bench::check(cudaSetDevice(gpus[r].dev), "cudaSetDevice");
      for (int i = -warmups; i < reps; ++i) {
        bar.arrive_and_wait();
        if (r == 0) t0 = std::chrono::steady_clock::now();
        bar.arrive_and_wait();
        fn(gpus[r], r, i < 0 ? 0 : i);
        bench::check(cudaStreamSynchronize(gpus[r].stream), "cudaStreamSynchronize");
        bar.arrive_and_wait();
        if (r == 0 && i >= 0) t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
    });
  }
  for (auto& th : threads) th.join();
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

/// The transpose's all-to-all alone, as rank r of P of an R x C float matrix split evenly by rows
/// (result rows likewise): grouped ncclSend / ncclRecv of the off-diagonal blocks, every byte that
/// algo::nccl's transpose exchanges, in one go (`send`: C x lr, the local rows transposed; `recv`:
/// lc x R).
void post_all_to_all(ncclComm_t comm, cudaStream_t stream, int r, int P, std::int64_t R, std::int64_t C,
                     const float* send, float* recv) {
  auto part = [&](std::int64_t len, int q) { return len * q / P; };
  const std::int64_t lr = part(R, r + 1) - part(R, r), lc = part(C, r + 1) - part(C, r);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int q = 0; q < P; ++q) {
    if (q == r) continue;
    const std::int64_t cq0 = part(C, q), cq = part(C, q + 1) - cq0;
    const std::int64_t rq0 = part(R, q), rq = part(R, q + 1) - rq0;
    check_nccl(ncclSend(send + cq0 * lr, cq * lr * sizeof(float), ncclUint8, q, comm, stream), "ncclSend");
    check_nccl(ncclRecv(recv + rq0 * lc, lc * rq * sizeof(float), ncclUint8, q, comm, stream), "ncclRecv");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

/// Adds `prefix` (the sum of the lower ranks' totals, from the gathered totals) to every element: the
/// hand-glued scan's fix-up pass.
__global__ void fixup_kernel(int* d, std::int64_t n, const int* totals, int rank) {
  int prefix = 0;
  for (int q = 0; q < rank; ++q) prefix += totals[q];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    d[i] += prefix;
}
__global__ void last_kernel(const int* d, std::int64_t n, int* total) { *total = n ? d[n - 1] : 0; }

// ==== --scaling: weak and strong scaling at 1, 2, 4 and 8 GPUs, the cost model beside each figure =============
//
// Sizes. Weak: 2^28 elements per GPU: reduce, transform_reduce and inclusive_scan of int32, and the
// transpose of a (16384 G) x 16384 float matrix (2^28 floats per GPU). Strong: 2^30 int32 in all
// (2^30 / G per GPU), and the transpose of 16384 x 16384 floats (2^28 in all: the matrix of the
// default rows and of NOTES' predictions) split over the G GPUs. G = 1, 2, 4, 8 (those <= --gpus and <=
// the GPUs present), each over its own communicator of the first G GPUs (ncclCommInitAll); G = 1 is
// algo::nccl over a communicator of one, the reference of the efficiencies. transform_reduce is the
// dot product of two int32 ranges in long long: algo::transform_reduce(p, a, a + n, b, 0LL) (plus and
// multiplies in long long; 8 bytes read per element). Every time: host wall clock (wall_ms), median
// of --reps (default 10 here) after 2 warm-ups.
//
// The cost model (bench/NOTES.md, "Several GPUs", "What each call costs, in P"), per rank, n elements
// per GPU, times in ms. NOTES' constants are the H200's and from before any multi-GPU run, so every
// constant is measured at the start of the run, on the machine that runs it:
//   B       copy bandwidth of one GPU: 2 x 1 GiB / the time of a 1 GiB device-to-device cudaMemcpy on
//           GPU 0 (bytes read + written; for the passes that read and write)
//   B_read  read bandwidth of one GPU: 1 GiB / the time of CUB's DeviceReduce::Sum over 2^28 int32 on
//           GPU 0 (for the passes that only read: NOTES has ~4.4 TB/s read-only against ~3 TB/s read +
//           written on the H200; with B alone the reduce's host cost below would come out negative)
//   h       the host's return: the wall time of algo::cuda's reduce of 2^10 int32 to the host on GPU 0
//           minus its bandwidth term (4 KiB / B_read, nothing): launches, the copy back, the host's wait
//   L(G)    exchange latency: the median wall time of an ncclAllGather of 256 bytes per rank over the
//           G GPUs (the size of algo::nccl's record exchange), one per G; L(1) = 0 (a communicator of
//           one skips the all-gathers since f9b3e3b)
//   A(G)    the transpose's all-to-all alone: grouped ncclSend / ncclRecv of the off-diagonal blocks of
//           the same matrix over the G GPUs (post_all_to_all: every byte the transpose exchanges, in
//           one go), one per G and mode; 0 at G = 1
// Predictions (model_* below):
//   reduce            4 n / B_read + L(G) + h      one local read, the all-gather of the records and
//                                                  partials, the fold and the host's wait
//   transform_reduce  8 n / B_read + L(G) + h      the same, two int32 read per element
//   inclusive_scan    4 n / B_read + 8 n / B + L(G) + h
//                     the local reduce, the all-gather and the host's wait for the verdict, then the
//                     local scan seeded with the prefix (12 bytes per element in all)
//   transpose, G = 1  2 D / B + h                  D: the rank's bytes; the block that stays is all of it
//   transpose, G > 1  2 L(G) + h + max(exchange path, memory path)
//                     f = (G - 1) / G of the rank's D bytes leave it, in K chunks (the code's
//                     chunk_count: D / 64 MiB, within 1..8). HBM traffic per rank, in bytes (the CSV's
//                     terms give each as its time at B, in ms): stay = 2 D / G (the block that stays,
//                     read + written, on the copy stream beside the rest; NOTES' 2-GPU table counted it
//                     once), pack = 2 f D (pitched transposes into the send buffer), unpack = 2 f D
//                     (pitched copies into out), xfer = 2 f D (NCCL reads what it sends and writes what
//                     it receives). Transposes are taken at the copy bandwidth B: algo::cuda's 16384^2
//                     transpose ran at ~0.85x memcpy on the H200, so expect those terms ~10-15 % low. The code
//                     pipelines pack (caller's stream) -> exchange (NCCL's stream) -> unpack (copy
//                     stream) chunk by chunk, so the time is the longer of two paths:
//                       exchange path = pack / (K B) + A(G) + unpack / (K B)  (the first chunk's pack,
//                                       the whole all-to-all, the last chunk's unpack)
//                       memory path   = (stay + pack + unpack + xfer) / B     (every byte that crosses
//                                       HBM, the concurrent passes sharing it)
//                     2 L(G) + h: the record exchange with the host's wait before anything is queued,
//                     and the closing status all-gather the caller's stream waits for.
// Efficiency: weak t(1) / t(G); strong t(1) / (G t(G)), t(1) the same op and mode on one GPU.

std::string strf(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

/// The model's constants that do not depend on G (bandwidths in bytes per ms, times in ms).
struct model_constants {
  double B = 0;       // copy bandwidth, bytes read + written per ms
  double B_read = 0;  // read bandwidth, bytes read per ms
  double h = 0;       // the host's return, ms
};

struct prediction {
  double ms = 0;
  std::string terms;  // the terms' values (ms), `name=value` joined by ';'
};

/// reduce and transform_reduce: a local read of `bytes_read`, the exchange, the host's return.
prediction model_reduce(const model_constants& k, double L, double bytes_read) {
  const double read = bytes_read / k.B_read;
  return {read + L + k.h, strf("read=%.4f;L=%.4f;h=%.4f", read, L, k.h)};
}

/// inclusive_scan of n int32 per rank: the local reduce, the exchange and the host's wait, the local scan.
prediction model_scan(const model_constants& k, double L, std::int64_t n) {
  const double read = 4.0 * n / k.B_read, scan = 8.0 * n / k.B;
  return {read + scan + L + k.h, strf("read=%.4f;scan=%.4f;L=%.4f;h=%.4f", read, scan, L, k.h)};
}

/// transpose of an R x C float matrix split evenly by rows over G ranks (A: its all-to-all alone, ms).
prediction model_transpose(const model_constants& k, double L, double A, std::int64_t R, std::int64_t C, int G) {
  const double D = static_cast<double>(R) * C * sizeof(float) / G;
  if (G == 1) {
    const double local = 2.0 * D / k.B;
    return {local + k.h, strf("local=%.4f;h=%.4f", local, k.h)};
  }
  const int K = algo::detail::nccl::chunk_count(R, C, sizeof(float), G);
  const double f = static_cast<double>(G - 1) / G;
  const double stay = 2.0 * D / G / k.B, pack = 2.0 * f * D / k.B, unpack = pack, xfer = pack;
  const double memory = stay + pack + unpack + xfer;
  const double exchange = pack / K + A + unpack / K;
  const double fixed = 2.0 * L + k.h;
  return {fixed + std::max(memory, exchange),
          strf("stay=%.4f;pack=%.4f;unpack=%.4f;xfer=%.4f;memory=%.4f;K=%d;a2a=%.4f;exchange=%.4f;L=%.4f;h=%.4f;bound=%s",
               stay, pack, unpack, xfer, memory, K, A, exchange, L, k.h, memory >= exchange ? "memory" : "exchange")};
}

struct scaling_row {
  std::string mode, op;
  int gpus = 1;
  std::int64_t total = 0, per_gpu = 0;
  double ms = 0;
  prediction model;
  double efficiency = 0, model_efficiency = 0;
};

std::string log2_or_n(std::int64_t v) {
  int k = 0;
  while ((std::int64_t(1) << k) < v) ++k;
  return (std::int64_t(1) << k) == v ? "2^" + std::to_string(k) : std::to_string(v);
}

template <class T>
T* device_alloc(int dev, std::int64_t n) {
  bench::check(cudaSetDevice(dev), "cudaSetDevice");
  T* p = nullptr;
  bench::check(cudaMalloc(&p, static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * sizeof(T)), "cudaMalloc");
  return p;
}
template <class T>
void device_free(int dev, std::vector<T*>& v) {
  bench::check(cudaSetDevice(dev), "cudaSetDevice");
  for (auto& p : v) {
    if (p) bench::check(cudaFree(p), "cudaFree");
    p = nullptr;
  }
}

int run_scaling(int want, int count, int reps, bool quick, const std::string& csv, const std::string& commit) {
  const auto start = std::chrono::steady_clock::now();
  const int most = std::min(want, count);
  std::vector<int> Gs;
  for (int G : {1, 2, 4, 8}) {
    if (G <= most) Gs.push_back(G);
    else std::printf("note: the %d-GPU rows are left out (%d GPU(s) present, --gpus %d)\n", G, count, want);
  }
  const int warm = 2;
  cudaDeviceProp prop;
  bench::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const std::string device = prop.name;
  std::printf("scaling: %s, %d GPU(s) present, NCCL %d.%d.%d, median of %d after %d warm-ups%s\n", prop.name, count,
              NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, reps, warm, quick ? " (--quick: small sizes)" : "");
  const std::int64_t weak_n = quick ? (std::int64_t(1) << 24) : (std::int64_t(1) << 28);
  const std::int64_t strong_total = quick ? (std::int64_t(1) << 26) : (std::int64_t(1) << 30);
  const std::int64_t side = quick ? 4096 : 16384;

  // ---- the constants that do not depend on G, on GPU 0 ------------------------------------------------------
  model_constants k;
  {
    std::vector<gpu> one(1);
    one[0].dev = 0;
    bench::check(cudaSetDevice(0), "cudaSetDevice");
    bench::check(cudaStreamCreateWithFlags(&one[0].stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const cudaStream_t s = one[0].stream;
    const std::int64_t m = std::int64_t(1) << 28;  // 1 GiB of int32
    std::vector<int*> a{device_alloc<int>(0, m)}, b{device_alloc<int>(0, m)}, sum{device_alloc<int>(0, 1)};
    bench::fill_random(a[0], m, 5u);
    bench::fill_random(b[0], m, 6u);
    bench::check(cudaDeviceSynchronize(), "fill");
    bench::options o;
    o.reps = std::max(reps, 10);
    double t = bench::median_ms(
        o, [&](int) { bench::check(cudaMemcpyAsync(b[0], a[0], m * sizeof(int), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync"); },
        s);
    k.B = 2.0 * m * sizeof(int) / t;
    std::size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, temp_bytes, a[0], sum[0], m);
    std::vector<unsigned char*> temp{device_alloc<unsigned char>(0, static_cast<std::int64_t>(temp_bytes))};
    t = bench::median_ms(
        o,
        [&](int) {
          std::size_t tb = temp_bytes;
          bench::check(cub::DeviceReduce::Sum(temp[0], tb, a[0], sum[0], m, s), "cub::DeviceReduce::Sum");
        },
        s);
    k.B_read = 1.0 * m * sizeof(int) / t;
    const std::int64_t small = 1024;
    t = wall_ms(
        one, 1, reps * 5,
        [&](gpu& g, int, int) {
          volatile int v = algo::reduce(algo::cuda.on(g.stream), a[0], a[0] + small, 0);
          (void)v;
        },
        3);
    k.h = t - small * sizeof(int) / k.B_read;
    device_free(0, a);
    device_free(0, b);
    device_free(0, sum);
    device_free(0, temp);
    bench::check(cudaStreamDestroy(s), "cudaStreamDestroy");
    std::printf("constants (GPU 0): B = %.3f TB/s (1 GiB cudaMemcpy, read + written), B_read = %.3f TB/s (CUB "
                "reduce of 1 GiB), h = %.1f us (algo::cuda reduce of 2^10 to the host)\n",
                k.B / 1e9, k.B_read / 1e9, k.h * 1e3);
    std::fflush(stdout);
  }

  // the CSV is written row by row (a run cut short keeps what it measured); G = 1 runs first, so every
  // row's efficiency is known when it is written
  FILE* f = std::fopen(csv.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "bench: cannot write %s\n", csv.c_str());
    return 1;
  }
  std::fprintf(f, "mode,op,gpus,elements_total,elements_per_gpu,time_ms,model_ms,model_terms,efficiency,commit,device\n");
  std::fflush(f);
  const std::string constants = strf(";B_TBps=%.3f;Bread_TBps=%.3f", k.B / 1e9, k.B_read / 1e9);
  std::vector<scaling_row> rows;
  auto add = [&](const std::string& mode, const char* op, int G, std::int64_t total, std::int64_t per_gpu, double ms,
                 prediction p) {
    scaling_row r;
    r.mode = mode;
    r.op = op;
    r.gpus = G;
    r.total = total;
    r.per_gpu = per_gpu;
    r.ms = ms;
    r.model = std::move(p);
    for (const auto& b : rows) {
      if (b.mode != r.mode || b.op != r.op || b.gpus != 1) continue;
      const double scale = r.mode == "weak" ? 1.0 : r.gpus;  // weak: t(1) / t(G); strong: t(1) / (G t(G))
      r.efficiency = b.ms / (scale * r.ms);
      r.model_efficiency = b.model.ms / (scale * r.model.ms);
    }
    if (G == 1) r.efficiency = r.model_efficiency = 1.0;
    std::printf("  %-6s %-16s G=%d %6s in all %6s/GPU %9.4f ms  model %9.4f ms (%+4.0f%%)  eff %.3f (model %.3f)  %s\n",
                mode.c_str(), op, G, log2_or_n(total).c_str(), log2_or_n(per_gpu).c_str(), ms, r.model.ms,
                100.0 * (r.model.ms - ms) / ms, r.efficiency, r.model_efficiency, r.model.terms.c_str());
    std::fflush(stdout);
    std::fprintf(f, "%s,%s,%d,%lld,%lld,%.6f,%.6f,\"%s%s\",%.4f,%s,\"%s\"\n", r.mode.c_str(), r.op.c_str(), r.gpus,
                 static_cast<long long>(r.total), static_cast<long long>(r.per_gpu), r.ms, r.model.ms,
                 r.model.terms.c_str(), constants.c_str(), r.efficiency, commit.c_str(), device.c_str());
    std::fflush(f);
    rows.push_back(std::move(r));
  };

  // every communicator is kept until the end (then released and destroyed, after the CSV is complete)
  std::vector<std::vector<ncclComm_t>> all_comms;
  for (const int G : Gs) {
    std::vector<gpu> gpus(G);
    std::vector<ncclComm_t> comms(G);
    std::vector<int> devs(G);
    for (int r = 0; r < G; ++r) devs[r] = r;
    check_nccl(ncclCommInitAll(comms.data(), G, devs.data()), "ncclCommInitAll");
    all_comms.push_back(comms);
    for (int r = 0; r < G; ++r) {
      gpus[r].dev = r;
      gpus[r].comm = comms[r];
      bench::check(cudaSetDevice(r), "cudaSetDevice");
      bench::check(cudaStreamCreateWithFlags(&gpus[r].stream, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    // L(G): an all-gather of 256 bytes per rank (none at G = 1: a communicator of one exchanges nothing)
    std::vector<unsigned char*> ag(G);
    for (int r = 0; r < G; ++r) ag[r] = device_alloc<unsigned char>(r, 256 * (G + 1));
    const double L = G == 1 ? 0.0
                            : wall_ms(
                                  gpus, G, reps * 5,
                                  [&](gpu& g, int r, int) {
                                    check_nccl(ncclAllGather(ag[r], ag[r] + 256, 256, ncclUint8, g.comm, g.stream),
                                               "ncclAllGather");
                                  },
                                  3);
    std::printf("G = %d: L(%d) = %.1f us (ncclAllGather of 256 B per rank%s)\n", G, G, L * 1e3,
                G == 1 ? ": none, a communicator of one skips its exchanges" : "");
    std::fflush(stdout);

    for (const std::string mode : {"weak", "strong"}) {
      const bool weak = mode == "weak";
      // ---- reduce, transform_reduce, inclusive_scan of int32 -----------------------------------------------
      const std::int64_t n = weak ? weak_n : strong_total / G;
      std::vector<int*> in(G), out(G);
      for (int r = 0; r < G; ++r) {
        in[r] = device_alloc<int>(r, n);
        out[r] = device_alloc<int>(r, n);
        bench::fill_random(in[r], n, 3u + r);
        bench::fill_random(out[r], n, 11u + r);
        bench::check(cudaDeviceSynchronize(), "fill");
      }
      double t = wall_ms(
          gpus, G, reps,
          [&](gpu& g, int r, int) {
            volatile long long v = algo::reduce(algo::nccl(g.comm).on(g.stream), in[r], in[r] + n, 0LL);
            (void)v;
          },
          warm);
      add(mode, "reduce", G, n * G, n, t, model_reduce(k, L, 4.0 * n));
      t = wall_ms(
          gpus, G, reps,
          [&](gpu& g, int r, int) {
            volatile long long v = algo::transform_reduce(algo::nccl(g.comm).on(g.stream), in[r], in[r] + n, out[r], 0LL);
            (void)v;
          },
          warm);
      add(mode, "transform_reduce", G, n * G, n, t, model_reduce(k, L, 8.0 * n));
      t = wall_ms(
          gpus, G, reps,
          [&](gpu& g, int r, int) { algo::inclusive_scan(algo::nccl(g.comm).on(g.stream), in[r], in[r] + n, out[r]); },
          warm);
      add(mode, "inclusive_scan", G, n * G, n, t, model_scan(k, L, n));
      for (int r = 0; r < G; ++r) {
        std::vector<int*> v{in[r], out[r]};
        device_free(r, v);
      }

      // ---- transpose of an R x C float matrix split by rows ------------------------------------------------
      const std::int64_t R = weak ? side * G : side, C = side;
      const std::int64_t lr = R / G, lc = C / G;
      double A = 0;
      if (G > 1) {
        std::vector<float*> send(G), recv(G);
        for (int r = 0; r < G; ++r) {
          send[r] = device_alloc<float>(r, lr * C);
          recv[r] = device_alloc<float>(r, lc * R);
        }
        A = wall_ms(
            gpus, G, reps, [&](gpu& g, int r, int) { post_all_to_all(g.comm, g.stream, r, G, R, C, send[r], recv[r]); },
            warm);
        std::printf("  %-6s %-16s G=%d all-to-all alone of the off-diagonal blocks (%.0f MiB out of each GPU): %.4f ms\n",
                    mode.c_str(), "transpose", G, (C - lc) * lr * 4.0 / (1 << 20), A);
        for (int r = 0; r < G; ++r) {
          std::vector<float*> v{send[r], recv[r]};
          device_free(r, v);
        }
      }
      std::vector<float*> tin(G), tout(G);
      for (int r = 0; r < G; ++r) {
        tin[r] = device_alloc<float>(r, lr * C);
        tout[r] = device_alloc<float>(r, lc * R);
        bench::fill_random(tin[r], lr * C, 9u + r);
        bench::check(cudaDeviceSynchronize(), "fill");
      }
      t = wall_ms(
          gpus, G, reps,
          [&](gpu& g, int r, int) {
            algo::transpose(algo::nccl(g.comm).on(g.stream), tin[r], R, C, algo::row_range{r * lr, (r + 1) * lr}, tout[r],
                            algo::row_range{r * lc, (r + 1) * lc});
          },
          warm);
      add(mode, "transpose", G, R * C, R * C / G, t, model_transpose(k, L, A, R, C, G));
      for (int r = 0; r < G; ++r) {
        std::vector<float*> v{tin[r], tout[r]};
        device_free(r, v);
      }
    }

    for (int r = 0; r < G; ++r) {
      bench::check(cudaSetDevice(r), "cudaSetDevice");
      bench::check(cudaStreamSynchronize(gpus[r].stream), "cudaStreamSynchronize");
      bench::check(cudaStreamDestroy(gpus[r].stream), "cudaStreamDestroy");
      std::vector<unsigned char*> v{ag[r]};
      device_free(r, v);
    }
  }
  std::fclose(f);

  // ---- the table ---------------------------------------------------------------------------------------------
  std::printf("\n%-6s %-16s %4s %12s %12s %10s %10s %8s %8s %9s\n", "mode", "op", "GPUs", "total", "per GPU", "ms",
              "model ms", "model/t", "eff", "model eff");
  for (const auto& r : rows)
    std::printf("%-6s %-16s %4d %12lld %12lld %10.4f %10.4f %8.3f %8.3f %9.3f\n", r.mode.c_str(), r.op.c_str(), r.gpus,
                static_cast<long long>(r.total), static_cast<long long>(r.per_gpu), r.ms, r.model.ms, r.model.ms / r.ms,
                r.efficiency, r.model_efficiency);
  std::printf("wrote %s (%zu rows) in %.1f s\n", csv.c_str(), rows.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::fflush(stdout);
  for (auto& comms : all_comms) {
    for (auto c : comms) algo::nccl_release(c);
    for (auto c : comms) ncclCommDestroy(c);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int want = -1, reps = -1;
  bool quick = false, scaling = false;
  std::string csv, commit;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--gpus" && i + 1 < argc) want = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
    else if (a == "--scaling") scaling = true;
    else if (a == "--commit" && i + 1 < argc) commit = argv[++i];
  }
  if (want < 1) want = scaling ? 4 : 2;
  if (reps < 1) reps = scaling ? 10 : 20;
  if (csv.empty()) csv = scaling ? "scaling.csv" : "multi_gpu.csv";
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast off unless the environment says otherwise
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIP: no usable CUDA device\n");
    return 77;
  }
  if (scaling) return run_scaling(want, count, reps, quick, csv, commit);
  const int P = std::min(want, count);
  if (P < want) std::printf("note: %d GPU(s) present, %d asked: the %d-GPU rows are left out\n", count, want, want);
  if (quick) reps = std::max(5, reps / 4);

  std::vector<gpu> gpus(P);
  std::vector<ncclComm_t> comms(P), solos(1);
  std::vector<int> devs(P);
  for (int r = 0; r < P; ++r) devs[r] = r;
  check_nccl(ncclCommInitAll(comms.data(), P, devs.data()), "ncclCommInitAll");
  for (int r = 0; r < P; ++r) {
    gpus[r].dev = r;
    gpus[r].comm = comms[r];
    bench::check(cudaSetDevice(r), "cudaSetDevice");
    bench::check(cudaStreamCreateWithFlags(&gpus[r].stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  {
    int d0 = 0;
    check_nccl(ncclCommInitAll(solos.data(), 1, &d0), "ncclCommInitAll (one rank)");
    gpus[0].solo = solos[0];
  }
  cudaDeviceProp prop;
  bench::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("%d x %s, NCCL %d.%d.%d\n", P, prop.name, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);

  bench::options opt;
  opt.csv = csv;
  bench::report rep(opt);
  const std::string gp = std::to_string(P) + " GPUs";

  // ---- buffers: 2^28 int32 in and out per GPU ------------------------------------------------------------
  const std::int64_t n = quick ? (1 << 24) : (std::int64_t(1) << 28);
  std::vector<int*> in(P), out(P), scratch(P);
  std::vector<void*> cub_temp(P);
  std::vector<std::size_t> cub_bytes(P);
  for (int r = 0; r < P; ++r) {
    bench::check(cudaSetDevice(r), "cudaSetDevice");
    bench::check(cudaMalloc(&in[r], n * sizeof(int)), "cudaMalloc");
    bench::check(cudaMalloc(&out[r], n * sizeof(int)), "cudaMalloc");
    bench::check(cudaMalloc(&scratch[r], 64 * sizeof(int) + P * sizeof(int)), "cudaMalloc");
    bench::fill_random(in[r], n, 3u + r);
    std::size_t a = 0, b = 0;
    cub::DeviceReduce::Sum(nullptr, a, in[r], scratch[r], n);
    cub::DeviceScan::InclusiveSum(nullptr, b, in[r], out[r], n);
    cub_bytes[r] = std::max(a, b);
    bench::check(cudaMalloc(&cub_temp[r], cub_bytes[r]), "cudaMalloc");
    bench::check(cudaDeviceSynchronize(), "fill");
  }
  const double bytes_reduce = static_cast<double>(n) * sizeof(int);
  const double bytes_scan = 2.0 * n * sizeof(int);

  // ---- reduce of n int32 per GPU -------------------------------------------------------------------------------
  const std::string ti = "i32 " + std::to_string(n) + "/GPU";
  double t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) {
    volatile long long s = algo::reduce(algo::cuda.on(g.stream), in[r], in[r] + n, 0LL);
    (void)s;
  });
  rep.add({"reduce", ti, n, "algo::cuda 1 GPU", t, bytes_reduce, "algo::cuda 1 GPU"});
  t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) {
    volatile long long s = algo::reduce(algo::nccl(g.solo).on(g.stream), in[r], in[r] + n, 0LL);
    (void)s;
  });
  rep.add({"reduce", ti, n, "algo::nccl 1 rank", t, bytes_reduce, "algo::cuda 1 GPU"});
  if (P > 1) {
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      volatile long long s = algo::reduce(algo::nccl(g.comm).on(g.stream), in[r], in[r] + n, 0LL);
      (void)s;
    });
    rep.add({"reduce", ti, n, "algo::nccl " + gp, t, bytes_reduce, "algo::cuda 1 GPU"});
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      std::size_t b = cub_bytes[r];
      cub::DeviceReduce::Sum(cub_temp[r], b, in[r], scratch[r], n, g.stream);
      check_nccl(ncclAllReduce(scratch[r], scratch[r], 1, ncclInt32, ncclSum, g.comm, g.stream), "ncclAllReduce");
      int h = 0;
      bench::check(cudaMemcpyAsync(&h, scratch[r], sizeof(int), cudaMemcpyDeviceToHost, g.stream), "copy");
    });
    rep.add({"reduce", ti, n, "glued: cub + ncclAllReduce " + gp, t, bytes_reduce, "algo::cuda 1 GPU"});
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      check_nccl(ncclAllGather(scratch[r] + 8, scratch[r] + 16, 1, ncclInt32, g.comm, g.stream), "ncclAllGather");
    });
    rep.add({"reduce", ti, n, "nccl: all-gather of 4 B " + gp, t, 0, "algo::cuda 1 GPU"});
  }

  // ---- scan of n int32 per GPU -----------------------------------------------------------------------------------
  t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) { algo::inclusive_scan(algo::cuda.on(g.stream), in[r], in[r] + n, out[r]); });
  rep.add({"inclusive_scan", ti, n, "algo::cuda 1 GPU", t, bytes_scan, "algo::cuda 1 GPU"});
  t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) {
    algo::inclusive_scan(algo::nccl(g.solo).on(g.stream), in[r], in[r] + n, out[r]);
  });
  rep.add({"inclusive_scan", ti, n, "algo::nccl 1 rank", t, bytes_scan, "algo::cuda 1 GPU"});
  if (P > 1) {
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      algo::inclusive_scan(algo::nccl(g.comm).on(g.stream), in[r], in[r] + n, out[r]);
    });
    rep.add({"inclusive_scan", ti, n, "algo::nccl " + gp, t, bytes_scan, "algo::cuda 1 GPU"});
    const double t_nccl = t;
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      std::size_t b = cub_bytes[r];
      cub::DeviceScan::InclusiveSum(cub_temp[r], b, in[r], out[r], n, g.stream);
      last_kernel<<<1, 1, 0, g.stream>>>(out[r], n, scratch[r] + 8 + r);
      check_nccl(ncclAllGather(scratch[r] + 8 + r, scratch[r] + 8, 1, ncclInt32, g.comm, g.stream), "ncclAllGather");
      fixup_kernel<<<4 * 132, 256, 0, g.stream>>>(out[r], n, scratch[r] + 8, r);
    });
    rep.add({"inclusive_scan", ti, n, "glued: cub + all-gather + fix-up " + gp, t, bytes_scan, "algo::cuda 1 GPU"});
    std::printf("  scan: algo::nccl %s is %.3fx the glued baseline (target >= 1.15)\n", gp.c_str(), t / t_nccl);
  }

  // ---- small: a reduce of 2^10 per GPU returned to the host -----------------------------------------------------
  const std::int64_t small = 1024;
  t = wall_ms(gpus, 1, reps * 5, [&](gpu& g, int r, int) {
    volatile int s = algo::reduce(algo::cuda.on(g.stream), in[r], in[r] + small, 0);
    (void)s;
  });
  rep.add({"reduce", "i32 1024/GPU", small, "algo::cuda 1 GPU", t, small * 4.0, "algo::cuda 1 GPU"});
  const double t_cuda_small = t;
  t = wall_ms(gpus, 1, reps * 5, [&](gpu& g, int r, int) {
    volatile int s = algo::reduce(algo::nccl(g.solo).on(g.stream), in[r], in[r] + small, 0);
    (void)s;
  });
  rep.add({"reduce", "i32 1024/GPU", small, "algo::nccl 1 rank", t, small * 4.0, "algo::cuda 1 GPU"});
  if (P > 1) {
    t = wall_ms(gpus, P, reps * 5, [&](gpu& g, int r, int) {
      volatile int s = algo::reduce(algo::nccl(g.comm).on(g.stream), in[r], in[r] + small, 0);
      (void)s;
    });
    rep.add({"reduce", "i32 1024/GPU", small, "algo::nccl " + gp, t, small * 4.0, "algo::cuda 1 GPU"});
    const double t_small = t;
    // issue 26's reference: one all-gather of the ranks' 256-byte blocks (what the call exchanges),
    // alone, plus algo::cuda's own time on one GPU
    std::vector<unsigned char*> ag(P);
    for (int r = 0; r < P; ++r) {
      bench::check(cudaSetDevice(r), "cudaSetDevice");
      bench::check(cudaMalloc(&ag[r], 256 * static_cast<std::size_t>(P)), "cudaMalloc");
    }
    t = wall_ms(gpus, P, reps * 5, [&](gpu& g, int r, int) {
      check_nccl(ncclAllGather(ag[r] + 256 * r, ag[r], 256, ncclUint8, g.comm, g.stream), "ncclAllGather");
    });
    rep.add({"reduce", "i32 1024/GPU", small, "nccl: all-gather of 256 B/rank alone " + gp, t, small * 4.0,
             "algo::cuda 1 GPU"});
    for (int r = 0; r < P; ++r) {
      bench::check(cudaSetDevice(r), "cudaSetDevice");
      bench::check(cudaFree(ag[r]), "cudaFree");
    }
    std::printf("  small reduce: %.1f us (target <= 35 us); all-gather alone %.1f us + algo::cuda %.1f us: %.3fx "
                "their sum (target <= 1.1)\n",
                t_small * 1e3, t * 1e3, t_cuda_small * 1e3, t_small / (t + t_cuda_small));
  }

  // ---- transpose of a 16384 x 16384 float matrix split by rows ---------------------------------------------------
  const std::int64_t R = quick ? 4096 : 16384, C = R;
  const std::string ts = std::to_string(R) + "x" + std::to_string(C) + " f32";
  std::vector<float*> tin(P), tout(P), ttmp(P), trecv(P);
  std::vector<cublasHandle_t> blas(P);
  auto part = [&](std::int64_t len, int q) { return len * q / P; };
  for (int r = 0; r < P; ++r) {
    bench::check(cudaSetDevice(r), "cudaSetDevice");
    const std::int64_t lr = part(R, r + 1) - part(R, r);
    const std::int64_t lc = part(C, r + 1) - part(C, r);
    bench::check(cudaMalloc(&tin[r], lr * C * sizeof(float)), "cudaMalloc");
    bench::check(cudaMalloc(&tout[r], lc * R * sizeof(float)), "cudaMalloc");
    bench::check(cudaMalloc(&ttmp[r], lr * C * sizeof(float)), "cudaMalloc");
    bench::check(cudaMalloc(&trecv[r], lc * R * sizeof(float)), "cudaMalloc");
    bench::fill_random(tin[r], lr * C, 9u + r);
    check_cublas(cublasCreate(&blas[r]), "cublasCreate");
    check_cublas(cublasSetStream(blas[r], gpus[r].stream), "cublasSetStream");
    bench::check(cudaDeviceSynchronize(), "fill");
  }
  const double bytes_t = 2.0 * R * C * sizeof(float) / P;  // per GPU: its part read and written
  if (P == 1) {
    t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) { algo::transpose(algo::cuda.on(g.stream), tin[r], R, C, tout[r]); });
    rep.add({"transpose", ts, R * C, "algo::cuda 1 GPU", t, 2.0 * R * C * 4, "algo::cuda 1 GPU"});
    t = wall_ms(gpus, 1, reps, [&](gpu& g, int r, int) {
      algo::transpose(algo::nccl(g.solo).on(g.stream), tin[r], R, C, algo::row_range{0, R}, tout[r], algo::row_range{0, C});
    });
    rep.add({"transpose", ts, R * C, "algo::nccl 1 rank", t, 2.0 * R * C * 4, "algo::cuda 1 GPU"});
  }
  if (P > 1) {
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      algo::transpose(algo::nccl(g.comm).on(g.stream), tin[r], R, C, algo::row_range{part(R, r), part(R, r + 1)},
                      tout[r], algo::row_range{part(C, r), part(C, r + 1)});
    });
    rep.add({"transpose", ts, R * C, "algo::nccl " + gp, t, bytes_t, "nccl: all-to-all alone " + gp});
    const double t_nccl = t;
    // the all-to-all of the same bytes alone
    auto all_to_all = [&](gpu& g, int r, const float* send, float* recv) {
      post_all_to_all(g.comm, g.stream, r, P, R, C, send, recv);
    };
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) { all_to_all(g, r, ttmp[r], trecv[r]); });
    const double t_alone = t;
    rep.add({"transpose", ts, R * C, "nccl: all-to-all alone " + gp, t, bytes_t, "nccl: all-to-all alone " + gp});
    // the glued baseline: cuBLAS geam of the whole local block, the all-to-all, then the unpack
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      const std::int64_t lr = part(R, r + 1) - part(R, r), lc = part(C, r + 1) - part(C, r);
      const float one = 1.0f, zero = 0.0f;
      // row-major lr x C in -> row-major C x lr tmp (column-major views: C x lr -> lr x C)
      check_cublas(cublasSgeam(blas[r], CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(lr), static_cast<int>(C), &one,
                               tin[r], static_cast<int>(C), &zero, ttmp[r], static_cast<int>(lr), ttmp[r],
                               static_cast<int>(lr)),
                   "cublasSgeam");
      all_to_all(g, r, ttmp[r], trecv[r]);
      for (int q = 0; q < P; ++q) {
        const std::int64_t rq0 = part(R, q), rq = part(R, q + 1) - rq0;
        const float* src = q == r ? ttmp[r] + part(C, r) * lr : trecv[r] + rq0 * lc;
        bench::check(cudaMemcpy2DAsync(tout[r] + rq0, R * sizeof(float), src, rq * sizeof(float), rq * sizeof(float), lc,
                                       cudaMemcpyDeviceToDevice, g.stream),
                     "cudaMemcpy2DAsync");
      }
    });
    rep.add({"transpose", ts, R * C, "glued: geam + all-to-all + unpack " + gp, t, bytes_t, "nccl: all-to-all alone " + gp});
    std::printf("  transpose: algo::nccl is %.3fx the glued baseline (target >= 1.3), %.3fx the all-to-all alone's time (target <= 1.2)\n",
                t / t_nccl, t_nccl / t_alone);
    const double t_glued = t;
    // the outputs in one algo::nccl_buffer (collective: one thread a GPU): the direct path where the
    // peers are mapped (each block written straight into its owner's output over NVLink)
    std::vector<algo::nccl_buffer<float>> nb(P);
    {
      std::vector<std::thread> th;
      std::int64_t most = 0;
      for (int r = 0; r < P; ++r) most = std::max(most, (part(C, r + 1) - part(C, r)) * R);
      for (int r = 0; r < P; ++r)
        th.emplace_back([&, r] {
          bench::check(cudaSetDevice(gpus[r].dev), "cudaSetDevice");
          nb[r] = algo::nccl_buffer<float>(gpus[r].comm, static_cast<std::size_t>(most));
        });
      for (auto& x : th) x.join();
    }
    t = wall_ms(gpus, P, reps, [&](gpu& g, int r, int) {
      algo::transpose(algo::nccl(g.comm).on(g.stream), tin[r], R, C, algo::row_range{part(R, r), part(R, r + 1)},
                      nb[r].data(), algo::row_range{part(C, r), part(C, r + 1)});
    });
    const std::string direct_label = std::string("algo::nccl into nccl_buffer (") +
                                     (nb[0].direct() ? "direct" : "not mapped: all-to-all") + ") " + gp;
    rep.add({"transpose", ts, R * C, direct_label, t, bytes_t, "nccl: all-to-all alone " + gp});
    std::printf("  transpose into an nccl_buffer (direct() %s): %.3fx the glued baseline (target >= 1.3), %.3fx the "
                "all-to-all alone's time (target <= 1.2)\n",
                nb[0].direct() ? "true" : "false", t_glued / t, t / t_alone);
    for (int r = 0; r < P; ++r) {
      bench::check(cudaSetDevice(gpus[r].dev), "cudaSetDevice");
      bench::check(cudaDeviceSynchronize(), "sync");
    }
    nb.clear();
  }

  rep.finish(std::to_string(P) + " x " + prop.name, "");
  for (auto c : comms) ncclCommDestroy(c);
  ncclCommDestroy(solos[0]);
  return 0;
}
