// Segmented and keyed algorithms (issue 12): 2^26 floats (2^24 with --quick), int keys, segments
// of uniform length L = 4, 32, 256, 4096, 2^20 and a power-law mix of lengths (Pareto, alpha 1.2,
// lengths 1 .. 2^20, with empty segments), each against CUB and a device-to-device copy of the
// values in the same run:
//   segmented_reduce      cub::DeviceSegmentedReduce::Sum (offsets in memory) / algo::cub /
//                         algo::cuda (offsets in memory) / algo::cuda with algo::uniform_offsets /
//                         algo::cuda's lifted scan (a named scan strategy) / thrust::reduce_by_key
//                         on segment keys / cuBLAS gemv row sums (uniform L: an S x L matrix times
//                         a vector of ones)
//   inclusive_scan_by_key cub::DeviceScan::InclusiveSumByKey / algo::cuda (keys) / algo::cuda
//                         segmented_inclusive_scan with uniform offsets (no keys to read)
//   reduce_by_key         cub::DeviceReduce::ReduceByKey / algo::cuda and algo::cub through
//                         reduce_by_key_into (the run count left on the device, as CUB's) / algo::cuda
//                         reduce_by_key (the count returned to the host: a synchronization more)
//   segmented scans       (L = 32 and 2^20) segmented_inclusive_scan on each algo::cuda scan
//                         strategy: the classic-strategies rows of the segmented forms
// Bytes: what each must move (values read; + keys read; + outputs written).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cublas_v2.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace bench {

