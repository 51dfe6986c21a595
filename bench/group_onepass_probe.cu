// group_onepass_probe: can ONE scatter pass of many partitions (2^12) replace the partitioned build's
// two 8-bit-or-less passes for group_reduce at 2^24 distinct keys (issue 27 item 5)? A development
// tool, like group_cluster_probe: no claim about group_reduce comes from it.
//
// The partitioned build (include/algo/detail/group/partitioned.cuh) puts 2^26 records in order of
// 15 hash bits in two radix-sort-like passes (a tile ranks its records per digit, stages them in
// digit order, writes each digit's run: 1.19 + 1.12 ms on an H100), then aggregates each ~2048
// records in a block's shared table (1.26 ms). At 4096 partitions a 2048-record tile holds half a
// record a digit, so staging gains nothing; instead each record's place in its partition comes from
// a shared-memory atomicAdd on the tile's counter of its digit (its rank in the tile), the tile
// reserves each non-empty digit's run with one global atomicAdd on the digit's cursor, and the
// record is written straight to cursor + rank (12 bytes a record: the word (index << 32 | key) and
// the value). The 4096 partitions' write fronts (2 x 4096 x 128 bytes) stay in the L2, where the
// records of one sector arrive from different tiles and are merged before the line leaves.
// Then a block a partition (~16384 records, ~4000 keys at 2^24) aggregates it in an 8192-slot
// shared table (keys, sums, first indices: 96 KB) and appends each group to its span's region of
// the group list (span = first index / 2048), as aggregate_kernel does.
// Rows: each kernel alone and the pipeline (histogram, plan, scatter, aggregate), against
// algo::group_reduce (algo::cuda, the default) and Thrust's sort_by_key + reduce_by_key of the same
// records in the same process, and a device-to-device copy of the records as the floor. Every
// variant's groups are checked against the Thrust reference (sums of small integers: exact; first
// indices exact).
//   group_onepass_probe [--log2n 26] [--log2m 24] [--reps 10]
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include <algo/group_reduce.hpp>

#include "group_probe.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

namespace {

using namespace group_probe;

constexpr std::uint32_t empty_key = 0xffffffffu;  // (make_records never makes it)

/// Record i: a key uniform over m distinct values, a small integer value (float sums stay exact).
__global__ void make_records(std::uint32_t* keys, float* vals, std::uint32_t* idx, long long n, std::uint32_t m) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t r = splitmix64(static_cast<std::uint64_t>(i));
  std::uint32_t k = static_cast<std::uint32_t>(r % m) * 2654435761u;
  if (k == empty_key) k = 0u;
  keys[i] = k;
  vals[i] = static_cast<float>(static_cast<int>((r >> 40) % 7) - 3);
  idx[i] = static_cast<std::uint32_t>(i);
}

__device__ __forceinline__ std::uint64_t hash_of(std::uint32_t k) { return splitmix64(k); }

// ---- histogram: records per partition (top Bits bits of the hash) -----------------------------------
template <int Bits>
__global__ void __launch_bounds__(1024) hist_kernel(const std::uint32_t* keys, long long n, unsigned* counts) {
  constexpr int R = 1 << Bits;
  __shared__ unsigned h[R];
  for (int d = threadIdx.x; d < R; d += 1024) h[d] = 0u;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * 1024;
  long long i = blockIdx.x * 1024ll + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    std::uint32_t k[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) k[j] = keys[i + j * stride];
#pragma unroll
    for (int j = 0; j < 4; ++j) atomicAdd(&h[hash_of(k[j]) >> (64 - Bits)], 1u);
  }
  for (; i < n; i += stride) atomicAdd(&h[hash_of(keys[i]) >> (64 - Bits)], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < R; d += 1024)
    if (h[d]) atomicAdd(&counts[d], h[d]);
}

