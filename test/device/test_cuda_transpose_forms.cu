// algo::cuda transpose, the other forms and paths, for every strategy (pitched and batched also for
// algo::cub):
//   pitched (leading dimensions; the gaps between rows stay untouched), batched (packed, strided,
//   a broadcast input, outputs side by side in one pitch), cuda::std::mdspan (rank 2 and 3),
//   a non-blocking stream, device_vector iterators, a fancy input iterator converting to another type
//   (the generic path), a 12-byte element, a 16-byte element at a 4-byte aligned address, and bad
//   input (algo::error before anything is written).
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/mdspan>

#include <limits>

#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;
using algo::detail::transpose_shape;

namespace {

enum class form { pitched, batch_packed, batch_general };

std::int64_t extent_in(const transpose_shape& s) { return (s.count - 1) * s.stride_in + (s.rows - 1) * s.ld_in + s.cols; }
std::int64_t extent_out(const transpose_shape& s) {
  return (s.count - 1) * s.stride_out + (s.cols - 1) * s.ld_out + s.rows;
}

/// One call of the public overload `f` on shape s, against the host reference; elements of the output
/// buffer outside the output matrices must keep their poison.
template <class T, class Policy>
void check_form(const Policy& policy, form f, const transpose_shape& s, std::uint64_t seed) {
  INFO("type " << name_of<T>::value << ", " << s.rows << " x " << s.cols << ", ld " << s.ld_in << " / " << s.ld_out
               << ", batch " << s.count << " strides " << s.stride_in << " / " << s.stride_out);
  const std::int64_t ni = extent_in(s), no = extent_out(s);
  const std::vector<T> h_in = random_vector<T>(ni, seed);
  std::vector<T> want = poisoned_vector<T>(no);
  reference_transpose(h_in.data(), want.data(), s);
  device_buffer<T> d_in(ni), d_out(no);
  d_in.upload(h_in);
  d_out.poison();
  T* end = nullptr;
  switch (f) {
    case form::pitched:
      end = algo::transpose(policy, d_in.ptr, s.rows, s.cols, s.ld_in, d_out.ptr, s.ld_out);
      break;
    case form::batch_packed:
      end = algo::transpose(policy, d_in.ptr, s.rows, s.cols, d_out.ptr, algo::batch{s.count});
      break;
    case form::batch_general:
      end = algo::transpose(policy, d_in.ptr, s.rows, s.cols, s.ld_in, d_out.ptr, s.ld_out,
                            algo::batch{s.count, s.stride_in, s.stride_out});
      break;
  }
  CHECK(end == d_out.ptr + no);
  require_same(d_out.download(), want, s);
}

/// Pitched and batched layouts of rows x cols, E-byte aligned and not.
template <class T, class Policy>
void check_forms(const Policy& policy, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  const std::int64_t v = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;  // elements per 16 bytes
  const std::int64_t ci = (cols + v - 1) / v * v, ro = (rows + v - 1) / v * v;
  // pitched: 16-byte aligned pitches (vector path), odd pitches, wide gaps
  check_form<T>(policy, form::pitched, {rows, cols, ci + v, ro + 2 * v, 1, 0, 0}, seed + 1);
  check_form<T>(policy, form::pitched, {rows, cols, cols + 1, rows + 3, 1, 0, 0}, seed + 2);
  check_form<T>(policy, form::pitched, {rows, cols, 3 * cols + 7, 2 * rows + 64, 1, 0, 0}, seed + 3);
  // batches: packed; strided with gaps; pitched and strided; a broadcast input (stride 0); outputs
  // side by side in one output pitch (output matrix b at column b * rows of each output row)
  check_form<T>(policy, form::batch_packed, {rows, cols, cols, rows, 3, rows * cols, rows * cols}, seed + 4);
  check_form<T>(policy, form::batch_general, {rows, cols, cols, rows, 3, rows * cols + 5, rows * cols + 3 * v}, seed + 5);
  check_form<T>(policy, form::batch_general, {rows, cols, ci + v, ro, 4, rows * (ci + v), cols * ro}, seed + 6);
  check_form<T>(policy, form::batch_general, {rows, cols, cols + 3, rows + 1, 2, 0, cols * (rows + 1) + 1}, seed + 7);
  check_form<T>(policy, form::batch_general, {rows, cols, cols, 3 * rows, 3, rows * cols, rows}, seed + 8);
}

const shape_list form_shapes = {{1, 1}, {1, 100}, {100, 1}, {33, 31}, {64, 64}, {257, 130}, {130, 257}, {1000, 40}};

}  // namespace

