// Bench section: inclusive scans. For i32 / f32 / f64 over opt.log2_sizes(), plus an 8-byte
// affine-map scan (custom, non-commutative operator) at 2^27 and a 32-byte struct scan at 2^25,
// one row each for:
//   cub                     cub::DeviceScan directly, temporaries allocated outside the timing
//                           (the baseline: ratios are against this row)
//   thrust                  thrust::inclusive_scan(thrust::device, ...)
//   memcpy                  cudaMemcpyAsync device-to-device of the same bytes (the ceiling)
//   algo::cub               the library's CUB policy
//   algo::cuda              the default in-house policy (decoupled look-back, shuffle warp scans)
//   algo::cuda <strategy>/<warp phase>   every strategy x warp phase (warp scans + spine block scan)
//   algo::cuda decoupled_lookback/<block scan>   the default look-back with the seed's block scans,
//                                        kogge_stone and brent_kung (arithmetic sums: i32/f32/f64),
//                                        beside decoupled_lookback/shfl (the default warp scans)
//   algo::cuda lookback <variant>        look-back tunings (arithmetic sums): the first runs' polling
//                                        (no delays), adjacent status words (spread 1), 2 windows
//                                        of 32 predecessors per poll, 256-thread tiles
//   algo::cuda deterministic ...         the deterministic look-back (arithmetic sums, shuffle warp
//                                        scans): the policy's strategy (bitwise reproducible), its
//                                        2-windows-per-poll variant, for f64 two register variants
//                                        (8 blocks/SM, 12 items per thread)
//   algo::cuda lookback unlaundered      the default look-back without scan_config's launder_items
//                                        (the default before 2026-11-23's change)
// Bytes = read + written (2 n sizeof(T)). Inputs rotate through bench::rotating_buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <cstring>
#include <type_traits>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace bench {
namespace scan_bench {

/// The map x -> a*x + b; composing "apply f, then g" is associative and not commutative.
struct affine_map {
  float a, b;
};
struct compose {
  __host__ __device__ affine_map operator()(const affine_map& f, const affine_map& g) const {
    return affine_map{f.a * g.a, g.a * f.b + g.b};
  }
};
/// 32 bytes: eight int32 lanes added element-wise.
struct int8x {
  int v[8];
};
struct add8 {
  __host__ __device__ int8x operator()(const int8x& x, const int8x& y) const {
    int8x r;
#pragma unroll
    for (int k = 0; k < 8; ++k) r.v[k] = x.v[k] + y.v[k];
    return r;
  }
};

/// Rotated input copies for struct types (bench::rotating_buffers fills through a conversion from
/// an integer, which structs lack): filled word by word from the harness's integer generator,
/// then mapped into shape by `fix`.
template <class T>
struct struct_buffers {
  std::vector<T*> ptrs;
  template <class Fix>
  struct_buffers(std::int64_t n, int copies, Fix fix) {
    static_assert(sizeof(T) % 4 == 0, "struct_buffers fills 4-byte words");
    for (int i = 0; i < copies; ++i) {
      T* p = nullptr;
      check(cudaMalloc(&p, sizeof(T) * static_cast<std::size_t>(n)), "cudaMalloc");
      fill_random(reinterpret_cast<int*>(p), n * static_cast<std::int64_t>(sizeof(T) / 4), 17u + i);
      fix(p, n);
      ptrs.push_back(p);
    }
    check(cudaDeviceSynchronize(), "fill");
  }
  ~struct_buffers() {
    for (auto p : ptrs) cudaFree(p);
  }
  T* operator[](int rep) const { return ptrs[rep % ptrs.size()]; }
};

/// Random ints 1..61 in both words -> a in [0.5, 1), b in (0, 1]: compositions stay bounded.
__global__ void make_affine(affine_map* d, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    int a, b;
    memcpy(&a, &d[i].a, 4);
    memcpy(&b, &d[i].b, 4);
    d[i] = affine_map{0.5f + static_cast<float>(a) / 128.0f, static_cast<float>(b) / 61.0f};
  }
}
struct fix_affine {
  void operator()(affine_map* p, std::int64_t n) const { make_affine<<<1024, 256>>>(p, n); }
};
struct fix_nothing {
  template <class T>
  void operator()(T*, std::int64_t) const {}
};

