// group_reduce on algo::cuda, the partitioned build (issue 27 item 5): for many distinct keys, where
// one hash table outgrows the L2 and every record becomes a random DRAM atomic, the records are
// first put in order of the top P bits of their keys' hashes, as a radix sort's passes would put
// them, then each partition (about 2048 records, P from n) is aggregated in one block's shared
// memory. The driver (device.cuh) switches to it from what the first records show (sample).
//   sample     sample_kernel: the first 4096 records' keys in a block's shared set; if more than
//              half of them are records whose key appears once there (Good-Turing: the share of
//              the records that will meet a key seen rarely, i.e. a table far larger than the
//              shared one), the build status says so (abort = 1, mode_partitioned) and the
//              one-table kernels launched after it return at once
//   histogram  digit_histogram_kernel: each scatter pass's digit counts over the whole input
//              (one read of the keys); digit_starts_kernel: their exclusive sums
//   scatter    scatter_kernel, one launch a pass (1 pass for P <= 8 bits, else 2: P - 8 low bits,
//              then the top 8; least significant first, each pass stable): a tile of 2048
//              records ranks its records per digit (warp match, then a scan across the warps),
//              finds where its run of each digit starts by a look-back over the tiles before it
//              (one thread a digit), stages the records in shared memory in digit order and
//              writes each digit's run contiguously. One read, one write a pass; a record is its
//              word (input index << 32 | key bits, the slot word of the packed table) and value
//   units      partition_bounds_kernel: where each partition starts (binary search inside its
//              top-8-bit bucket), in chunks of at most aggregate_chunk records;
//              unit_prefix_kernel: the chunks numbered
//   aggregate  aggregate_kernel: a block a chunk, the chunk's records in a shared-memory table
//              (oa_split_table). A partition of one chunk holds all of its keys there: its groups
//              are appended to the group list and their first appearances marked in the rank
//              pass's bit map. The chunks of a larger partition (skewed keys: a hot key's partition)
//              flush theirs into a global table (the overflow table; the rank pass marks it)
// The rank pass and emit_kernel (rank.cuh, emit.cuh) then write the list's and the overflow
// table's groups at their ranks: first-appearance order, as the one-table build.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../cuda/hash/open_addressing.cuh"
#include "../cuda/hash/probe.cuh"
#include "common.cuh"