// ---- plan: bounds and cursors (one block of 1024) ---------------------------------------------------
template <int Bits>
__global__ void __launch_bounds__(1024) plan_kernel(const unsigned* counts, unsigned* bounds, unsigned* cursor) {
  constexpr int R = 1 << Bits;
  constexpr int per = R / 1024;
  using scan_t = cub::BlockScan<unsigned, 1024>;
  __shared__ typename scan_t::TempStorage tmp;
  unsigned c[per], sum = 0;
#pragma unroll
  for (int j = 0; j < per; ++j) {
    c[j] = counts[threadIdx.x * per + j];
    sum += c[j];
  }
  unsigned before, all;
  scan_t(tmp).ExclusiveSum(sum, before, all);
#pragma unroll
  for (int j = 0; j < per; ++j) {
    bounds[threadIdx.x * per + j] = before;
    cursor[threadIdx.x * per + j] = before;
    before += c[j];
  }
  if (threadIdx.x == 0) bounds[R] = all;
}

// ---- scatter: one pass, a tile of Threads x Items records --------------------------------------------
template <int Bits, int Threads, int Items, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    scatter_kernel(const std::uint32_t* keys, const float* vals, long long n, unsigned* cursor,
                   unsigned long long* words_out, float* vals_out) {
  constexpr int R = 1 << Bits;
  static_assert(Threads * Items <= (1 << (32 - Bits)), "a record's rank and digit in one word");
  __shared__ unsigned cnt[R];
  __shared__ unsigned base[R];
  for (int d = threadIdx.x; d < R; d += Threads) cnt[d] = 0u;
  const long long t0 = blockIdx.x * static_cast<long long>(Threads * Items) + threadIdx.x;
  std::uint32_t k_[Items];
  float v_[Items];
  unsigned dr_[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {  // every load in flight first
    const long long i = t0 + j * Threads;
    if (i < n) {
      k_[j] = keys[i];
      v_[j] = vals[i];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const long long i = t0 + j * Threads;
    if (i < n) {
      const unsigned d = static_cast<unsigned>(hash_of(k_[j]) >> (64 - Bits));
      dr_[j] = d | (atomicAdd(&cnt[d], 1u) << Bits);
    }
  }
  __syncthreads();
  for (int d = threadIdx.x; d < R; d += Threads) {
    const unsigned c = cnt[d];
    if (c) base[d] = atomicAdd(&cursor[d], c);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const long long i = t0 + j * Threads;
    if (i < n) {
      const unsigned at = base[dr_[j] & (R - 1)] + (dr_[j] >> Bits);
      words_out[at] = (static_cast<unsigned long long>(i) << 32) | k_[j];
      vals_out[at] = v_[j];
    }
  }
}

// ---- aggregate: a block a partition, its keys in a shared table --------------------------------------
constexpr int span_bits = 11;

template <int Threads, int Slots, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    aggregate_kernel(const unsigned long long* words, const float* vals, const unsigned* bounds, unsigned* span_count,
                     unsigned long long* list_words, float* list_vals, unsigned* overflow) {
  extern __shared__ unsigned char smem[];
  std::uint32_t* tk = reinterpret_cast<std::uint32_t*>(smem);
  float* tv = reinterpret_cast<float*>(tk + Slots);
  std::uint32_t* tf = reinterpret_cast<std::uint32_t*>(tv + Slots);
  for (int s = threadIdx.x; s < Slots; s += Threads) {
    tk[s] = empty_key;
    tv[s] = 0.0f;
    tf[s] = 0xffffffffu;
  }
  const long long b = bounds[blockIdx.x], e = bounds[blockIdx.x + 1];
  __syncthreads();
  constexpr int batch = 4;
  for (long long i0 = b + threadIdx.x; i0 < e; i0 += Threads * batch) {
    unsigned long long w_[batch];
    float v_[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const long long i = i0 + j * Threads;
      if (i < e) {
        w_[j] = words[i];
        v_[j] = vals[i];
      }
    }
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      if (i0 + j * Threads >= e) continue;
      const std::uint32_t key = static_cast<std::uint32_t>(w_[j]);
      const std::uint32_t first = static_cast<std::uint32_t>(w_[j] >> 32);
      unsigned s = static_cast<unsigned>(hash_of(key)) & (Slots - 1);
      int probe = 0;
      for (; probe < Slots; ++probe, s = (s + 1) & (Slots - 1)) {
        std::uint32_t k = tk[s];
        if (k == empty_key) {
          k = atomicCAS(&tk[s], empty_key, key);
          if (k == empty_key) k = key;
        }
        if (k == key) {
          atomicAdd(&tv[s], v_[j]);
          atomicMin(&tf[s], first);
          break;
        }
      }
      if (probe == Slots) atomicAdd(overflow, 1u);
    }
  }
  __syncthreads();
  // each group to its span's region: 8 reservations in flight, then the 8 stores
  constexpr int per = Slots / Threads;
  static_assert(per % 8 == 0, "whole batches");
#pragma unroll 1
  for (int j0 = 0; j0 < per; j0 += 8) {
    unsigned occ = 0, off[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int s = (j0 + j) * Threads + threadIdx.x;
      if (tk[s] != empty_key) {
        occ |= 1u << j;
        off[j] = atomicAdd(&span_count[tf[s] >> span_bits], 1u);
      }
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if ((occ >> j) & 1u) {
        const int s = (j0 + j) * Threads + threadIdx.x;
        const unsigned long long at = (static_cast<unsigned long long>(tf[s] >> span_bits) << span_bits) + off[j];
        list_words[at] = (static_cast<unsigned long long>(tf[s]) << 32) | tk[s];
        list_vals[at] = tv[s];
      }
    }
  }
}

template <class T>
T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

/// The span list's groups against the reference (sorted by key): count, sums and first indices.
bool check_groups(const char* what, thrust::device_vector<unsigned long long>& lw, thrust::device_vector<float>& lv,
                  thrust::device_vector<unsigned>& span_count, const reference& ref, long long n) {
  const long long spans = n >> span_bits;
  std::vector<unsigned> cnt(spans);
  thrust::copy(span_count.begin(), span_count.begin() + spans, cnt.begin());
  std::vector<unsigned long long> w(n);
  std::vector<float> v(n);
  thrust::copy(lw.begin(), lw.end(), w.begin());
  thrust::copy(lv.begin(), lv.end(), v.begin());
  std::vector<std::tuple<std::uint32_t, std::uint32_t, float>> got;
  got.reserve(ref.k.size());
  for (long long s = 0; s < spans; ++s)
    for (unsigned j = 0; j < cnt[s]; ++j) {
      const unsigned long long word = w[(s << span_bits) + j];
      got.emplace_back(static_cast<std::uint32_t>(word), static_cast<std::uint32_t>(word >> 32), v[(s << span_bits) + j]);
    }
  if (got.size() != ref.k.size()) {
    std::printf("  CHECK %s: %zu groups, reference %zu\n", what, got.size(), ref.k.size());
    return false;
  }
  std::sort(got.begin(), got.end());
  long long bad = 0;
  for (std::size_t g = 0; g < got.size(); ++g)
    if (std::get<0>(got[g]) != ref.k[g] || std::get<1>(got[g]) != ref.first[g] || std::get<2>(got[g]) != ref.v[g]) {
      if (bad < 3)
        std::printf("  CHECK %s: group %zu (%u, %u, %g) reference (%u, %u, %g)\n", what, g, std::get<0>(got[g]),
                    std::get<1>(got[g]), std::get<2>(got[g]), ref.k[g], ref.first[g], ref.v[g]);
      ++bad;
    }
  std::printf("  check %s: %zu groups, %lld differ from the reference\n", what, got.size(), bad);
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 26, log2m = 24, reps = 10;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--log2n")) log2n = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--log2m")) log2m = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--reps")) reps = std::atoi(argv[a + 1]);
  }
  const long long n = 1ll << log2n;
  const std::uint32_t m = 1u << log2m;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "props");
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %lld records, %u distinct keys (uniform)\n", prop.name, n, m);

  thrust::device_vector<std::uint32_t> keys(n), idx(n);
  thrust::device_vector<float> vals(n);
  make_records<<<static_cast<unsigned>((n + 255) / 256), 256>>>(raw(keys), raw(vals), raw(idx), n, m);
  check(cudaDeviceSynchronize(), "make_records");

  // ---- the baseline: Thrust sort_by_key + reduce_by_key of copies; the reference with first indices ----
  const double t_thrust = time_thrust_sort_reduce(keys, vals, reps);
  const reference ref = thrust_reference(keys, vals, idx);
  std::printf("reference: %zu groups\n", ref.k.size());

  // ---- algo::group_reduce, the default, on the same records -----------------------------------------
  thrust::device_vector<std::uint32_t> ak(n);
  thrust::device_vector<float> av(n);
  std::int64_t agroups = 0;
  const double t_algo = time_ms(
      [&] { agroups = algo::group_reduce(algo::cuda, raw(keys), raw(keys) + n, raw(vals), raw(ak), raw(av)); }, reps);
  std::printf("algo::group_reduce: %lld groups (reference %zu)\n", static_cast<long long>(agroups), ref.k.size());

  // ---- floor: the records copied once (keys + values) ---------------------------------------------------
  thrust::device_vector<std::uint32_t> ck(n);
  thrust::device_vector<float> cv(n);
  const double t_copy = time_ms(
      [&] {
        check(cudaMemcpyAsync(raw(ck), raw(keys), n * 4, cudaMemcpyDeviceToDevice), "copy");
        check(cudaMemcpyAsync(raw(cv), raw(vals), n * 4, cudaMemcpyDeviceToDevice), "copy");
      },
      reps);

  // ---- the one-pass pipeline ------------------------------------------------------------------------------
  constexpr int bits = 12, parts = 1 << bits, slots = 8192;
  thrust::device_vector<unsigned> counts(parts), bounds(parts + 1), cursor(parts), overflow(1);
  thrust::device_vector<unsigned long long> words(n), lw(n);
  thrust::device_vector<float> pv(n), lv(n);
  thrust::device_vector<unsigned> span_count(n >> span_bits);
  const unsigned hist_grid = 2u * sms;
  const auto hist = [&] {
    check(cudaMemsetAsync(raw(counts), 0, parts * 4), "memset");
    hist_kernel<bits><<<hist_grid, 1024>>>(raw(keys), n, raw(counts));
  };
  const auto plan = [&] { plan_kernel<bits><<<1, 1024>>>(raw(counts), raw(bounds), raw(cursor)); };
  struct scatter_variant {
    const char* name;
    void (*launch)(const std::uint32_t*, const float*, long long, unsigned*, unsigned long long*, float*);
  };
  const scatter_variant scatters[] = {
      {"scatter 512 x 16 (8192 a tile)",
       [](const std::uint32_t* k, const float* v, long long nn, unsigned* c, unsigned long long* w, float* o) {
         scatter_kernel<bits, 512, 16, 2><<<static_cast<unsigned>((nn + 8191) / 8192), 512>>>(k, v, nn, c, w, o);
       }},
      {"scatter 512 x 8 (4096 a tile)",
       [](const std::uint32_t* k, const float* v, long long nn, unsigned* c, unsigned long long* w, float* o) {
         scatter_kernel<bits, 512, 8, 3><<<static_cast<unsigned>((nn + 4095) / 4096), 512>>>(k, v, nn, c, w, o);
       }},
      {"scatter 1024 x 8 (8192 a tile)",
       [](const std::uint32_t* k, const float* v, long long nn, unsigned* c, unsigned long long* w, float* o) {
         scatter_kernel<bits, 1024, 8, 2><<<static_cast<unsigned>((nn + 8191) / 8192), 1024>>>(k, v, nn, c, w, o);
       }},
      {"scatter 256 x 16 (4096 a tile)",
       [](const std::uint32_t* k, const float* v, long long nn, unsigned* c, unsigned long long* w, float* o) {
         scatter_kernel<bits, 256, 16, 4><<<static_cast<unsigned>((nn + 4095) / 4096), 256>>>(k, v, nn, c, w, o);
       }},
  };
  struct aggregate_variant {
    const char* name;
    std::size_t smem;
    void (*launch)(const unsigned long long*, const float*, const unsigned*, unsigned*, unsigned long long*, float*,
                   unsigned*);
  };
  constexpr std::size_t agg_smem = static_cast<std::size_t>(slots) * 12;
  check(cudaFuncSetAttribute(aggregate_kernel<512, slots, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(agg_smem)),
        "smem attr");
  check(cudaFuncSetAttribute(aggregate_kernel<1024, slots, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(agg_smem)),
        "smem attr");
  check(cudaFuncSetAttribute(aggregate_kernel<256, slots, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(agg_smem)),
        "smem attr");
  const aggregate_variant aggregates[] = {
      {"aggregate 512 threads, 8192 slots", agg_smem,
       [](const unsigned long long* w, const float* v, const unsigned* b, unsigned* sc, unsigned long long* lw_,
          float* lv_, unsigned* of) {
         aggregate_kernel<512, slots, 2><<<parts, 512, agg_smem>>>(w, v, b, sc, lw_, lv_, of);
       }},
      {"aggregate 1024 threads, 8192 slots", agg_smem,
       [](const unsigned long long* w, const float* v, const unsigned* b, unsigned* sc, unsigned long long* lw_,
          float* lv_, unsigned* of) {
         aggregate_kernel<1024, slots, 2><<<parts, 1024, agg_smem>>>(w, v, b, sc, lw_, lv_, of);
       }},
      {"aggregate 256 threads, 8192 slots", agg_smem,
       [](const unsigned long long* w, const float* v, const unsigned* b, unsigned* sc, unsigned long long* lw_,
          float* lv_, unsigned* of) {
         aggregate_kernel<256, slots, 2><<<parts, 256, agg_smem>>>(w, v, b, sc, lw_, lv_, of);
       }},
  };

  std::printf("\n%-44s %10s %10s\n", "row", "ms", "sort/row");
  const auto row = [&](const char* name, double ms) { std::printf("%-44s %10.4f %10.3f\n", name, ms, t_thrust / ms); };
  row("Thrust sort_by_key + reduce_by_key", t_thrust);
  row("algo::group_reduce (algo::cuda, default)", t_algo);
  row("copy of keys + values (floor)", t_copy);
  row("histogram (4096 partitions)", time_ms(hist, reps));
  row("plan", time_ms(plan, reps));
  bool ok = true;
  for (const auto& sc : scatters) {
    const double t = time_ms(
        [&] {
          plan();
          sc.launch(raw(keys), raw(vals), n, raw(cursor), raw(words), raw(pv));
        },
        reps);
    row(sc.name, t);
  }
  // the aggregates read the first scatter's output
  hist();
  plan();
  scatters[0].launch(raw(keys), raw(vals), n, raw(cursor), raw(words), raw(pv));
  check(cudaDeviceSynchronize(), "scatter");
  for (const auto& ag : aggregates) {
    const double t = time_ms(
        [&] {
          check(cudaMemsetAsync(raw(span_count), 0, (n >> span_bits) * 4), "memset");
          ag.launch(raw(words), raw(pv), raw(bounds), raw(span_count), raw(lw), raw(lv), raw(overflow));
        },
        reps);
    row(ag.name, t);
    ok &= check_groups(ag.name, lw, lv, span_count, ref, n);
  }
  for (int s = 0; s < 4; ++s) {
    char name[80];
    std::snprintf(name, sizeof name, "pipeline with %s", scatters[s].name);
    const double t = time_ms(
        [&] {
          hist();
          plan();
          scatters[s].launch(raw(keys), raw(vals), n, raw(cursor), raw(words), raw(pv));
          check(cudaMemsetAsync(raw(span_count), 0, (n >> span_bits) * 4), "memset");
          aggregates[0].launch(raw(words), raw(pv), raw(bounds), raw(span_count), raw(lw), raw(lv), raw(overflow));
        },
        reps);
    row(name, t);
    ok &= check_groups(name, lw, lv, span_count, ref, n);
  }
  unsigned of = overflow[0];
  std::printf("overflowed inserts: %u\n%s\n", of, ok && of == 0 ? "all checks passed" : "CHECKS FAILED");
  check(cudaDeviceSynchronize(), "end");
  return ok && of == 0 ? 0 : 1;
}