template <class T>
std::string type_label();
template <> inline std::string type_label<int>() { return "i32"; }
template <> inline std::string type_label<float>() { return "f32"; }
template <> inline std::string type_label<double>() { return "f64"; }
template <> inline std::string type_label<affine_map>() { return "affine 8B"; }
template <> inline std::string type_label<int8x>() { return "struct 32B"; }

/// Marks the arithmetic sums: CUB's InclusiveSum, thrust's and algo's overloads without an operator.
struct sum {};

template <class T, class Op, class Policy>
void scan_with(const Policy& policy, const T* first, std::int64_t n, T* out, Op op) {
  if constexpr (std::is_same<Op, sum>::value) {
    algo::inclusive_scan(policy, first, first + n, out);
  } else {
    algo::inclusive_scan(policy, first, first + n, out, op);
  }
}

/// Rows for one algo::cuda policy variant.
template <class T, class Op, class Policy, class Buffers>
void time_algo(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n, Op op,
               const Policy& policy, const std::string& impl) {
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const double ms = median_ms(opt, [&](int r) { scan_with(policy, in[r], n, out, op); });
  rep.add({"inclusive_scan", type_label<T>(), n, impl, ms, bytes, "cub"});
}

template <class T, class Op, class Policy, class Buffers>
void time_strategies(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n, Op op,
                     const Policy& base) {
  using namespace algo;
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::scan_then_fan).with(warp_phase::shfl), "algo::cuda scan_then_fan/shfl");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::scan_then_fan).with(warp_phase::smem), "algo::cuda scan_then_fan/smem");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::reduce_then_scan).with(warp_phase::shfl), "algo::cuda reduce_then_scan/shfl");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::reduce_then_scan).with(warp_phase::smem), "algo::cuda reduce_then_scan/smem");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::two_level).with(warp_phase::shfl), "algo::cuda two_level/shfl");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::two_level).with(warp_phase::smem), "algo::cuda two_level/smem");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::decoupled_lookback).with(warp_phase::shfl), "algo::cuda decoupled_lookback/shfl");
  time_algo(opt, rep, in, out, n, op, base.with(scan_strategy::decoupled_lookback).with(warp_phase::smem), "algo::cuda decoupled_lookback/smem");
}

/// The block scans of seed 001 under the default look-back, for the arithmetic sums only (the
/// "decoupled_lookback/shfl" row of time_strategies is the default warp-scans spine).
template <class T, class Op, class Buffers>
void time_block_scans(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n, Op op) {
  if constexpr (std::is_same<Op, sum>::value) {
    time_algo(opt, rep, in, out, n, op, algo::cuda.with(algo::block_scan::kogge_stone),
              "algo::cuda decoupled_lookback/kogge_stone");
    time_algo(opt, rep, in, out, n, op, algo::cuda.with(algo::block_scan::brent_kung),
              "algo::cuda decoupled_lookback/brent_kung");
  }
}

// ---- look-back tuning variants (arithmetic sums only) ------------------------------------------------
/// Tunings compared with the default in "algo::cuda lookback <variant>" rows (see bench/notes/scan.md,
/// Scan): the polling of the first runs (no initial delay, 32..512 ns), adjacent status words,
/// windows of 32 predecessors per poll, 256-thread tiles.
struct lookback_no_delays : algo::detail::cuda::scan_tuning_base {
  static constexpr unsigned lookback_initial_delay_ns = 0;
  static constexpr unsigned lookback_first_sleep_ns = 32;
  static constexpr unsigned lookback_max_sleep_ns = 512;
};
struct lookback_spread1 : algo::detail::cuda::scan_tuning_base {
  static constexpr int tile_state_spread = 1;
};
struct lookback_w2 : algo::detail::cuda::scan_tuning_base {
  static constexpr int lookback_windows = 2;
};
struct lookback_t128 : algo::detail::cuda::scan_tuning_base {  // the 4-byte default before 2026-11-23
  static constexpr int threads = 128;
};

