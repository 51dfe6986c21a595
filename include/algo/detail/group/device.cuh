// group_reduce on algo::cuda: a hash table (detail/cuda/hash/) keyed by the input keys, then the
// groups written in the order of their keys' first appearance.
//
//   build    open_addressing / deterministic: persistent blocks take tiles of 256 x 16 records
//            from a counter; each record goes to the block's shared-memory table (hot keys: shared
//            atomics) or, when that is full or not worth it, straight to the global table. A block
//            flushes its shared table (one global insert per key) when it is half full and at
//            the end. The global table is sized from the input: 64 MB of slots (2^22 slots of 16
//            bytes), or what n records need if less, first; when the keys claimed pass 70 % of
//            it (or a key finds no slot within 256 probes), the blocks stop, the host estimates
//            the number of distinct keys from how many the processed prefix had, and builds
//            again in a larger table (a few % of the input was wasted). The largest size holds
//            every record distinct at 70 %.
//            locked_chaining: one record per thread, CUDA by Example's table (hash/chained.cuh).
//   rank     every group's first index sets a bit in an n-bit map; the bits are counted by a
//            three-kernel reduce-then-scan over the words (partials, spine, per word), so the
//            rank of a group = the number of first appearances before its own = its output position
//   emit     open addressing: the first appearances walked in input order (a thread a word of
//            the bit map), each one's key found again in the table and written with its aggregate
//            at the next rank (the outputs written in order); locked_chaining: every group
//            writes its key and aggregate at its rank
// The number of groups comes back to the host with the build's status (one synchronization per
// build), so calls are refused under graph capture, as reduce_by_key's are.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/hash/chained.cuh"
#include "../cuda/hash/combine.cuh"
#include "../cuda/hash/open_addressing.cuh"
#include "../cuda/hash/probe.cuh"
#include "../cuda/pointer.cuh"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"
#include "ops.hpp"

namespace algo::detail::group {

namespace hc = ::algo::detail::cuda::hash;

/// A raw pointer for contiguous device iterators, the iterator itself otherwise.
template <class It>
auto device_view(It it) {
  auto p = raw_address(it);
  if constexpr (std::is_same<decltype(p), std::nullptr_t>::value) return it;
  else return p;
}

struct build_status {
  unsigned long long claimed;  // global slots claimed (distinct keys so far)
  unsigned long long tiles;    // tiles taken
  unsigned long long records;  // records whose new keys `claimed` counts (reported with them; not
                               // the tiles taken, which also count the tiles in flight at a stop)
  unsigned long long total;    // groups counted by the rank pass
  unsigned abort;              // 1: the table passed its load limit or was full: build again, larger
  unsigned pad;
};

inline constexpr int threads = 256;
inline constexpr int items = 16;
inline constexpr long long tile = threads * items;
inline constexpr int rank_words_per_thread = 8;
inline constexpr long long rank_chunk = threads * rank_words_per_thread;  // words per block

inline unsigned grid_for(long long work, int per_block = threads) {
  const long long b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<long long>(1, std::min<long long>(b, 65535LL * 8)));
}

// ---- block helpers --------------------------------------------------------------------------------
/// Exclusive sum over the block's 256 threads (all must call); *total receives the block's sum.
__device__ inline unsigned long long block_exclusive_sum(unsigned long long x, unsigned long long* smem /*[9]*/,
                                                         unsigned long long* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long inc = x;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long y = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d) inc += y;
  }
  if (lane == 31) smem[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    unsigned long long w = lane < threads / 32 ? smem[lane] : 0ull;
    unsigned long long winc = w;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const unsigned long long y = __shfl_up_sync(0xffffffffu, winc, d);
      if (lane >= d) winc += y;
    }
    if (lane < threads / 32) smem[lane] = winc - w;
    if (lane == threads / 32 - 1) smem[threads / 32] = winc;
  }
  __syncthreads();
  const unsigned long long r = smem[warp] + inc - x;
  *total = smem[threads / 32];
  __syncthreads();
  return r;
}

