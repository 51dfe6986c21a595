// Checks for the algo::cuda transpose strategies (included by test_cuda_transpose_strategies.cu, every
// element size in one unit, and test_cuda_transpose_forms.cu).
//
//   check_strategies<T>(shapes)   every strategy x every shape: the output against a host reference
//                                 (every element, bytewise, and nothing written outside the output),
//                                 then transposing the output back gives the input; for float and
//                                 double also against cublas<t>geam (through algo::cub)
//
// Data are random and never zero (each byte of an integer/struct element in 1..254, floats normal
// and non-zero); outputs are poisoned (every byte 0xFF) before each run, so an element a kernel forgets
// to write is seen. Failures name the strategy, the shape and the first wrong element.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"

namespace transpose_test {

// ==== element types =================================================================================
/// 16 bytes, 4-byte aligned: the word path needs a run-time alignment check for it.
struct b16 {
  std::uint32_t w[4];
};
inline bool operator==(const b16& a, const b16& b) { return std::memcmp(&a, &b, sizeof(b16)) == 0; }

/// 12 bytes: not a word size (the generic path).
struct b12 {
  std::uint32_t w[3];
};

template <class T> struct name_of { static constexpr const char* value = "?"; };
template <> struct name_of<std::uint8_t> { static constexpr const char* value = "uint8"; };
template <> struct name_of<std::uint16_t> { static constexpr const char* value = "uint16"; };
template <> struct name_of<float> { static constexpr const char* value = "float"; };
template <> struct name_of<double> { static constexpr const char* value = "double"; };
template <> struct name_of<b16> { static constexpr const char* value = "b16 (16-byte struct)"; };
template <> struct name_of<b12> { static constexpr const char* value = "b12 (12-byte struct)"; };

// ==== random data ===================================================================================
inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
T random_value(std::uint64_t& s) {
  if constexpr (std::is_floating_point<T>::value) {
    // normal, non-zero, exactly representable: what cuBLAS passes through unchanged (alpha = 1)
    const std::uint64_t r = splitmix(s);
    const T v = static_cast<T>(1 + (r % 1000003)) / T(1024);
    return (r >> 40) & 1 ? -v : v;
  } else {
    // every byte in 1..254: never zero, never the poison byte 0xFF
    T v;
    unsigned char* b = reinterpret_cast<unsigned char*>(&v);
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      if (i % 8 == 0) r = splitmix(s);
      b[i] = static_cast<unsigned char>(1 + (r & 0xff) % 254);
      r >>= 8;
    }
    return v;
  }
}

template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::uint64_t s = seed * 0x2545f4914f6cdd1dull + 1;
  for (auto& x : v) x = random_value<T>(s);
  return v;
}

/// Every byte 0xFF.
template <class T>
std::vector<T> poisoned_vector(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::memset(static_cast<void*>(v.data()), 0xFF, v.size() * sizeof(T));
  return v;
}

// ==== host reference ================================================================================
/// out (pre-filled by the caller) gets every matrix of the batch transposed; nothing else changes.
template <class T>
void reference_transpose(const T* in, T* out, const algo::detail::transpose_shape& s) {
  constexpr std::int64_t B = 64;
  for (std::int64_t b = 0; b < s.count; ++b)
    for (std::int64_t r0 = 0; r0 < s.rows; r0 += B)
      for (std::int64_t c0 = 0; c0 < s.cols; c0 += B)
        for (std::int64_t c = c0; c < std::min(s.cols, c0 + B); ++c)
          for (std::int64_t r = r0; r < std::min(s.rows, r0 + B); ++r)
            out[b * s.stride_out + c * s.ld_out + r] = in[b * s.stride_in + r * s.ld_in + c];
}

// ==== device buffers ================================================================================
inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) FAIL(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::int64_t n = 0;
  explicit device_buffer(std::int64_t count) : n(count) {
    cuda_ok(cudaMalloc(&ptr, sizeof(T) * static_cast<std::size_t>(std::max<std::int64_t>(n, 1))), "cudaMalloc");
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(ptr); }
  void upload(const std::vector<T>& h) {
    cuda_ok(cudaMemcpy(ptr, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice), "upload");
  }
  void poison() { cuda_ok(cudaMemset(ptr, 0xFF, sizeof(T) * static_cast<std::size_t>(n)), "poison"); }
  std::vector<T> download() const {
    std::vector<T> h(static_cast<std::size_t>(n));
    cuda_ok(cudaDeviceSynchronize(), "kernel");
    cuda_ok(cudaMemcpy(h.data(), ptr, sizeof(T) * h.size(), cudaMemcpyDeviceToHost), "download");
    return h;
  }
};

