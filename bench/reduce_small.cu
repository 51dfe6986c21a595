// reduce_small: where the time of a small reduce goes (issue 27, item 4). A development tool, like
// scan_sweep: the claims come from `bench --only reduce` or from this tool's "b2b" column, which
// times as the bench does. For i32 / f32 at 2^10 .. 2^16 it measures every row three ways:
//
//   b2b     as bench::median_ms: each row alone, event-timed calls back to back (median of R), the
//           rows taken in turn, three rounds (the median of the three medians is printed)
//   event   the same events, rows interleaved call by call (A B C A B C ...: drift hits all alike)
//   gpu     the call queued behind a 50 us spin kernel: events around it measure the GPU's side
//           alone (launch processing + the kernel), the host's latency hidden
//   host    the host's time inside the call (steady_clock around it), from the event loop
//
// rows: cub::DeviceReduce::Sum (temporaries outside), algo::reduce_into(algo::cuda), the same entry
// without the public entry's argument checks (algo::detail::reduce_into), a 16-byte
// cudaMemcpyAsync (the floor of any stream operation) and, where the headers have the one-block
// kernel (reduce_single.cuh), the kernels launched bare at one block: the multi-block retirement
// kernel (main's one-block path) and the one-block kernel. Then the host cost of single runtime /
// driver calls the entry makes.
//   reduce_small [--reps R] [--ncu] [--verify]
//     --ncu     two calls of each row at 2^12 and 2^16, nothing timed (for ncu)
//     --verify  bitwise: every one-block size (1 .. 32 warp tiles) x 16-byte offsets 0..3, f32 /
//               f64 / i32, shfl and smem phases: the library's result against main's one-block
//               retirement kernel, on mixed-magnitude data (any change of the fold's shape shows)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include <algo/algo.hpp>

#if __has_include(<algo/detail/cuda/reduce/reduce_single.cuh>)
#define REDUCE_SMALL_HAS_SINGLE 1
#include <algo/detail/cuda/reduce/reduce_single.cuh>
#else
#define REDUCE_SMALL_HAS_SINGLE 0
#endif

#include "harness.cuh"