/// The hash the global table sees: the mixed hash itself (home slot: its low bits), or with the
/// partition pre-pass the hash shifted right by 64 - log2(capacity) (home slot: its top bits).
__device__ __forceinline__ std::uint64_t global_hash(std::uint64_t h, int shift) { return shift ? h >> shift : h; }

// ---- rank: first appearances counted -------------------------------------------------------------
template <class Table>
__global__ void __launch_bounds__(threads) mark_first_kernel(Table t, unsigned long long count, unsigned* bits) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    if (t.occupied(i)) {
      const unsigned long long f = t.first_index(i);
      atomicOr(bits + (f >> 5), 1u << (f & 31));
    }
}

template <class = void>
__global__ void __launch_bounds__(threads) rank_partials_kernel(const unsigned* bits, long long words,
                                                                 unsigned long long* partial) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long base = blockIdx.x * rank_chunk;
  unsigned long long c = 0;
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    const long long w = base + j * threads + threadIdx.x;
    if (w < words) c += __popc(bits[w]);
  }
  unsigned long long total;
  block_exclusive_sum(c, smem, &total);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

/// One block: partial[] becomes its exclusive prefix; the grand total goes to status->total.
template <class = void>
__global__ void __launch_bounds__(threads) rank_spine_kernel(unsigned long long* partial, long long count,
                                                              build_status* status) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  unsigned long long carry = 0;
  for (long long base = 0; base < count; base += threads) {
    const long long i = base + threadIdx.x;
    const unsigned long long x = i < count ? partial[i] : 0ull;
    unsigned long long total;
    const unsigned long long ex = block_exclusive_sum(x, smem, &total);
    if (i < count) partial[i] = carry + ex;
    carry += total;
  }
  if (threadIdx.x == 0) status->total = carry;
}

/// prefix[w] = set bits in words [0, w).
template <class = void>
__global__ void __launch_bounds__(threads) rank_words_kernel(const unsigned* bits, long long words,
                                                              const unsigned long long* partial,
                                                              unsigned long long* prefix) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long base = blockIdx.x * rank_chunk + static_cast<long long>(threadIdx.x) * rank_words_per_thread;
  unsigned c[rank_words_per_thread];
  unsigned long long sum = 0;
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    c[j] = base + j < words ? __popc(bits[base + j]) : 0u;
    sum += c[j];
  }
  unsigned long long total;
  unsigned long long run = partial[blockIdx.x] + block_exclusive_sum(sum, smem, &total);
#pragma unroll
  for (int j = 0; j < rank_words_per_thread; ++j) {
    if (base + j < words) prefix[base + j] = run;
    run += c[j];
  }
}

/// Every group writes its key and aggregate at its rank. The key written is the input's key at
/// the group's first appearance (keys equal under key_equal may differ in their bits: the output
/// does not depend on which of them claimed the slot).
template <class Table, class KeyIt, class KeyOut, class ValOut>
__global__ void __launch_bounds__(threads) emit_kernel(Table t, unsigned long long count, const unsigned* bits,
                                                        const unsigned long long* prefix, KeyIt keys, KeyOut keys_out,
                                                        ValOut values_out) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    if (t.occupied(i)) {
      const unsigned long long f = t.first_index(i);
      const unsigned long long r = prefix[f >> 5] + __popc(bits[f >> 5] & ((1u << (f & 31)) - 1u));
      keys_out[r] = keys[f];
      values_out[r] = t.value(i);
    }
}

