// Faults in ordinary use: out of device memory, and a user operator that traps on the device.
// Each TEST_CASE runs in its own process (test/CMakeLists.txt: one CTest entry per tag): a trap
// ends the CUDA context, and the out-of-memory case must start with nothing cached.
//
//   [oom]    fill the GPU, then call: algo::cuda_error with cudaErrorMemoryAllocation, the output
//            untouched; once the memory is freed the same calls work (algo::cuda and algo::cub)
//   [trap_*] an operator that executes a trap when it meets a poisoned element: the error comes
//            back as algo::cuda_error from the call or from the next synchronization, and nothing
//            hangs (look-back waits, retirement tickets, the locked strategy's spin lock, the
//            host's wait for a reduce result); a watchdog fails the test after 60 s
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {

using algo_test::device_buffer;
using algo_test::random_vector;

constexpr std::int32_t poison = 0x7eadbeef;

/// plus, except that it traps when either operand is the poison value.
struct trap_on_poison {
  __host__ __device__ std::int64_t operator()(std::int64_t a, std::int64_t b) const {
#ifdef __CUDA_ARCH__
    if (a == poison || b == poison) __trap();
#endif
    return a + b;
  }
};

/// Ends the process (test failure) if the test has not finished in `seconds`.
class watchdog {
 public:
  explicit watchdog(int seconds) : t_([this, seconds] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done_.load()) {
      if (std::chrono::steady_clock::now() > end) {
        std::printf("HANG: the test did not finish within %d s\n", seconds);
        std::fflush(stdout);
        std::_Exit(3);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }) {}
  ~watchdog() {
    done_ = true;
    t_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread t_;
};

std::vector<std::int32_t> poisoned_input(std::size_t n) {
  auto h = random_vector<std::int32_t>(n, 17);
  h[n / 2 + 3] = poison;
  return h;
}

/// Runs f (which queues work that traps); the fault must surface as an algo::cuda_error from f or
/// as an error from the stream synchronization after it.
template <class F>
void expect_fault_reported(const char* what, F f) {
  watchdog dog(60);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  bool thrown = false;
  cudaError_t code = cudaSuccess;
  try {
    f(s);
  } catch (const algo::cuda_error& e) {
    thrown = true;
    code = e.code();
    std::printf("%s: algo::cuda_error from the call: %s\n", what, e.what());
  }
  const cudaError_t sync = cudaStreamSynchronize(s);
  std::printf("%s: cudaStreamSynchronize after the call: %s\n", what, cudaGetErrorName(sync));
  INFO(what << ": thrown " << thrown << " (" << cudaGetErrorName(code) << "), sync " << cudaGetErrorName(sync));
  CHECK((thrown || sync != cudaSuccess));
  if (thrown) CHECK(code != cudaSuccess);
}

}  // namespace

TEST_CASE("out of device memory: a clear error, output untouched, then recovery", "[oom]") {
  const std::size_t n = (std::size_t(1) << 24) + 5;
  const auto h = random_vector<std::int32_t>(n, 5);
  device_buffer<std::int32_t> in(h);
  device_buffer<std::int32_t> out(n);
  device_buffer<std::int64_t> result(1);

  // Fill the GPU: chunks from 1 GiB down to 256 bytes until none fits.
  std::vector<void*> hog;
  std::size_t held = 0;
  for (std::size_t chunk = std::size_t(1) << 30; chunk >= 256;) {
    void* p = nullptr;
    if (cudaMalloc(&p, chunk) == cudaSuccess) {
      hog.push_back(p);
      held += chunk;
    } else {
      (void)cudaGetLastError();
      chunk /= 2;
    }
  }
  std::printf("filled the GPU with %zu bytes in %zu allocations\n", held, hog.size());

  auto expect_oom = [&](const char* what, auto call) {
    bool thrown = false;
    try {
      call();
    } catch (const algo::cuda_error& e) {
      thrown = true;
      std::printf("%s: %s\n", what, e.what());
      INFO(what << ": " << e.what());
      CHECK(e.code() == cudaErrorMemoryAllocation);
    } catch (const std::exception& e) {
      INFO(what << ": unexpected exception " << e.what());
      CHECK(false);
    }
    INFO(what);
    CHECK(thrown);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
  };
  expect_oom("algo::cuda inclusive_scan", [&] { algo::inclusive_scan(algo::cuda, in.begin(), in.end(), out.begin()); });
  CHECK(out.untouched());
  expect_oom("algo::cub inclusive_scan", [&] { algo::inclusive_scan(algo::cub, in.begin(), in.end(), out.begin()); });
  CHECK(out.untouched());
  expect_oom("algo::cuda reduce_into", [&] { algo::reduce_into(algo::cuda, in.begin(), in.end(), result.begin(), std::int64_t{0}); });
  CHECK(result.untouched());
  expect_oom("algo::cub reduce_into", [&] { algo::reduce_into(algo::cub, in.begin(), in.end(), result.begin(), std::int64_t{0}); });
  CHECK(result.untouched());
  expect_oom("algo::cuda reduce", [&] { (void)algo::reduce(algo::cuda, in.begin(), in.end(), std::int64_t{0}); });

  for (void* p : hog) cudaFree(p);

  // The same calls work once memory is back.
  std::vector<std::int32_t> want(n);
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += h[i];
    want[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(i ? want[i - 1] : 0) + static_cast<std::uint32_t>(h[i]));
  }
  algo::inclusive_scan(algo::cuda, in.begin(), in.end(), out.begin());
  CHECK(out.download() == want);
  out.fill_sentinel();
  algo::inclusive_scan(algo::cub, in.begin(), in.end(), out.begin());
  CHECK(out.download() == want);
  CHECK(algo::reduce(algo::cuda, in.begin(), in.end(), std::int64_t{0}) == sum);
  algo::reduce_into(algo::cub, in.begin(), in.end(), result.begin(), std::int64_t{0});
  CHECK(result.download()[0] == sum);

  algo::default_caching_resource().release();
  CHECK(algo::default_caching_resource().stats().bytes_held == 0);
}

