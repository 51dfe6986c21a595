// Multi-GPU bench: algo::nccl's reduce, scan and transpose against one GPU (algo::cuda), against the
// hand-glued code a user writes today (CUB + ncclAllReduce / ncclAllGather + a fix-up pass; cuBLAS
// geam + grouped ncclSend / ncclRecv + an unpack, one after the other) and against NCCL's collectives
// alone. One process, one thread per GPU (communicators from ncclCommInitAll), as GUIDE.md's NCCL
// figures were taken: every time is host wall clock from a common start (a spin barrier) until every
// rank's stream is idle, median of --reps repetitions after 3 warm-ups.
//
//   multi_gpu [--gpus N] [--reps R] [--quick] [--csv file]
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
/// start until every stream is idle.
double wall_ms(std::vector<gpu>& gpus, int ranks, int reps, const std::function<void(gpu&, int, int)>& fn) {
  spin_barrier bar(ranks);
  std::vector<double> t;
  std::chrono::steady_clock::time_point t0;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      bench::check(cudaSetDevice(gpus[r].dev), "cudaSetDevice");
      for (int i = -3; i < reps; ++i) {
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

}  // namespace

int main(int argc, char** argv) {
  int want = 2, reps = 20;
  bool quick = false;
  std::string csv = "multi_gpu.csv";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--gpus" && i + 1 < argc) want = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast off unless the environment says otherwise
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIP: no usable CUDA device\n");
    return 77;
  }
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
    std::printf("  small reduce: %.1f us (target <= 35 us)\n", t * 1e3);
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
      const std::int64_t lr = part(R, r + 1) - part(R, r), lc = part(C, r + 1) - part(C, r);
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int q = 0; q < P; ++q) {
        if (q == r) continue;
        const std::int64_t cq0 = part(C, q), cq = part(C, q + 1) - cq0;
        const std::int64_t rq0 = part(R, q), rq = part(R, q + 1) - rq0;
        check_nccl(ncclSend(send + cq0 * lr, cq * lr * sizeof(float), ncclUint8, q, g.comm, g.stream), "ncclSend");
        check_nccl(ncclRecv(recv + rq0 * lc, lc * rq * sizeof(float), ncclUint8, q, g.comm, g.stream), "ncclRecv");
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
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
  }

  rep.finish(std::to_string(P) + " x " + prop.name, "");
  for (auto c : comms) ncclCommDestroy(c);
  ncclCommDestroy(solos[0]);
  return 0;
}
