#pragma once
// Shared by the device policies' error tests (test_device_errors.cu: algo::cub and algo::cuda).
// Bad input to the device policies (algo::cub and the default algo::cuda): each case throws
// algo::error, its message names the algorithm and the problem, and nothing was written. Empty
// ranges are valid: scans return d_first, reductions return init, transpose returns out.
#include <algo/algo.hpp>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "device_checks.cuh"

namespace {

using algo_test::device_buffer;

// ==== helpers ==================================================================================
/// Runs call(), which must throw algo::error whose message contains "algo::<algorithm>" and
/// `problem`. Not a template (INFO is safe here; see check_reachable_host_memory) and no
/// REQUIRE_THROWS_AS, to keep one instantiation per call site out of this TU.
void expect_bad_input(const std::string& algorithm, const std::string& problem, const std::function<void()>& call) {
  INFO("expected algo::error from algo::" << algorithm << " about \"" << problem << "\"");
  bool threw_algo_error = false;
  std::string msg = "(no exception)";
  try {
    call();
  } catch (const algo::error& e) {
    threw_algo_error = true;
    msg = e.what();
  } catch (const std::exception& e) {
    msg = std::string("another exception: ") + e.what();
  }
  INFO("message: " << msg);
  REQUIRE(threw_algo_error);
  CHECK(msg.find("algo::" + algorithm) != std::string::npos);
  CHECK(msg.find(problem) != std::string::npos);
}

/// True when the device can read pageable host memory (then handing it over is legal).
bool pageable_access() {
  int dev = 0, v = 0;
  algo_test::require_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  algo_test::require_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev), "cudaDeviceGetAttribute");
  return v != 0;
}

constexpr std::int64_t n = 1000;
const int host_sentinel = 0x5a5a5a5a;

/// A device input of n random ints, a device output and a pageable host input / output.
struct buffers {
  std::vector<int> h_in = algo_test::random_vector<int>(n, 42);
  device_buffer<int> in{h_in};
  device_buffer<int> out{static_cast<std::size_t>(n)};
  std::vector<int> host_in = h_in;                        // plain std::vector: pageable
  std::vector<int> host_out = std::vector<int>(n, host_sentinel);
  int* null = nullptr;

  /// The device output (and its guard) still holds the sentinel, the host output too, and the
  /// device is healthy.
  void require_untouched() const {
    algo_test::require_device_ok("after the bad call");
    CHECK(out.untouched());
    CHECK(out.guard_intact());
    bool host_untouched = true;
    for (int v : host_out) host_untouched = host_untouched && v == host_sentinel;
    CHECK(host_untouched);
    const bool input_unchanged = in.download() == h_in;
    CHECK(input_unchanged);
  }
};

// ==== last < first =============================================================================
template <class Policy>
void check_reversed_ranges(const Policy& p) {
  buffers b;
  int* first = b.in.begin();
  int* last = b.in.end();
  expect_bad_input("inclusive_scan", "last precedes first", [&] { algo::inclusive_scan(p, last, first, b.out.begin()); });
  expect_bad_input("inclusive_scan", "last precedes first",
                   [&] { algo::inclusive_scan(p, last, first, b.out.begin(), algo::plus<>{}, 1); });
  expect_bad_input("exclusive_scan", "last precedes first", [&] { algo::exclusive_scan(p, last, first, b.out.begin(), 0); });
  expect_bad_input("reduce", "last precedes first", [&] { algo::reduce(p, last, first); });
  expect_bad_input("reduce", "last precedes first", [&] { algo::reduce(p, last, first, 0, algo::maximum<>{}); });
  expect_bad_input("transform_reduce", "last precedes first",
                   [&] { algo::transform_reduce(p, last, first, 0, algo::plus<>{}, algo_test::square_wide{}); });
  expect_bad_input("transform_reduce", "last precedes first", [&] { algo::transform_reduce(p, last, first, first, 0); });
  // a fancy iterator and a thrust::device_ptr
  const thrust::counting_iterator<int> c0(0), c5(5);
  expect_bad_input("inclusive_scan", "last precedes first", [&] { algo::inclusive_scan(p, c5, c0, b.out.begin()); });
  expect_bad_input("reduce", "last precedes first", [&] { algo::reduce(p, c5, c0, 0); });
  const auto d = thrust::device_pointer_cast(first);
  expect_bad_input("reduce", "last precedes first", [&] { algo::reduce(p, d + n, d, 0); });
  b.require_untouched();
}