TEST_CASE("cuda transpose forms: pitched and batched, every strategy, uint8 and float", "[cuda][transpose]") {
  for_each_strategy([&](auto strategy, const char* name) {
    INFO("strategy: " << name);
    const auto policy = algo::cuda.with(strategy);
    for (auto [r, c] : form_shapes) {
      check_forms<std::uint8_t>(policy, r, c, 100 + r + c);
      check_forms<float>(policy, r, c, 200 + r + c);
    }
  });
}

TEST_CASE("cuda transpose forms: pitched and batched, default policy, uint16, double, 16-byte", "[cuda][transpose]") {
  for (auto [r, c] : form_shapes) {
    check_forms<std::uint16_t>(algo::cuda, r, c, 300 + r + c);
    check_forms<double>(algo::cuda, r, c, 400 + r + c);
    check_forms<b16>(algo::cuda, r, c, 500 + r + c);
  }
  // large enough for whole tiles of every fast path, odd and even pitches
  check_forms<float>(algo::cuda, 1500, 1300, 600);
  check_forms<double>(algo::cuda, 700, 900, 601);
}

TEST_CASE("cub transpose forms: pitched and batched (geam with lda / ldc, the tile kernel)", "[cub][transpose]") {
  for (auto [r, c] : form_shapes) {
    check_forms<float>(algo::cub, r, c, 700 + r + c);         // cublasSgeam, one call per matrix
    check_forms<std::uint8_t>(algo::cub, r, c, 800 + r + c);  // the 32x32 tile kernel
  }
}

TEST_CASE("cuda transpose forms: cuda::std::mdspan, rank 2 and 3", "[cuda][transpose]") {
  const std::int64_t rows = 70, cols = 45, count = 3;
  const std::vector<float> h_in = random_vector<float>(rows * cols * count, 7);
  device_buffer<float> d_in(rows * cols * count), d_out(rows * cols * count);
  d_in.upload(h_in);
  for_each_strategy([&](auto strategy, const char* name) {
    INFO("strategy: " << name);
    const auto policy = algo::cuda.with(strategy);
    {
      INFO("rank 2");
      std::vector<float> want = poisoned_vector<float>(rows * cols * count);
      reference_transpose(h_in.data(), want.data(), transpose_shape::dense(rows, cols));
      d_out.poison();
      cuda::std::mdspan<const float, cuda::std::dextents<int, 2>> in(d_in.ptr, rows, cols);
      cuda::std::mdspan<float, cuda::std::dextents<std::size_t, 2>> out(d_out.ptr, cols, rows);
      algo::transpose(policy, in, out);
      require_same(d_out.download(), want, transpose_shape::dense(rows, cols));
    }
    {
      INFO("rank 3 (a batch), static extents");
      std::vector<float> want = poisoned_vector<float>(rows * cols * count);
      transpose_shape s{rows, cols, cols, rows, count, rows * cols, rows * cols};
      reference_transpose(h_in.data(), want.data(), s);
      d_out.poison();
      cuda::std::mdspan<float, cuda::std::extents<int, 3, 70, 45>> in(d_in.ptr);
      cuda::std::mdspan<float, cuda::std::dextents<long, 3>> out(d_out.ptr, count, cols, rows);
      algo::transpose(policy, in, out);
      require_same(d_out.download(), want, s);
    }
  });
  INFO("extents that are not transposed: algo::error, nothing written");
  d_out.poison();
  cuda::std::mdspan<float, cuda::std::dextents<int, 2>> in(d_in.ptr, rows, cols), bad(d_out.ptr, rows, cols);
  CHECK_THROWS_AS(algo::transpose(algo::cuda, in, bad), algo::error);
  require_same(d_out.download(), poisoned_vector<float>(rows * cols * count), transpose_shape::dense(rows, cols));
}

