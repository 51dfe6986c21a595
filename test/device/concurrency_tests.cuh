// The concurrency tests of one device policy (test_concurrency_cuda.cu, test_concurrency_cub.cu define
// ALGO_TEST_POLICY and ALGO_TEST_POLICY_NAME, then include this): many host threads, CUDA graphs
// (test/device/concurrency_checks.cuh).
// CTest runs each tag in its own process (test/CMakeLists.txt): [graph] first, so the first
// capture is the first algo call of the process; [stress] (label stress); [multi_gpu] (skipped
// with fewer than two GPUs).
#include <cstdio>
#include <cstdlib>

#include "concurrency_checks.cuh"

using namespace algo_test::conc;
using algo_test::test_stream;

namespace {
const auto policy = ALGO_TEST_POLICY;

int device_count() {
  int n = 0;
  cuda_ok(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
  return n;
}
}  // namespace

// Declared first: with nothing set up yet (no pools, no cached attributes, no handles), each
// algorithm is captured and replayed.
TEST_CASE(ALGO_TEST_POLICY_NAME " graphs: capture as the first call of the process", "[graph]") {
  for (int a = 0; a < static_cast<int>(algorithm::reduce_host_i32); ++a) {
    test_stream s;
    captured_job g(make_job(static_cast<algorithm>(a), (1 << 20) + 17), policy, s.get(), cudaStreamCaptureModeGlobal, 11);
    for (int r = 0; r < 3; ++r) {
      g.replay(40 + r);
      const std::string bad = g.verify();
      INFO(name_of(static_cast<algorithm>(a)) << ", replay " << r << ": " << bad);
      REQUIRE(bad.empty());
    }
  }
}

TEST_CASE(ALGO_TEST_POLICY_NAME " graphs: 50 replays with new data, every capture mode", "[graph]") {
  // 50 replays up to 2^20 elements, 8 at 2^24 + 3 (each replay refills and checks 2^24 elements)
  for (std::int64_t n : {std::int64_t(1000), std::int64_t(1) << 20, (std::int64_t(1) << 24) + 3}) {
    if (algo_test::small_run() && n > 70000) continue;
    const int replays = algo_test::small_run() ? 4 : n > (1 << 20) ? 8 : 50;
    for (int a = 0; a < static_cast<int>(algorithm::reduce_host_i32); ++a)
      check_graph_replays(policy, static_cast<algorithm>(a), n, replays);
  }
}

TEST_CASE(ALGO_TEST_POLICY_NAME " graphs: one job in two graphs, replayed alternately", "[graph]") {
  const std::int64_t n = algo_test::small_run() ? 40000 : (1 << 22) + 9;
  for (int a = 0; a < static_cast<int>(algorithm::reduce_host_i32); ++a)
    check_graphs_interleaved(policy, static_cast<algorithm>(a), n, 10);
}

TEST_CASE(ALGO_TEST_POLICY_NAME " graphs: replays beside un-captured calls on another stream", "[graph]") {
  const std::int64_t n = algo_test::small_run() ? 40000 : (1 << 21) + 1;
  for (int a = 0; a < static_cast<int>(algorithm::reduce_host_i32); ++a)
    check_graph_beside_calls(policy, static_cast<algorithm>(a), n, 20);
}

TEST_CASE(ALGO_TEST_POLICY_NAME " graphs: a reduce to the host is refused under capture", "[graph]") {
  for (auto mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed})
    check_host_reduce_refused_in_capture(policy, mode);
}

TEST_CASE(ALGO_TEST_POLICY_NAME " stress: 8 host threads, every algorithm, random sizes up to 2^24", "[stress]") {
  algo::default_caching_resource().reset_peaks();
  const bool small = algo_test::small_run();
  const stress_report r = stress(policy, small ? 4 : 8, small ? 6 : 150, small ? 16 : 24, 1, 2026);
  INFO(r.calls << " calls: " << r.failures);
  CHECK(r.calls > 0);
  REQUIRE(r.failed == 0);
  const auto st = algo::default_caching_resource().stats();
  std::printf("caching resource after the stress run: peak held %zu bytes, peak requested %zu bytes, %zu cudaMalloc calls\n",
              st.peak_bytes_held, st.peak_bytes_requested, st.mallocs);
}

TEST_CASE(ALGO_TEST_POLICY_NAME " stress: threads on two GPUs", "[multi_gpu]") {
  const int devices = device_count();
  if (devices < 2) {
    std::printf("SKIP: %d GPU(s) on this machine; the two-GPU stress test needs two\n", devices);
    std::fflush(stdout);
    std::_Exit(77);
  }
  const stress_report r = stress(policy, 8, 30, 22, 2, 4048);
  INFO(r.calls << " calls: " << r.failures);
  CHECK(r.calls > 0);
  REQUIRE(r.failed == 0);
}