namespace algo::detail::group {

// ---- sample ----------------------------------------------------------------------------------------
inline constexpr int sample_records = 4096;
/// Inputs below this take one table without a sample (a table for all of their keys fits in the L2).
inline constexpr long long min_sampled_records = 1 << 18;
inline constexpr int sample_slots = 8192;
/// build_status::pad after the sample: the records go to the partitioned build.
inline constexpr unsigned mode_partitioned = 1;

/// One block of `threads`: the first min(n, 4096) keys into a shared set of 32-bit hash tags;
/// singletons = sample records whose key appears once; more than `min_singletons` of them: the
/// partitioned build (status->abort = 1, status->pad = mode_partitioned).
template <class KeyIt, class Hash>
__global__ void __launch_bounds__(threads)
    sample_kernel(KeyIt keys, long long n, Hash hash, build_status* status, unsigned min_singletons) {
  __shared__ unsigned tags[sample_slots];
  __shared__ unsigned dup[sample_slots / 32];
  __shared__ unsigned s_new, s_dup;
  for (int i = threadIdx.x; i < sample_slots; i += threads) tags[i] = 0u;
  for (int i = threadIdx.x; i < sample_slots / 32; i += threads) dup[i] = 0u;
  if (threadIdx.x == 0) {
    s_new = 0;
    s_dup = 0;
  }
  __syncthreads();
  const int s = n < sample_records ? static_cast<int>(n) : sample_records;
  unsigned fresh = 0;
  for (int i = threadIdx.x; i < s; i += threads) {
    const std::uint64_t h = hc::hash_of(hash, keys[i]);
    const unsigned tag = static_cast<unsigned>(h >> 32) | 1u;
    unsigned slot = static_cast<unsigned>(h) & (sample_slots - 1);
    for (int probe = 0; probe < sample_slots; ++probe, slot = (slot + 1) & (sample_slots - 1)) {
      unsigned t = tags[slot];
      if (t == 0u) {
        t = atomicCAS(&tags[slot], 0u, tag);
        if (t == 0u) {
          ++fresh;
          break;
        }
      }
      if (t == tag) {
        atomicOr(&dup[slot >> 5], 1u << (slot & 31));
        break;
      }
    }
  }
  if (fresh) atomicAdd(&s_new, fresh);
  __syncthreads();
  unsigned d = 0;  // keys seen more than once
  for (int i = threadIdx.x; i < sample_slots / 32; i += threads) d += __popc(dup[i]);
  if (d) atomicAdd(&s_dup, d);
  __syncthreads();
  if (threadIdx.x == 0 && s_new - s_dup > min_singletons) {
    status->pad = mode_partitioned;
    status->abort = 1u;
  }
}

// ---- histogram -------------------------------------------------------------------------------------
/// The digits of one scatter pass: (hash >> shift) & (2^bits - 1), bits <= 8.
struct digit_pass {
  int shift, bits;
  __device__ __forceinline__ unsigned of(std::uint64_t h) const {
    return static_cast<unsigned>(h >> shift) & ((1u << bits) - 1u);
  }
};
inline constexpr int max_radix = 256;

/// counts[pass * 256 + digit] += the input's records with that digit (passes: 1 or 2).
template <class KeyIt, class Hash>
__global__ void __launch_bounds__(threads)
    digit_histogram_kernel(KeyIt keys, long long n, Hash hash, digit_pass p0, digit_pass p1, int passes,
                           unsigned* counts) {
  __shared__ unsigned c[2 * max_radix];
  for (int i = threadIdx.x; i < 2 * max_radix; i += threads) c[i] = 0u;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * threads;
  for (long long i = blockIdx.x * static_cast<long long>(threads) + threadIdx.x; i < n; i += stride) {
    const std::uint64_t h = hc::hash_of(hash, keys[i]);
    atomicAdd(&c[p0.of(h)], 1u);
    if (passes > 1) atomicAdd(&c[max_radix + p1.of(h)], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 2 * max_radix; i += threads)
    if (c[i]) atomicAdd(&counts[i], c[i]);
}

/// One block: starts[pass * 256 + d] = counts of the pass's digits below d.
template <class = void>
__global__ void __launch_bounds__(threads) digit_starts_kernel(const unsigned* counts, unsigned* starts) {
  static_assert(threads == max_radix, "a thread a digit");
  __shared__ unsigned long long smem[threads / 32 + 1];
  for (int pass = 0; pass < 2; ++pass) {
    unsigned long long total;
    const unsigned long long ex = block_exclusive_sum(counts[pass * max_radix + threadIdx.x], smem, &total);
    starts[pass * max_radix + threadIdx.x] = static_cast<unsigned>(ex);
  }
}

// ---- scatter ---------------------------------------------------------------------------------------
inline constexpr int scatter_items = 8;
inline constexpr long long scatter_tile = threads * scatter_items;  // 2048 records
/// Look-back words: (status << 30) | count; counts stay below 2^30 (the partitioned build takes
/// n < 2^30).
inline constexpr unsigned lb_aggregate = 1u << 30, lb_inclusive = 2u << 30, lb_count = (1u << 30) - 1u;

/// The records of pass 0 (the input: word = index << 32 | key bits, value converted to Acc) ...
template <class K, class Acc, class KeyIt, class ValIt>
struct input_records {
  KeyIt keys;
  ValIt values;
  __device__ void load(long long i, unsigned long long& w, Acc& v, K& k) const {
    k = keys[i];
    w = (static_cast<unsigned long long>(i) << 32) | hc::key_bits(k);
    v = static_cast<Acc>(values[i]);
  }
};
/// ... and of the passes after it (the previous pass's output).
template <class K, class Acc>
struct stored_records {
  const unsigned long long* words;
  const Acc* values;
  __device__ void load(long long i, unsigned long long& w, Acc& v, K& k) const {
    w = words[i];
    v = values[i];
    k = hc::key_from_bits<K>(static_cast<std::uint32_t>(w));
  }
};

/// One pass of the stable scatter by digit (see the file's head). flags: tiles x 256 zeroed words;
/// ticket: a zeroed counter (tiles are numbered in the order blocks start, so a tile's look-back
/// only waits on tiles already running).
template <class K, class Acc, class Src, class Hash>
__global__ void __launch_bounds__(threads)
    scatter_kernel(Src src, long long n, Hash hash, digit_pass pass, const unsigned* starts, unsigned* flags,
                   unsigned* ticket, unsigned long long* words_out, Acc* values_out) {
  constexpr int warps = threads / 32;
  __shared__ unsigned warp_count[warps][max_radix];
  __shared__ unsigned long long s_words[scatter_tile];
  __shared__ Acc s_values[scatter_tile];
  __shared__ unsigned char s_digit[scatter_tile];
  __shared__ unsigned s_local[max_radix], s_base[max_radix];
  __shared__ unsigned long long scan_smem[warps + 1];
  __shared__ unsigned s_tile;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int radix = 1 << pass.bits;
  if (threadIdx.x == 0) s_tile = atomicAdd(ticket, 1u);
  for (int d = threadIdx.x; d < radix; d += threads)
#pragma unroll
    for (int w = 0; w < warps; ++w) warp_count[w][d] = 0u;
  __syncthreads();
  const long long tile = s_tile;
  const long long base = tile * scatter_tile;

  // ranks: warp w holds records [base + 256 w, base + 256 (w + 1)), item j lane l the record
  // 32 j + l of them, so (j, lane) order is input order and the ranks are stable
  unsigned long long w_[scatter_items];
  Acc v_[scatter_items];
  unsigned d_[scatter_items], r_[scatter_items];
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < scatter_items; ++j) {  // every load in flight before the first rank
    const long long i = base + warp * (32 * scatter_items) + j * 32 + lane;
    d_[j] = ~0u;
    if (i < n) {
      K k;
      src.load(i, w_[j], v_[j], k);
      d_[j] = pass.of(hc::hash_of(hash, k));
    }
  }
#pragma unroll
  for (int j = 0; j < scatter_items; ++j) {
    const unsigned peers = __match_any_sync(0xffffffffu, d_[j]);
    unsigned c = 0;
    if (d_[j] != ~0u) c = warp_count[warp][d_[j]];
    __syncwarp();
    if (d_[j] != ~0u && lane == 31 - __clz(peers)) warp_count[warp][d_[j]] = c + __popc(peers);
    __syncwarp();
    r_[j] = c + __popc(peers & below);
  }
  __syncthreads();

  // per digit (thread d): the warps' counts become their offsets; the tile's count of d
  unsigned count = 0;
  if (static_cast<int>(threadIdx.x) < radix) {
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const unsigned c = warp_count[w][threadIdx.x];
      warp_count[w][threadIdx.x] = count;
      count += c;
    }
  }
  unsigned long long tile_total;
  const unsigned local = static_cast<unsigned>(block_exclusive_sum(count, scan_smem, &tile_total));
  if (static_cast<int>(threadIdx.x) < radix) {
    s_local[threadIdx.x] = local;
    // the look-back: this digit's records in the tiles before this one
    volatile unsigned* f = flags;
    const long long me = tile * max_radix + threadIdx.x;
    unsigned prefix = 0;
    if (tile == 0) {
      f[me] = lb_inclusive | count;
    } else {
      f[me] = lb_aggregate | count;
      for (long long t = tile - 1;; --t) {
        unsigned x;
        do {
          x = f[t * max_radix + threadIdx.x];
        } while (x == 0u);
        prefix += x & lb_count;
        if (x & lb_inclusive) break;
      }
      f[me] = lb_inclusive | (prefix + count);
    }
    s_base[threadIdx.x] = starts[threadIdx.x] + prefix;
  }
  __syncthreads();

