// Group-by on unsorted keys (issue 13): 2^26 records (2^24 with --quick), int keys, f32 and i64
// values; m = 1024, 2^20 and 2^24 distinct keys drawn uniformly, and the same m Zipf-skewed (key
// rank r with probability about 1 / (r + 1): rank = floor(m^u) - 1, u uniform); in the same run:
//   thrust sort+reduce_by_key   what users do today: copies of keys and values (the sort permutes
//                               them), thrust::sort_by_key, thrust::reduce_by_key; the baseline
//                               every row's ratio is taken against (groups in key order, not in
//                               order of first appearance: less than group_reduce promises)
//   algo::cub                   CUB's radix sort + ReduceByKey, then the groups sorted by first index
//   cuco::static_map ...        cuCollections' insert_or_apply (only with -DALGO_CUCO_DIR; group_cuco.cuh)
//   algo::cuda                  the default: open_addressing; one table (shared-memory table in
//                               front) or, when a sample of the first 4096 records shows mostly keys
//                               seen once, the partitioned build (issue 27 item 5: radix-style
//                               scatter passes by hash bits, each partition aggregated in shared memory)
//   one table (no switch)       the default forced to one table (the build before item 5)
//   partitioned (forced)        the default forced to the partitioned build
//   partitioned, no hot keys    the same without its hot keys (partitioned.cuh: every record
//                               through the scatter passes, as before the hot keys)
//   algo::cuda deterministic    exact float sums (i64: the same table as the default)
//   algo::cuda locked_chaining  CUDA by Example's table (f32, uniform keys only; one timed run: on
//                               Zipf keys it took 148 s at m = 1024, every record waiting on one lock)
//   oa tuning: ...              (f32) the default strategy with other build tunings
//                               (detail/group/build.cuh, oa_tuning): a report every 16 records a
//                               thread instead of 4; a 2 MB or 32 MB first table instead of 64 MB; no
//                               shared-memory table in front; the first two together; records
//                               grouped first into 32 or 128 partitions by hash (each owning one
//                               region of the table: partition_bits); the same with 32 partitions
//                               only once the first table overflows (partition_bits_on_growth); the
//                               build kernel capped to 32 registers, 8 blocks an SM (build_min_blocks)
// Bytes: keys and values read once, the groups written.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <cstdio>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <algo/algo.hpp>

#include "harness.cuh"
#if ALGO_BENCH_CUCO
#include "group_cuco.cuh"
#endif

namespace bench {

namespace group_bench {
/// Build tunings timed beside the default (algo::detail::group::oa_tuning).
struct report16 : algo::detail::group::oa_tuning {
  static constexpr int report_every = 16;
};
struct first2mb : algo::detail::group::oa_tuning {
  static constexpr std::size_t first_table_bytes = std::size_t(2) << 20;
};
struct first32mb : algo::detail::group::oa_tuning {
  static constexpr std::size_t first_table_bytes = std::size_t(32) << 20;
};
struct no_front : algo::detail::group::oa_tuning {
  static constexpr std::size_t front_bytes = 0;
};
struct first2mb_report16 : algo::detail::group::oa_tuning {
  static constexpr int report_every = 16;
  static constexpr std::size_t first_table_bytes = std::size_t(2) << 20;
};
struct partitions32 : algo::detail::group::oa_tuning {
  static constexpr int partition_bits = 5;
};
struct partitions128 : algo::detail::group::oa_tuning {
  static constexpr int partition_bits = 7;
};
struct partitions32_on_growth : algo::detail::group::oa_tuning {
  static constexpr int partition_bits_on_growth = 5;
};
/// The build kernel capped to 32 registers so that an SM holds 8 of its blocks (6 at ptxas's 38).
struct blocks8 : algo::detail::group::oa_tuning {
  static constexpr int build_min_blocks = 8;
};
/// The default without its switch: always one table (the build before issue 27 item 5) ...
struct one_table : algo::detail::group::oa_tuning {
  static constexpr int table_choice = algo::detail::group::table_choice_one;
};
/// ... with its switch but its first table as before the sample sized it (64 MB, or what n
/// records need) ...
struct unsized_table : algo::detail::group::oa_tuning {
  static constexpr bool sample_sizes_table = false;
};
/// ... and always the partitioned build (detail/group/partitioned.cuh).
struct partitioned : algo::detail::group::oa_tuning {
  static constexpr int table_choice = algo::detail::group::table_choice_partitioned;
};
/// ... the same without its hot keys (every record through the scatter passes).
struct partitioned_no_hot : partitioned {
  static constexpr bool hot_keys = false;
};
/// ... and always its one-pass form (256 partitions, a block each; the default's sample takes it
/// only where oa_tuning::onepass_min_keys > 0: off).
struct onepass : algo::detail::group::oa_tuning {
  static constexpr int table_choice = algo::detail::group::table_choice_onepass;
};

template <class Tuning, class V>
std::int64_t group_reduce_tuned(const int* k, const V* v, std::int64_t n, int* ko, V* vo) {
  return algo::detail::group::group_reduce_open_addressing<false, Tuning>(
      algo::cuda, k, v, n, ko, vo, algo::plus<>{}, algo::hash<>{}, algo::equal_to<>{});
}

template <class T>
struct dev_array {
  T* p = nullptr;
  explicit dev_array(std::size_t n) { check(cudaMalloc(&p, sizeof(T) * (n ? n : 1)), "cudaMalloc"); }
  ~dev_array() { cudaFree(p); }
  dev_array(const dev_array&) = delete;
};

__device__ inline std::uint32_t mix32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}
/// keys[i] = a distinct int per rank (spread over the int range); rank uniform in [0, m) or
/// log-uniform (Zipf-like).
__global__ void make_keys_kernel(int* keys, long long n, long long m, bool skewed, std::uint32_t seed) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const double lm = log(static_cast<double>(m));
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const std::uint32_t h = mix32(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + seed);
    long long r;
    if (!skewed) {
      r = static_cast<long long>(h % static_cast<std::uint32_t>(m));
    } else {
      const double u = (h + 0.5) / 4294967296.0;
      r = static_cast<long long>(exp(u * lm)) - 1;
      r = r < 0 ? 0 : (r >= m ? m - 1 : r);
    }
    keys[i] = static_cast<int>(static_cast<std::uint32_t>(r) * 2654435761u + 12345u);
  }
}
}  // namespace group_bench

