// group_cluster_probe: can a thread-block cluster's distributed shared memory aggregate one 256-way
// bucket of records on chip (issue 27 item 5, group_reduce at 2^24 distinct keys)? A development
// tool, like seg_reduce_probe: no claim about group_reduce comes from it.
//
// The partitioned build (include/algo/detail/group/partitioned.cuh) puts 2^26 records with 2^24
// distinct keys in order of 15 hash bits in two scatter passes (1.19 + 1.12 ms on an H100), then
// aggregates each partition of ~2048 records in one block's shared memory (1.26 ms): 4.0 ms in all,
// against 3.6-3.7 ms for Thrust's sort_by_key + reduce_by_key (bench/notes/group_by.md). With one
// pass (256 buckets of ~2^18 records, ~2^16 keys each) a bucket's table needs ~1.5 MB: more than one
// SM's shared memory, less than a cluster of 8 or 16 SMs' together. This probe measures that
// aggregate alone, on records already in bucket order (set up with Thrust, untimed):
//   cluster C (8, or 16 non-portable): a cluster a bucket; CTA r of the cluster owns slots
//   [r S, (r + 1) S) of the bucket's open-addressing table (keys, float sums, first indices: 12
//   bytes a slot, 2^17 slots a bucket: load ~0.5); each record claims its key's slot (atomicCAS on
//   the owner CTA's shared memory through cluster.map_shared_rank), adds its value and takes the
//   smaller first index (atomicAdd, atomicMin there); after a cluster barrier each CTA writes its
//   occupied slots to the group list (one atomicAdd a warp).
//   routed (cluster_exchange): records moved instead of atomics: in rounds of CH records a CTA,
//   each CTA routes its records to the owner CTAs' inboxes (remote stores, one remote atomicAdd a
//   warp and owner), a cluster barrier, each CTA folds its inbox into its own slots with local
//   atomics, a second barrier.
// Measured on an H100 (bench/notes/group_by.md, last section): 3.2-5.0 ms at 2^24 keys, against
// 2.4 ms for the partitioned build's second pass and aggregate: this direction is closed.
// Rows: the aggregate per cluster size (CTAs of 1024 threads, one an SM); a plain read of the
// records (12 bytes each) and a write of the groups as a bandwidth floor; Thrust's sort_by_key +
// reduce_by_key of the same records (the bench's baseline). Every aggregate's groups are checked
// against the Thrust reference (sums of small integers: exact).
//   group_cluster_probe [--log2n 26] [--log2m 24] [--reps 10]
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "group_probe.cuh"

namespace cg = cooperative_groups;