/// The same output, written in rank order: each thread takes 32 input positions (one word of the
/// first-appearance bits) and, for each first appearance among them, reads the input's key there,
/// finds its slot (the hash and home slot the build used: `shift`) and writes key and aggregate at
/// the next rank. The writes are in order (a warp writes one contiguous stretch of the outputs) and
/// each group costs one random read of its slot, where emit_kernel reads the prefix, the bits and
/// the key at random and writes both outputs at random (a read-modify-write of a DRAM sector each
/// when the outputs do not fit in the L2).
template <class Table, class KeyIt, class Hash, class KeyOut, class ValOut>
__global__ void __launch_bounds__(threads)
    emit_in_order_kernel(Table t, const unsigned* bits, long long words, const unsigned long long* prefix, KeyIt keys,
                         Hash hash, int shift, KeyOut keys_out, ValOut values_out) {
  using K = typename Table::key_type;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long w = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; w < words; w += stride) {
    unsigned b = bits[w];
    if (!b) continue;
    unsigned long long r = prefix[w];
    do {
      const long long i = w * 32 + (__ffs(b) - 1);
      b &= b - 1u;
      const K key = keys[i];
      const long long slot = t.find(key, global_hash(hc::hash_of(hash, key), shift));
      keys_out[r] = key;
      values_out[r] = t.value(static_cast<unsigned long long>(slot));
      ++r;
    } while (b);
  }
}

/// The rank pass's buffers for n records: the bit map, the per-block partials, the word prefixes.
struct rank_buffers {
  long long words, blocks;
  cuda::temporary_buffer bits, partial, prefix;
  rank_buffers(const device_policy_base& p, long long n)
      : words((n + 31) / 32),
        blocks((words + rank_chunk - 1) / rank_chunk),
        bits(p, static_cast<std::size_t>(words) * sizeof(unsigned)),
        partial(p, static_cast<std::size_t>(blocks) * sizeof(unsigned long long)),
        prefix(p, static_cast<std::size_t>(words) * sizeof(unsigned long long)) {}
};

/// mark + partials + spine (status->total = the number of groups).
template <class Table>
void rank_count(const char* name, const device_policy_base& p, const Table& t, unsigned long long count,
                rank_buffers& rb, build_status* status) {
  check_cuda(cudaMemsetAsync(rb.bits.get(), 0, rb.bits.size(), p.stream), name, "cudaMemsetAsync");
  mark_first_kernel<<<grid_for(static_cast<long long>(count)), threads, 0, p.stream>>>(t, count, rb.bits.as<unsigned>());
  cuda::check_launch(name, "mark_first_kernel");
  rank_partials_kernel<><<<static_cast<unsigned>(rb.blocks), threads, 0, p.stream>>>(
      rb.bits.as<unsigned>(), rb.words, rb.partial.as<unsigned long long>());
  cuda::check_launch(name, "rank_partials_kernel");
  rank_spine_kernel<><<<1, threads, 0, p.stream>>>(rb.partial.as<unsigned long long>(), rb.blocks, status);
  cuda::check_launch(name, "rank_spine_kernel");
}

/// per-word prefixes + emit in rank order (open addressing: the slots are found again by key).
template <class Table, class KeyIt, class Hash, class KeyOut, class ValOut>
void rank_emit_in_order(const char* name, const device_policy_base& p, const Table& t, rank_buffers& rb, KeyIt keys,
                        Hash hash, int shift, KeyOut ko, ValOut vo) {
  rank_words_kernel<><<<static_cast<unsigned>(rb.blocks), threads, 0, p.stream>>>(
      rb.bits.as<unsigned>(), rb.words, rb.partial.as<unsigned long long>(), rb.prefix.as<unsigned long long>());
  cuda::check_launch(name, "rank_words_kernel");
  emit_in_order_kernel<<<grid_for(rb.words), threads, 0, p.stream>>>(
      t, rb.bits.as<unsigned>(), rb.words, rb.prefix.as<unsigned long long>(), keys, hash, shift, ko, vo);
  cuda::check_launch(name, "emit_in_order_kernel");
}

/// per-word prefixes + emit.
template <class Table, class KeyIt, class KeyOut, class ValOut>
void rank_emit(const char* name, const device_policy_base& p, const Table& t, unsigned long long count,
               rank_buffers& rb, KeyIt keys, KeyOut ko, ValOut vo) {
  rank_words_kernel<><<<static_cast<unsigned>(rb.blocks), threads, 0, p.stream>>>(
      rb.bits.as<unsigned>(), rb.words, rb.partial.as<unsigned long long>(), rb.prefix.as<unsigned long long>());
  cuda::check_launch(name, "rank_words_kernel");
  emit_kernel<<<grid_for(static_cast<long long>(count)), threads, 0, p.stream>>>(
      t, count, rb.bits.as<unsigned>(), rb.prefix.as<unsigned long long>(), keys, ko, vo);
  cuda::check_launch(name, "emit_kernel");
}

