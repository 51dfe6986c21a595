// The OpenACC interop (<algo/openacc/interop.hpp>): an OpenACC program (this file, g++ -fopenacc)
// keeps its arrays on the GPU with a data region and calls algo::cuda and algo::cub (compiled by
// nvcc in examples/openacc_algo_entry.cu) on `host_data use_device` pointers, on the CUDA stream of
// its async queue, between `parallel loop async(q)` loops:
//   - results against a host reference (scans, reduce_into, reduce, transpose; both backends);
//   - no host synchronization: a gate kernel (interop_gate.cu) holds the queue's stream first; the
//     loops and algo calls are all queued behind it and the queue must still be busy when the
//     host gets back (acc_async_test), and the gate must not have timed out (a host that waited
//     for the GPU inside any call would have stalled until the timeout). Each step's host time is
//     printed, so a step that waited shows itself.
//   - the first calls of the process run ungated: CUDA's lazy module loading (the default on Linux
//     since CUDA 12.2) loads each kernel at its first launch, and loading may wait for the kernels running
//     on the device (the CUDA documentation warns of exactly this deadlock with a kernel that
//     spins until another one runs). The README says so; a program that needs its very first call
//     ordered without a wait sets CUDA_MODULE_LOADING=EAGER. The test then runs the gated pipeline
//     twice more per backend; in a second process (the CTest test "..._eager") it runs with
//     CUDA_MODULE_LOADING=EAGER and gates the first calls too.
// Needs an NVIDIA GPU: on OpenACC's host fallback it prints why and exits 77 (CTest: SKIP).
#include <algo/openacc/interop.hpp>

#include <openacc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "interop_gate.hpp"

namespace {

int failures = 0;

/// Milliseconds since the last call (the host time of one step).
double step_ms() {
  static auto last = std::chrono::steady_clock::now();
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - last).count();
  last = now;
  return ms;
}

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

/// Loops and algo calls on queue q around data present on the device; which: the backend.
void pipeline(algo::interop::device_policy which, int q, const char* name, bool gated) {
  const std::int64_t n = (std::int64_t(1) << 22) + 123;
  std::vector<int> xv(n), yv(n, 0), zv(n, 0);
  for (std::int64_t i = 0; i < n; ++i) xv[i] = static_cast<int>((i * 7919) % 23) - 11;
  int* x = xv.data();
  int* y = yv.data();
  int* z = zv.data();
  int sums[2] = {0, 0};  // [1]: reduce_into of y
  int* s = sums;
  std::printf("-- %s, queue %d\n", name, q);

  bool busy = false;
#pragma acc data copyin(x[0:n]) copy(y[0:n], z[0:n], s[0:2])
  {
    const auto p = which.on_queue(q);
    if (gated) gate::close(p.stream, 20000);  // the queue's stream waits for the host from here on
    step_ms();

#pragma acc parallel loop async(q) present(x[0:n], y[0:n])
    for (std::int64_t i = 0; i < n; ++i) y[i] = 2 * x[i] + 1;
    const double t_loop = step_ms();
    double t_scan = 0, t_reduce = 0, t_exscan = 0;

#pragma acc host_data use_device(y, z, s)
    {
      algo::interop::inclusive_scan(p, y, y + n, z);   // z = scan of y
      t_scan = step_ms();
      algo::interop::reduce_into(p, y, y + n, s + 1, 0);  // sum of y, into device memory
      t_reduce = step_ms();
      algo::interop::exclusive_scan(p, y, y + n, y, 5);  // in place
      t_exscan = step_ms();
    }

#pragma acc parallel loop async(q) present(z[0:n])
    for (std::int64_t i = 0; i < n; ++i) z[i] -= 1;

    const double t_loop2 = step_ms();
    busy = acc_async_test(q) == 0;  // everything above was queued behind the closed gate
    if (gated) gate::open();
#pragma acc wait(q)
    std::printf("   host ms: loop %.3f, inclusive_scan %.3f, reduce_into %.3f, exclusive_scan %.3f, loop %.3f\n",
                t_loop, t_scan, t_reduce, t_exscan, t_loop2);
  }
  if (gated) {
    check(busy, "the queue was still busy when the host got back: no host synchronization in the calls");
    check(!gate::timed_out(), "the gate did not time out");
  }

  std::vector<int> want_y(n), want_z(n);
  long long run = 0;
  int excl = 5;
  for (std::int64_t i = 0; i < n; ++i) {
    const int v = 2 * xv[i] + 1;
    want_y[i] = excl;
    excl += v;
    run += v;
    want_z[i] = static_cast<int>(run) - 1;
  }
  check(zv == want_z, "inclusive_scan between two loops, on the queue");
  check(yv == want_y, "exclusive_scan in place");
  check(sums[1] == static_cast<int>(run), "reduce_into a device address");
}

void reduce_and_transpose(algo::interop::device_policy which, int q) {
  const std::int64_t rows = 1000, cols = 777, n = rows * cols;
  std::vector<float> a(n), t(n, 0.0f);
  for (std::int64_t i = 0; i < n; ++i) a[i] = static_cast<float>(i % 1001) * 0.5f;
  float* pa = a.data();
  float* pt = t.data();
  double total = 0;
#pragma acc data copyin(pa[0:n]) copyout(pt[0:n])
  {
    const auto p = which.on_queue(q);
#pragma acc host_data use_device(pa, pt)
    {
      algo::interop::transpose(p, pa, rows, cols, pt);
      total = algo::interop::reduce(p, pa, pa + n, 0.0f);  // waits for the stream: the value comes to the host
    }
#pragma acc wait(q)
  }
  bool ok = true;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) ok &= t[c * rows + r] == a[r * cols + c];
  check(ok, "transpose");
  double want = 0;
  for (float v : a) want += v;
  check(total > want * (1 - 1e-5) && total < want * (1 + 1e-5), "reduce returns the sum to the host");
}

}  // namespace

int main() {
  if (acc_get_num_devices(acc_device_nvidia) == 0 || !gate::cuda_device()) {
    std::printf("SKIP: no NVIDIA GPU for OpenACC (host fallback): the interop runs algo::cuda on device memory\n");
    return 77;
  }
  // the first calls of the process (kernels loaded, memory allocated), gated only when every
  // kernel was loaded with the context (CUDA_MODULE_LOADING=EAGER); then twice more, gated
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  const bool eager = loading != nullptr && std::strcmp(loading, "EAGER") == 0;
  std::printf("CUDA_MODULE_LOADING=%s\n", loading ? loading : "(unset: LAZY)");
  pipeline(algo::interop::cuda, 1, eager ? "algo::cuda, first calls, gated" : "algo::cuda, first calls, ungated", eager);
  pipeline(algo::interop::cub, 2, eager ? "algo::cub, first calls, gated" : "algo::cub, first calls, ungated", eager);
  for (int round = 0; round < 2; ++round) {
    pipeline(algo::interop::cuda, 1, "algo::cuda, gated", true);
    pipeline(algo::interop::cub, 2, "algo::cub, gated", true);
  }
  reduce_and_transpose(algo::interop::cuda, 1);
  reduce_and_transpose(algo::interop::cub, 3);
  std::printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
