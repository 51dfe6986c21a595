// Bench section: transpose. For each of the issue's shapes and types, one group of rows:
//
//   cublas                       cublas<t>geam (C = A^T) called directly: the baseline of f32 / f64
//   memcpy                       cudaMemcpyAsync D2D of the same bytes: the baseline of u8 / u16
//                                (cuBLAS has no 1- or 2-byte geam), and the ceiling of every row
//   copy_row, copy_col           the seed's bounds: the matrix copied (not transposed) by 32x8-thread
//                                blocks walking rows (both accesses coalesced) or columns (neither)
//   algo::cuda <strategy>        every transpose strategy: naive_row, naive_col, unrolled, diagonal,
//                                tiled, tiled_padded, fast
//   algo::cub                    algo::transpose(algo::cub, ...) (geam for f32 / f64, a 32x32 tile
//                                kernel otherwise)
//   algo::cuda                   the default policy (= fast)
//   fast variant: ...            the fast strategy with other tuning constants (transpose_tuning):
//                                evict-first stores; 8 KB tiles of 128 threads; the persistent grid
//                                (the default before session 3); for aligned shapes wide tiles and
//                                persistent cp.async rings of 3 and 2 tiles; for shapes with odd
//                                leading dimensions, the unaligned path with 16-byte output alignment
//                                (instead of 32) or with taller tiles. To pick defaults from one run.
//
// GB/s counts bytes read + written (2 * rows * cols * sizeof(T)); "x base" is baseline time / this
// time. After timing, the default policy's output is compared with algo::cub's (a line says if not).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace bench {
namespace transpose_bench {

template <class T>
const char* type_label();
template <>
inline const char* type_label<std::uint8_t>() { return "u8"; }
template <>
inline const char* type_label<std::uint16_t>() { return "u16"; }
template <>
inline const char* type_label<float>() { return "f32"; }
template <>
inline const char* type_label<double>() { return "f64"; }

inline void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bench: %s: %s\n", what, cublasGetStatusString(s));
    std::exit(1);
  }
}

/// cublas<t>geam transposing row-major rows x cols `a` into row-major cols x rows `c`.
inline void geam(cublasHandle_t h, std::int64_t rows, std::int64_t cols, const float* a, float* c) {
  const float one = 1.f, zero = 0.f;
  const int m = static_cast<int>(rows), n = static_cast<int>(cols);
  check_cublas(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, c, m, c, m), "cublasSgeam");
}
inline void geam(cublasHandle_t h, std::int64_t rows, std::int64_t cols, const double* a, double* c) {
  const double one = 1., zero = 0.;
  const int m = static_cast<int>(rows), n = static_cast<int>(cols);
  check_cublas(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, c, m, c, m), "cublasDgeam");
}

// ---- tuning variants of the fast strategy ----------------------------------------------------------
using algo::detail::cuda::transpose_kernels::transpose_tuning;
struct tune_evict_first : transpose_tuning {
  static constexpr bool evict_first_stores = true;
};
struct tune_8k : transpose_tuning {
  static constexpr int fast_threads = 128;
  static constexpr int fast_tile_bytes = 8192;
  static constexpr int fast_min_blocks = 8;
  static constexpr int unaligned_min_blocks = 4;
};
using algo::detail::cuda::transpose_kernels::transpose_schedule;
struct tune_persistent : transpose_tuning {  // the default until session 3: persistent CTAs
  static constexpr int fast_schedule = transpose_schedule::persistent;
  static constexpr int unaligned_min_blocks = 3;
};
struct tune_wide : transpose_tuning {  // aligned tiles twice as wide and half as tall
  static constexpr int fast_wide = 1;
};
struct tune_ring3 : tune_persistent {  // aligned 4/8/16-byte elements: a cp.async ring of 3 tiles
  static constexpr int fast_async_stages = 3;
};
struct tune_ring2 : tune_persistent {  // a cp.async ring of 2 tiles (1 in flight while 1 drains)
  static constexpr int fast_async_stages = 2;
};
struct tune_align16 : transpose_tuning {  // the first run's unaligned default
  static constexpr int unaligned_align_bytes = 16;
};
struct tune_tall : transpose_tuning {
  static constexpr int unaligned_rows(int e) { return e == 1 ? 256 : e == 8 ? 64 : 128; }
  static constexpr int unaligned_cols(int) { return 32; }
};
struct tune_evict_tall : tune_tall {
  static constexpr bool evict_first_stores = true;
};

/// The fast strategy with tuning Tuning on a dense rows x cols matrix of T.
template <class Tuning, class T>
void fast_variant(const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  namespace kernels = algo::detail::cuda::transpose_kernels;
  constexpr int E = sizeof(T);
  using W = kernels::word_t<E>;
  kernels::fast<E, Tuning>(nullptr, reinterpret_cast<const W*>(in), reinterpret_cast<W*>(out),
                           algo::detail::transpose_shape::dense(rows, cols));
}

/// f(policy, name) for every strategy of algo::cuda.
template <class F>
void for_each_strategy(F&& f) {
  namespace ts = algo::transpose_strategy;
  f(algo::cuda.with(ts::naive_row), "naive_row");
  f(algo::cuda.with(ts::naive_col), "naive_col");
  f(algo::cuda.with(ts::unrolled), "unrolled");
  f(algo::cuda.with(ts::diagonal), "diagonal");
  f(algo::cuda.with(ts::tiled), "tiled");
  f(algo::cuda.with(ts::tiled_padded), "tiled_padded");
  f(algo::cuda.with(ts::fast), "fast");
}