// ---- build: open addressing --------------------------------------------------------------------------
/// The open-addressing build's tuning: what algo::cuda runs. The bench times other values side
/// by side (a type deriving from this one and hiding a member).
struct oa_tuning {
  /// Records per thread between two reports of a block's new keys (the load check's granularity;
  /// a divisor of `items`). Each report is two barriers and a global read by one thread.
  static constexpr int report_every = 4;
  /// The shared-memory table in front of the global one (0: none).
  static constexpr std::size_t front_bytes = 32768;
  /// The first global table (grown when the keys pass its load limit). 64 MB: 2^22 slots of 16
  /// bytes. (32 MB stays in the H100's 50 MB L2 and is faster at m = 2^20, 2.70 against 3.26 ms,
  /// but slower where it must grow: 14.1 against 9.9 ms at m = 2^24, 7.3 against 5.2 on Zipf keys.)
  static constexpr std::size_t first_table_bytes = std::size_t(64) << 20;
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


template <int FrontSlots, int ReportEvery, class Table, class Front, class KeyIt, class ValIt, class Hash,
          class IdxIt = identity_index>
__global__ void __launch_bounds__(threads)
    oa_build_kernel(Table table, KeyIt keys, ValIt values, long long n, Hash hash, build_status* status,
                    unsigned long long limit, unsigned long long max_probes, IdxIt index = {}, int shift = 0) {
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
  }
  __syncthreads();

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
        if (old + c > limit) atomicExch(&status->abort, 1u);
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

// ---- partition pre-pass (oa_tuning::partition_bits) --------------------------------------------------
/// Records a block of the pre-pass handles (a contiguous chunk of the input).
inline constexpr long long partition_chunk = 16 * tile;

/// The partition of a mixed hash: its top Bits bits.
template <int Bits>
__device__ __forceinline__ unsigned partition_of(std::uint64_t h) {
  return static_cast<unsigned>(h >> (64 - Bits));
}

/// counts[p * gridDim.x + block] = the block's records in partition p (warp-aggregated shared
/// atomics: the lanes with the same partition add once).
template <int Bits, class KeyIt, class Hash>
__global__ void __launch_bounds__(threads) partition_count_kernel(KeyIt keys, long long n, Hash hash, unsigned* counts) {
  constexpr int parts = 1 << Bits;
  __shared__ unsigned c[parts];
  for (int p = threadIdx.x; p < parts; p += threads) c[p] = 0;
  __syncthreads();
  const long long begin = blockIdx.x * partition_chunk;
  const long long end = begin + partition_chunk < n ? begin + partition_chunk : n;
  const int lane = threadIdx.x & 31;
  for (long long base = begin; base < end; base += threads) {
    const long long i = base + threadIdx.x;
    const bool valid = i < end;
    const unsigned p = valid ? partition_of<Bits>(hc::hash_of(hash, keys[i])) : ~0u;
    const unsigned peers = __match_any_sync(0xffffffffu, p);
    if (valid && lane == __ffs(peers) - 1) atomicAdd(&c[p], static_cast<unsigned>(__popc(peers)));
  }
  __syncthreads();
  for (int p = threadIdx.x; p < parts; p += threads) counts[static_cast<long long>(p) * gridDim.x + blockIdx.x] = c[p];
}

/// One block: offsets[j] = counts[0] + ... + counts[j - 1] over the partition-major order (each
/// thread a contiguous run), so block b's records of partition p start at offsets[p * blocks + b].
template <class = void>
__global__ void __launch_bounds__(threads) partition_offsets_kernel(const unsigned* counts, long long count,
                                                                     unsigned long long* offsets) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long per = (count + threads - 1) / threads;
  const long long b = threadIdx.x * per;
  const long long e = b + per < count ? b + per : count;
  unsigned long long sum = 0;
  for (long long j = b; j < e; ++j) sum += counts[j];
  unsigned long long total;
  unsigned long long run = block_exclusive_sum(sum, smem, &total);
  for (long long j = b; j < e; ++j) {
    offsets[j] = run;
    run += counts[j];
  }
}