template <class V>
void run_group_reduce_type(const options& opt, report& rep, const char* vname, std::int64_t n) {
  using group_bench::dev_array;
  dev_array<int> keys(static_cast<std::size_t>(n)), k_copy(static_cast<std::size_t>(n)),
      k_out(static_cast<std::size_t>(n));
  dev_array<V> values(static_cast<std::size_t>(n)), v_copy(static_cast<std::size_t>(n)), v_out(static_cast<std::size_t>(n));
  fill_random(values.p, n, 5);
  struct shape {
    long long m;
    bool skewed;
  };
  const shape shapes[] = {{1024, false}, {1 << 20, false}, {1 << 24, false},
                          {1024, true},  {1 << 20, true},  {1 << 24, true}};
  for (const shape& sh : shapes) {
    const std::string type = std::string(vname) + (sh.skewed ? " zipf m=" : " uniform m=") +
                             (sh.m == 1024 ? "1024" : sh.m == (1 << 20) ? "2^20" : "2^24");
    if (!opt.wants_case(type)) continue;
    group_bench::make_keys_kernel<<<1024, 256>>>(keys.p, n, sh.m, sh.skewed, 7u);
    check(cudaDeviceSynchronize(), "make_keys");
    const std::int64_t groups = algo::group_reduce(algo::cuda, keys.p, keys.p + n, values.p, k_out.p, v_out.p);
    check(cudaDeviceSynchronize(), "group_reduce");
    const double bytes = static_cast<double>(n) * (4.0 + sizeof(V)) + static_cast<double>(groups) * (4.0 + sizeof(V));
    std::printf("  (%s: %lld groups)\n", type.c_str(), static_cast<long long>(groups));
    const char* base = "thrust sort+reduce_by_key";
    auto add = [&](const std::string& impl, double ms) { rep.add(row{"group_reduce", type, n, impl, ms, bytes, base}); };
    auto timed = [&](const std::string& impl, auto&& fn) {
      if (opt.wants_impl(impl)) add(impl, median_ms(opt, fn));
    };
    timed(base, [&](int) {
      check(cudaMemcpyAsync(k_copy.p, keys.p, sizeof(int) * n, cudaMemcpyDeviceToDevice), "copy");
      check(cudaMemcpyAsync(v_copy.p, values.p, sizeof(V) * n, cudaMemcpyDeviceToDevice), "copy");
      thrust::sort_by_key(thrust::device, k_copy.p, k_copy.p + n, v_copy.p);
      thrust::reduce_by_key(thrust::device, k_copy.p, k_copy.p + n, v_copy.p, k_out.p, v_out.p);
    });
    timed("algo::cub", [&](int) {
      algo::group_reduce(algo::cub, keys.p, keys.p + n, values.p, k_out.p, v_out.p);
    });
#if ALGO_BENCH_CUCO
    {
      // a key no record holds: rank m's key (the rank -> key map is a bijection of 32-bit values)
      const int absent = static_cast<int>(static_cast<std::uint32_t>(sh.m) * 2654435761u + 12345u);
      group_bench::cuco_row(opt, keys.p, values.p, n, sh.m, absent, k_out.p, v_out.p, groups, add);
    }
#endif
    timed("algo::cuda (open_addressing)", [&](int) {
      algo::group_reduce(algo::cuda, keys.p, keys.p + n, values.p, k_out.p, v_out.p);
    });
    // the default's two builds, each forced (the default picks one from a sample of the first records)
    timed("algo::cuda one table (no switch)", [&](int) {
      group_bench::group_reduce_tuned<group_bench::one_table>(keys.p, values.p, n, k_out.p, v_out.p);
    });
    timed("algo::cuda, first table not sized by the sample", [&](int) {
      group_bench::group_reduce_tuned<group_bench::unsized_table>(keys.p, values.p, n, k_out.p, v_out.p);
    });
    timed("algo::cuda partitioned (forced)", [&](int) {
      group_bench::group_reduce_tuned<group_bench::partitioned>(keys.p, values.p, n, k_out.p, v_out.p);
    });
    timed("algo::cuda partitioned, no hot keys", [&](int) {
      group_bench::group_reduce_tuned<group_bench::partitioned_no_hot>(keys.p, values.p, n, k_out.p, v_out.p);
    });
    timed("algo::cuda partitioned, one pass (forced)", [&](int) {
      group_bench::group_reduce_tuned<group_bench::onepass>(keys.p, values.p, n, k_out.p, v_out.p);
    });
    timed("algo::cuda deterministic", [&](int) {
      algo::group_reduce(algo::cuda.with(algo::group_strategy::deterministic), keys.p, keys.p + n, values.p, k_out.p,
                         v_out.p);
    });
    if constexpr (std::is_same<V, float>::value) {
      using namespace group_bench;
      // each tuning's groups checked against the default's (the keys, in order of first appearance)
      std::vector<int> want, got;
      std::vector<float> want_v, got_v;
      auto groups_of = [&](std::int64_t count, std::vector<int>& h, std::vector<float>& hv) {
        h.resize(static_cast<std::size_t>(count));
        hv.resize(static_cast<std::size_t>(count));
        check(cudaMemcpy(h.data(), k_out.p, sizeof(int) * h.size(), cudaMemcpyDeviceToHost), "copy keys");
        check(cudaMemcpy(hv.data(), v_out.p, sizeof(float) * hv.size(), cudaMemcpyDeviceToHost), "copy values");
      };
      if (opt.wants_impl("oa tuning")) {
        algo::group_reduce(algo::cuda, keys.p, keys.p + n, values.p, k_out.p, v_out.p);
        groups_of(groups, want, want_v);
      }
      auto tuned = [&](const std::string& impl, auto run) {
        if (!opt.wants_impl(impl)) return;
        const std::int64_t g = run();
        groups_of(g, got, got_v);
        std::size_t bad = 0;  // sums in another order: equal to a few ulps of the magnitudes added
        for (std::size_t j = 0; j < got_v.size() && j < want_v.size(); ++j)
          bad += std::fabs(got_v[j] - want_v[j]) > 1e-3f * (1.0f + std::fabs(want_v[j]));
        if (g != groups || got != want || bad)
          std::printf("  !! %s: %lld groups, their keys or %zu sums differ from the default's\n", impl.c_str(),
                      static_cast<long long>(g), bad);
        add(impl, median_ms(opt, [&](int) { run(); }));
      };
      tuned("oa tuning: 8 blocks an SM", [&] { return group_reduce_tuned<blocks8>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: report every 16", [&] { return group_reduce_tuned<report16>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: first table 2 MB", [&] { return group_reduce_tuned<first2mb>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: first table 32 MB", [&] { return group_reduce_tuned<first32mb>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: no shared front", [&] { return group_reduce_tuned<no_front>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: 2 MB + report 16",
            [&] { return group_reduce_tuned<first2mb_report16>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: 32 partitions", [&] { return group_reduce_tuned<partitions32>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: 128 partitions",
            [&] { return group_reduce_tuned<partitions128>(keys.p, values.p, n, k_out.p, v_out.p); });
      tuned("oa tuning: 32 partitions once the first table overflows",
            [&] { return group_reduce_tuned<partitions32_on_growth>(keys.p, values.p, n, k_out.p, v_out.p); });
    }
    // locked_chaining on skewed keys serializes on the hottest key's lock: 148 s for 2^26 Zipf records
    // with m = 1024 on the H100 (2026-11-23), so its skewed rows are left out
    if constexpr (std::is_same<V, float>::value) if (!sh.skewed && opt.wants_impl("algo::cuda locked_chaining (1 run)")) {
      cudaEvent_t a, b;
      check(cudaEventCreate(&a), "cudaEventCreate");
      check(cudaEventCreate(&b), "cudaEventCreate");
      check(cudaEventRecord(a), "cudaEventRecord");
      algo::group_reduce(algo::cuda.with(algo::group_strategy::locked_chaining), keys.p, keys.p + n, values.p, k_out.p,
                         v_out.p);
      check(cudaEventRecord(b), "cudaEventRecord");
      check(cudaEventSynchronize(b), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
      cudaEventDestroy(a);
      cudaEventDestroy(b);
      add("algo::cuda locked_chaining (1 run)", ms);
    }
  }
}

inline void run_group_reduce(const options& opt, report& rep) {
  const std::int64_t n = std::int64_t(1) << (opt.quick ? 24 : 26);
#if !ALGO_BENCH_CUCO
  std::printf("(group_reduce: no cuco::static_map row in this build: configure the bench with "
              "-DALGO_CUCO_DIR=<cuCollections>/include)\n");
#endif
  run_group_reduce_type<float>(opt, rep, "f32", n);
  run_group_reduce_type<long long>(opt, rep, "i64", n);
}

}  // namespace bench