template <class T, class Tuning, class Buffers>
void time_lookback_variant(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n,
                           const std::string& impl) {
  namespace ad = algo::detail;
  namespace adc = algo::detail::cuda;
  using Op = ad::accumulate_with<algo::plus<>, T>;
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const double ms = median_ms(opt, [&](int r) {
    const adc::scan_problem<T, const T*, T*, Op> p{in[r], out, n, Op{}, adc::none<T>(), false, "inclusive_scan"};
    adc::run_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, 0);
  });
  rep.add({"inclusive_scan", type_label<T>(), n, impl, ms, bytes, "cub"});
}

template <class T, class Op, class Buffers>
void time_lookback_variants(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n) {
  if constexpr (std::is_same<Op, sum>::value) {
    time_lookback_variant<T, lookback_no_delays>(opt, rep, in, out, n, "algo::cuda lookback no delays");
    time_lookback_variant<T, lookback_spread1>(opt, rep, in, out, n, "algo::cuda lookback spread 1");
    time_lookback_variant<T, lookback_w2>(opt, rep, in, out, n, "algo::cuda lookback W=2");
    time_lookback_variant<T, lookback_t128>(opt, rep, in, out, n, "algo::cuda lookback 128 threads");
  }
}

// ---- the deterministic look-back (arithmetic sums only) -------------------------------------------------
/// Rows "algo::cuda deterministic_lookback" (the policy), "... deterministic W=2", for f64 "...
/// deterministic 8 blocks/SM" and "... 12 items", and "algo::cuda lookback unlaundered" (the
/// default look-back without the register-saving change to the tile code, scan_config.cuh's
/// launder_items, as it ran before 2026-11-23's change): the strategy's cost against "algo::cuda".
struct deterministic_w2 : algo::detail::cuda::deterministic_tuning_base {
  static constexpr int lookback_windows = 2;
};
struct lookback_unlaundered : algo::detail::cuda::scan_tuning_base {
  static constexpr bool launder_items = false;
};
/// f64: the deterministic kernel at 8 blocks per SM (64 registers; 7 by default, 72 registers),
/// and with 12 items per thread instead of 16 (fewer live items across the look-back).
struct deterministic_8blocks : algo::detail::cuda::deterministic_tuning_base {
  static constexpr int min_blocks_override = 8;
};
struct deterministic_items12 : algo::detail::cuda::deterministic_tuning_base {
  static constexpr int items_override = 12;
};

template <class T, class Buffers>
void time_deterministic(const options& opt, report& rep, const Buffers& in, T* out, std::int64_t n) {
  namespace ad = algo::detail;
  namespace adc = algo::detail::cuda;
  using Op = ad::accumulate_with<algo::plus<>, T>;
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  time_algo(opt, rep, in, out, n, sum{}, algo::cuda.with(algo::scan_strategy::deterministic_lookback),
            "algo::cuda deterministic_lookback");
  time_algo(opt, rep, in, out, n, sum{}, algo::cuda.with(algo::scan_strategy::ordered_lookback),
            "algo::cuda ordered_lookback");
  const auto det_variant = [&](auto tuning, const char* label) {
    using Tuning = decltype(tuning);
    const double ms = median_ms(opt, [&](int r) {
      const adc::scan_problem<T, const T*, T*, Op> p{in[r], out, n, Op{}, adc::none<T>(), false, "inclusive_scan"};
      adc::run_deterministic_lookback_tuned<algo::warp_phase::shfl_t, algo::block_scan::warp_scans_t, Tuning>(p, 0);
    });
    rep.add({"inclusive_scan", type_label<T>(), n, label, ms, bytes, "cub"});
  };
  det_variant(deterministic_w2{}, "algo::cuda deterministic W=2");
  if constexpr (sizeof(T) == 8) {
    det_variant(deterministic_8blocks{}, "algo::cuda deterministic 8 blocks/SM");
    det_variant(deterministic_items12{}, "algo::cuda deterministic 12 items");
  }
  time_lookback_variant<T, lookback_unlaundered>(opt, rep, in, out, n, "algo::cuda lookback unlaundered");
}