namespace {

using namespace group_probe;

__host__ __device__ inline std::uint32_t mix32(std::uint32_t x) {  // a bijective 32-bit mixer
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
/// Record i: a key uniform over m distinct values, a small integer value (float sums stay exact).
__global__ void make_records(std::uint32_t* keys, float* vals, std::uint32_t* idx, std::uint32_t* bucket, long long n,
                             std::uint32_t m) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t r = splitmix64(static_cast<std::uint64_t>(i));
  std::uint32_t k = static_cast<std::uint32_t>(r % m) * 2654435761u;
  if (k == 0xffffffffu) k = 0u;  // the table's empty key (at most one of the m keys maps there)
  keys[i] = k;
  vals[i] = static_cast<float>(static_cast<int>((r >> 40) % 7) - 3);
  idx[i] = static_cast<std::uint32_t>(i);
  bucket[i] = mix32(k) >> 24;  // the top 8 bits: 256 buckets
}

constexpr std::uint32_t empty_key = 0xffffffffu;  // (make_records never makes it)

/// A CTA's slots emptied (every thread calls it).
__device__ void clear_slots(std::uint32_t* t_keys, float* t_vals, std::uint32_t* t_idx, int S) {
  for (int s = threadIdx.x; s < S; s += blockDim.x) {
    t_keys[s] = empty_key;
    t_vals[s] = 0.0f;
    t_idx[s] = 0xffffffffu;
  }
}

/// A CTA's occupied slots appended to the group list, a warp's together (one atomicAdd a warp);
/// every thread calls it.
__device__ void emit_slots(const std::uint32_t* t_keys, const float* t_vals, const std::uint32_t* t_idx, int S,
                           std::uint32_t* g_keys, float* g_vals, std::uint32_t* g_idx, unsigned long long* g_count) {
  const int lane = threadIdx.x & 31;
  for (int s0 = 0; s0 < S; s0 += blockDim.x) {
    const int s = s0 + threadIdx.x;
    const bool occ = s < S && t_keys[s] != empty_key;
    const unsigned ballot = __ballot_sync(0xffffffffu, occ);
    unsigned long long base = 0;
    if (lane == 0 && ballot) base = atomicAdd(g_count, static_cast<unsigned long long>(__popc(ballot)));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (occ) {
      const unsigned long long at = base + __popc(ballot & ((1u << lane) - 1u));
      g_keys[at] = t_keys[s];
      g_vals[at] = t_vals[s];
      g_idx[at] = t_idx[s];
    }
  }
}

/// A cluster of C CTAs a bucket; each CTA holds `slots` table slots in its dynamic shared memory.
template <int C>
__global__ void __launch_bounds__(1024, 1)
    cluster_aggregate(const std::uint32_t* keys, const float* vals, const std::uint32_t* idx, const int* bucket_begin,
                      int slots_per_cta, std::uint32_t* g_keys, float* g_vals, std::uint32_t* g_idx,
                      unsigned long long* g_count, int* overflow) {
  extern __shared__ unsigned char smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int S = slots_per_cta;
  std::uint32_t* t_keys = reinterpret_cast<std::uint32_t*>(smem);
  float* t_vals = reinterpret_cast<float*>(t_keys + S);
  std::uint32_t* t_idx = reinterpret_cast<std::uint32_t*>(t_vals + S);
  clear_slots(t_keys, t_vals, t_idx, S);
  cluster.sync();
  const int bucket = static_cast<int>(blockIdx.x / C);
  const long long b0 = bucket_begin[bucket], b1 = bucket_begin[bucket + 1];
  const unsigned total = static_cast<unsigned>(S) * C;  // a power of two
  const unsigned mask = total - 1;
  for (long long i = b0 + rank * blockDim.x + threadIdx.x; i < b1; i += static_cast<long long>(C) * blockDim.x) {
    const std::uint32_t k = keys[i];
    const float v = vals[i];
    const std::uint32_t x = idx[i];
    unsigned slot = mix32(k ^ 0x5bd1e995u) & mask;
    for (unsigned probe = 0;; ++probe) {
      if (probe == total) {
        atomicAdd(overflow, 1);
        break;
      }
      const unsigned owner = slot / static_cast<unsigned>(S), local = slot % static_cast<unsigned>(S);
      std::uint32_t* rk = cluster.map_shared_rank(t_keys, owner) + local;
      std::uint32_t old = *reinterpret_cast<volatile std::uint32_t*>(rk);
      if (old == empty_key) old = atomicCAS(rk, empty_key, k);
      if (old == empty_key || old == k) {
        atomicAdd(cluster.map_shared_rank(t_vals, owner) + local, v);
        atomicMin(cluster.map_shared_rank(t_idx, owner) + local, x);
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  cluster.sync();
  emit_slots(t_keys, t_vals, t_idx, S, g_keys, g_vals, g_idx, g_count);
}

/// Records moved, not atomics: in rounds of CH records a CTA, each CTA routes its records to their
/// owner CTAs' inboxes (remote stores; one remote atomicAdd a warp and owner for the places), a
/// cluster barrier, then each CTA folds its inbox into its own slots with local shared-memory
/// atomics. An inbox that is full takes the rest as remote atomics on the owner's table.
template <int C, int CH>
__global__ void __launch_bounds__(1024, 1)
    cluster_exchange(const std::uint32_t* keys, const float* vals, const std::uint32_t* idx, const int* bucket_begin,
                     int slots_per_cta, int inbox_cap, std::uint32_t* g_keys, float* g_vals, std::uint32_t* g_idx,
                     unsigned long long* g_count, int* overflow) {
  extern __shared__ unsigned char smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int S = slots_per_cta, CAP = inbox_cap;
  std::uint32_t* t_keys = reinterpret_cast<std::uint32_t*>(smem);
  float* t_vals = reinterpret_cast<float*>(t_keys + S);
  std::uint32_t* t_idx = reinterpret_cast<std::uint32_t*>(t_vals + S);
  std::uint32_t* in_keys = t_idx + S;
  float* in_vals = reinterpret_cast<float*>(in_keys + CAP);
  std::uint32_t* in_idx = reinterpret_cast<std::uint32_t*>(in_vals + CAP);
  unsigned* in_count = in_idx + CAP;
  clear_slots(t_keys, t_vals, t_idx, S);
  if (threadIdx.x == 0) *in_count = 0;
  cluster.sync();
  const int bucket = static_cast<int>(blockIdx.x / C);
  const long long b0 = bucket_begin[bucket], b1 = bucket_begin[bucket + 1];
  const unsigned total = static_cast<unsigned>(S) * C;
  const unsigned mask = total - 1;
  const unsigned lane = threadIdx.x & 31;
  constexpr int per_thread = CH / 1024;
  const auto insert = [&](std::uint32_t* tk, float* tv, std::uint32_t* ti, unsigned local, std::uint32_t k, float v,
                          std::uint32_t x) {
    for (int probe = 0;; ++probe) {
      if (probe == S) {
        atomicAdd(overflow, 1);
        return;
      }
      std::uint32_t old = *reinterpret_cast<volatile std::uint32_t*>(tk + local);
      if (old == empty_key) old = atomicCAS(tk + local, empty_key, k);
      if (old == empty_key || old == k) {
        atomicAdd(tv + local, v);
        atomicMin(ti + local, x);
        return;
      }
      local = local + 1 == static_cast<unsigned>(S) ? 0u : local + 1;
    }
  };
  for (long long r0 = b0; r0 < b1; r0 += static_cast<long long>(C) * CH) {
    // ---- route: this CTA's CH records of the round, all loads in flight together
    std::uint32_t k[per_thread], x[per_thread];
    float v[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const long long i = r0 + static_cast<long long>(rank) * CH + j * 1024 + threadIdx.x;
      k[j] = i < b1 ? keys[i] : empty_key;
      v[j] = i < b1 ? vals[i] : 0.0f;
      x[j] = i < b1 ? idx[i] : 0u;
    }
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const bool valid = k[j] != empty_key;
      const unsigned slot = mix32(k[j] ^ 0x5bd1e995u) & mask;
      const unsigned owner = valid ? slot / static_cast<unsigned>(S) : 0xffffffffu;
      const unsigned peers = __match_any_sync(0xffffffffu, owner);
      const unsigned leader = __ffs(peers) - 1;
      const unsigned before = __popc(peers & ((1u << lane) - 1u));
      unsigned base = 0;
      if (valid && lane == leader) base = atomicAdd(cluster.map_shared_rank(in_count, owner), static_cast<unsigned>(__popc(peers)));
      base = __shfl_sync(0xffffffffu, base, static_cast<int>(leader));
      if (valid) {
        const unsigned pos = base + before;
        if (pos < static_cast<unsigned>(CAP)) {
          cluster.map_shared_rank(in_keys, owner)[pos] = k[j];
          cluster.map_shared_rank(in_vals, owner)[pos] = v[j];
          cluster.map_shared_rank(in_idx, owner)[pos] = x[j];
        } else {  // the owner's inbox is full: straight into its table
          insert(cluster.map_shared_rank(t_keys, owner), cluster.map_shared_rank(t_vals, owner),
                 cluster.map_shared_rank(t_idx, owner), slot % static_cast<unsigned>(S), k[j], v[j], x[j]);
        }
      }
    }
    cluster.sync();  // every inbox filled
    // ---- fold this CTA's inbox into its own slots (local atomics)
    const unsigned got = *in_count;
    const unsigned m = got < static_cast<unsigned>(CAP) ? got : static_cast<unsigned>(CAP);
    for (unsigned t = threadIdx.x; t < m; t += blockDim.x) {
      const std::uint32_t kk = in_keys[t];
      const unsigned slot = mix32(kk ^ 0x5bd1e995u) & mask;
      insert(t_keys, t_vals, t_idx, slot % static_cast<unsigned>(S), kk, in_vals[t], in_idx[t]);
    }
    __syncthreads();  // the count read by every thread
    if (threadIdx.x == 0) *in_count = 0;
    cluster.sync();  // inboxes empty before the next round's routing
  }
  emit_slots(t_keys, t_vals, t_idx, S, g_keys, g_vals, g_idx, g_count);
}

/// The floor: each record read once (12 bytes), summed so the loads stay.
__global__ void read_records(const std::uint32_t* keys, const float* vals, const std::uint32_t* idx, long long n,
                             float* sink) {
  float acc = 0.0f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    acc += vals[i] + static_cast<float>(keys[i] & 1u) + static_cast<float>(idx[i] & 1u);
  if (acc == 12345.678f) *sink = acc;
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
  std::printf("%s, %lld records, %u distinct keys (uniform), 256 buckets\n", prop.name, n, m);

  thrust::device_vector<std::uint32_t> keys(n), idx(n), bucket(n);
  thrust::device_vector<float> vals(n);
  make_records<<<static_cast<unsigned>((n + 255) / 256), 256>>>(thrust::raw_pointer_cast(keys.data()),
                                                                 thrust::raw_pointer_cast(vals.data()),
                                                                 thrust::raw_pointer_cast(idx.data()),
                                                                 thrust::raw_pointer_cast(bucket.data()), n, m);
  check(cudaDeviceSynchronize(), "make_records");

  // ---- the reference (and the baseline row): Thrust sort_by_key + reduce_by_key of copies ------------------
  const double t_thrust = time_thrust_sort_reduce(keys, vals, reps);
  // the reference with first indices (group_probe.cuh)
  const reference ref = thrust_reference(keys, vals, idx);
  const long long groups = static_cast<long long>(ref.k.size());
  const std::vector<std::uint32_t>&h_rk = ref.k, &h_ri = ref.first;
  const std::vector<float>& h_rv = ref.v;
  std::printf("reference: %lld groups\n", groups);

  // ---- bucket order (untimed set-up: what one 8-bit scatter pass gives) ---------------------------------
  thrust::sort_by_key(thrust::device, bucket.begin(), bucket.end(),
                      thrust::make_zip_iterator(thrust::make_tuple(keys.begin(), vals.begin(), idx.begin())));
  std::vector<std::uint32_t> h_bucket(n);
  thrust::copy(bucket.begin(), bucket.end(), h_bucket.begin());
  std::vector<int> h_begin(257, 0);
  for (int b = 0, at = 0; b <= 256; ++b) {
    while (at < n && h_bucket[at] < static_cast<std::uint32_t>(b)) ++at;
    h_begin[b] = at;
  }
  h_begin[256] = static_cast<int>(n);
  int most = 0;
  for (int b = 0; b < 256; ++b) most = std::max(most, h_begin[b + 1] - h_begin[b]);
  std::printf("bucket records: mean %lld, most %d\n", n / 256, most);
  thrust::device_vector<int> d_begin(h_begin.begin(), h_begin.end());

  thrust::device_vector<std::uint32_t> gk(groups + 1024), gi(groups + 1024);
  thrust::device_vector<float> gv(groups + 1024);
  thrust::device_vector<unsigned long long> gcount(1);
  thrust::device_vector<int> overflow(1);
  thrust::device_vector<float> sink(1);

  const double t_read = time_ms(
      [&] {
        read_records<<<prop.multiProcessorCount * 8, 256>>>(thrust::raw_pointer_cast(keys.data()),
                                                             thrust::raw_pointer_cast(vals.data()),
                                                             thrust::raw_pointer_cast(idx.data()), n,
                                                             thrust::raw_pointer_cast(sink.data()));
      },
      reps);
  thrust::device_vector<std::uint32_t> rk(n);
  thrust::device_vector<float> rv(n);
  const double t_copies = time_ms(
      [&] {
        thrust::copy(keys.begin(), keys.end(), rk.begin());
        thrust::copy(vals.begin(), vals.end(), rv.begin());
      },
      reps);
  std::printf("%-58s %9.4f ms (copies of the inputs %.4f ms included)\n",
              "thrust sort_by_key + reduce_by_key (keys, values)", t_thrust, t_copies);
  std::printf("%-58s %9.4f ms\n", "read the records once (12 bytes each)", t_read);

  // ch_tag 0: remote atomics (cluster_aggregate); else records routed in rounds of CH a CTA
  const auto run_cluster = [&](auto c_tag, int slots_per_cta, auto ch_tag) {
    constexpr int C = decltype(c_tag)::value;
    constexpr int CH = decltype(ch_tag)::value;
    const int inbox_cap = CH + CH / 8;
    const auto kernel = CH == 0 ? cluster_aggregate<C> : nullptr;
    const auto xkernel = cluster_exchange<C, CH == 0 ? 1024 : CH>;
    const std::size_t smem =
        static_cast<std::size_t>(slots_per_cta) * 12 + (CH == 0 ? 0 : static_cast<std::size_t>(inbox_cap) * 12 + 16);
    if (CH == 0) {
      check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(smem)),
            "max dynamic smem");
      if (C > 8)
        check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
              "non-portable");
    } else {
      {
        const cudaError_t se = cudaFuncSetAttribute(reinterpret_cast<const void*>(xkernel),
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        if (se != cudaSuccess) {
          std::printf("cluster_exchange<%d, %d>: %zu bytes of shared memory refused: %s\n", C, CH, smem,
                      cudaGetErrorString(se));
          (void)cudaGetLastError();
          return;
        }
      }
      if (C > 8)
        check(cudaFuncSetAttribute(reinterpret_cast<const void*>(xkernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
              "non-portable");
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(256 * C);
    cfg.blockDim = dim3(1024);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = C;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (CH == 0) check(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg), "max active clusters");
    else check(cudaOccupancyMaxActiveClusters(&clusters, xkernel, &cfg), "max active clusters");
    const auto launch = [&] {
      cudaMemsetAsync(thrust::raw_pointer_cast(gcount.data()), 0, 8);
      cudaMemsetAsync(thrust::raw_pointer_cast(overflow.data()), 0, 4);
      const auto* k = static_cast<const std::uint32_t*>(thrust::raw_pointer_cast(keys.data()));
      const auto* v = static_cast<const float*>(thrust::raw_pointer_cast(vals.data()));
      const auto* x = static_cast<const std::uint32_t*>(thrust::raw_pointer_cast(idx.data()));
      const auto* bb = static_cast<const int*>(thrust::raw_pointer_cast(d_begin.data()));
      if (CH == 0)
        check(cudaLaunchKernelEx(&cfg, kernel, k, v, x, bb, slots_per_cta, thrust::raw_pointer_cast(gk.data()),
                                 thrust::raw_pointer_cast(gv.data()), thrust::raw_pointer_cast(gi.data()),
                                 thrust::raw_pointer_cast(gcount.data()), thrust::raw_pointer_cast(overflow.data())),
              "cluster_aggregate");
      else
        check(cudaLaunchKernelEx(&cfg, xkernel, k, v, x, bb, slots_per_cta, inbox_cap,
                                 thrust::raw_pointer_cast(gk.data()), thrust::raw_pointer_cast(gv.data()),
                                 thrust::raw_pointer_cast(gi.data()), thrust::raw_pointer_cast(gcount.data()),
                                 thrust::raw_pointer_cast(overflow.data())),
              "cluster_exchange");
    };
    const double t = time_ms(launch, reps);
    check(cudaDeviceSynchronize(), "cluster_aggregate");
    // check: the groups sorted by key against the reference
    const long long got = static_cast<long long>(gcount[0]);
    const int over = overflow[0];
    std::string verdict = "right";
    if (got != groups || over != 0) {
      verdict = "WRONG: " + std::to_string(got) + " groups, " + std::to_string(over) + " overflows";
    } else {
      thrust::sort_by_key(thrust::device, gk.begin(), gk.begin() + got,
                          thrust::make_zip_iterator(thrust::make_tuple(gv.begin(), gi.begin())));
      std::vector<std::uint32_t> hk(got), hi(got);
      std::vector<float> hv(got);
      thrust::copy(gk.begin(), gk.begin() + got, hk.begin());
      thrust::copy(gv.begin(), gv.begin() + got, hv.begin());
      thrust::copy(gi.begin(), gi.begin() + got, hi.begin());
      for (long long g = 0; g < got; ++g)
        if (hk[g] != h_rk[g] || hv[g] != h_rv[g] || hi[g] != h_ri[g]) {
          verdict = "WRONG at group " + std::to_string(g);
          break;
        }
    }
    char name[128];
    if (CH == 0)
      std::snprintf(name, sizeof name, "remote atomics, %d CTAs a bucket, %d slots a CTA (%d clusters at once)", C,
                    slots_per_cta, clusters);
    else
      std::snprintf(name, sizeof name, "routed in rounds of %d a CTA, %d CTAs, %d slots a CTA (%d clusters)", CH, C,
                    slots_per_cta, clusters);
    std::printf("%-58s %9.4f ms   %s\n", name, t, verdict.c_str());
  };
  using atomics = std::integral_constant<int, 0>;
  run_cluster(std::integral_constant<int, 8>{}, 1 << 14, atomics{});  // 2^17 slots a bucket: 192 KB a CTA
  run_cluster(std::integral_constant<int, 16>{}, 1 << 13, atomics{});  // 2^17 slots, 96 KB a CTA
  run_cluster(std::integral_constant<int, 16>{}, 1 << 13, std::integral_constant<int, 4096>{});  // + 54 KB inbox
  run_cluster(std::integral_constant<int, 16>{}, 1 << 13, std::integral_constant<int, 8192>{});  // + 108 KB inbox
  run_cluster(std::integral_constant<int, 8>{}, 1 << 14, std::integral_constant<int, 2048>{});   // 192 + 27 KB
  return 0;
}