  // staged in digit order, then each digit's run written contiguously
#pragma unroll
  for (int j = 0; j < scatter_items; ++j) {
    if (d_[j] != ~0u) {
      const unsigned at = s_local[d_[j]] + warp_count[warp][d_[j]] + r_[j];
      s_words[at] = w_[j];
      s_values[at] = v_[j];
      s_digit[at] = static_cast<unsigned char>(d_[j]);
    }
  }
  __syncthreads();
  const int in_tile = static_cast<int>(n - base < scatter_tile ? n - base : scatter_tile);
  for (int k = threadIdx.x; k < in_tile; k += threads) {
    const unsigned d = s_digit[k];
    const unsigned long long at = static_cast<unsigned long long>(s_base[d]) + (static_cast<unsigned>(k) - s_local[d]);
    words_out[at] = s_words[k];
    values_out[at] = s_values[k];
  }
}

// ---- units -----------------------------------------------------------------------------------------
/// Records a block of the aggregate pass takes at most (a partition of more is split into chunks,
/// which meet in the overflow table); its shared table has aggregate_slots slots.
inline constexpr long long aggregate_chunk = 3072;
inline constexpr int aggregate_slots = 4096;
/// An insert into the overflow table gives up after this many probes (the call then builds one
/// table instead, as an overflow past the load limit does).
inline constexpr unsigned long long max_probes_overflow = 256;

