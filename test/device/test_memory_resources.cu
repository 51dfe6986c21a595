// Where temporaries come from: the default caching resource (stats, release), the stream-ordered
// algo::async_pool_resource, and a CCCL memory resource (cuda::mr::async_resource_ref, as RMM's
// resources are) through algo::cccl_resource; each used by both device policies, un-captured from
// several threads and inside CUDA graphs, with every result checked.
#define LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
#include <cuda/memory_resource>
#include <cuda/stream_ref>

#include <atomic>

#include "concurrency_checks.cuh"

using namespace algo_test::conc;
using algo_test::test_stream;

namespace {

/// A CCCL async resource on cudaMallocAsync that counts what it hands out.
struct counting_async_resource {
  std::atomic<int>* allocations;
  void* allocate(std::size_t bytes, std::size_t) {
    void* p = nullptr;
    cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc");
    allocations->fetch_add(1);
    return p;
  }
  void deallocate(void* p, std::size_t, std::size_t) noexcept { cudaFree(p); }
  void* allocate_async(std::size_t bytes, std::size_t, cuda::stream_ref s) {
    void* p = nullptr;
    cuda_ok(cudaMallocAsync(&p, bytes, s.get()), "cudaMallocAsync");
    allocations->fetch_add(1);
    return p;
  }
  void deallocate_async(void* p, std::size_t, std::size_t, cuda::stream_ref s) { cudaFreeAsync(p, s.get()); }
  bool operator==(const counting_async_resource& o) const { return allocations == o.allocations; }
  bool operator!=(const counting_async_resource& o) const { return !(*this == o); }
  friend void get_property(const counting_async_resource&, cuda::mr::device_accessible) noexcept {}
};

template <class Policy>
void run_every_job(const Policy& p, std::int64_t n) {
  test_stream s;
  arena a(static_cast<std::size_t>(n));
  for (int k = 0; k < static_cast<int>(algorithm::count); ++k) {
    job j = make_job(static_cast<algorithm>(k), n);
    prepare(j, a, s.get(), 31 + k);
    launch(j, a, p.on(s.get()));
    const std::string bad = verify(j, a, s.get());
    INFO(name_of(j.alg) << ", n = " << j.n << ": " << bad);
    CHECK(bad.empty());
  }
}

}  // namespace

TEST_CASE("a CCCL async resource serves both device policies, un-captured and in graphs", "[resource]") {
  std::atomic<int> allocations{0};
  counting_async_resource mr{&allocations};
  cuda::mr::async_resource_ref<cuda::mr::device_accessible> ref{mr};
  algo::cccl_resource r{ref};
  for (std::int64_t n : {std::int64_t(5000), (std::int64_t(1) << 22) + 7}) {
    run_every_job(algo::cuda.with(r), n);
    run_every_job(algo::cub.with(r), n);
  }
  CHECK(allocations.load() > 0);
  check_graph_replays(algo::cuda.with(r), algorithm::inclusive_scan_affine, (1 << 20) + 3, 5);
  check_graph_replays(algo::cub.with(r), algorithm::reduce_into_affine, (1 << 20) + 3, 5);
  const stress_report rep = stress(algo::cuda.with(r), 4, 20, 20, 1, 9);
  INFO(rep.failures);
  CHECK(rep.failed == 0);
}

TEST_CASE("algo::async_pool_resource serves both device policies, un-captured and in graphs", "[resource]") {
  algo::async_pool_resource pool;
  for (std::int64_t n : {std::int64_t(5000), (std::int64_t(1) << 22) + 7}) {
    run_every_job(algo::cuda.with(pool), n);
    run_every_job(algo::cub.with(pool), n);
  }
  check_graph_replays(algo::cuda.with(pool), algorithm::exclusive_scan_i64, (1 << 20) + 3, 5);
  const stress_report rep = stress(algo::cub.with(pool), 4, 20, 20, 1, 10);
  INFO(rep.failures);
  CHECK(rep.failed == 0);
}

TEST_CASE("the caching resource: stats, growth under mixed sizes, release", "[resource]") {
  auto& cache = algo::default_caching_resource();
  cache.release();
  cache.reset_peaks();
  const stress_report rep = stress(algo::cuda, 8, 40, 22, 1, 11);
  INFO(rep.failures);
  CHECK(rep.failed == 0);
  const algo::memory_resource_stats st = cache.stats();
  std::printf("caching resource: peak held %zu, peak requested %zu, %zu cudaMalloc calls\n", st.peak_bytes_held,
              st.peak_bytes_requested, st.mallocs);
  CHECK(st.peak_bytes_requested > 0);
  CHECK(st.peak_bytes_held >= st.peak_bytes_requested);
  CHECK(st.bytes_in_use == 0);  // every call gave its temporaries back
  cache.release();
  CHECK(cache.stats().bytes_held == 0);
  // and it works again after a release
  run_every_job(algo::cuda, (1 << 20) + 1);
}
