// group_reduce on algo::cuda, the build pass (split from detail/group/device.cuh): the records
// inserted into a hash table (detail/cuda/hash/).
//   open addressing   oa_build_kernel (open_addressing / deterministic): persistent blocks take
//                     tiles of 256 x 16 records from a counter; each record goes to the block's
//                     shared-memory table or straight to the global table; the blocks report the
//                     keys they claimed and stop when the table passes its load limit (the driver,
//                     device.cuh, then builds again in a larger table: estimate_distinct, size_load,
//                     limit_load, max_probes_growing); its tuning: oa_tuning
//   locked chaining   chain_build_kernel: one record per thread, CUDA by Example's table
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "../cuda/hash/chained.cuh"
#include "../cuda/hash/combine.cuh"
#include "../cuda/hash/open_addressing.cuh"
#include "../cuda/hash/probe.cuh"
#include "../iterator.hpp"
#include "common.cuh"

namespace algo::detail::group {

// ---- build: open addressing --------------------------------------------------------------------------
/// oa_tuning::table_choice's values.
inline constexpr int table_choice_sample = 0, table_choice_one = 1, table_choice_partitioned = 2,
                     table_choice_onepass = 3;

/// The open-addressing build's tuning: what algo::cuda runs. The bench times other values side
/// by side (a type deriving from this one and hiding a member).
struct oa_tuning {
  /// Records per thread between two reports of a block's new keys (the load check's granularity;
  /// a divisor of `items`). Each report is two barriers and a global read by one thread.
  static constexpr int report_every = 4;
  /// The shared-memory table in front of the global one (0: none).
  static constexpr std::size_t front_bytes = 32768;
  /// The build kernel's blocks a multiprocessor holds at least (oa_build_kernel_capped: its
  /// registers capped to fit; 0: oa_build_kernel, ptxas's choice, 38 registers for 4-byte keys:
  /// 6 blocks of 256). At 8 (32 registers, 32 bytes of spills) it was slower at uniform 2^20
  /// (3.56 against 2.92 ms) and on Zipf keys, faster only at Zipf 1024 (H100, group_by.md:
  /// the table's L2 misses bound the build there, and more warps add to them).
  static constexpr int build_min_blocks = 0;
  /// The first global table (grown when the keys pass its load limit). 64 MB: 2^22 slots of 16
  /// bytes. (32 MB stays in the H100's 50 MB L2 and is faster at m = 2^20, 2.70 against 3.26 ms,
  /// but slower where it must grow: 14.1 against 9.9 ms at m = 2^24, 7.3 against 5.2 on Zipf keys.)
  static constexpr std::size_t first_table_bytes = std::size_t(64) << 20;
  /// When the sample (n >= 2^18) keeps one table, it also sizes it from its first 32768 records
  /// (partitioned.cuh, sample_kernel), smaller than first_table_bytes where the keys it estimates
  /// fit, down to sized_table_min_bytes: a table that stays in the L2 (~1 M uniform keys: 32 MB;
  /// the "first table 32 MB" rows took 2.46 against 2.90 ms at f32 uniform m = 2^20, H100).
  /// false: first_table_bytes (or what n records need, if less), as before.
  static constexpr bool sample_sizes_table = true;
  static constexpr std::size_t sized_table_min_bytes = std::size_t(2) << 20;
  /// ... and then doubled while it packs over sized_table_line_keys keys a 128-byte line and the
  /// lines its keys touch in the next size fit this share of the L2 (0: the smallest that holds
  /// the keys, as before 2026-12-02; at uniform 2^16 keys that one packs 4 keys a line, whose
  /// atomics queue in the L2: 2.40 against 1.68 ms for the host's 64 MB, H200).
  static constexpr double sized_table_l2_share = 0.6;
  static constexpr double sized_table_line_keys = 0.25;
  /// 0: records go into the table in input order. b > 0: a pre-pass first groups them into 2^b
  /// partitions by the top b bits of their keys' hashes (keys, values and input indices copied,
  /// 12 bytes a record for 4-byte keys and values), and the table's home slot is the top bits of
  /// the hash, so each partition owns one region of the table: the blocks, taking tiles in order,
  /// work on one or two regions at a time, a working set that can stay in L2 when the whole table
  /// does not. Packed tables only (keys of 4 bytes or less, an identity); others ignore it.
  static constexpr int partition_bits = 0;
  /// b > 0 (with partition_bits 0): records go in input order into the first table; if it
  /// overflows (many distinct keys), the pre-pass runs with 2^b partitions and the build starts
  /// again, partitioned, in a table sized from the first build's estimate.
  static constexpr int partition_bits_on_growth = 0;
  /// One table or the partitioned build (detail/group/partitioned.cuh; with partition_bits and
  /// partition_bits_on_growth 0, packed tables, not group_strategy::deterministic):
  /// table_choice_sample picks from the first records (the partitioned build when more than
  /// `partition_singletons` / 4096 of the first 4096 records have a key seen once among them),
  /// table_choice_one never partitions, table_choice_partitioned always does (tests cover it
  /// at small sizes so), table_choice_onepass always takes its one-pass form (below).
  static constexpr int table_choice = 0;
  /// The sample's third choice (partitioned.cuh, sample_kernel; 0: off): uniform-like keys that
  /// its estimate puts over `onepass_min_keys` and within what one scatter pass's 256 partitions
  /// hold in their blocks' shared tables (256 x onepass_slots x onepass_load, ~1.26 M) take the
  /// partitioned build in one pass (onepass_aggregate_kernel: a block a partition) instead of one
  /// table. From 2^16 uniform keys it beat one table (H200, 2^26 f32 records, ms, one pass / one
  /// table: 1.548 / 1.679 at 2^16, 1.559 / 1.654 at 2^17, 1.927 / 2.207 at 2^20); below, a
  /// partition's few keys are contended in its block's table (1.898 / 1.656 at 2^15, 2.112 / 1.658
  /// at 2^14; group_by.md, 2026-12-02): hence from 1.5 x 2^15 estimated keys.
  static constexpr double onepass_min_keys = 49152.0;
  /// The sample's rule (sample_kernel): partitioned when over partition_singletons of the 4096
  /// records have a key seen once, and the others are skewed (at least partition_skew records a
  /// repeated key) or at most partition_repeated (uniform keys over more than 4096^2 / that).
  /// (H100, 2026-11-26: the partitioned build beat one table only at uniform m = 2^24, 7.8
  /// against 9.6 ms; at uniform 2^20 it lost 4.4 to 2.9, at Zipf 2^24 7.1 to 5.2: hence uniform
  /// keys over 4096^2 / 4 = 2^22 only, and no skewed branch, partition_skew 0 = off.) With the hot
  /// keys (hot_keys below) taken out of the passes, skewed keys over many more than the L2 holds
  /// go to the partitioned build too: the first 4096 records of the bench's Zipf-like keys over
  /// 2^24 have 62 % singletons and ~6 records a repeated key (2^20: 54 %, one table; uniform keys:
  /// 2 a repeated key).
  static constexpr unsigned partition_singletons = 2458;  // 60 %
  static constexpr unsigned partition_repeated = 4;       // uniform keys: m > 2^22
  static constexpr unsigned partition_skew = 4;
  /// The partitioned build's scatter passes: blocks a multiprocessor holds (the registers are
  /// capped to fit; the shared memory takes ~36 / ~44 KB a block for 4- / 8-byte aggregates).
  /// Uncapped the scatter took 80 registers (3 blocks); at 5 blocks (48 registers, ~50 bytes of
  /// spills) it was slower than at 4 (64, no spills for f32): H100, f32 uniform m = 2^24, passes
  /// 1.29 / 1.37 ms at 5 against 1.19 / 1.14 at 4 (2026-11-26, group-emit run 1).
  static constexpr int scatter_blocks = 4;
  /// ... and the first pass's, over the input (also the one-pass build's only pass); 0: 5 for
  /// aggregates of 4 bytes (48 registers, no spills), 4 for 8 bytes (at 5 they spill 68 bytes).
  /// For f32 the one-pass build (that pass alone) ran 2-3 % faster at 5 than at 4, where the
  /// partitioned build at 5 + 5 lost 1-2 % and at 6 + 6 9 % (H200, 2^26 records, m = 2^10..2^24;
  /// group_by.md, 2026-12-02).
  static constexpr int scatter_blocks_input = 0;
  /// The partitioned build's hot keys (partitioned.cuh): the keys seen at least twice in the
  /// first 8192 records (up to 1024, when they hold an eighth of them) aggregated by the histogram
  /// pass and skipped by the scatter passes; false: every record goes through the passes.
  static constexpr bool hot_keys = true;
};

/// Slots of the shared-memory table in front of the global one: as many as fit in Bytes, a power
/// of two, at least 128 (else none).
template <class Slot, std::size_t Bytes = oa_tuning::front_bytes>
constexpr int front_slots_for() {
  int s = 4096;
  while (s > 64 && static_cast<std::size_t>(s) * sizeof(Slot) > Bytes) s >>= 1;
  return s >= 128 ? s : 0;
}

inline constexpr unsigned long long front_max_probes = 16;

/// The input index of record i: i itself (records in input order) ...
struct identity_index {
  __device__ unsigned long long operator[](long long i) const { return static_cast<unsigned long long>(i); }
};
/// ... or, after the partition pre-pass, the index it had in the input.
struct stored_index {
  const unsigned* idx;
  __device__ unsigned long long operator[](long long i) const { return idx[i]; }
};


/// The build's body; its kernels below (the default, and one whose registers are capped so that
/// a multiprocessor holds MinBlocks blocks: oa_tuning::build_min_blocks).
template <int FrontSlots, int ReportEvery, class Table, class Front, class KeyIt, class ValIt, class Hash, class IdxIt>
__device__ __forceinline__ void oa_build(Table table, KeyIt keys, ValIt values, long long n, Hash hash,
                                         build_status* status, unsigned long long host_limit,
                                         unsigned long long max_probes, IdxIt index, int host_shift) {
  static_assert(ReportEvery >= 1 && items % ReportEvery == 0, "report_every divides the items per thread");
  constexpr int report_every = ReportEvery;
  using K = typename Table::key_type;
  using Acc = decltype(table.value(0));
  constexpr int front_n = FrontSlots > 0 ? FrontSlots : 1;
  // the shared table in two arrays (oa_split_table): keys and first indices, then aggregates
  __shared__ unsigned long long front_words[front_n];
  __shared__ typename Front::storage front_values[front_n];
  __shared__ unsigned long long s_tile;
  __shared__ int s_stop;
  __shared__ unsigned s_global_claims, s_front_claims, s_front_hits;
  // records whose keys `claimed` counts, not yet reported: those that went to the global table, and
  // those that met the shared table once it is flushed (s_front_records until then)
  __shared__ unsigned s_records, s_batch_records, s_front_records, s_batch_front;
  __shared__ int s_bypass;
  __shared__ unsigned long long s_limit;
  __shared__ int s_shift;
  const Front front{front_words, front_values, static_cast<unsigned long long>(front_n - 1), table.comb, table.eq};

  if constexpr (FrontSlots > 0)
    for (int i = threadIdx.x; i < FrontSlots; i += threads) front.clear(static_cast<unsigned long long>(i));
  if (threadIdx.x == 0) {
    s_global_claims = 0;
    s_front_claims = 0;
    s_front_hits = 0;
    s_bypass = 0;
    s_stop = 0;
    s_records = 0;
    s_batch_records = 0;
    s_front_records = 0;
    s_batch_front = 0;
    // the table's size: the host's, or the smaller one the sample chose (status->cap: then the
    // home slots are the hash's top bits below it, sized_shift, and its load limit is that size's)
    const unsigned long long c = status->cap;
    s_shift = c ? sized_shift(c) : host_shift;
    s_limit = c ? static_cast<unsigned long long>(static_cast<double>(c) * limit_load) : host_limit;
  }
  __syncthreads();
  // (only packed tables are sampled, partitioned.cuh: the others keep the parameters, which cost
  // no registers: read from shared memory they cost unpacked tables 48-64 bytes of spills)
  const int shift = Table::packed ? s_shift : host_shift;

  // thread 0, between two barriers: adds the block's new keys to the global count; stops the
  // build (everyone) when the count passed the limit or another block stopped it
  const auto report = [&] {
    if (threadIdx.x == 0) {
      const unsigned c = s_global_claims;
      s_global_claims = 0;
      s_records += s_batch_records - s_batch_front;
      s_front_records += s_batch_front;
      s_batch_records = 0;
      s_batch_front = 0;
      if (s_records) {
        atomicAdd(&status->records, static_cast<unsigned long long>(s_records));
        s_records = 0;
      }
      if (c) {
        const unsigned long long old = atomicAdd(&status->claimed, static_cast<unsigned long long>(c));
        if (old + c > (Table::packed ? s_limit : host_limit)) atomicExch(&status->abort, 1u);
      }
      s_stop = *reinterpret_cast<volatile unsigned*>(&status->abort) != 0u;
    }
  };

  // flushes the shared table into the global one and clears it (the whole block calls it)
  const auto flush = [&] {
    if constexpr (FrontSlots > 0) {
      unsigned mine = 0;
      bool full = false;
      for (int i = threadIdx.x; i < FrontSlots; i += threads) {
        const auto slot = static_cast<unsigned long long>(i);
        if (front.occupied(slot)) {
          const K key = front.key(slot);
          const int r = table.template insert<true>(key, global_hash(hc::hash_of(hash, key), shift),
                                                    front.first_index(slot), front_values[i], max_probes);
          mine += r == 1;
          full |= r < 0;
        }
        front.clear(slot);
      }
      if (full) atomicExch(&status->abort, 1u);
      if (mine) atomicAdd(&s_global_claims, mine);
    }
  };

  const long long tiles = (n + tile - 1) / tile;
  for (;;) {
    if (threadIdx.x == 0) {
      s_stop = *reinterpret_cast<volatile unsigned*>(&status->abort) != 0u;
      if (!s_stop) s_tile = atomicAdd(&status->tiles, 1ull);
    }
    __syncthreads();
    if (s_stop || static_cast<long long>(s_tile) >= tiles) break;
    const long long base = static_cast<long long>(s_tile) * tile;
    const bool use_front = FrontSlots > 0 && !s_bypass;
    for (int j0 = 0; j0 < items; j0 += report_every) {
      unsigned mine = 0, front_new = 0, front_hit = 0;
      bool full = false;
#pragma unroll
      for (int j = j0; j < j0 + report_every; ++j) {
        const long long i = base + j * threads + threadIdx.x;
        if (i < n) {
          const K key = keys[i];
          const Acc v = static_cast<Acc>(values[i]);
          const std::uint64_t h = hc::hash_of(hash, key);
          const unsigned long long first = index[i];
          if constexpr (FrontSlots > 0) {
            if (use_front) {
              const int r = front.template insert<false>(key, h, first, v, front_max_probes);
              if (r >= 0) {
                front_new += static_cast<unsigned>(r);
                front_hit += static_cast<unsigned>(1 - r);
                continue;
              }
            }
          }
          const int r = table.template insert<false>(key, global_hash(h, shift), first, v, max_probes);
          mine += r == 1;
          full |= r < 0;
        }
      }
      if (full) atomicExch(&status->abort, 1u);
      if (mine) atomicAdd(&s_global_claims, mine);
      if constexpr (FrontSlots > 0) {
        if (front_new) atomicAdd(&s_front_claims, front_new);
        if (front_hit) atomicAdd(&s_front_hits, front_hit);
        if (front_new + front_hit) atomicAdd(&s_batch_front, front_new + front_hit);
      }
      if (threadIdx.x == 0) {
        const long long left = n - (base + static_cast<long long>(j0) * threads);
        s_batch_records = static_cast<unsigned>(left < report_every * threads ? (left > 0 ? left : 0) : report_every * threads);
      }
      __syncthreads();
      report();
      __syncthreads();
      if (s_stop) break;
    }
    if (s_stop) break;  // a stopped build is thrown away: no flush
    if constexpr (FrontSlots > 0) {
      if (s_front_claims > FrontSlots / 2) {
        // under one record in five found its key there: the shared table does not pay (uniform
        // keys over many more than it holds); skewed keys keep it (their hot keys would meet in
        // global atomics on one address otherwise)
        const bool bypass = 4u * s_front_hits < s_front_claims;
        __syncthreads();
        flush();
        __syncthreads();
        if (threadIdx.x == 0) {
          s_front_claims = 0;
          s_front_hits = 0;
          s_bypass = bypass;
          s_records += s_front_records;  // their keys are in the global table now
          s_front_records = 0;
        }
        report();
        __syncthreads();
        if (s_stop) break;
      }
    }
    __syncthreads();  // everyone has read s_stop / s_tile before thread 0 writes them again
  }
  if constexpr (FrontSlots > 0) {
    if (!s_stop) {
      __syncthreads();
      flush();
      __syncthreads();
      report();
    }
  }
}

template <int FrontSlots, int ReportEvery, class Table, class Front, class KeyIt, class ValIt, class Hash,
          class IdxIt = identity_index>
__global__ void __launch_bounds__(threads)
    oa_build_kernel(Table table, KeyIt keys, ValIt values, long long n, Hash hash, build_status* status,
                    unsigned long long limit, unsigned long long max_probes, IdxIt index = {}, int shift = 0) {
  oa_build<FrontSlots, ReportEvery, Table, Front>(table, keys, values, n, hash, status, limit, max_probes, index, shift);
}
template <int MinBlocks, int FrontSlots, int ReportEvery, class Table, class Front, class KeyIt, class ValIt,
          class Hash, class IdxIt = identity_index>
__global__ void __launch_bounds__(threads, MinBlocks)
    oa_build_kernel_capped(Table table, KeyIt keys, ValIt values, long long n, Hash hash, build_status* status,
                           unsigned long long limit, unsigned long long max_probes, IdxIt index = {}, int shift = 0) {
  oa_build<FrontSlots, ReportEvery, Table, Front>(table, keys, values, n, hash, status, limit, max_probes, index, shift);
}

/// hc::clear_table_kernel unless the build already stopped (the sample sent the call to the
/// partitioned build: the one-table kernels after it do nothing), over the slots the sample chose
/// (gated_capacity). (A grid of a few blocks an SM that loops: 16384 blocks that only read the
/// gate took 42 us, H100.)
template <class Table>
__global__ void clear_table_gated_kernel(Table t, unsigned long long capacity, const build_status* gate) {
  if (build_stopped(gate)) return;
  hc::clear_slots(t, gated_capacity(gate, capacity));
}

template <class = void>
__global__ void clear_status_kernel(build_status* status) {
  status->claimed = 0;
  status->tiles = 0;
  status->records = 0;
  status->total = 0;
  status->abort = 0;
  status->pad = 0;
  status->cap = 0;
}

/// Distinct keys among n records, estimated from a prefix of r records that had d distinct keys
/// (keys drawn uniformly from m: d = m (1 - e^(-r/m)); skewed keys make it an underestimate, and
/// the build just grows again).
inline double estimate_distinct(double d, double r, double n) {
  if (r <= 0 || d >= 0.98 * r) return n;
  double lo = d, hi = n;
  for (int it = 0; it < 60; ++it) {
    const double m = 0.5 * (lo + hi);
    if (m * (1.0 - std::exp(-r / m)) < d) lo = m;
    else hi = m;
  }
  return std::min(n, hi);
}

/// (size_load, limit_load: common.cuh.)
/// A table that may still grow gives up on a key after max_probes_growing probes (common.cuh; the
/// build starts over, larger); the last one probes on (a hash that sends many keys to one slot is
/// slow, not wrong).
/// The blocks see the load limit only at their reports (every 1024 records a block, about 1 M
/// records a grid on an H100), so a table smaller than that overshoots its limit and fills up:
/// with 4096 probes every insert into the full table walked 4096 slots before the build stopped
/// (the H100, m = 2^24: 46 ms with a 32 MB first table, 71 ms with 2 MB, against 10 ms with
/// 64 MB; with 256 probes 14 and 16 ms). Linear probing at the 70 % limit walks more than 256
/// slots about once in 2 M inserts: a build near its limit may stop a little early, never one
/// well below it.

// ---- build: locked chaining --------------------------------------------------------------------------
template <class Table, class KeyIt, class ValIt, class Hash>
__global__ void __launch_bounds__(threads) chain_build_kernel(Table table, KeyIt keys, ValIt values, long long n,
                                                               Hash hash) {
  using K = iter_value_t<KeyIt>;
  using Acc = decltype(table.value(0));
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const K key = keys[i];
    table.insert(static_cast<unsigned long long>(i), key, hc::hash_of(hash, key), static_cast<Acc>(values[i]));
  }
}

}  // namespace algo::detail::group
