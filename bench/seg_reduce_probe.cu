// seg_reduce_probe: where segmented_reduce over offsets in memory loses to CUB at long segments
// (issue 27 item 3: L = 4096, 0.86x). A development tool, like reduce_small: claims come from
// `bench --only segmented`. 2^26 f32, segments of L (4096 by default), offsets in device memory.
//
// rows (each timed four ways, rows taken in turn, three rounds, median of medians):
//   event  as bench::median_ms: events around each call, the GPU idle before it (the bench's number)
//   gpu    the call queued behind a 50 us spin kernel: the GPU's side alone (launch + kernel)
//   host   steady_clock around the call, from the event loop (host time to return)
//   b2b    20 calls back to back between two events, per call (the host queues call k + 1 while
//          kernel k runs)
// cub::DeviceSegmentedReduce::Sum; algo::segmented_reduce (algo::cuda; offsets in memory: the deferred
// kernel since 2026-12-02, the fused kernel before, each with the check inside the launch); the deferred
// kernel launched directly at 8 and 6 blocks an SM; the fused kernel launched directly at 5 and 6 blocks an SM
// and 8, at 5 with every block waiting for the verdict before its first segment (the code before
// 2026-11-27), and launched as an ordinary kernel, not a cooperative one (timing only: the
// co-residency its wait needs is then not guaranteed); algo::uniform_offsets (the blocks kernel,
// no check); the blocks kernel over the offsets in memory without any check, at its own occupancy
// and bounded to 8 blocks an SM (timing only: the floor of this kernel shape); one block a segment
// without any check (this file's each_kernel; timing only: the floor of that grid shape, which the
// branch seg-staged's kernels tried: bench/notes/keys_segments.md). Every row's every segment is
// checked against a host sum in double.
//   seg_reduce_probe [--L 4096] [--reps 50] [--ncu]    (--ncu: two calls of each row, nothing timed)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>
#include <string>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>

#include <algo/algo.hpp>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void spin_kernel(long long ns) {
  const long long t0 = clock64();
  while (clock64() - t0 < ns * 2) {  // ~2 cycles a ns at H100 clocks: about right, only a cushion
  }
}

namespace seg = algo::detail::segmented;

/// One block per segment over offsets in memory, no check (timing only: the floor of that grid
/// shape; blocks along y and z, the block agent reading blockIdx.x as its place in a layout of one
/// block).
template <class Agent, class Tuning, bool Vector, int MinBlocks, class It, class OffIt, class OutIt, class Acc, class Op>
__global__ void __launch_bounds__(Agent::threads, MinBlocks)
    each_kernel(It first, OffIt offsets, long long segments, OutIt out, Acc init, Op op) {
  __shared__ typename Agent::loop_storage smem;
  typename Agent::looped loop{smem};
  const long long k = blockIdx.y + static_cast<long long>(blockIdx.z) * gridDim.y;
  if (k >= segments) return;
  const long long a = static_cast<long long>(offsets[k]), b = static_cast<long long>(offsets[k + 1]);
  if (a == b) {
    if (threadIdx.x == 0) out[k] = init;
    return;
  }
  const algo::detail::cuda::maybe_value<Acc> part =
      seg::segment_blocks::fold_segment<Agent, Tuning, Vector>(loop, first, a, b, op);
  if (threadIdx.x == 0) out[k] = static_cast<Acc>(op(init, part.value));
}
template <bool Vector, class Phase, int MinBlocks>
void run_each(const float* first, const int* offsets, long long segments, float* out) {
  namespace cu = algo::detail::cuda;
  using Tuning = cu::reduce_tuning<float, float>;
  using Agent = cu::reduce_range<Tuning, Phase, Vector, false, const float*, float>;
  using Op = algo::detail::accumulate_with<algo::plus<>, float>;
  const long long z = (segments + 65534) / 65535, y = (segments + z - 1) / z;
  each_kernel<Agent, Tuning, Vector, MinBlocks><<<dim3(1, static_cast<unsigned>(y), static_cast<unsigned>(z)),
                                                 Agent::threads>>>(first, offsets, segments, out, 0.0f, Op{});
  check(cudaGetLastError(), "each_kernel");
}