// ==== null pointers with n > 0 =================================================================
template <class Policy>
void check_null_pointers(const Policy& p) {
  buffers b;
  int* null = b.null;
  int* in = b.in.begin();
  expect_bad_input("inclusive_scan", "null", [&] { algo::inclusive_scan(p, null, null + n, b.out.begin()); });
  expect_bad_input("inclusive_scan", "null", [&] { algo::inclusive_scan(p, in, in + n, null); });
  expect_bad_input("inclusive_scan", "null",
                   [&] { algo::inclusive_scan(p, in, in + n, null, algo::plus<>{}, std::int64_t{1}); });
  expect_bad_input("exclusive_scan", "null", [&] { algo::exclusive_scan(p, null, null + n, b.out.begin(), 0); });
  expect_bad_input("exclusive_scan", "null", [&] { algo::exclusive_scan(p, in, in + n, null, 0, algo::plus<>{}); });
  expect_bad_input("reduce", "null", [&] { algo::reduce(p, null, null + n); });
  expect_bad_input("reduce", "null", [&] { algo::reduce(p, null, null + n, 0, algo_test::take_right{}); });
  expect_bad_input("transform_reduce", "null",
                   [&] { algo::transform_reduce(p, null, null + n, 0, algo::plus<>{}, algo_test::square_wide{}); });
  expect_bad_input("transform_reduce", "null", [&] { algo::transform_reduce(p, null, null + n, in, 0); });
  expect_bad_input("transform_reduce", "null", [&] { algo::transform_reduce(p, in, in + n, null, 0); });
  const thrust::device_ptr<int> dnull;
  expect_bad_input("reduce", "null", [&] { algo::reduce(p, dnull, dnull + n, 0); });
  expect_bad_input("transpose", "null", [&] { algo::transpose(p, null, 10, 100, b.out.begin()); });
  expect_bad_input("transpose", "null", [&] { algo::transpose(p, in, 10, 100, null); });
  float* fnull = nullptr;
  device_buffer<float> fin(static_cast<std::size_t>(n));
  expect_bad_input("transpose", "null", [&] { algo::transpose(p, fnull, 10, 100, fin.begin()); });  // cuBLAS path
  b.require_untouched();
  CHECK(fin.untouched());
}