namespace {

using bench::check;
namespace ad = algo::detail::cuda;

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct impl {
  std::string name;
  std::function<void(int)> call;
  std::vector<double> event_us, gpu_us, host_us, b2b_us;
};

/// The types of the default reduce of T with plus (shfl or smem warp phase).
template <class T, class Phase = algo::warp_phase::shfl_t>
struct types {
  using Agent = ad::reduce_range<ad::reduce_tuning<T, T>, Phase, true, false, const T*, T>;
  using Op = algo::detail::accumulate_with<algo::plus<>, T>;
};

/// main's one-block path: the multi-block retirement kernel launched with one block.
template <class T, class Phase = algo::warp_phase::shfl_t>
void launch_retirement_one_block(const T* in, std::int64_t n, T* out, cudaStream_t s = nullptr) {
  using A = typename types<T, Phase>::Agent;
  using Op = typename types<T, Phase>::Op;
  const ad::reduce_layout L = A::layout(n, ad::vector_misalignment(in), 1);
  ad::reduce_retirement_kernel<A, const T*, T*, T, Op>
      <<<1, A::threads, 0, s>>>(in, L, out, T{}, Op{algo::plus<>{}}, ad::retirement_temp<T>{nullptr, nullptr}, 1ull);
}

#if REDUCE_SMALL_HAS_SINGLE
template <class T>
void launch_single(const T* in, std::int64_t n, T* out) {
  using A = typename types<T>::Agent;
  using Op = typename types<T>::Op;
  const ad::reduce_layout L = A::layout(n, ad::vector_misalignment(in), 1);
  ad::reduce_single_block_kernel<A, const T*, T*, T, Op><<<1, A::threads>>>(in, n, L.offset, out, T{}, Op{algo::plus<>{}});
}
#endif

template <class T>
void run_type(const char* type, int reps, bool ncu, long long spin_cycles) {
  T* d_out = nullptr;
  check(cudaMalloc(&d_out, 64), "cudaMalloc");
  const std::vector<int> sizes = ncu ? std::vector<int>{12, 16} : std::vector<int>{10, 12, 14, 16};
  for (int k : sizes) {
    const std::int64_t n = std::int64_t(1) << k;
    bench::rotating_buffers<T> in(n, ncu ? 4 : bench::rotation_count(n * sizeof(T)));
    bench::rotating_buffers<T> dst(n, 4, false);
    std::size_t cub_bytes = 0;
    check(cub::DeviceReduce::Sum(nullptr, cub_bytes, in[0], d_out, n), "cub size");
    void* cub_tmp = nullptr;
    check(cudaMalloc(&cub_tmp, cub_bytes ? cub_bytes : 1), "cudaMalloc");
    std::vector<impl> impls;
    impls.push_back({"cub", [&](int r) {
                       std::size_t b = cub_bytes;
                       check(cub::DeviceReduce::Sum(cub_tmp, b, in[r], d_out, n), "cub");
                     }});
    impls.push_back({"algo::cuda", [&](int r) { algo::reduce_into(algo::cuda, in[r], in[r] + n, d_out, T{}, algo::plus<>{}); }});
    impls.push_back({"algo::cuda (no entry checks)",
                     [&](int r) { algo::detail::reduce_into(algo::cuda, in[r], n, d_out, T{}, algo::plus<>{}); }});
    if (n <= 4096) {
      impls.push_back({"kernel: retirement, 1 block (main)", [&](int r) { launch_retirement_one_block(in[r], n, d_out); }});
#if REDUCE_SMALL_HAS_SINGLE
      impls.push_back({"kernel: one-block (branch)", [&](int r) { launch_single<T>(in[r], n, d_out); }});
#endif
    }
    impls.push_back({"memcpy 16 B", [&](int r) {
                       check(cudaMemcpyAsync(dst[r], in[r], 16, cudaMemcpyDeviceToDevice), "memcpy");
                     }});
    if (ncu) {
      for (auto& m : impls)
        for (int i = 0; i < 2; ++i) m.call(i);
      check(cudaDeviceSynchronize(), "ncu calls");
      check(cudaFree(cub_tmp), "cudaFree");
      continue;
    }
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
    for (auto& m : impls)
      for (int i = 0; i < 5; ++i) m.call(i);
    check(cudaDeviceSynchronize(), "warm-up");
    // b2b: as bench::median_ms, each row alone, three rounds
    for (int round = 0; round < 3; ++round) {
      for (auto& m : impls) {
        for (int i = 0; i < 3; ++i) m.call(i);
        check(cudaDeviceSynchronize(), "warm-up");
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
          check(cudaEventRecord(a), "record");
          m.call(r);
          check(cudaEventRecord(b), "record");
          check(cudaEventSynchronize(b), "sync");
          float ms = 0;
          check(cudaEventElapsedTime(&ms, a, b), "elapsed");
          t.push_back(ms * 1e3);
        }
        m.b2b_us.push_back(median(t));
      }
    }
    for (int r = 0; r < reps; ++r) {
      for (auto& m : impls) {
        check(cudaEventRecord(a), "record");
        const auto t0 = std::chrono::steady_clock::now();
        m.call(r);
        const auto t1 = std::chrono::steady_clock::now();
        check(cudaEventRecord(b), "record");
        check(cudaEventSynchronize(b), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "elapsed");
        m.event_us.push_back(ms * 1e3);
        m.host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        // gpu: behind a spin kernel, the host's latency is hidden
        spin_kernel<<<1, 32>>>(spin_cycles);
        check(cudaEventRecord(a), "record");
        m.call(r + 1);
        check(cudaEventRecord(b), "record");
        check(cudaEventSynchronize(b), "sync");
        check(cudaEventElapsedTime(&ms, a, b), "elapsed");
        m.gpu_us.push_back(ms * 1e3);
      }
    }
    check(cudaGetLastError(), "kernels");
    const double cub_b = median(impls[0].b2b_us), cub_e = median(impls[0].event_us), cub_g = median(impls[0].gpu_us);
    for (auto& m : impls) {
      const double bb = median(m.b2b_us), e = median(m.event_us), g = median(m.gpu_us), h = median(m.host_us);
      std::printf(
          "%-4s 2^%-2d %-36s b2b %6.2f us (cub/this %.3f; rounds %.2f %.2f %.2f)  event %6.2f us (%.3f)  gpu %6.2f us (%.3f)  host %5.2f us\n",
          type, k, m.name.c_str(), bb, cub_b / bb, m.b2b_us[0], m.b2b_us[1], m.b2b_us[2], e, cub_e / e, g, cub_g / g, h);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    check(cudaFree(cub_tmp), "cudaFree");
  }
  cudaFree(d_out);
}

template <class F>
double per_call_us(F&& f, int count = 4000) {
  std::vector<double> t;
  for (int b = 0; b < 20; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count / 20; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (count / 20));
  }
  return median(t);
}

// ---- verify: bitwise against main's one-block kernel -------------------------------------------------
__global__ void fill_mixed(float* f, double* d, int* i, int n, unsigned seed) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    unsigned x = static_cast<unsigned>(k) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    const double m = (static_cast<double>(x & 0xffff) / 65536.0 - 0.5) * ldexp(1.0, static_cast<int>((x >> 16) % 40) - 20);
    f[k] = static_cast<float>(m);
    d[k] = m * 1.0000001;
    i[k] = static_cast<int>(x);
  }
}