// ==== comparison ====================================================================================
/// "" when got == want bytewise, else where the first difference is (as matrix coordinates of the
/// output layout `s`, when it lies in an output matrix).
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want,
                             const algo::detail::transpose_shape& s) {
  if (got.size() != want.size()) return "sizes differ";
  if (std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0) return "";
  std::size_t i = 0;
  while (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) ++i;
  std::ostringstream os;
  os << "first wrong element: index " << i;
  const std::int64_t k = static_cast<std::int64_t>(i);
  const std::int64_t b = s.count > 1 && s.stride_out > 0 ? k / s.stride_out : 0;
  const std::int64_t in_matrix = k - b * s.stride_out;
  const std::int64_t c = in_matrix / s.ld_out, r = in_matrix % s.ld_out;
  if (c < s.cols && r < s.rows) os << " (matrix " << b << ", output row " << c << ", column " << r << ")";
  else os << " (outside the output matrices: must stay untouched)";
  const unsigned char* g = reinterpret_cast<const unsigned char*>(&got[i]);
  const unsigned char* w = reinterpret_cast<const unsigned char*>(&want[i]);
  os << std::hex << "; got bytes";
  for (std::size_t j = 0; j < sizeof(T); ++j) os << ' ' << int(g[j]);
  os << ", want";
  for (std::size_t j = 0; j < sizeof(T); ++j) os << ' ' << int(w[j]);
  std::size_t wrong = 0;
  for (std::size_t j = i; j < got.size(); ++j) wrong += std::memcmp(&got[j], &want[j], sizeof(T)) != 0;
  os << std::dec << "; " << wrong << " wrong elements in all";
  return os.str();
}

/// REQUIRE that got == want bytewise, saying where they differ.
template <class T>
void require_same(const std::vector<T>& got, const std::vector<T>& want, const algo::detail::transpose_shape& s) {
  const std::string diff = first_difference(got, want, s);
  INFO(diff);
  REQUIRE(diff.empty());
}

// ==== strategies ====================================================================================
/// f(strategy, name) for every strategy of algo::cuda.
template <class F>
void for_each_strategy(F&& f) {
  namespace ts = algo::transpose_strategy;
  f(ts::naive_row, "naive_row");
  f(ts::naive_col, "naive_col");
  f(ts::unrolled, "unrolled");
  f(ts::diagonal, "diagonal");
  f(ts::tiled, "tiled");
  f(ts::tiled_padded, "tiled_padded");
  f(ts::fast, "fast");
}

using shape_list = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// The issue's small shapes: 1x1, 1xn, nx1, around one 32-tile, 1000x1, skinny ones for the fast
/// strategy's tall and wide tiles, an aligned one of whole tiles (1024x2048), and `randoms` random
/// shapes (seeded). big_shapes() has the rest.
inline shape_list standard_shapes(std::uint64_t seed, int randoms = 4) {
  shape_list v = {{1, 1},     {1, 1000},   {1000, 1},  {1, 4099},   {4099, 1}, {31, 33},
                  {32, 32},   {33, 31},    {2, 2},     {3, 5},      {64, 64},  {65, 63},
                  {3000, 32}, {32, 3000},  {5000, 20}, {1024, 2048}};
  std::uint64_t s = seed;
  for (int i = 0; i < randoms; ++i) {
    const std::int64_t r = 1 + static_cast<std::int64_t>(splitmix(s) % 3000);
    const std::int64_t c = 1 + static_cast<std::int64_t>(splitmix(s) % 3000);
    v.emplace_back(r, c);
  }
  return v;
}

/// The issue's larger shapes (test cases tagged [big]: under compute-sanitizer, run "~[big]").
inline shape_list big_shapes() { return {{4097, 513}, {8191, 8193}}; }

// ==== the check =====================================================================================
/// Every strategy on one rows x cols matrix of T: against the host reference, nothing outside the
/// output written, and back again; for float / double also against algo::cub (cublas<t>geam).
template <class T>
void check_shape(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  INFO("type " << name_of<T>::value << ", " << rows << " x " << cols << ", seed " << seed);
  const std::int64_t n = rows * cols;
  const auto s = algo::detail::transpose_shape::dense(rows, cols);
  const auto back_shape = algo::detail::transpose_shape::dense(cols, rows);
  const std::vector<T> h_in = random_vector<T>(n, seed);
  std::vector<T> want = poisoned_vector<T>(n);
  reference_transpose(h_in.data(), want.data(), s);

  device_buffer<T> d_in(n), d_out(n), d_back(n);
  d_in.upload(h_in);

  std::vector<T> geam;
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    INFO("algo::cub (cublas<t>geam) against the host reference");
    d_out.poison();
    algo::transpose(algo::cub, d_in.ptr, rows, cols, d_out.ptr);
    geam = d_out.download();
    require_same(geam, want, s);
  }

  for_each_strategy([&](auto strategy, const char* name) {
    INFO("strategy: " << name);
    const auto policy = algo::cuda.with(strategy);
    d_out.poison();
    T* end = algo::transpose(policy, static_cast<const T*>(d_in.ptr), rows, cols, d_out.ptr);
    CHECK(end == d_out.ptr + n);
    const std::vector<T> got = d_out.download();
    require_same(got, want, s);
    if (!geam.empty()) {
      INFO("against cublas<t>geam's output");
      require_same(got, geam, s);
    }
    INFO("transposing the output back gives the input");
    d_back.poison();
    algo::transpose(policy, d_out.ptr, cols, rows, d_back.ptr);
    require_same(d_back.download(), h_in, back_shape);
  });
}

template <class T>
void check_strategies(const shape_list& shapes, std::uint64_t seed) {
  for (auto [rows, cols] : shapes) check_shape<T>(rows, cols, seed + static_cast<std::uint64_t>(rows * 131071 + cols));
}

}  // namespace transpose_test