// ==== transpose shapes and overlap =============================================================
template <class Policy>
void check_transpose_shapes(const Policy& p) {
  buffers b;
  int* in = b.in.begin();
  int* out = b.out.begin();
  const std::int64_t big = std::int64_t(1) << 40;
  expect_bad_input("transpose", "overflow", [&] { algo::transpose(p, in, big, big, out); });
  expect_bad_input("transpose", "overflow",
                   [&] { algo::transpose(p, in, std::numeric_limits<std::int64_t>::max(), 2, out); });
  expect_bad_input("transpose", "negative", [&] { algo::transpose(p, in, -1, 10, out); });
  expect_bad_input("transpose", "negative", [&] { algo::transpose(p, in, 10, -1, out); });
  b.require_untouched();

  // Output overlapping the input: same buffer, shifted by part of a row, and the input inside the output.
  device_buffer<int> io(b.h_in);
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, io.begin(), 10, 100, io.begin()); });
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, io.begin(), 10, 50, io.begin() + 5); });
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, io.begin() + 400, 10, 50, io.begin()); });
  device_buffer<float> fio(algo_test::random_vector<float>(n, 43));
  const auto f_before = fio.download();
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, fio.begin(), 20, 25, fio.begin() + 499); });  // cuBLAS path
  // device_vector iterators and device_ptr see the same memory
  thrust::device_vector<int> v(b.h_in.begin(), b.h_in.end());
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, v.begin(), 10, 50, v.begin() + 1); });
  const auto dp = thrust::device_pointer_cast(io.begin());
  expect_bad_input("transpose", "overlap", [&] { algo::transpose(p, dp, 10, 50, dp + 100); });
  algo_test::require_device_ok("after the overlap cases");
  const bool io_unchanged = io.download() == b.h_in;
  CHECK(io_unchanged);
  const bool fio_unchanged = fio.download() == f_before;
  CHECK(fio_unchanged);
  std::vector<int> v_after(v.size());
  thrust::copy(v.begin(), v.end(), v_after.begin());
  const bool v_unchanged = v_after == b.h_in;
  CHECK(v_unchanged);

  // Adjacent (touching, not overlapping) buffers are fine.
  device_buffer<int> two(static_cast<std::size_t>(2 * n));
  two.upload([&] { auto h = b.h_in; h.resize(2 * n, 7); return h; }());
  auto r = algo::transpose(p, two.begin(), 10, 100, two.begin() + n);
  CHECK(r == two.begin() + 2 * n);
  algo_test::require_device_ok("after the adjacent transpose");
  auto got = two.download();
  got.erase(got.begin(), got.begin() + n);
  algo_test::expect_equal("adjacent transpose vs host", got, algo_test::ref_transpose(b.h_in, 10, 100));
}

// ==== pageable host memory =====================================================================
template <class Policy>
void check_pageable_host_memory(const Policy& p) {
  if (pageable_access()) {
    WARN("this GPU has cudaDevAttrPageableMemoryAccess = 1: pageable host memory is legal input here, "
         "so the pageable-memory assertions are skipped");
    return;
  }
  buffers b;
  int* hin = b.host_in.data();
  int* hout = b.host_out.data();
  int* in = b.in.begin();
  expect_bad_input("inclusive_scan", "pageable", [&] { algo::inclusive_scan(p, hin, hin + n, b.out.begin()); });
  expect_bad_input("inclusive_scan", "pageable", [&] { algo::inclusive_scan(p, in, in + n, hout); });
  expect_bad_input("exclusive_scan", "pageable", [&] { algo::exclusive_scan(p, hin, hin + n, b.out.begin(), 0); });
  expect_bad_input("exclusive_scan", "pageable",
                   [&] { algo::exclusive_scan(p, in, in + n, hout, 0, algo_test::take_right{}); });
  expect_bad_input("reduce", "pageable", [&] { algo::reduce(p, hin, hin + n); });
  expect_bad_input("reduce", "pageable", [&] { algo::reduce(p, hin, hin + n, 0, algo::maximum<>{}); });
  expect_bad_input("transform_reduce", "pageable",
                   [&] { algo::transform_reduce(p, hin, hin + n, 0, algo::plus<>{}, algo_test::square_wide{}); });
  expect_bad_input("transform_reduce", "pageable", [&] { algo::transform_reduce(p, in, in + n, hin, 0); });
  expect_bad_input("transpose", "pageable", [&] { algo::transpose(p, hin, 10, 100, b.out.begin()); });
  expect_bad_input("transpose", "pageable", [&] { algo::transpose(p, in, 10, 100, hout); });
  // new[] memory too, and the cuBLAS path
  float* hf = new float[n];
  for (std::int64_t i = 0; i < n; ++i) hf[i] = static_cast<float>(i + 1);
  device_buffer<float> fout(static_cast<std::size_t>(n));
  expect_bad_input("transpose", "pageable", [&] { algo::transpose(p, hf, 10, 100, fout.begin()); });
  expect_bad_input("reduce", "pageable", [&] { algo::reduce(p, hf, hf + n, 0.0f); });
  delete[] hf;
  b.require_untouched();
  CHECK(fout.untouched());
}

