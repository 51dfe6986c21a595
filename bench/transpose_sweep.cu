// Tuning sweep of the fast transpose (a development tool beside the bench program, which alone makes
// performance claims): times variants of the fast strategy against cublas<t>geam and a device-to-
// device copy in the same run, on the issue's hard shapes, and checks every variant's output against
// cuBLAS's (algo::cub's 32x32 tile kernel for 1- and 2-byte elements, whose baseline is the copy).
//
//   transpose_sweep [--reps R] [--csv FILE] [--commit SHA] [--shape NAME] [--only NAME] [--once]
//
// --shape keeps the shapes whose label contains NAME ("8192x8192 f32", "f64", "8191"), --only the
// variants whose name contains NAME, or is NAME for "=NAME" (cuBLAS always runs). --once calls each once per shape without
// timing (for ncu: -k regex:...).
//
// Variants are tunings (transpose_common.cuh, transpose_tuning) handed to kernels::fast<E, Tuning>.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include <thrust/equal.h>
#include <thrust/execution_policy.h>

#include <algo/algo.hpp>

#include "harness.cuh"
#include "transpose.cuh"

namespace tsweep {
namespace kernels = algo::detail::cuda::transpose_kernels;
using base = kernels::transpose_tuning;
using sched = kernels::transpose_schedule;
using bench::transpose_bench::fast_variant;

struct dflt : base {};
struct persistent : base {  // the default until this sweep: persistent CTAs, unaligned 3 CTAs/SM
  static constexpr int fast_schedule = sched::persistent;
  static constexpr int unaligned_min_blocks = 3;
};
struct wide : base {  // aligned tiles twice as wide, half as tall (f64: 32 x 64, f32: 32 x 128)
  static constexpr int fast_wide = 1;
};
struct tall : base {  // aligned tiles twice as tall, half as wide (f32: 128 x 32, f64: 128 x 16)
  static constexpr int fast_wide = -1;
};
struct tall_8k : tall {
  static constexpr int fast_threads = 128;
  static constexpr int fast_tile_bytes = 8192;
  static constexpr int fast_min_blocks = 8;
  static constexpr int unaligned_min_blocks = 6;
};
struct tiles_8k : base {  // 8 KB tiles of 128 threads
  static constexpr int fast_threads = 128;
  static constexpr int fast_tile_bytes = 8192;
  static constexpr int fast_min_blocks = 8;
  static constexpr int unaligned_min_blocks = 6;
};
struct align16 : base {  // unaligned: output pieces 16-byte aligned (halo 1 row for f64, 3 for f32)
  static constexpr int unaligned_align_bytes = 16;
};
struct evict_first : base {
  static constexpr bool evict_first_stores = true;
};
struct unaligned_mb3 : base {
  static constexpr int unaligned_min_blocks = 3;
};

struct lean6 : base {  // drain one vector at a time, 6 CTAs per SM (40 registers)
  static constexpr int fast_drain_unroll = 1;
  static constexpr int fast_min_blocks = 6;
  static constexpr int unaligned_min_blocks = 6;
};
struct lean8 : lean6 {  // ... 8 CTAs per SM (32 registers)
  static constexpr int fast_min_blocks = 8;
  static constexpr int unaligned_min_blocks = 8;
};
struct drain2_mb5 : base {  // drain two vectors at a time, 5 CTAs per SM (48 registers)
  static constexpr int fast_drain_unroll = 2;
  static constexpr int fast_min_blocks = 5;
  static constexpr int unaligned_min_blocks = 5;
};
struct u6 : base {  // unaligned agent at 6 CTAs per SM
  static constexpr int unaligned_min_blocks = 6;
};
struct tall64 : base {  // unaligned 8-byte elements: 128 x 32 tiles (halo 3 of 131 rows), 3 CTAs/SM
  static constexpr int unaligned_rows(int e) { return e == 1 ? 128 : e == 8 ? 128 : 64; }
  static constexpr int unaligned_min_blocks = 3;
};

struct options {
  bench::options opt;
  std::string shape, only;
  bool once = false;
};

template <class T>
void run_shape(const options& o, bench::report& rep, cublasHandle_t h, std::int64_t rows, std::int64_t cols) {
  using namespace bench;
  using bench::transpose_bench::geam;
  const std::string type = std::to_string(rows) + "x" + std::to_string(cols) + " " + transpose_bench::type_label<T>();
  if (!o.shape.empty() && type.find(o.shape) == std::string::npos) return;
  const std::int64_t n = rows * cols;
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const int copies = rotation_count(static_cast<std::size_t>(n) * sizeof(T));
  rotating_buffers<T> in(n, copies), out(n, copies, false), ref(n, 1, false);
  constexpr bool has_geam = std::is_same<T, float>::value || std::is_same<T, double>::value;
  const std::string base = has_geam ? "cublas" : "memcpy";
  if constexpr (has_geam) geam(h, rows, cols, in[0], ref[0]);
  else algo::transpose(algo::cub, in[0], rows, cols, ref[0]);
  check(cudaDeviceSynchronize(), "reference");

  auto time = [&](const std::string& impl, auto&& fn) {
    if (o.once) {
      fn(0);
      check(cudaDeviceSynchronize(), impl.c_str());
      return;
    }
    rep.add(row{"transpose", type, n, impl, median_ms(o.opt, fn), bytes, base});
  };
  if constexpr (has_geam) time("cublas", [&](int r) { geam(h, rows, cols, in[r], out[r]); });
  if (!o.once)
    time("memcpy", [&](int r) {
      check(cudaMemcpyAsync(out[r], in[r], static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice),
            "cudaMemcpyAsync");
    });
  auto variant = [&](auto tuning, const char* name) {
    using Tuning = decltype(tuning);
    if (!o.only.empty() && (o.only[0] == '=' ? o.only.substr(1) != name : std::string(name).find(o.only) == std::string::npos))
      return;
    time(name, [&](int r) { fast_variant<Tuning>(in[r], rows, cols, out[r]); });
    fast_variant<Tuning>(in[0], rows, cols, out[0]);
    check(cudaDeviceSynchronize(), name);
    if (!thrust::equal(thrust::device, out[0], out[0] + n, ref[0]))
      std::printf("  !! %s %s: output differs from the reference\n", type.c_str(), name);
  };
  variant(dflt{}, "default");
  variant(persistent{}, "persistent grid (previous default)");
  variant(wide{}, "wide aligned tiles");
  variant(tall{}, "tall aligned tiles");
  variant(tall_8k{}, "tall aligned 8 KB tiles, 128 threads");
  variant(tiles_8k{}, "8 KB tiles, 128 threads");
  variant(evict_first{}, "evict-first stores");
  variant(lean6{}, "drain 1 at a time, 6 CTAs/SM");
  variant(lean8{}, "drain 1 at a time, 8 CTAs/SM");
  variant(drain2_mb5{}, "drain 2 at a time, 5 CTAs/SM");
  const bool odd = (cols * sizeof(T)) % 16 != 0 || (rows * sizeof(T)) % 16 != 0;
  if (odd) {
    variant(align16{}, "unaligned, 16-byte output alignment");
    variant(unaligned_mb3{}, "unaligned, 3 CTAs/SM bound");
    variant(u6{}, "unaligned, 6 CTAs/SM bound");
    if constexpr (sizeof(T) == 8) variant(tall64{}, "unaligned, 128 x 32 tiles for f64");
  }
}

}  // namespace tsweep