/// Every row for n elements of T scanned with op.
template <class T, class Op, class Buffers>
void run_one(const options& opt, report& rep, std::int64_t n, Op op, const Buffers& in) {
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
  const std::string type = type_label<T>();
  T* out = nullptr;
  check(cudaMalloc(&out, sizeof(T) * static_cast<std::size_t>(n)), "cudaMalloc");

  // ---- cub (baseline): temporaries sized and allocated once, outside the timing
  {
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp, std::size_t& temp_bytes, const T* first) {
      if constexpr (std::is_same<Op, sum>::value) {
        return cub::DeviceScan::InclusiveSum(temp, temp_bytes, first, out, n);
      } else {
        return cub::DeviceScan::InclusiveScan(temp, temp_bytes, first, out, op, n);
      }
    };
    check(call(nullptr, temp_bytes, in[0]), "cub sizing");
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1), "cudaMalloc");
    const double ms = median_ms(opt, [&](int r) { call(temp, temp_bytes, in[r]); });
    rep.add({"inclusive_scan", type, n, "cub", ms, bytes, "cub"});
    cudaFree(temp);
  }
  // ---- thrust
  {
    const double ms = median_ms(opt, [&](int r) {
      if constexpr (std::is_same<Op, sum>::value) {
        thrust::inclusive_scan(thrust::device, in[r], in[r] + n, out);
      } else {
        thrust::inclusive_scan(thrust::device, in[r], in[r] + n, out, op);
      }
    });
    rep.add({"inclusive_scan", type, n, "thrust", ms, bytes, "cub"});
  }
  // ---- memcpy (the ceiling)
  {
    const double ms = median_ms(opt, [&](int r) {
      cudaMemcpyAsync(out, in[r], sizeof(T) * static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice);
    });
    rep.add({"inclusive_scan", type, n, "memcpy", ms, bytes, "cub"});
  }
  // ---- the library
  time_algo(opt, rep, in, out, n, op, algo::cub, "algo::cub");
  time_algo(opt, rep, in, out, n, op, algo::cuda, "algo::cuda");
  time_strategies(opt, rep, in, out, n, op, algo::cuda);
  time_block_scans(opt, rep, in, out, n, op);
  time_lookback_variants<T, Op>(opt, rep, in, out, n);
  if constexpr (std::is_same<Op, sum>::value) time_deterministic<T>(opt, rep, in, out, n);
  cudaFree(out);
}

}  // namespace scan_bench

inline void run_scan(const options& opt, report& rep) {
  using namespace scan_bench;
  auto arithmetic = [&](auto tag) {
    using T = decltype(tag);
    for (int k : opt.log2_sizes()) {
      const std::int64_t n = std::int64_t(1) << k;
      rotating_buffers<T> in(n, rotation_count(static_cast<std::size_t>(n) * sizeof(T)));
      run_one<T>(opt, rep, n, sum{}, in);
    }
  };
  arithmetic(int{});
  arithmetic(float{});
  arithmetic(double{});
  {
    const std::int64_t n = std::int64_t(1) << (opt.max_log2 < 27 ? opt.max_log2 : 27);
    struct_buffers<affine_map> in(n, rotation_count(static_cast<std::size_t>(n) * sizeof(affine_map)), fix_affine{});
    run_one<affine_map>(opt, rep, n, compose{}, in);
  }
  {
    const std::int64_t n = std::int64_t(1) << (opt.max_log2 < 25 ? opt.max_log2 : 25);
    struct_buffers<int8x> in(n, rotation_count(static_cast<std::size_t>(n) * sizeof(int8x)), fix_nothing{});
    run_one<int8x>(opt, rep, n, add8{}, in);
  }
}

}  // namespace bench