/// The top `bits` bits of a mixed hash.
__device__ __forceinline__ unsigned long long top_bits(std::uint64_t h, int bits) {
  return bits ? static_cast<unsigned long long>(h >> (64 - bits)) : 0ull;
}

/// bounds[p] = the first record of partition p in the scattered order (p < 2^bits; bounds[2^bits]
/// = n), found by binary search inside its top-8-bit bucket [starts8[a], starts8[a] + counts8[a]);
/// chunks[p] = its number of chunks (at least 1).
template <class K, class Hash>
__global__ void __launch_bounds__(threads)
    partition_bounds_kernel(const unsigned long long* words, long long n, Hash hash, int bits, const unsigned* starts8,
                            const unsigned* counts8, unsigned* bounds, unsigned* chunks) {
  const long long parts = 1ll << bits;
  const int top = bits < 8 ? bits : 8;
  const long long p = blockIdx.x * static_cast<long long>(threads) + threadIdx.x;
  if (p > parts) return;
  const auto start_of = [&](long long q) -> unsigned long long {
    if (q >= parts) return static_cast<unsigned long long>(n);
    const long long a = q >> (bits - top);
    unsigned long long lo = starts8[a], hi = static_cast<unsigned long long>(starts8[a]) + counts8[a];
    if (bits == top) return lo;
    while (lo < hi) {
      const unsigned long long mid = (lo + hi) / 2;
      const K k = hc::key_from_bits<K>(static_cast<std::uint32_t>(words[mid]));
      if (static_cast<long long>(top_bits(hc::hash_of(hash, k), bits)) < q) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const unsigned long long b = start_of(p);
  bounds[p] = static_cast<unsigned>(b);
  if (p < parts) {
    const unsigned long long e = start_of(p + 1);
    const unsigned long long c = (e - b + aggregate_chunk - 1) / aggregate_chunk;
    chunks[p] = static_cast<unsigned>(c ? c : 1);
  }
}

/// One block: prefix[p] = chunks of the partitions before p (p <= count); prefix[count] = all.
template <class = void>
__global__ void __launch_bounds__(threads) unit_prefix_kernel(const unsigned* chunks, long long count,
                                                               unsigned* prefix) {
  __shared__ unsigned long long smem[threads / 32 + 1];
  const long long per = (count + threads - 1) / threads;
  const long long b = threadIdx.x * per;
  const long long e = b + per < count ? b + per : count;
  unsigned long long sum = 0;
  for (long long j = b; j < e; ++j) sum += chunks[j];
  unsigned long long total;
  unsigned long long run = block_exclusive_sum(sum, smem, &total);
  for (long long j = b; j < e; ++j) {
    prefix[j] = static_cast<unsigned>(run);
    run += chunks[j];
  }
  if (threadIdx.x == 0) prefix[count] = static_cast<unsigned>(total);
}

// ---- aggregate -------------------------------------------------------------------------------------
/// Where the aggregate pass's groups go: the list (partitions of one chunk) and its count, and
/// the overflow table (the chunks of larger partitions), whose claims go to status->claimed and
/// stop the call past `limit` (the driver then builds one table, as before).
template <class Table, class Acc>
struct aggregate_out {
  unsigned long long* list_words;
  Acc* list_values;
  unsigned long long* list_count;
  unsigned* bits;  // first appearances (the rank pass's bit map)
  Table overflow;
  build_status* status;
  unsigned long long limit;
};

/// The shared memory aggregate_kernel needs for `Front` (dynamic: words, then aggregates).
template <class Front>
constexpr std::size_t aggregate_smem() {
  return static_cast<std::size_t>(aggregate_slots) * (sizeof(unsigned long long) + sizeof(typename Front::storage));
}

template <class Front, class Table, class Acc, class Hash>
__global__ void __launch_bounds__(threads)
    aggregate_kernel(const unsigned long long* words, const Acc* values, Hash hash, const unsigned* bounds,
                     const unsigned* prefix, long long parts, aggregate_out<Table, Acc> out) {
  using K = typename Table::key_type;
  using S = typename Front::storage;
  extern __shared__ unsigned long long agg_smem[];
  __shared__ unsigned long long scan_smem[threads / 32 + 1];
  __shared__ unsigned long long s_at;
  const Front front{agg_smem, reinterpret_cast<S*>(agg_smem + aggregate_slots),
                    static_cast<unsigned long long>(aggregate_slots - 1), out.overflow.comb, out.overflow.eq};
  const unsigned unit = blockIdx.x;
  if (unit >= prefix[parts]) return;
  // the partition: the last p with prefix[p] <= unit
  long long lo = 0, hi = parts - 1;
  while (lo < hi) {
    const long long mid = (lo + hi + 1) / 2;
    if (prefix[mid] <= unit) lo = mid;
    else hi = mid - 1;
  }
  const long long p = lo;
  const bool whole = prefix[p + 1] - prefix[p] == 1u;
  const long long b = bounds[p] + static_cast<long long>(unit - prefix[p]) * aggregate_chunk;
  const long long e = b + aggregate_chunk < static_cast<long long>(bounds[p + 1]) ? b + aggregate_chunk
                                                                                   : static_cast<long long>(bounds[p + 1]);
  // the chunk's records in registers first (every load in flight), then into the table: at most
  // aggregate_chunk < aggregate_slots keys, so every key finds a slot
  constexpr int items_per_thread = static_cast<int>(aggregate_chunk / threads);
  static_assert(aggregate_chunk % threads == 0, "a chunk is whole items per thread");
  unsigned long long w_[items_per_thread];
  Acc v_[items_per_thread];
#pragma unroll
  for (int j = 0; j < items_per_thread; ++j) {
    const long long i = b + j * threads + threadIdx.x;
    if (i < e) {
      w_[j] = words[i];
      v_[j] = values[i];
    }
  }
  for (int i = threadIdx.x; i < aggregate_slots; i += threads) front.clear(static_cast<unsigned long long>(i));
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items_per_thread; ++j) {
    if (b + j * threads + threadIdx.x < e) {
      const K key = hc::key_from_bits<K>(static_cast<std::uint32_t>(w_[j]));
      front.template insert<false>(key, hc::hash_of(hash, key), w_[j] >> 32, v_[j],
                                   static_cast<unsigned long long>(aggregate_slots));
    }
  }
  __syncthreads();
  constexpr int per = aggregate_slots / threads;
  if (whole) {
    // every key of the partition is here: its groups appended to the list, first appearances marked
    unsigned mine = 0;
#pragma unroll
    for (int j = 0; j < per; ++j) mine += front.occupied(static_cast<unsigned long long>(threadIdx.x * per + j));
    unsigned long long total;
    unsigned long long at = block_exclusive_sum(mine, scan_smem, &total);
    if (threadIdx.x == 0) s_at = total ? atomicAdd(out.list_count, total) : 0ull;
    __syncthreads();
    at += s_at;
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const auto slot = static_cast<unsigned long long>(threadIdx.x * per + j);
      if (front.occupied(slot)) {
        const unsigned long long f = front.first_index(slot);
        out.list_words[at] = front.words[slot];
        out.list_values[at] = front.value(slot);
        atomicOr(out.bits + (f >> 5), 1u << (f & 31));
        ++at;
      }
    }
  } else {
    // one chunk of a larger partition: its partial groups into the overflow table
    unsigned claims = 0;
    bool full = false;
    for (int i = threadIdx.x; i < aggregate_slots; i += threads) {
      const auto slot = static_cast<unsigned long long>(i);
      if (front.occupied(slot)) {
        const K key = front.key(slot);
        const int r = out.overflow.template insert<true>(key, hc::hash_of(hash, key), front.first_index(slot),
                                                         front.values[i], max_probes_overflow);
        claims += r == 1;
        full |= r < 0;
      }
    }
    if (full) atomicExch(&out.status->abort, 1u);
    if (claims) {
      const unsigned long long old = atomicAdd(&out.status->claimed, static_cast<unsigned long long>(claims));
      if (old + claims > out.limit) atomicExch(&out.status->abort, 1u);
    }
  }
}

/// The group list as emit_kernel reads a table: every entry a group.
template <class Acc>
struct group_list {
  const unsigned long long* words;
  const Acc* values;
  __device__ bool occupied(unsigned long long) const { return true; }
  __device__ unsigned long long first_index(unsigned long long i) const { return words[i] >> 32; }
  __device__ Acc value(unsigned long long i) const { return values[i]; }
};

}  // namespace algo::detail::group