struct row {
  std::string name;
  std::function<void()> call;
  std::vector<double> event, gpu, host, b2b;
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long long L = 4096;
  int reps = 50;
  bool ncu = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--L") && i + 1 < argc) L = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--ncu")) ncu = true;
  }
  const long long n = 1ll << 26, segments = n / L;
  std::vector<float> h(static_cast<std::size_t>(n));
  unsigned s = 12345;
  for (auto& x : h) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  std::vector<int> ho(static_cast<std::size_t>(segments + 1));
  for (long long k = 0; k <= segments; ++k) ho[static_cast<std::size_t>(k)] = static_cast<int>(k * L);
  float *v, *out;
  int* off;
  check(cudaMalloc(&v, n * 4), "cudaMalloc");
  check(cudaMalloc(&out, segments * 4), "cudaMalloc");
  check(cudaMalloc(&off, (segments + 1) * 4), "cudaMalloc");
  check(cudaMemcpy(v, h.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(off, ho.data(), (segments + 1) * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  void* ct = nullptr;
  std::size_t cb = 0;
  check(cub::DeviceSegmentedReduce::Sum(ct, cb, v, out, segments, off, off + 1), "cub size");
  check(cudaMalloc(&ct, cb), "cudaMalloc");

  using Phase = std::decay_t<decltype(algo::cuda)>::warp_phase;
  const algo::detail::device_policy_base base_policy{};
  std::vector<row> rows;
  rows.push_back({"cub::DeviceSegmentedReduce::Sum", [&] {
                    std::size_t b = cb;
                    check(cub::DeviceSegmentedReduce::Sum(ct, b, v, out, segments, off, off + 1), "cub");
                  }});
  rows.push_back({"algo::segmented_reduce (offsets)",
                  [&] { algo::segmented_reduce(algo::cuda, v, off, off + segments + 1, out, 0.0f); }});
  // what the library's call passes to the kernels with the check inside (no allocation bound)
  const auto probe_spec = [&] {
    seg::segment_blocks::speculation spec;
    spec.sm_count = algo::detail::cuda::current_device_info().sm_count;
    spec.in = reinterpret_cast<const char*>(v);
    spec.in_size = 4;
    spec.out = reinterpret_cast<const char*>(out);
    spec.out_bytes = static_cast<std::size_t>(segments) * 4;
    return spec;
  };
  const auto fused_at = [&](auto min_blocks, auto early, auto coop) {
    return [&, min_blocks, early, coop] {
      const seg::segment_blocks::speculation spec = probe_spec();
      seg::offsets_check verdict{};
      if (!seg::segment_blocks::run_fused<true, Phase, decltype(min_blocks)::value, decltype(early)::value,
                                          decltype(coop)::value>(
              "probe", base_policy, v, off, segments, out, 0.0f, algo::plus<>{}, 0.0f, spec, verdict))
        std::fprintf(stderr, "probe: the fused launch was refused\n");
    };
  };
  const auto deferred_at = [&](auto min_blocks) {
    return [&, min_blocks] {
      const seg::segment_blocks::speculation spec = probe_spec();
      seg::offsets_check verdict{};
      if (!seg::segment_blocks::run_deferred<true, Phase, decltype(min_blocks)::value>(
              "probe", base_policy, v, off, segments, out, 0.0f, algo::plus<>{}, 0.0f, spec, verdict))
        std::fprintf(stderr, "probe: the deferred launch was refused\n");
    };
  };
  rows.push_back({"deferred kernel, 8 blocks/SM (direct)", deferred_at(std::integral_constant<int, 8>{})});
  rows.push_back({"deferred kernel, 6 blocks/SM (direct)", deferred_at(std::integral_constant<int, 6>{})});
  using five = std::integral_constant<int, 5>;
  rows.push_back({"fused kernel, 5 blocks/SM (direct)", fused_at(five{}, std::true_type{}, std::true_type{})});
  rows.push_back({"fused kernel, 6 blocks/SM (direct)",
                  fused_at(std::integral_constant<int, 6>{}, std::true_type{}, std::true_type{})});
  rows.push_back({"fused, verdict before the first segment (code before)",
                  fused_at(five{}, std::false_type{}, std::true_type{})});
  rows.push_back({"fused, ordinary launch (timing only)", fused_at(five{}, std::true_type{}, std::false_type{})});
  const auto u = algo::uniform_offsets(L);
  rows.push_back({"algo::segmented_reduce (uniform_offsets)",
                  [&] { algo::segmented_reduce(algo::cuda, v, u, u + segments + 1, out, 0.0f); }});
  rows.push_back({"blocks kernel over offsets, no check (timing only)", [&] {
                    seg::segment_blocks::reduce<Phase>("probe", base_policy, v, off, 0, segments, out, 0.0f,
                                                       algo::plus<>{}, 0.0f);
                  }});
  rows.push_back({"blocks kernel, 8 blocks/SM, no check (timing only)", [&] {
                    seg::segment_blocks::reduce<Phase, 8>("probe", base_policy, v, off, 0, segments, out, 0.0f,
                                                          algo::plus<>{}, 0.0f);
                  }});
  rows.push_back({"fused kernel, 8 blocks/SM (direct)", fused_at(std::integral_constant<int, 8>{}, std::true_type{},
                                                                 std::true_type{})});
  rows.push_back({"a block a segment, no check (timing only), no bound", [&] {
                    run_each<true, Phase, 0>(v, off, segments, out);
                  }});
  rows.push_back({"a block a segment, no check (timing only), 8/SM", [&] {
                    run_each<true, Phase, 8>(v, off, segments, out);
                  }});


  // results agree: every segment's sum against the host's (double), the worst error relative to
  // the sum of magnitudes
  std::vector<double> want(static_cast<std::size_t>(segments)), mag(static_cast<std::size_t>(segments));
  for (long long i = 0; i < n; ++i) {
    want[static_cast<std::size_t>(i / L)] += h[static_cast<std::size_t>(i)];
    mag[static_cast<std::size_t>(i / L)] += std::fabs(h[static_cast<std::size_t>(i)]);
  }
  std::vector<float> got(static_cast<std::size_t>(segments));
  for (auto& r : rows) {
    check(cudaMemset(out, 0xff, segments * 4), "cudaMemset");  // NaN: a segment left unwritten shows
    r.call();
    check(cudaDeviceSynchronize(), r.name.c_str());
    check(cudaMemcpy(got.data(), out, segments * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    double worst = 0;
    long long bad = 0;
    for (long long k = 0; k < segments; ++k) {
      const double err = std::fabs(got[static_cast<std::size_t>(k)] - want[static_cast<std::size_t>(k)]) /
                         (1 + mag[static_cast<std::size_t>(k)]);
      if (!(err < 1e-5)) ++bad;
      if (err > worst || err != err) worst = err;
    }
    std::printf("check %-52s out[0] %.6f (host %.6f), worst relative error %.2e, %lld segments off%s\n",
                r.name.c_str(), got[0], want[0], worst, bad, bad ? "  [WRONG]" : "");
  }
  if (ncu) {
    for (auto& r : rows) {
      r.call();
      r.call();
    }
    check(cudaDeviceSynchronize(), "ncu calls");
    return 0;
  }
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  const auto ms = [&] {
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    return static_cast<double>(t);
  };
  for (int round = 0; round < 3; ++round) {
    for (auto& r : rows) {
      for (int w = 0; w < 3; ++w) r.call();
      check(cudaDeviceSynchronize(), "warm-up");
      std::vector<double> ev, gp, ho2;
      for (int i = 0; i < reps; ++i) {
        check(cudaEventRecord(a), "rec");
        const auto t0 = std::chrono::steady_clock::now();
        r.call();
        const auto t1 = std::chrono::steady_clock::now();
        check(cudaEventRecord(b), "rec");
        check(cudaEventSynchronize(b), "sync");
        ev.push_back(ms());
        ho2.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      for (int i = 0; i < reps; ++i) {
        spin_kernel<<<1, 1>>>(50000);
        check(cudaEventRecord(a), "rec");
        r.call();
        check(cudaEventRecord(b), "rec");
        check(cudaEventSynchronize(b), "sync");
        gp.push_back(ms());
      }
      std::vector<double> bb;
      for (int i = 0; i < 5; ++i) {
        check(cudaEventRecord(a), "rec");
        for (int j = 0; j < 20; ++j) r.call();
        check(cudaEventRecord(b), "rec");
        check(cudaEventSynchronize(b), "sync");
        bb.push_back(ms() / 20);
      }
      r.b2b.push_back(median(bb));
      r.event.push_back(median(ev));
      r.gpu.push_back(median(gp));
      r.host.push_back(median(ho2));
    }
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("\n%s, 2^26 f32, L = %lld (%lld segments), offsets in device memory; ms, median of 3 rounds\n",
              prop.name, L, segments);
  std::printf("%-52s %9s %9s %9s %9s %8s\n", "row", "event", "gpu", "host", "b2b", "cub/ev");
  const double cub_ev = median(rows[0].event);
  for (auto& r : rows)
    std::printf("%-52s %9.4f %9.4f %9.4f %9.4f %8.3f\n", r.name.c_str(), median(r.event), median(r.gpu), median(r.host),
                median(r.b2b), cub_ev / median(r.event));
  return 0;
}