TEST_CASE("cuda transpose forms: a non-blocking stream orders the transpose after its input", "[cuda][transpose]") {
  // The input arrives by an asynchronous copy on the stream: a transpose that ran anywhere else (the
  // legacy default stream does not wait for a non-blocking stream) would read stale data.
  const std::int64_t rows = 2049, cols = 3001, n = rows * cols;
  const std::vector<float> h_in = random_vector<float>(n, 9);
  std::vector<float> want = poisoned_vector<float>(n);
  reference_transpose(h_in.data(), want.data(), transpose_shape::dense(rows, cols));
  float* pinned = nullptr;
  cuda_ok(cudaMallocHost(&pinned, sizeof(float) * n), "cudaMallocHost");
  cudaStream_t stream;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  device_buffer<float> d_in(n), d_out(n);
  for_each_strategy([&](auto strategy, const char* name) {
    INFO("strategy: " << name);
    d_in.poison();
    d_out.poison();
    std::memcpy(pinned, h_in.data(), sizeof(float) * n);
    cuda_ok(cudaDeviceSynchronize(), "sync");
    cuda_ok(cudaMemcpyAsync(d_in.ptr, pinned, sizeof(float) * n, cudaMemcpyHostToDevice, stream), "H2D");
    algo::transpose(algo::cuda.with(strategy).on(stream), d_in.ptr, rows, cols, d_out.ptr);
    cuda_ok(cudaMemcpyAsync(pinned, d_out.ptr, sizeof(float) * n, cudaMemcpyDeviceToHost, stream), "D2H");
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    require_same(std::vector<float>(pinned, pinned + n), want, transpose_shape::dense(rows, cols));
  });
  cudaStreamDestroy(stream);
  cudaFreeHost(pinned);
}

namespace {
struct index_value {
  __host__ __device__ double operator()(std::int64_t i) const { return 0.5 + static_cast<double>(i % 1000003) * 3; }
};
}  // namespace

TEST_CASE("cuda transpose forms: iterators, the generic path, odd element sizes", "[cuda][transpose]") {
  const std::int64_t rows = 333, cols = 517, n = rows * cols;
  const auto s = transpose_shape::dense(rows, cols);
  for_each_strategy([&](auto strategy, const char* name) {
    INFO("strategy: " << name);
    const auto policy = algo::cuda.with(strategy);
    {
      INFO("device_vector iterators");
      const std::vector<std::uint16_t> h = random_vector<std::uint16_t>(n, 1);
      std::vector<std::uint16_t> want = poisoned_vector<std::uint16_t>(n);
      reference_transpose(h.data(), want.data(), s);
      thrust::device_vector<std::uint16_t> in(h.begin(), h.end()), out(n, 0xFFFF);
      auto end = algo::transpose(policy, in.begin(), rows, cols, out.begin());
      CHECK(end == out.end());
      std::vector<std::uint16_t> got(n);
      thrust::copy(out.begin(), out.end(), got.begin());
      require_same(got, want, s);
    }
    {
      INFO("transform_iterator(counting_iterator) -> double* (generic path)");
      std::vector<double> h(n);
      for (std::int64_t i = 0; i < n; ++i) h[i] = index_value{}(i);
      std::vector<double> want = poisoned_vector<double>(n);
      reference_transpose(h.data(), want.data(), s);
      device_buffer<double> out(n);
      out.poison();
      auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), index_value{});
      algo::transpose(policy, first, rows, cols, out.ptr);
      require_same(out.download(), want, s);
    }
    {
      INFO("12-byte elements (generic path)");
      const std::vector<b12> h = random_vector<b12>(n, 2);
      std::vector<b12> want = poisoned_vector<b12>(n);
      reference_transpose(h.data(), want.data(), s);
      device_buffer<b12> in(n), out(n);
      in.upload(h);
      out.poison();
      algo::transpose(policy, in.ptr, rows, cols, out.ptr);
      require_same(out.download(), want, s);
    }
    {
      INFO("16-byte elements at 4-byte aligned addresses (no 16-byte words: generic path)");
      const std::vector<b16> h = random_vector<b16>(n, 3);
      std::vector<b16> want = poisoned_vector<b16>(n);
      reference_transpose(h.data(), want.data(), s);
      device_buffer<std::uint32_t> in(4 * n + 1), out(4 * n + 1);
      b16* in4 = reinterpret_cast<b16*>(in.ptr + 1);
      b16* out4 = reinterpret_cast<b16*>(out.ptr + 1);
      cuda_ok(cudaMemcpy(in4, h.data(), sizeof(b16) * n, cudaMemcpyHostToDevice), "upload");
      out.poison();
      algo::transpose(policy, in4, rows, cols, out4);
      std::vector<b16> got(n);
      cuda_ok(cudaMemcpy(got.data(), out4, sizeof(b16) * n, cudaMemcpyDeviceToHost), "download");
      require_same(got, want, s);
    }
  });
}