template <class T, class Phase>
long verify_type(const T* base, const char* label) {
  using A = typename types<T, Phase>::Agent;
  const int max_n = 32 * 32 * A::items;  // 32 warp tiles: the largest one-block layout
  const int cases = 4 * (max_n + 40);
  T *want = nullptr, *got = nullptr;
  check(cudaMalloc(&want, sizeof(T) * cases), "cudaMalloc");
  check(cudaMalloc(&got, sizeof(T) * cases), "cudaMalloc");
  const auto policy = algo::cuda.with(Phase{});
  int c = 0;
  long blocks_mismatch = 0;
  for (int off = 0; off < 4; ++off)
    for (int n = 1; n <= max_n + 40; ++n, ++c) {
      const T* in = base + off;
      const ad::reduce_layout L = A::layout(n, ad::vector_misalignment(in), 1 << 16);
      if (L.blocks != 1) {
        ++blocks_mismatch;
        continue;
      }
      launch_retirement_one_block<T, Phase>(in, n, want + c);
      algo::reduce_into(policy, in, in + n, got + c, T{}, algo::plus<>{});
    }
  check(cudaDeviceSynchronize(), "verify");
  std::vector<T> w(cases), g(cases);
  check(cudaMemcpy(w.data(), want, sizeof(T) * cases, cudaMemcpyDeviceToHost), "copy");
  check(cudaMemcpy(g.data(), got, sizeof(T) * cases, cudaMemcpyDeviceToHost), "copy");
  long bad = 0, checked = 0;
  c = 0;
  for (int off = 0; off < 4; ++off)
    for (int n = 1; n <= max_n + 40; ++n, ++c) {
      const ad::reduce_layout L = A::layout(n, ad::vector_misalignment(base + off), 1 << 16);
      if (L.blocks != 1) continue;
      ++checked;
      if (std::memcmp(&w[c], &g[c], sizeof(T)) != 0) {
        if (bad < 5) std::printf("verify %s: n %d offset %d differs\n", label, n, off);
        ++bad;
      }
    }
  std::printf("verify %-10s one-block sizes x offsets checked %ld, bitwise different %ld\n", label, checked, bad);
  cudaFree(want);
  cudaFree(got);
  return bad;
}

int verify() {
  const int n = 1 << 16;
  float* f = nullptr;
  double* d = nullptr;
  int* i = nullptr;
  check(cudaMalloc(&f, sizeof(float) * n), "cudaMalloc");
  check(cudaMalloc(&d, sizeof(double) * n), "cudaMalloc");
  check(cudaMalloc(&i, sizeof(int) * n), "cudaMalloc");
  fill_mixed<<<64, 256>>>(f, d, i, n, 12345u);
  check(cudaDeviceSynchronize(), "fill");
  long bad = 0;
  bad += verify_type<float, algo::warp_phase::shfl_t>(f, "f32 shfl");
  bad += verify_type<float, algo::warp_phase::smem_t>(f, "f32 smem");
  bad += verify_type<double, algo::warp_phase::shfl_t>(d, "f64 shfl");
  bad += verify_type<double, algo::warp_phase::smem_t>(d, "f64 smem");
  bad += verify_type<int, algo::warp_phase::shfl_t>(i, "i32 shfl");
  check(cudaGetLastError(), "verify kernels");
  std::printf("verify: %s\n", bad == 0 ? "PASS (bitwise equal)" : "FAIL");
  cudaFree(f);
  cudaFree(d);
  cudaFree(i);
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  bool ncu = false, verify_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--ncu")) ncu = true;
    else if (!std::strcmp(argv[i], "--verify")) verify_only = true;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("reduce_small: no CUDA device\n");
    return 0;
  }
  if (verify_only) return verify();
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("device: %s; one-block kernel in these headers: %s\n", prop.name, REDUCE_SMALL_HAS_SINGLE ? "yes" : "no");
  int khz = 0;
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock rate");
  const long long spin_cycles = static_cast<long long>(khz) * 50 / 1000;  // ~50 us
  if (!ncu) {
    void* d = nullptr;
    check(cudaMalloc(&d, 1 << 20), "cudaMalloc");
    cudaPointerAttributes attr{};
    int dev = 0;
    int pageable = 0;
    check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0), "attribute");
    std::printf("cudaDevAttrPageableMemoryAccess %d\n", pageable);
    std::printf("per call: cudaPointerGetAttributes %.3f us, cudaGetDevice %.3f us, cudaGetLastError %.3f us, "
                "check_device_reachable %.3f us\n",
                per_call_us([&] { (void)cudaPointerGetAttributes(&attr, d); }),
                per_call_us([&] { (void)cudaGetDevice(&dev); }), per_call_us([&] { (void)cudaGetLastError(); }),
                per_call_us([&] { algo::detail::check_device_reachable("probe", "input", d, 1); }));
#if REDUCE_SMALL_HAS_SINGLE
    std::printf("per call: driver cuPointerGetAttributes (1 attribute) %.3f us (entry point %s)\n",
                per_call_us([&] { (void)algo::detail::driver_knows_pointer(d); }),
                algo::detail::driver_pointer_query() ? "found" : "MISSING");
#endif
    cudaFree(d);
  }
  run_type<std::int32_t>("i32", reps, ncu, spin_cycles);
  run_type<float>("f32", reps, ncu, spin_cycles);
  return 0;
}