template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t n) { check(cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(n, 1)), "cudaMalloc"); }
  explicit device_array(const std::vector<T>& h) : device_array(h.size()) {
    check(cudaMemcpy(p, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
};

/// CUB's two-call protocol with the temporaries allocated once, outside the timed region.
struct cub_temp {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class F>
  explicit cub_temp(F&& size_call) {
    check(size_call(nullptr, bytes), "cub (size)");
    check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
  }
  ~cub_temp() { cudaFree(p); }
};

inline std::vector<int> segment_offsets(std::int64_t n, std::int64_t L, bool power_law) {
  std::vector<int> o{0};
  if (!power_law) {
    for (std::int64_t k = L; k < n; k += L) o.push_back(static_cast<int>(k));
    o.push_back(static_cast<int>(n));
    return o;
  }
  std::mt19937_64 g(12);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  while (o.back() < n) {
    const double x = std::pow(1.0 - u(g), -1.0 / 1.2);  // Pareto(1.2) >= 1
    std::int64_t len = std::min<std::int64_t>(static_cast<std::int64_t>(x) - 1, std::int64_t(1) << 20);
    o.push_back(static_cast<int>(std::min<std::int64_t>(n, o.back() + len)));
  }
  return o;
}

inline void run_segmented(const options& opt, report& rep) {
  const std::int64_t n = std::int64_t(1) << (opt.quick ? 24 : 26);
  rotating_buffers<float> values(n, 1);
  device_array<float> out(static_cast<std::size_t>(n));
  device_array<int> keys_out(static_cast<std::size_t>(n));
  device_array<long long> runs(1);
  struct shape {
    std::int64_t L;
    bool power_law;
  };
  const std::vector<shape> shapes = {{4, false}, {32, false}, {256, false}, {4096, false}, {1 << 20, false}, {0, true}};
  cublasHandle_t blas = nullptr;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) blas = nullptr;
  device_array<float> ones(std::vector<float>(std::size_t(1) << 20, 1.0f));
  for (const shape& sh : shapes) {
    const std::vector<int> h_offsets = segment_offsets(n, sh.L, sh.power_law);
    const std::int64_t segments = static_cast<std::int64_t>(h_offsets.size()) - 1;
    std::vector<int> h_keys(static_cast<std::size_t>(n));
    for (std::int64_t s = 0; s < segments; ++s)
      for (int i = h_offsets[s]; i < h_offsets[s + 1]; ++i) h_keys[static_cast<std::size_t>(i)] = static_cast<int>(s);
    device_array<int> offsets(h_offsets), keys(h_keys);
    const std::string type = sh.power_law ? "f32 power-law" : "f32 L=" + std::to_string(sh.L);
    const float* v = values[0];
    const double vbytes = 4.0 * static_cast<double>(n);
    const double seg_bytes = vbytes + 4.0 * static_cast<double>(segments);
    const double scan_bytes = 3 * vbytes;      // keys + values read, values written
    const double rbk_bytes = 2 * vbytes + 8.0 * static_cast<double>(segments);
    auto add = [&](const char* alg, const std::string& impl, double ms, double bytes) {
      rep.add(row{alg, type, n, impl, ms, bytes, "cub"});
    };
    const double copy_ms = median_ms(opt, [&](int) {
      check(cudaMemcpyAsync(out.p, v, static_cast<std::size_t>(vbytes), cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    });

    // ---- segmented_reduce --------------------------------------------------------------------------
    add("segmented_reduce", "memcpy D2D (r+w bytes)", copy_ms, 2 * vbytes);
    {
      cub_temp t([&](void* p, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Sum(p, b, v, out.p, segments, offsets.p, offsets.p + 1);
      });
      add("segmented_reduce", "cub", median_ms(opt, [&](int) {
        std::size_t b = t.bytes;
        check(cub::DeviceSegmentedReduce::Sum(t.p, b, v, out.p, segments, offsets.p, offsets.p + 1), "cub segmented");
      }), seg_bytes);
    }
    add("segmented_reduce", "algo::cub", median_ms(opt, [&](int) {
      algo::segmented_reduce(algo::cub, v, offsets.p, offsets.p + segments + 1, out.p, 0.0f);
    }), seg_bytes);
    add("segmented_reduce", "algo::cuda", median_ms(opt, [&](int) {
      algo::segmented_reduce(algo::cuda, v, offsets.p, offsets.p + segments + 1, out.p, 0.0f);
    }), seg_bytes);
    if (!sh.power_law) {
      const auto u = algo::uniform_offsets(sh.L);
      add("segmented_reduce", "algo::cuda uniform_offsets", median_ms(opt, [&](int) {
        algo::segmented_reduce(algo::cuda, v, u, u + segments + 1, out.p, 0.0f);
      }), seg_bytes);
    }
    add("segmented_reduce", "algo::cuda lifted scan (deterministic_lookback)", median_ms(opt, [&](int) {
      algo::segmented_reduce(algo::cuda.with(algo::scan_strategy::deterministic_lookback), v, offsets.p,
                             offsets.p + segments + 1, out.p, 0.0f);
    }), seg_bytes);
    add("segmented_reduce", "thrust::reduce_by_key (segment keys)", median_ms(opt, [&](int) {
      thrust::reduce_by_key(thrust::device, keys.p, keys.p + n, v, keys_out.p, out.p);
    }), rbk_bytes);
    if (!sh.power_law && blas && sh.L <= (1 << 20)) {
      // row sums of the S x L row-major matrix: column-major L x S, y = A^T * ones
      const float one = 1.0f, zero = 0.0f;
      cublasSetStream(blas, nullptr);
      add("segmented_reduce", "cublas gemv (row sums)", median_ms(opt, [&](int) {
        cublasSgemv(blas, CUBLAS_OP_T, static_cast<int>(sh.L), static_cast<int>(segments), &one, v,
                    static_cast<int>(sh.L), ones.p, 1, &zero, out.p, 1);
      }), seg_bytes);
    }

    // ---- inclusive_scan_by_key ---------------------------------------------------------------------
    add("scan_by_key", "memcpy D2D (r+w bytes)", copy_ms, 2 * vbytes);
    {
      cub_temp t([&](void* p, std::size_t& b) {
        return cub::DeviceScan::InclusiveSumByKey(p, b, keys.p, v, out.p, static_cast<int>(n));
      });
      add("scan_by_key", "cub", median_ms(opt, [&](int) {
        std::size_t b = t.bytes;
        check(cub::DeviceScan::InclusiveSumByKey(t.p, b, keys.p, v, out.p, static_cast<int>(n)), "cub scan by key");
      }), scan_bytes);
    }
    add("scan_by_key", "algo::cub", median_ms(opt, [&](int) {
      algo::inclusive_scan_by_key(algo::cub, keys.p, keys.p + n, v, out.p);
    }), scan_bytes);
    add("scan_by_key", "algo::cuda", median_ms(opt, [&](int) {
      algo::inclusive_scan_by_key(algo::cuda, keys.p, keys.p + n, v, out.p);
    }), scan_bytes);
    add("scan_by_key", "algo::cuda decoupled_lookback (not reproducible)", median_ms(opt, [&](int) {
      algo::inclusive_scan_by_key(algo::cuda.with(algo::scan_strategy::decoupled_lookback), keys.p, keys.p + n, v, out.p);
    }), scan_bytes);
    add("scan_by_key", "algo::cuda ordered_lookback", median_ms(opt, [&](int) {
      algo::inclusive_scan_by_key(algo::cuda.with(algo::scan_strategy::ordered_lookback), keys.p, keys.p + n, v, out.p);
    }), scan_bytes);
    add("scan_by_key", "algo::cuda offsets (segmented_inclusive_scan)", median_ms(opt, [&](int) {
      algo::segmented_inclusive_scan(algo::cuda, v, offsets.p, offsets.p + segments + 1, out.p);
    }), 2 * vbytes);
    add("scan_by_key", "algo::cuda offsets ordered_lookback", median_ms(opt, [&](int) {
      algo::segmented_inclusive_scan(algo::cuda.with(algo::scan_strategy::ordered_lookback), v, offsets.p,
                                     offsets.p + segments + 1, out.p);
    }), 2 * vbytes);
    if (!sh.power_law) {
      const auto u = algo::uniform_offsets(sh.L);
      add("scan_by_key", "algo::cuda uniform_offsets", median_ms(opt, [&](int) {
        algo::segmented_inclusive_scan(algo::cuda, v, u, u + segments + 1, out.p);
      }), 2 * vbytes);
      add("scan_by_key", "algo::cuda uniform_offsets ordered_lookback", median_ms(opt, [&](int) {
        algo::segmented_inclusive_scan(algo::cuda.with(algo::scan_strategy::ordered_lookback), v, u, u + segments + 1,
                                       out.p);
      }), 2 * vbytes);
    }

    // ---- each scan strategy's segmented form (the classic-strategies rows), L = 32 and 2^20 ------------
    if (!sh.power_law && (sh.L == 32 || sh.L == (1 << 20))) {
      const auto u = algo::uniform_offsets(sh.L);
      auto strategy_row = [&](const char* impl, const auto& policy) {
        add("segmented_scan", impl, median_ms(opt, [&](int) {
          algo::segmented_inclusive_scan(policy, v, u, u + segments + 1, out.p);
        }), 2 * vbytes);
      };
      add("segmented_scan", "memcpy D2D (r+w bytes)", copy_ms, 2 * vbytes);
      {
        cub_temp t([&](void* p, std::size_t& b) {
          return cub::DeviceScan::InclusiveSumByKey(p, b, keys.p, v, out.p, static_cast<int>(n));
        });
        add("segmented_scan", "cub", median_ms(opt, [&](int) {
          std::size_t b = t.bytes;
          check(cub::DeviceScan::InclusiveSumByKey(t.p, b, keys.p, v, out.p, static_cast<int>(n)), "cub scan by key");
        }), scan_bytes);
      }
      strategy_row("algo::cuda scan_then_fan", algo::cuda.with(algo::scan_strategy::scan_then_fan));
      strategy_row("algo::cuda reduce_then_scan", algo::cuda.with(algo::scan_strategy::reduce_then_scan));
      strategy_row("algo::cuda two_level", algo::cuda.with(algo::scan_strategy::two_level));
      strategy_row("algo::cuda decoupled_lookback", algo::cuda.with(algo::scan_strategy::decoupled_lookback));
      strategy_row("algo::cuda deterministic_lookback", algo::cuda.with(algo::scan_strategy::deterministic_lookback));
      strategy_row("algo::cuda ordered_lookback", algo::cuda.with(algo::scan_strategy::ordered_lookback));
    }

    // ---- reduce_by_key -----------------------------------------------------------------------------
    add("reduce_by_key", "memcpy D2D (r+w bytes)", copy_ms, 2 * vbytes);
    {
      cub_temp t([&](void* p, std::size_t& b) {
        return cub::DeviceReduce::ReduceByKey(p, b, keys.p, keys_out.p, v, out.p, runs.p, cuda::std::plus<float>{},
                                              static_cast<int>(n));
      });
      add("reduce_by_key", "cub", median_ms(opt, [&](int) {
        std::size_t b = t.bytes;
        check(cub::DeviceReduce::ReduceByKey(t.p, b, keys.p, keys_out.p, v, out.p, runs.p, cuda::std::plus<float>{},
                                             static_cast<int>(n)),
              "cub reduce by key");
      }), rbk_bytes);
    }
    // algo rows: reduce_by_key_into, the run count left on the device as CUB's row leaves it (the
    // host-returning reduce_by_key adds a synchronization and a copy: its own row)
    add("reduce_by_key", "algo::cub", median_ms(opt, [&](int) {
      algo::reduce_by_key_into(algo::cub, keys.p, keys.p + n, v, keys_out.p, out.p, runs.p);
    }), rbk_bytes);
    add("reduce_by_key", "algo::cuda", median_ms(opt, [&](int) {
      algo::reduce_by_key_into(algo::cuda, keys.p, keys.p + n, v, keys_out.p, out.p, runs.p);
    }), rbk_bytes);
    add("reduce_by_key", "algo::cuda decoupled_lookback (not reproducible)", median_ms(opt, [&](int) {
      algo::reduce_by_key_into(algo::cuda.with(algo::scan_strategy::decoupled_lookback), keys.p, keys.p + n, v,
                               keys_out.p, out.p, runs.p);
    }), rbk_bytes);
    add("reduce_by_key", "algo::cuda ordered_lookback", median_ms(opt, [&](int) {
      algo::reduce_by_key_into(algo::cuda.with(algo::scan_strategy::ordered_lookback), keys.p, keys.p + n, v,
                               keys_out.p, out.p, runs.p);
    }), rbk_bytes);
    add("reduce_by_key", "algo::cuda reduce_by_key (count returned to the host)", median_ms(opt, [&](int) {
      algo::reduce_by_key(algo::cuda, keys.p, keys.p + n, v, keys_out.p, out.p);
    }), rbk_bytes);
  }
  if (blas) cublasDestroy(blas);
}

}  // namespace bench