template <class T>
void run_shape(const options& opt, report& rep, cublasHandle_t h, std::int64_t rows, std::int64_t cols) {
  namespace kernels = algo::detail::cuda::transpose_kernels;
  constexpr bool has_geam = std::is_same<T, float>::value || std::is_same<T, double>::value;
  const std::int64_t n = rows * cols;
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const std::string type = std::to_string(rows) + "x" + std::to_string(cols) + " " + type_label<T>();
  const std::string base = has_geam ? "cublas" : "memcpy";
  const int copies = rotation_count(static_cast<std::size_t>(n) * sizeof(T));
  rotating_buffers<T> in(n, copies), out(n, copies, false);
  auto add = [&](const std::string& impl, double ms) { rep.add(row{"transpose", type, n, impl, ms, bytes, base}); };

  // ---- baselines and bounds ----------------------------------------------------------------------
  if constexpr (has_geam) add("cublas", median_ms(opt, [&](int r) { geam(h, rows, cols, in[r], out[r]); }));
  add("memcpy", median_ms(opt, [&](int r) {
        check(cudaMemcpyAsync(out[r], in[r], static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice),
              "cudaMemcpyAsync");
      }));
  add("copy_row", median_ms(opt, [&](int r) { kernels::copy_row<T>(nullptr, in[r], rows, cols, out[r]); }));
  add("copy_col", median_ms(opt, [&](int r) { kernels::copy_col<T>(nullptr, in[r], rows, cols, out[r]); }));

  // ---- every strategy, then the two policies --------------------------------------------------------
  for_each_strategy([&](auto policy, const char* name) {
    add(std::string("algo::cuda ") + name,
        median_ms(opt, [&](int r) { algo::transpose(policy, in[r], rows, cols, out[r]); }));
  });
  add("algo::cub", median_ms(opt, [&](int r) { algo::transpose(algo::cub, in[r], rows, cols, out[r]); }));
  add("algo::cuda", median_ms(opt, [&](int r) { algo::transpose(algo::cuda, in[r], rows, cols, out[r]); }));

  // ---- tuning variants of fast ----------------------------------------------------------------------
  auto variant = [&](auto tuning, const char* name) {
    using Tuning = decltype(tuning);
    add(std::string("fast variant: ") + name,
        median_ms(opt, [&](int r) { fast_variant<Tuning>(in[r], rows, cols, out[r]); }));
  };
  const bool odd = (cols * sizeof(T)) % 16 != 0 || (rows * sizeof(T)) % 16 != 0;
  const bool tiles = rows > 1 && cols > 1;
  variant(tune_evict_first{}, "evict-first stores");
  variant(tune_8k{}, "8 KB tiles, 128 threads");
  variant(tune_persistent{}, "persistent grid (previous default)");
  if (!odd && tiles) variant(tune_wide{}, "aligned, wide tiles");
  if (!odd && tiles && sizeof(T) >= 4) {
    variant(tune_ring3{}, "aligned, persistent cp.async ring of 3");
    variant(tune_ring2{}, "aligned, persistent cp.async ring of 2");
  }
  if (odd && tiles) {
    variant(tune_align16{}, "unaligned, 16-byte output alignment");
    variant(tune_tall{}, "unaligned, tall tiles (128x32 for f32)");
    variant(tune_evict_tall{}, "unaligned, tall tiles + evict-first");
  }

  // ---- the default policy's output against algo::cub's ----------------------------------------------
  {
    rotating_buffers<T> ref(n, 1, false);
    algo::transpose(algo::cub, in[0], rows, cols, ref[0]);
    algo::transpose(algo::cuda, in[0], rows, cols, out[0]);
    check(cudaDeviceSynchronize(), "transpose check");
    const bool same = thrust::equal(thrust::device, out[0], out[0] + n, ref[0]);
    if (!same) std::printf("  !! transpose %s: algo::cuda's output differs from algo::cub's\n", type.c_str());
  }
}

}  // namespace transpose_bench

inline void run_transpose(const options& opt, report& rep) {
  using namespace transpose_bench;
  cublasHandle_t h;
  check_cublas(cublasCreate(&h), "cublasCreate");
  // f32: square, odd, degenerate and skinny shapes
  run_shape<float>(opt, rep, h, 8192, 8192);
  run_shape<float>(opt, rep, h, 16384, 16384);
  run_shape<float>(opt, rep, h, 8191, 8193);
  run_shape<float>(opt, rep, h, 4097, 16411);
  run_shape<float>(opt, rep, h, 1, 67108864);
  run_shape<float>(opt, rep, h, 67108864, 1);
  run_shape<float>(opt, rep, h, 2097120, 32);
  // f64
  run_shape<double>(opt, rep, h, 8192, 8192);
  run_shape<double>(opt, rep, h, 16384, 16384);
  run_shape<double>(opt, rep, h, 8191, 8193);
  // 1- and 2-byte elements (no cuBLAS: memcpy is the baseline)
  run_shape<std::uint8_t>(opt, rep, h, 16384, 16384);
  run_shape<std::uint16_t>(opt, rep, h, 16384, 16384);
  cublasDestroy(h);
}

}  // namespace bench