TEST_CASE("a trapping operator in the look-back scan", "[trap_scan]") {
  const std::size_t n = (std::size_t(1) << 22) + 3;
  device_buffer<std::int32_t> in(poisoned_input(n));
  device_buffer<std::int64_t> out(n);
  expect_fault_reported("inclusive_scan", [&](cudaStream_t s) {
    algo::inclusive_scan(algo::cuda.on(s), in.begin(), in.end(), out.begin(), trap_on_poison{}, std::int64_t{0});
  });
}

TEST_CASE("a trapping operator in the retirement-count reduce, result to the host", "[trap_reduce_host]") {
  const std::size_t n = (std::size_t(1) << 22) + 3;
  device_buffer<std::int32_t> in(poisoned_input(n));
  expect_fault_reported("reduce", [&](cudaStream_t s) {
    (void)algo::reduce(algo::cuda.on(s), in.begin(), in.end(), std::int64_t{0}, trap_on_poison{});
  });
}

TEST_CASE("a trapping operator in the retirement-count reduce_into", "[trap_reduce_into]") {
  const std::size_t n = (std::size_t(1) << 22) + 3;
  device_buffer<std::int32_t> in(poisoned_input(n));
  device_buffer<std::int64_t> result(1);
  expect_fault_reported("reduce_into", [&](cudaStream_t s) {
    algo::reduce_into(algo::cuda.on(s), in.begin(), in.end(), result.begin(), std::int64_t{0}, trap_on_poison{});
  });
}

TEST_CASE("a trapping operator in the locked reduce", "[trap_reduce_locked]") {
  const std::size_t n = (std::size_t(1) << 22) + 3;
  device_buffer<std::int32_t> in(poisoned_input(n));
  device_buffer<std::int64_t> result(1);
  expect_fault_reported("reduce_into (locked)", [&](cudaStream_t s) {
    algo::reduce_into(algo::cuda.on(s).with(algo::reduce_strategy::locked), in.begin(), in.end(), result.begin(),
                      std::int64_t{0}, trap_on_poison{});
  });
}