/// Copies each record (key, value as Acc, input index) to its partition's place: the block's
/// slice of each partition is filled by warp-aggregated shared counters (order inside a
/// partition is free: the table keeps each key's smallest index).
template <int Bits, class KeyIt, class ValIt, class Hash, class K, class Acc>
__global__ void __launch_bounds__(threads)
    partition_scatter_kernel(KeyIt keys, ValIt values, long long n, Hash hash, const unsigned long long* offsets,
                             K* part_keys, Acc* part_values, unsigned* part_index) {
  constexpr int parts = 1 << Bits;
  __shared__ unsigned long long next[parts];
  for (int p = threadIdx.x; p < parts; p += threads) next[p] = offsets[static_cast<long long>(p) * gridDim.x + blockIdx.x];
  __syncthreads();
  const long long begin = blockIdx.x * partition_chunk;
  const long long end = begin + partition_chunk < n ? begin + partition_chunk : n;
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  for (long long base = begin; base < end; base += threads) {
    const long long i = base + threadIdx.x;
    const bool valid = i < end;
    K key{};
    unsigned p = ~0u;
    if (valid) {
      key = keys[i];
      p = partition_of<Bits>(hc::hash_of(hash, key));
    }
    const unsigned peers = __match_any_sync(0xffffffffu, p);
    const int leader = __ffs(peers) - 1;
    unsigned long long at = 0;
    if (valid && lane == leader) at = atomicAdd(&next[p], static_cast<unsigned long long>(__popc(peers)));
    at = __shfl_sync(0xffffffffu, at, leader) + static_cast<unsigned long long>(__popc(peers & below));
    if (valid) {
      part_keys[at] = key;
      part_values[at] = static_cast<Acc>(values[i]);
      part_index[at] = static_cast<unsigned>(i);
    }
  }
}