TEST_CASE("cuda transpose forms: bad input throws algo::error and writes nothing", "[cuda][transpose]") {
  const std::int64_t rows = 40, cols = 50, n = rows * cols;
  device_buffer<float> a(3 * n), b(3 * n);
  a.upload(random_vector<float>(3 * n, 5));
  b.poison();
  const std::vector<float> a_before = a.download();
  const std::vector<float> untouched = poisoned_vector<float>(3 * n);
  const auto s = transpose_shape::dense(3 * n, 1);
  auto nothing_written = [&] {
    require_same(b.download(), untouched, s);
    require_same(a.download(), a_before, s);
  };
  const auto policy = algo::cuda;
  SECTION("output overlaps input (raw pointers)") {
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, a.ptr + n / 2), algo::error);
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr + 10, rows, cols, a.ptr), algo::error);
  }
  SECTION("output overlaps input (thrust::device_ptr)") {
    auto p = thrust::device_pointer_cast(a.ptr);
    CHECK_THROWS_AS(algo::transpose(policy, p, rows, cols, p + 1), algo::error);
  }
  SECTION("output overlaps input (batch extents)") {
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, a.ptr + 2 * n, algo::batch{3}), algo::error);
  }
  SECTION("rows * cols overflows") {
    const std::int64_t big = std::int64_t(1) << 40;
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, big, big, b.ptr), algo::error);
    const std::int64_t huge = std::numeric_limits<std::int64_t>::max() / 2;
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, b.ptr, algo::batch{huge}), algo::error);
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, huge, b.ptr, rows), algo::error);
  }
  SECTION("negative shape") { CHECK_THROWS_AS(algo::transpose(policy, a.ptr, -1, cols, b.ptr), algo::error); }
  SECTION("null pointers") {
    CHECK_THROWS_AS(algo::transpose(policy, static_cast<const float*>(nullptr), rows, cols, b.ptr), algo::error);
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, static_cast<float*>(nullptr)), algo::error);
  }
  SECTION("leading dimensions shorter than a row") {
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, cols - 1, b.ptr, rows), algo::error);
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, cols, b.ptr, rows - 1), algo::error);
  }
  SECTION("output matrices of a batch overlap") {
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, cols, b.ptr, rows, algo::batch{2, n, n - 1}), algo::error);
    CHECK_THROWS_AS(algo::transpose(policy, a.ptr, rows, cols, cols, b.ptr, rows, algo::batch{2, n, 0}), algo::error);
  }
  SECTION("empty: nothing to do, no error") {
    CHECK(algo::transpose(policy, a.ptr, 0, cols, b.ptr) == b.ptr);
    CHECK(algo::transpose(policy, a.ptr, rows, 0, b.ptr) == b.ptr);
    CHECK(algo::transpose(policy, a.ptr, rows, cols, b.ptr, algo::batch{0}) == b.ptr);
  }
  nothing_written();
}
