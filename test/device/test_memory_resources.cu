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

TEST_CASE("the look-back tile-state pool clears a block that changes layout", "[resource]") {
  // Epochs keep stale statuses out only while every use of a block puts its status words in the
  // same places: a 4-byte scan reading a block an 8-byte scan used last would take the high half
  // of an old 64-bit prefix for a status tag. The pool clears such a block and starts its epochs
  // over; a block that keeps its layout keeps counting.
  namespace adc = algo::detail::cuda;
  test_stream s;
  auto& pool = adc::tile_state_pool::current("test");
  const std::size_t bytes = 1 << 16;
  const std::uint64_t wide = adc::tile_state_for<long long, 4>::layout_key(100);
  const std::uint64_t narrow = adc::tile_state_for<int, 4>::layout_key(100);
  REQUIRE(wide != narrow);
  void* block = nullptr;
  unsigned first_epoch = 0;
  {
    auto lease = pool.acquire(bytes, s.get(), "test", wide);
    block = lease->memory();
    first_epoch = lease->epoch();
    REQUIRE(cudaMemsetAsync(block, 0x5a, bytes, s.get()) == cudaSuccess);  // stands for the scan's statuses
  }
  {
    auto lease = pool.acquire(bytes, s.get(), "test", wide);  // same stream, same layout: the same block
    CHECK(lease->memory() == block);
    CHECK(lease->epoch() == first_epoch + 1);
  }
  {
    auto lease = pool.acquire(bytes, s.get(), "test", narrow);
    CHECK(lease->memory() == block);
    CHECK(lease->epoch() == 1u);
    s.sync();
    std::vector<unsigned char> h(bytes);
    REQUIRE(cudaMemcpy(h.data(), block, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    bool zero = true;
    for (unsigned char c : h) zero = zero && c == 0;
    CHECK(zero);
  }
  {
    auto lease = pool.acquire(bytes, s.get(), "test", narrow);
    CHECK(lease->epoch() == 2u);
  }
  // and scans of both layouts, alternating on one stream, stay right
  arena a(std::size_t(1) << 22);
  for (int r = 0; r < 6; ++r) {
    job j = make_job(r % 2 ? algorithm::inclusive_scan_i32 : algorithm::exclusive_scan_i64, (1 << 22) - 5);
    prepare(j, a, s.get(), 70 + r);
    launch(j, a, algo::cuda.on(s.get()));
    CHECK(verify(j, a, s.get()).empty());
  }
}