template <class = void>
__global__ void clear_status_kernel(build_status* status) {
  status->claimed = 0;
  status->tiles = 0;
  status->records = 0;
  status->total = 0;
  status->abort = 0;
  status->pad = 0;
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

inline constexpr double size_load = 0.7;   // sized for this load factor, and grown past it (but
inline constexpr double limit_load = 0.7;  // the last size, which holds every record distinct)
/// A table that may still grow gives up on a key after this many probes (the build starts over,
/// larger); the last one probes on (a hash that sends many keys to one slot is slow, not wrong).
/// The blocks see the load limit only at their reports (every 1024 records a block, about 1 M
/// records a grid on an H100), so a table smaller than that overshoots its limit and fills up:
/// with 4096 probes every insert into the full table walked 4096 slots before the build stopped
/// (the H100, m = 2^24: 46 ms with a 32 MB first table, 71 ms with 2 MB, against 10 ms with
/// 64 MB; with 256 probes 14 and 16 ms). Linear probing at the 70 % limit walks more than 256
/// slots about once in 2 M inserts: a build near its limit may stop a little early, never one
/// well below it.
inline constexpr unsigned long long max_probes_growing = 256;

template <bool Deterministic, class Tuning = oa_tuning, class Policy, class KeyIt, class ValIt, class KeyOut,
          class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce_open_addressing(const Policy& p, KeyIt keys_it, ValIt values_it, std::int64_t n,
                                          KeyOut keys_out, ValOut values_out, Op op, Hash hash, Eq eq) {
  const char* name = "group_reduce";
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  constexpr combine_kind kind = combine_kind_of<Op, Acc, Deterministic>();
  using Comb = hc::combiner<kind, Op, Acc>;
  if (kind == combine_kind::exact && n > (std::int64_t(1) << 30))
    fail(name, "group_strategy::deterministic sums at most 2^30 records per call (its exact accumulators "
               "would overflow past that); got " + std::to_string(n));
  auto keys = device_view(keys_it);
  auto values = device_view(values_it);
  auto ko = device_view(keys_out);
  auto vo = device_view(values_out);

  const auto run = [&](auto packed_tag) -> std::int64_t {
    constexpr bool packed = decltype(packed_tag)::value;
    using Table = hc::oa_table<K, Acc, Comb, packed, Eq>;
    using Slot = typename Table::slot;
    constexpr int front_n =
        packed ? front_slots_for<hc::oa_slot<K, typename Comb::storage, true>, Tuning::front_bytes>() : 0;
    using Front = hc::oa_split_table<K, Acc, Comb, Eq>;
    constexpr int pbits = packed ? Tuning::partition_bits : 0;
    static_assert(Tuning::partition_bits >= 0 && Tuning::partition_bits <= 10, "oa_tuning::partition_bits: 0 to 10");
    const cuda::device_info& dev = cuda::current_device_info();
    const long long tiles = (n + tile - 1) / tile;

    const unsigned long long cap_max =
        hc::pow2_ceil(static_cast<unsigned long long>(std::max(64.0, std::ceil(static_cast<double>(n) / size_load))));
    // the first size: 64 MB of slots (2^22 slots of 16 bytes), or what n records need if less
    unsigned long long first_cap = 1024;
    while (first_cap * 2 * sizeof(Slot) <= Tuning::first_table_bytes) first_cap *= 2;
    unsigned long long cap = std::min<unsigned long long>(cap_max, std::max<unsigned long long>(first_cap, 1ull << pbits));
    // (a partitioned build needs at least one slot per partition: `partitioned` raises cap to that)
    rank_buffers rb(p, n);
    cuda::temporary_buffer status_buf(p, sizeof(build_status));
    auto* status = status_buf.as<build_status>();

    // Builds tables of growing sizes from the records (bk, bv, index: the input, or its copy
    // grouped into partitions) until one holds every key.
    // (bits: the partition bits of the records' order, 0 for input order; give_up: return -1 when
    // the table overflows, cap then set from the estimate, instead of growing it)
    const auto build = [&](auto bk, auto bv, auto index, int bits, bool give_up) -> std::int64_t {
      const auto kernel = oa_build_kernel<front_n, Tuning::report_every, Table, Front, decltype(bk), decltype(bv), Hash,
                                          decltype(index)>;
      int per_sm = 0;
      check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), name,
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      const unsigned grid = static_cast<unsigned>(std::max<long long>(
          1, std::min<long long>(tiles, std::max(1, per_sm) * static_cast<long long>(dev.sm_count))));
      for (;;) {
        const bool last = cap >= cap_max;
        const unsigned long long limit =
            last ? ~0ull : static_cast<unsigned long long>(static_cast<double>(cap) * limit_load);
        cuda::temporary_buffer slots(p, static_cast<std::size_t>(cap) * sizeof(Slot));
        const Table table{slots.as<Slot>(), cap - 1, Comb{accumulate_with<Op, Acc>{op}}, eq};
        int shift = 0;  // with partitions: the home slot is the top log2(cap) bits of the hash
        if (bits > 0)
          while ((1ull << (64 - shift - 1)) >= cap && shift < 63) ++shift;
        hc::clear_table_kernel<<<grid_for(static_cast<long long>(cap)), threads, 0, p.stream>>>(table, cap);
        cuda::check_launch(name, "clear_table_kernel");
        clear_status_kernel<><<<1, 1, 0, p.stream>>>(status);
        cuda::check_launch(name, "clear_status_kernel");
        kernel<<<grid, threads, 0, p.stream>>>(table, bk, bv, static_cast<long long>(n), hash, status, limit,
                                               last ? ~0ull : max_probes_growing, index, shift);
        cuda::check_launch(name, "oa_build_kernel");
        rank_count(name, p, table, cap, rb, status);
        const build_status st = cuda::copy_to_host(name, status, p.stream);
        if (!st.abort) {
          rank_emit_in_order(name, p, table, rb, keys, hash, shift, ko, vo);
          return static_cast<std::int64_t>(st.total);
        }
        if (last)
          fail(name, "the hash table of " + std::to_string(cap) + " slots is full with " + std::to_string(st.claimed) +
                         " keys (it is sized for every record being distinct; a key_equal that is not consistent "
                         "with the hash?)");
        // the prefix the claimed keys came from: the records the blocks reported with them (the
        // tiles taken also count up to a grid's worth in flight at the stop, 3 M records on an H100:
        // at m = 2^24 that halved the estimate and cost a second build that stopped too)
        const double r = std::min(static_cast<double>(st.records), static_cast<double>(n));
        double m = estimate_distinct(static_cast<double>(st.claimed), r, static_cast<double>(n));
        if (bits > 0) {
          // the records seen were those of the first partitions only: their keys, about
          // m x (partitions seen) / (all partitions) of them
          const double parts = static_cast<double>(1ull << bits);
          const double seen = std::max(1.0, std::min(parts, std::ceil(r * parts / static_cast<double>(n))));
          m = std::min(static_cast<double>(n), m * parts / seen);
        }
        const unsigned long long want = hc::pow2_ceil(static_cast<unsigned long long>(std::ceil(m / size_load)) + 1);
        cap = std::min(cap_max, std::max(cap * 4, want));
        if (give_up) return -1;
      }
    };

    // the pre-pass (count each block's records per partition, place the blocks' slices, copy),
    // then the build over the copy
    const auto partitioned = [&](auto bits_tag) -> std::int64_t {
      constexpr int B = decltype(bits_tag)::value;
      const long long blocks = (static_cast<long long>(n) + partition_chunk - 1) / partition_chunk;
      const long long count = blocks << B;
      cuda::temporary_buffer counts(p, static_cast<std::size_t>(count) * sizeof(unsigned));
      cuda::temporary_buffer offsets(p, static_cast<std::size_t>(count) * sizeof(unsigned long long));
      cuda::temporary_buffer part_keys(p, static_cast<std::size_t>(n) * sizeof(K));
      cuda::temporary_buffer part_values(p, static_cast<std::size_t>(n) * sizeof(Acc));
      cuda::temporary_buffer part_index(p, static_cast<std::size_t>(n) * sizeof(unsigned));
      partition_count_kernel<B><<<static_cast<unsigned>(blocks), threads, 0, p.stream>>>(
          keys, static_cast<long long>(n), hash, counts.as<unsigned>());
      cuda::check_launch(name, "partition_count_kernel");
      partition_offsets_kernel<><<<1, threads, 0, p.stream>>>(counts.as<unsigned>(), count,
                                                               offsets.as<unsigned long long>());
      cuda::check_launch(name, "partition_offsets_kernel");
      partition_scatter_kernel<B><<<static_cast<unsigned>(blocks), threads, 0, p.stream>>>(
          keys, values, static_cast<long long>(n), hash, offsets.as<unsigned long long>(), part_keys.as<K>(),
          part_values.as<Acc>(), part_index.as<unsigned>());
      cuda::check_launch(name, "partition_scatter_kernel");
      cap = std::max<unsigned long long>(cap, std::min<unsigned long long>(cap_max, 1ull << B));
      return build(static_cast<const K*>(part_keys.as<K>()), static_cast<const Acc*>(part_values.as<Acc>()),
                   stored_index{part_index.as<unsigned>()}, B, false);
    };

    constexpr int growth_bits = packed ? Tuning::partition_bits_on_growth : 0;
    static_assert(Tuning::partition_bits_on_growth >= 0 && Tuning::partition_bits_on_growth <= 10,
                  "oa_tuning::partition_bits_on_growth: 0 to 10");
    if constexpr (pbits > 0) {
      return partitioned(std::integral_constant<int, pbits>{});
    } else if constexpr (growth_bits > 0) {
      const std::int64_t groups = build(keys, values, identity_index{}, 0, true);
      if (groups >= 0) return groups;
      return partitioned(std::integral_constant<int, growth_bits>{});
    } else {
      return build(keys, values, identity_index{}, 0, false);
    }
  };
  if constexpr (Comb::has_identity && hc::packable_key_v<K>) {
    if (n < (std::int64_t(1) << 31)) return run(std::true_type{});
  }
  return run(std::false_type{});
}

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