int main(int argc, char** argv) {
  tsweep::options o;
  o.opt.csv = "transpose_sweep.csv";
  std::string commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--reps") o.opt.reps = std::stoi(next());
    else if (a == "--csv") o.opt.csv = next();
    else if (a == "--commit") commit = next();
    else if (a == "--shape") o.shape = next();
    else if (a == "--only") o.only = next();
    else if (a == "--once") o.once = true;
    else {
      std::fprintf(stderr, "usage: %s [--reps R] [--csv FILE] [--commit SHA] [--shape NAME] [--only NAME] [--once]\n", argv[0]);
      return 2;
    }
  }
  int dev = 0;
  cudaDeviceProp prop{};
  bench::check(cudaGetDevice(&dev), "cudaGetDevice");
  bench::check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  std::printf("device: %s, %d SMs, commit %s\n", prop.name, prop.multiProcessorCount, commit.c_str());
  bench::report rep(o.opt);
  cublasHandle_t h;
  bench::transpose_bench::check_cublas(cublasCreate(&h), "cublasCreate");
  tsweep::run_shape<float>(o, rep, h, 8192, 8192);
  tsweep::run_shape<float>(o, rep, h, 16384, 16384);
  tsweep::run_shape<float>(o, rep, h, 8191, 8193);
  tsweep::run_shape<float>(o, rep, h, 4097, 16411);
  tsweep::run_shape<double>(o, rep, h, 8192, 8192);
  tsweep::run_shape<double>(o, rep, h, 8191, 8193);
  tsweep::run_shape<float>(o, rep, h, 2097120, 32);
  tsweep::run_shape<std::uint8_t>(o, rep, h, 16384, 16384);
  tsweep::run_shape<std::uint16_t>(o, rep, h, 16384, 16384);
  cublasDestroy(h);
  if (!o.once) rep.finish(prop.name, commit);
  return 0;
}