/// Memory the GPU can reach from the host side (pinned, managed) is accepted and gives the right answer.
// No INFO() in these function templates: with Catch2 v3, g++ 13's headers and CUDA 13.0, an INFO
// inside a function template instantiated for a device policy made NVVM (cicc) spin forever on
// this TU (reproduced from the GPU machine's preprocessed file: removing the two INFO lines took
// cicc from no end after 10 minutes to 7 seconds). The named values below say what failed instead.
template <class Policy>
void check_reachable_host_memory(const Policy& p) {
  const std::vector<int> h = algo_test::random_vector<int>(n, 44);
  const auto want_scan = algo_test::ref_inclusive_scan<int>(h, algo::plus<>{});
  const int want_sum = want_scan.back();

  int* pinned = nullptr;
  algo_test::require_cuda(cudaMallocHost(&pinned, n * sizeof(int)), "cudaMallocHost");
  std::copy(h.begin(), h.end(), pinned);
  device_buffer<int> out(static_cast<std::size_t>(n));
  {
    const int pinned_input_sum = algo::reduce(p, pinned, pinned + n);
    CHECK(pinned_input_sum == want_sum);
    algo::inclusive_scan(p, pinned, pinned + n, out.begin());
    algo_test::require_device_ok("after the pinned-input scan");
    algo_test::expect_equal("pinned input scan vs host", out.download(), want_scan);
  }
  cudaFreeHost(pinned);

  int* managed = nullptr;
  algo_test::require_cuda(cudaMallocManaged(&managed, n * sizeof(int)), "cudaMallocManaged");
  std::copy(h.begin(), h.end(), managed);
  {
    const int managed_input_sum = algo::reduce(p, managed, managed + n);
    CHECK(managed_input_sum == want_sum);
    algo::inclusive_scan(p, managed, managed + n, managed);
    algo_test::require_device_ok("after the managed in-place scan");
    const std::vector<int> got(managed, managed + n);
    algo_test::expect_equal("managed in-place scan vs host", got, want_scan);
  }
  cudaFree(managed);
}

// ==== empty ranges =============================================================================
template <class Policy>
void check_empty_ranges(const Policy& p) {
  buffers b;
  int* in = b.in.begin();
  int* out = b.out.begin();
  int* null = b.null;
  CHECK(algo::inclusive_scan(p, in, in, out) == out);
  CHECK(algo::inclusive_scan(p, in, in, out, algo::plus<>{}, 5) == out);
  CHECK(algo::exclusive_scan(p, in, in, out, 5) == out);
  CHECK(algo::exclusive_scan(p, in, in, out, 5, algo_test::take_right{}) == out);
  CHECK(algo::inclusive_scan(p, null, null, null) == null);  // null is fine with n == 0
  CHECK(algo::reduce(p, in, in) == 0);
  CHECK(algo::reduce(p, in, in, 17) == 17);
  CHECK(algo::reduce(p, null, null, 17, algo_test::take_right{}) == 17);
  CHECK(algo::reduce(p, in, in, std::int64_t{-3}, algo::plus<>{}) == -3);
  const algo_test::mat2i m{1, 2, 3, 5};
  const algo_test::mat2i* mnull = nullptr;
  CHECK(algo::reduce(p, mnull, mnull, m, algo_test::mat2_mul{}) == m);
  CHECK(algo::transform_reduce(p, in, in, 9, algo::plus<>{}, algo_test::square_wide{}) == 9);
  CHECK(algo::transform_reduce(p, in, in, in, 11) == 11);
  CHECK(algo::transform_reduce(p, in, in, in, 12, algo::plus<>{}, algo_test::diff_wide{}) == 12);
  CHECK(algo::transpose(p, in, 0, 10, out) == out);
  CHECK(algo::transpose(p, in, 10, 0, out) == out);
  CHECK(algo::transpose(p, null, 0, 0, null) == null);
  // empty ranges in pageable memory are fine too (nothing is accessed)
  int* hin = b.host_in.data();
  CHECK(algo::reduce(p, hin, hin, 4) == 4);
  CHECK(algo::inclusive_scan(p, hin, hin, out) == out);
  b.require_untouched();
}

}  // namespace

// ==== the cases, per policy ====================================================================