template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce_locked_chaining(const Policy& p, KeyIt keys_it, ValIt values_it, std::int64_t n,
                                          KeyOut keys_out, ValOut values_out, Op op, Hash hash, Eq eq) {
  const char* name = "group_reduce";
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  using AOp = accumulate_with<Op, Acc>;
  using Table = hc::chained_table<K, Acc, AOp, Eq>;
  auto keys = device_view(keys_it);
  auto values = device_view(values_it);
  const unsigned long long buckets =
      hc::pow2_ceil(static_cast<unsigned long long>(std::min<std::int64_t>(std::max<std::int64_t>(n / 4, 1024), 1 << 24)));
  const long long words = (n + 31) / 32;
  cuda::temporary_buffer heads(p, buckets * sizeof(long long)), locks(p, buckets * sizeof(unsigned));
  cuda::temporary_buffer pool(p, static_cast<std::size_t>(n) * sizeof(hc::chain_entry<K, Acc>));
  cuda::temporary_buffer created(p, static_cast<std::size_t>(words) * sizeof(unsigned));
  check_cuda(cudaMemsetAsync(heads.get(), 0xff, heads.size(), p.stream), name, "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(locks.get(), 0, locks.size(), p.stream), name, "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(created.get(), 0, created.size(), p.stream), name, "cudaMemsetAsync");
  const Table table{heads.as<long long>(), locks.as<unsigned>(), pool.as<hc::chain_entry<K, Acc>>(),
                    created.as<unsigned>(), buckets - 1, AOp{op}, eq};
  const cuda::device_info& dev = cuda::current_device_info();
  const unsigned grid = static_cast<unsigned>(
      std::max<long long>(1, std::min<long long>((n + threads - 1) / threads, 8LL * dev.sm_count)));
  chain_build_kernel<<<grid, threads, 0, p.stream>>>(table, keys, values, static_cast<long long>(n), hash);
  cuda::check_launch(name, "chain_build_kernel");
  rank_buffers rb(p, n);
  cuda::temporary_buffer status_buf(p, sizeof(build_status));
  auto* status = status_buf.as<build_status>();
  rank_count(name, p, table, static_cast<unsigned long long>(n), rb, status);
  const build_status st = cuda::copy_to_host(name, status, p.stream);
  rank_emit(name, p, table, static_cast<unsigned long long>(n), rb, keys, device_view(keys_out),
            device_view(values_out));
  return static_cast<std::int64_t>(st.total);
}

}  // namespace algo::detail::group

namespace algo::detail {

/// algo::cuda: the policy's group_strategy.
template <class... S, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce(const cuda_policy<S...>& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq eq) {
  using G = typename cuda_policy<S...>::group_strategy;
  if constexpr (std::is_same<G, group_strategy::locked_chaining_t>::value) {
    return group::group_reduce_locked_chaining(p, keys, values, n, keys_out, values_out, op, hash, eq);
  } else {
    using V = iter_value_t<ValIt>;
    using Acc = accumulator_t<Op, V, V>;
    constexpr bool det = std::is_same<G, group_strategy::deterministic_t>::value;
    static_assert(!det || group::deterministic_supported_v<Op, Acc>,
                  "algo::group_reduce with group_strategy::deterministic: bit-identical results need exact "
                  "combinations: an integer accumulator, or plus / minimum / maximum on float or double");
    return group::group_reduce_open_addressing<det>(p, keys, values, n, keys_out, values_out, op, hash, eq);
  }
}

}  // namespace algo::detail
