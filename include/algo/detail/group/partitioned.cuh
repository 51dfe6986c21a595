// group_reduce on algo::cuda, the partitioned build (issue 27 item 5): for many distinct keys, where
// one hash table outgrows the L2 and every record becomes a random DRAM atomic, the records are
// first put in order of the top P bits of their keys' hashes, as a radix sort's passes would put
// them, then each partition (about 2048 records, P from n) is aggregated in one block's shared
// memory. The driver (device.cuh) switches to it from what the first records show (sample).
//   sample     sample_kernel: the first 4096 records' keys in a block's shared set; if most of
//              them are records whose key appears once there (Good-Turing: the share of the
//              records that will meet a key seen rarely, i.e. a table far larger than the shared
//              one) and the others are either on a few hot keys (skewed) or rare enough that
//              uniform keys would number millions, the build status says so (abort = 1,
//              mode_partitioned) and the one-table kernels launched after it return at once;
//              otherwise it reads on to 32768 records and, where the distinct keys it estimates
//              fit a smaller table than the host's, sizes the one table (build_status::cap: a
//              table that stays in the L2)
//   hot        hot_pick_kernel (one block): the keys seen at least twice in the first 8192 records
//              (up to 1024: a skewed input's hot keys; uniform keys over millions show none)
//   histogram  partition_histogram_kernel: the records per partition (2^P counters in each block's
//              shared memory, P <= 15; one read of the keys), but the hot keys' records, which are
//              aggregated there (a block's shared table of the hot keys, then one insert a key into
//              the hot table) and marked in a bit map (a bit a record) for the scatter to skip
//   plan       partition_plan_kernel (one block): the partitions' bounds (exclusive sums of the
//              counts), the last pass's write cursors, the aggregate pass's chunks, and with two
//              passes the first pass's cursors and the second pass's tiles per bucket
//   scatter    scatter_kernel, one launch a pass (1 pass for P <= 8 bits, else 2: the top 8 bits,
//              then inside each of those 256 buckets the P - 8 bits below them, the tiles of the
//              second pass never straddling two buckets): a tile of 2048 records ranks its
//              records per digit (a shared atomicAdd a record on the tile's count of its digit,
//              then a scan of the counts), reserves its run of each digit with one atomicAdd on
//              that digit's cursor (no order between tiles: the scatter is not stable, and needs
//              not be, as each group keeps its smallest input index), stages the records in
//              shared memory in digit order and writes each run contiguously. One read, one
//              write a pass; a record is its word (input index << 32 | key bits, the slot word of
//              the packed table) and value
//   aggregate  aggregate_kernel: a block a chunk, the chunk's records in a shared-memory table
//              (oa_split_table; a warp whose 32 records share a key inserts their sum once). A
//              partition of one chunk holds all of its keys there: each of its groups is appended
//              to the group list in the region of its span (the place_span input positions its
//              first index lies in; one atomicAdd on the span's count). The chunks of a larger
//              partition (skewed keys: a hot key's partition) flush theirs into a global table
//              (the overflow table), whose groups append_table_kernel then appends the same way,
//              as it does the hot table's
//   count      span_scan_kernel (one block): the groups before each span; the number of groups
//              to the build's status, which the host reads once, after the last kernel
//   place      place_kernel, a block a span of 2048 input positions: its groups' ranks from a bit
//              map of the span's first appearances in shared memory, the groups staged there at
//              their ranks and the span's stretch of the outputs written in order
//              (first-appearance order, as the one-table build).
//              The key is the list word's bits where key_equal is == on integers
//              (bitwise_equal_v), else the input's key at the group's first index.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../cuda/hash/open_addressing.cuh"
#include "../cuda/hash/probe.cuh"
#include "../iterator.hpp"
#include "common.cuh"

namespace algo::detail::group {

// ---- sample ----------------------------------------------------------------------------------------
inline constexpr int sample_records = 4096;
/// Inputs below this take one table without a sample (a table for all of their keys fits in the L2).
inline constexpr long long min_sampled_records = 1 << 18;
/// The records the sample reads to size a one-table build (sample_kernel's second part).
inline constexpr int size_sample_records = 32768;
/// The sample's set: 16-bit hash tags (0 = empty) in 2^16 slots, 128 KB of shared memory, and a
/// bit a slot for the keys seen twice.
inline constexpr int sample_slots = 1 << 16;
inline constexpr int sample_threads = 1024;
inline constexpr std::size_t sample_smem =
    sample_slots * sizeof(unsigned short) + (sample_slots / 32) * sizeof(unsigned);
/// build_status::pad after the sample: the records go to the partitioned build ...
inline constexpr unsigned mode_partitioned = 1;
/// ... or to its one-pass form (uniform keys, as many as one pass's 256 partitions hold in their
/// blocks' shared tables: onepass_aggregate_kernel).
inline constexpr unsigned mode_onepass = 2;
/// A sized table holds the estimated distinct keys times this at its load limit.
inline constexpr double size_margin = 1.2;
/// The sample's size estimate treats the keys as uniform when the first records' repeated keys
/// have at most this many records each on average (uniform keys: ~2 while repeats are rare).
inline constexpr unsigned uniform_repeats = 3;

/// Inserts a record's hash into the sample's set: whether its key is new there (when not, and
/// `dup` is given, its slot's bit is set). Tags that agree in their 16 bits within one probe run
/// count as one key: ~1 false repeat in 32768 records.
/// (Not inlined: the second part's 28 unrolled inserts a thread, each with its probe loop, made
/// the kernel ~300 KB of code that one SM fetched cold every call, 37-75 us on an H100.)
template <class = void>
__device__ __noinline__ bool sample_insert(unsigned short* tags, unsigned* dup, std::uint64_t h) {
  const unsigned short raw = static_cast<unsigned short>(h >> 48);
  const unsigned short tag = raw ? raw : static_cast<unsigned short>(1);
  unsigned slot = static_cast<unsigned>(h) & (sample_slots - 1);
  for (int probe = 0; probe < sample_slots; ++probe, slot = (slot + 1) & (sample_slots - 1)) {
    unsigned short t = tags[slot];
    if (t == 0) {
      t = atomicCAS(&tags[slot], static_cast<unsigned short>(0), tag);
      if (t == 0) return true;
    }
    if (t == tag) {
      if (dup) atomicOr(&dup[slot >> 5], 1u << (slot & 31));
      return false;
    }
  }
  return false;
}

/// Whether uniform keys whose first r records hold d distinct ones number at most m (the count
/// m (1 - e^(-r/m)) of distinct keys r records show grows with m); not when too few of the r
/// repeat to tell (r - d < 16).
__device__ __forceinline__ bool sample_uniform_within(double d, double r, double m) {
  return r - d >= 16.0 && m * (1.0 - exp(-r / m)) >= d;
}

/// The number m of uniform keys whose r records show d distinct ones: m (1 - e^(-r/m)) = d, for
/// r - d >= 16. With x = r / m, g(x) = -expm1(-x) / x = d / r, g falling and convex: Newton's
/// steps from x = 2 (r - d) / d, right of the root, land left of it and climb back (2-9 steps over
/// m = 2^10..2^24 at r = 32768, where a bisection took 64, ~17 us of one thread's FP64 math).
__device__ __forceinline__ double sample_uniform_keys(double d, double r) {
  const double q = d / r;
  double x = 2.0 * (1.0 - q) / q;
#pragma unroll 1
  for (int it = 0; it < 16; ++it) {
    const double em = expm1(-x);
    const double g = -em / x, dg = (em * (x + 1.0) + x) / (x * x);
    const double next = x - (g - q) / dg;
    const bool done = fabs(next - x) <= 1e-9 * x;
    x = next;
    if (done) break;
  }
  return r / x;
}

/// One block of sample_threads, sample_smem bytes of dynamic shared memory.
/// 1. The build: the first min(n, 4096) keys into the set; singletons = sample records whose key
///    appears once, repeated = the others; the partitioned build (status->abort = 1,
///    status->pad = mode_partitioned) when singletons > `min_singletons` and either the repeats
///    are skewed (skew > 0 and repeated >= skew x the keys seen twice or more: hot keys and a long
///    tail, Zipf) or there are at most `max_repeated` (uniform keys: repeated ~ s^2 / m, so
///    m > s^2 / max_repeated; fewer keys keep one table, which stays in the L2).
/// 2. The one table's size (floor_cap > 0): the first min(n, 32768) keys into the set, and the
///    distinct keys over all n estimated twice: new keys keep coming at the rate of the sample's
///    second half (an upper bound for keys in no particular order: that rate only falls), and,
///    when the first part's repeats look uniform (<= uniform_repeats records a repeated key), the
///    uniform estimate from the sample's distinct count (sample_uniform_within: m (1 - e^(-r/m))
///    = d, ~4 % at 2^20 keys). The smaller of them (the first alone where the repeats are skewed:
///    a skewed sample's distinct count says little about the tail) times size_margin at the load
///    limit gives the table's slots, a power of two at least floor_cap; when that is under `cap` (the host's
///    size), status->cap = it: the build, clear and mark kernels use it, and a table that proves
///    too small grows as any other (device.cuh). A table that stays in the L2 (50 MB on an H100)
///    is what this buys: ~1 M uniform keys take 32 MB instead of 64. (Skipped where the first
///    part's repeats are skewed and a quarter of its Good-Turing new-key rate, singletons / s,
///    would already fill the host's table.) With l2_budget > 0 the size then doubles while it
///    packs over line_keys keys a 128-byte line and the lines the keys touch in the next size
///    fit that many bytes of the L2 (up to `cap`: then the host's size).
/// 3. The one-pass partitioned build (onepass_max > 0), in place of the one table, when the first
///    part's repeats look uniform and the uniform estimate of part 2 puts the keys over
///    `onepass_min` and within `onepass_max` (status->abort = 1, status->pad = mode_onepass): many
///    more keys than a table in the L2 serves fast, few enough that 256 partitions each fit a
///    block's shared table (one scatter pass instead of the records' random atomics in the L2).
template <class KeyIt, class Hash>
__global__ void __launch_bounds__(sample_threads)
    sample_kernel(KeyIt keys, long long n, Hash hash, build_status* status, unsigned min_singletons,
                  unsigned max_repeated, unsigned skew, unsigned long long cap, unsigned long long floor_cap,
                  double onepass_min = 0.0, double onepass_max = 0.0, double l2_budget = 0.0,
                  unsigned slot_bytes = 16, double line_keys = 0.25) {
  using K = iter_value_t<KeyIt>;
  extern __shared__ unsigned sample_shared[];
  unsigned* dup = sample_shared;
  unsigned short* tags = reinterpret_cast<unsigned short*>(sample_shared + sample_slots / 32);
  __shared__ unsigned s_new, s_dup, s_new2, s_late;
  __shared__ bool s_size;
  for (int i = threadIdx.x; i < sample_slots / 2; i += sample_threads) reinterpret_cast<unsigned*>(tags)[i] = 0u;
  for (int i = threadIdx.x; i < sample_slots / 32; i += sample_threads) dup[i] = 0u;
  if (threadIdx.x == 0) {
    s_new = 0;
    s_dup = 0;
    s_new2 = 0;
    s_late = 0;
  }
  __syncthreads();
  const int s = n < sample_records ? static_cast<int>(n) : sample_records;
  unsigned fresh = 0;
  {
    // (every load in flight before the first insert)
    constexpr int per_thread = sample_records / sample_threads;
    static_assert(sample_records % sample_threads == 0, "the first part: whole rounds");
    K k_[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j)
      if (j * sample_threads + static_cast<int>(threadIdx.x) < s) k_[j] = keys[j * sample_threads + threadIdx.x];
#pragma unroll
    for (int j = 0; j < per_thread; ++j)
      if (j * sample_threads + static_cast<int>(threadIdx.x) < s)
        fresh += sample_insert<>(tags, dup, hc::hash_of(hash, k_[j]));
  }
  if (fresh) atomicAdd(&s_new, fresh);
  __syncthreads();
  unsigned d = 0;  // keys seen more than once
  for (int i = threadIdx.x; i < sample_slots / 32; i += sample_threads) d += __popc(dup[i]);
  if (d) atomicAdd(&s_dup, d);
  __syncthreads();
  unsigned singles = 0, repeated = 0;
  bool uniform_like = false;
  if (threadIdx.x == 0) {
    singles = s_new - s_dup;                        // records whose key is seen once
    repeated = static_cast<unsigned>(s) - singles;  // the others, on s_dup keys
    // many singletons, and either skewed repeats (a few hot keys: repeated / s_dup >= skew) or
    // so few repeats that uniform keys would number over s^2 / max_repeated
    const bool part =
        singles > min_singletons && ((skew != 0u && repeated >= skew * s_dup) || repeated <= max_repeated);
    if (part) {
      status->pad = mode_partitioned;
      status->abort = 1u;
    }
    // skewed repeats with many singletons: even a quarter of the new-key rate they show (Good-
    // Turing: singles / s) would fill the host's table, so the second part would not choose
    // a smaller one (Zipf-like keys over 2^20: 54 % singletons; it cost them ~25 us, H100)
    uniform_like = repeated <= uniform_repeats * s_dup;
    const double bound = static_cast<double>(s_new) +
                         0.25 * static_cast<double>(singles) / static_cast<double>(s) * static_cast<double>(n - s);
    const bool hopeless = !uniform_like && bound * size_margin >= static_cast<double>(cap) * limit_load;
    s_size = !part && !hopeless && n > s &&
             ((floor_cap > 0 && floor_cap < cap) || (onepass_max > 0.0 && uniform_like));
  }
  __syncthreads();
  if (!s_size) return;
  // 2. the size: the records after the first part, every load in flight before the first insert
  const long long r = n < size_sample_records ? n : size_sample_records;
  const long long half = r / 2;
  constexpr int per_thread = (size_sample_records - sample_records + sample_threads - 1) / sample_threads;
  unsigned fresh2 = 0, late = 0;
  K k_[per_thread];
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const long long i = s + static_cast<long long>(j) * sample_threads + threadIdx.x;
    if (i < r) k_[j] = keys[i];
  }
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const long long i = s + static_cast<long long>(j) * sample_threads + threadIdx.x;
    if (i < r && sample_insert<>(tags, nullptr, hc::hash_of(hash, k_[j]))) {
      ++fresh2;
      late += i >= half;
    }
  }
  if (fresh2) atomicAdd(&s_new2, fresh2);
  if (late) atomicAdd(&s_late, late);
  __syncthreads();
  if (threadIdx.x == 0) {
    const double dn = static_cast<double>(n), dr = static_cast<double>(r);
    const double distinct = static_cast<double>(s_new) + static_cast<double>(s_new2);
    const double bound = distinct + static_cast<double>(s_late) / (dr - static_cast<double>(half)) * (dn - dr);
    // 3. uniform keys, more than onepass_min and at most onepass_max of them: the one-pass build
    // (the first part's repeats uniform-like, and the uniform estimate within that range: not
    // within onepass_min keys, within onepass_max; both need r - d >= 16 repeats in the sample)
    if (onepass_max > 0.0 && uniform_like && sample_uniform_within(distinct, dr, onepass_max) &&
        !sample_uniform_within(distinct, dr, onepass_min) && bound > onepass_min) {
      status->pad = mode_onepass;
      status->abort = 1u;
      return;
    }
    if (!(floor_cap > 0 && floor_cap < cap)) return;
    // the smallest size whose load limit holds size_margin x the keys by either estimate (one
    // exponential a size tried, at most ~10; no solving for m)
    unsigned long long want = floor_cap;
#pragma unroll 1
    for (; want < cap; want *= 2) {
      const double m = static_cast<double>(want) * limit_load / size_margin;  // keys this size holds
      if (bound <= m || (uniform_like && sample_uniform_within(distinct, dr, m))) break;
    }
    // then doubled while it packs more than line_keys keys a 128-byte line (the records' atomics
    // on one line queue in its L2 slice: at uniform 2^16 keys a 2 MB table, 4 keys a line, took
    // 2.40 ms against 1.68 for the host's 64 MB; H200, 2^26 records; group_by.md, 2026-12-02) and
    // the next size's touched lines still fit l2_budget bytes (keys spread over L lines touch
    // L (1 - e^(-keys / L)) of them). The keys: the rate's bound, or, for uniform-like repeats,
    // the m that solves m (1 - e^(-r/m)) = distinct when smaller. Few keys keep the small table
    // (its clear is what it saves).
    if (l2_budget > 0.0 && want < cap) {
      double keys = bound;
      if (uniform_like && dr - distinct >= 16.0) {
        const double m = sample_uniform_keys(distinct, dr);
        keys = m < keys ? m : keys;
      }
      const double per_line = 128.0 / static_cast<double>(slot_bytes);
#pragma unroll 1
      for (; want < cap; want *= 2) {
        const double lines = static_cast<double>(want) / per_line;
        if (keys <= line_keys * lines) break;
        if (2.0 * lines * (1.0 - exp(-keys / (2.0 * lines))) * 128.0 > l2_budget) break;
      }
    }
    if (want < cap) status->cap = want;
  }
}

// ---- partitions and digits ------------------------------------------------------------------------
/// The partition of a mixed hash: its top `bits` bits.
__device__ __forceinline__ unsigned long long top_bits(std::uint64_t h, int bits) {
  return bits ? static_cast<unsigned long long>(h >> (64 - bits)) : 0ull;
}
/// The digits of one scatter pass: (hash >> shift) & (2^bits - 1), bits <= 8.
struct digit_pass {
  int shift, bits;
  __device__ __forceinline__ unsigned of(std::uint64_t h) const {
    return static_cast<unsigned>(h >> shift) & ((1u << bits) - 1u);
  }
};
inline constexpr int max_radix = 256;
/// Partition bits at most: the histogram's counters (4 bytes a partition) fill one block's
/// shared memory (128 KB at 15).
inline constexpr int max_partition_bits = 15;
inline constexpr int hist_threads = 1024;

// ---- hot keys --------------------------------------------------------------------------------------
/// Skewed keys (a few keys on a large share of the records, Zipf) make partitions of many chunks,
/// whose records go through both scatter passes only to meet in the overflow table, and whose
/// chunks fold long runs of one key with shared-memory atomics on one slot. So the keys seen at
/// least hot_min_count times in the first hot_sample_records records (at most hot_max of them,
/// when they hold 1 / hot_min_share of those records) are aggregated where the histogram reads
/// them (each block's shared-memory table of them, then one global insert a key and block into the
/// hot table), and the scatter passes skip them (a bit a record, hot_map, written by the
/// histogram). The hot table's groups join the list as the overflow table's do. Uniform keys over
/// many more than the sample shows have none: then the histogram and the scatter run as without hot
/// keys, and the pick (one block, ~15 us on an H100) is what they cost.
inline constexpr int hot_sample_records = 8192;
inline constexpr int hot_pick_slots = 16384;  // the pick's counting table (128 KB of shared memory)
inline constexpr unsigned hot_min_count = 2;
/// Hot keys are used when they hold at least 1 / hot_min_share of the sample's records.
inline constexpr unsigned hot_min_share = 8;
inline constexpr int hot_max = 1024;
inline constexpr int hot_slots = 2048;        // a histogram block's table of the hot keys
inline constexpr int hot_table_slots = 4096;  // the global hot table
/// The first index of a hot key's slot in a histogram block that has not seen it.
inline constexpr unsigned long long hot_no_first = 0x7fffffffull;

/// One block of hist_threads: clears the hot table, counts the first min(n, hot_sample_records)
/// keys in shared memory (a word a key: count << 32 | key bits; 0 = empty) and lists the keys seen
/// at least hot_min_count times: hot_list[1 + j] their bits, hot_list[0] how many (<= hot_max; 0
/// when they hold under 1 / hot_min_share of the sample's records).
template <class K, class HotTable, class KeyIt, class Hash>
__global__ void __launch_bounds__(hist_threads)
    hot_pick_kernel(KeyIt keys, long long n, Hash hash, HotTable hot, unsigned* hot_list) {
  extern __shared__ unsigned long long pick[];
  __shared__ unsigned s_count, s_covered;
  constexpr int per_thread = hot_sample_records / hist_threads;
  constexpr unsigned long long mask = hot_pick_slots - 1;
  for (int i = threadIdx.x; i < hot_pick_slots; i += hist_threads) pick[i] = 0ull;
  for (int i = threadIdx.x; i < hot_table_slots; i += hist_threads) hc::clear_slot<HotTable>(hot.slots[i]);
  if (threadIdx.x == 0) {
    s_count = 0u;
    s_covered = 0u;
  }
  const int s = n < hot_sample_records ? static_cast<int>(n) : hot_sample_records;
  K k_[per_thread];
#pragma unroll
  for (int j = 0; j < per_thread; ++j)  // every load in flight before the first insert
    if (j * hist_threads + static_cast<int>(threadIdx.x) < s) k_[j] = keys[j * hist_threads + threadIdx.x];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    if (j * hist_threads + static_cast<int>(threadIdx.x) >= s) continue;
    const K k = k_[j];
    const unsigned long long mine = (1ull << 32) | hc::key_bits(k);
    hc::linear_probe pr(hc::hash_of(hash, k), mask);
    for (int probe = 0; probe < hot_pick_slots; ++probe, pr.next()) {
      unsigned long long w = pick[pr.slot];
      if (w == 0ull) {
        w = atomicCAS(&pick[pr.slot], 0ull, mine);
        if (w == 0ull) break;
      }
      if (hot.eq(hc::key_from_bits<K>(static_cast<std::uint32_t>(w)), k)) {
        atomicAdd(&pick[pr.slot], 1ull << 32);
        break;
      }
    }
  }
  __syncthreads();
  unsigned covered = 0;  // the sample's records on the listed keys
  for (int i = threadIdx.x; i < hot_pick_slots; i += hist_threads) {
    const unsigned long long w = pick[i];
    if ((w >> 32) >= hot_min_count) {
      const unsigned at = atomicAdd(&s_count, 1u);
      if (at < static_cast<unsigned>(hot_max)) {
        hot_list[1 + at] = static_cast<unsigned>(w);
        covered += static_cast<unsigned>(w >> 32);
      }
    }
  }
  if (covered) atomicAdd(&s_covered, covered);
  __syncthreads();
  if (threadIdx.x == 0) {
    // worth it only when the hot keys hold a share of the records (uniform keys over millions show
    // a few keys twice: then none, and the histogram and the scatter go as without hot keys)
    const unsigned listed = s_count < static_cast<unsigned>(hot_max) ? s_count : static_cast<unsigned>(hot_max);
    hot_list[0] = s_covered * hot_min_share >= static_cast<unsigned>(s) ? listed : 0u;
  }
}

/// The dynamic shared memory partition_histogram_kernel takes before its counters: the hot keys'
/// table of `Front` (its words, then its aggregates).
template <class Front>
constexpr std::size_t hot_front_smem() {
  return static_cast<std::size_t>(hot_slots) * (sizeof(unsigned long long) + sizeof(typename Front::storage));
}

// ---- histogram -------------------------------------------------------------------------------------
/// counts[p] += the input's records in partition p (p < 2^bits) but those of hot keys: a
/// shared-memory histogram a block, added to the global one at the end. With hot keys (hot_list
/// not null, hot_list[0] > 0) a record of one is aggregated in the block's table of them instead,
/// its bit set in hot_map (bit r % 32 of word r / 32: a warp's ballot over 32 consecutive records,
/// every word written once); at the end each hot key the block saw goes to the hot table (one
/// insert). Without, hot_map is not written.
template <class Front, class HotTable, class KeyIt, class ValIt, class Hash>
__global__ void __launch_bounds__(hist_threads)
    partition_histogram_kernel(KeyIt keys, ValIt values, long long n, Hash hash, int bits, unsigned* counts,
                               const unsigned* hot_list, HotTable hot, unsigned* hot_map) {
  using K = typename HotTable::key_type;
  using S = typename Front::storage;
  using Acc = typename Front::acc_type;
  extern __shared__ unsigned long long hist_smem64[];
  const Front front{hist_smem64, reinterpret_cast<S*>(hist_smem64 + hot_slots),
                    static_cast<unsigned long long>(hot_slots - 1), hot.comb, hot.eq};
  unsigned* const hist_smem = reinterpret_cast<unsigned*>(front.values + hot_slots);
  const int parts = 1 << bits;
  const int lane = threadIdx.x & 31;
  for (int i = threadIdx.x; i < parts; i += hist_threads) hist_smem[i] = 0u;
  const unsigned hn = hot_list ? hot_list[0] : 0u;
  if (hn) {
    for (int i = threadIdx.x; i < hot_slots; i += hist_threads) front.clear(static_cast<unsigned long long>(i));
    __syncthreads();
    for (unsigned t = threadIdx.x; t < hn; t += hist_threads) {  // distinct keys: each claims a slot
      const K key = hc::key_from_bits<K>(hot_list[1 + t]);
      front.template insert<true>(key, hc::hash_of(hash, key), hot_no_first, Front::combiner_type::identity(),
                                  static_cast<unsigned long long>(hot_slots));
    }
  }
  __syncthreads();
  // one record: its partition counted, or (a hot key) its value aggregated; the warp's bits stored
  const auto record = [&](long long i, bool valid, const K& k, const Acc& v) {
    bool is_hot = false;
    if (valid) {
      const std::uint64_t h = hc::hash_of(hash, k);
      if (hn) {
        const long long slot = front.find(k, h);
        if (slot >= 0) {
          is_hot = true;
          front.add_at(static_cast<unsigned long long>(slot), static_cast<unsigned long long>(i), v);
        }
      }
      if (!is_hot) atomicAdd(&hist_smem[top_bits(h, bits)], 1u);
    }
    if (hn) {
      const unsigned b = __ballot_sync(0xffffffffu, is_hot);
      if (lane == 0) hot_map[i >> 5] = b;
    }
  };
  const long long stride = static_cast<long long>(gridDim.x) * hist_threads;
  long long i = blockIdx.x * static_cast<long long>(hist_threads) + threadIdx.x;
  // (i - lane: the warp's first record, a multiple of 32; the loops' tests are the warp's.) With
  // hot keys the values are loaded with the keys (a hot record's value read after its lookup put a
  // DRAM round trip behind every one: forced partitioned at m = 1024, all keys hot, 1.32 ms)
  for (; i - lane + 3 * stride < n; i += 4 * stride) {  // four records in flight
    K k_[4];
    Acc a_[4];
    bool v_[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      v_[j] = i + j * stride < n;
      if (v_[j]) {
        k_[j] = keys[i + j * stride];
        if (hn) a_[j] = static_cast<Acc>(values[i + j * stride]);
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) record(i + j * stride, v_[j], k_[j], a_[j]);
  }
  for (; i - lane < n; i += stride) {
    const bool valid = i < n;
    K k{};
    Acc a{};
    if (valid) {
      k = keys[i];
      if (hn) a = static_cast<Acc>(values[i]);
    }
    record(i, valid, k, a);
  }
  __syncthreads();
  for (int j = threadIdx.x; j < parts; j += hist_threads)
    if (hist_smem[j]) atomicAdd(&counts[j], hist_smem[j]);
  if (hn) {
    for (int j = threadIdx.x; j < hot_slots; j += hist_threads) {
      const auto slot = static_cast<unsigned long long>(j);
      if (front.occupied(slot) && front.first_index(slot) != hot_no_first) {
        const K key = front.key(slot);
        hot.template insert<true>(key, hc::hash_of(hash, key), front.first_index(slot), front.values[j],
                                  static_cast<unsigned long long>(hot_table_slots));
      }
    }
  }
}

// ---- plan ------------------------------------------------------------------------------------------
/// Records a block of the aggregate pass takes at most (a partition of more is split into chunks,
/// which meet in the overflow table); its shared table has aggregate_slots slots.
inline constexpr long long aggregate_chunk = 3072;
inline constexpr int aggregate_slots = 4096;
inline constexpr int scatter_items = 8;
inline constexpr long long scatter_tile = threads * scatter_items;  // 2048 records

inline constexpr int plan_threads = 1024;
/// Where everything goes, from the partitions' counts (one block of plan_threads):
/// bounds[p] = the first record of partition p (bounds[parts] = n), cursor[p] = bounds[p] (the
/// last scatter pass's write cursors); prefix[p] = the aggregate pass's chunks before partition p
/// (prefix[parts] = all) and unit_part[u] = the partition of the aggregate pass's chunk u; *multi =
/// whether a partition spans several chunks (else the overflow table is neither cleared nor read); with two passes (bits > 8), the first pass's cursors bucket[a] =
/// bounds[a << (bits - 8)] for its 256 digits (the top 8 bits) and tiles[a] = the second pass's
/// tiles before bucket a (tiles[256] = all; a tile never straddles two buckets). The counts are
/// read and the results written in stripes (block_scan_striped; a thread's 128 strided counts,
/// before: 136 us at 2^15 partitions on an H100, for 128 KB).
template <class = void>
__global__ void __launch_bounds__(plan_threads)
    partition_plan_kernel(const unsigned* counts, int bits, unsigned* bounds, unsigned* cursor, unsigned* prefix,
                          unsigned* unit_part, unsigned* multi, unsigned* bucket, unsigned* tiles) {
  __shared__ unsigned long long stripe[plan_threads * 4];
  __shared__ unsigned long long smem[plan_threads / 32 + 1];
  const long long parts = 1ll << bits;
  int several = 0;  // a partition this thread saw spans several chunks
  const auto chunks_of = [](unsigned c) { return static_cast<unsigned>((c + aggregate_chunk - 1) / aggregate_chunk); };
  // records (< 2^32) and chunks (< 2^22) summed in one 64-bit scan: records << 32 | chunks
  const unsigned long long all = block_scan_striped<plan_threads>(
      parts,
      [&](long long j) {
        const unsigned c = counts[j];
        several |= c > aggregate_chunk;
        return (static_cast<unsigned long long>(c) << 32) | chunks_of(c);
      },
      [&](long long j, unsigned long long at) {
        const unsigned rec = static_cast<unsigned>(at >> 32), cat = static_cast<unsigned>(at);
        bounds[j] = rec;
        cursor[j] = rec;
        prefix[j] = cat;
        const unsigned chunks = chunks_of(counts[j]);
        for (unsigned k = 0; k < chunks; ++k) unit_part[cat + k] = static_cast<unsigned>(j);
      },
      stripe, smem);
  const unsigned long long records = all >> 32, chunks = all & 0xffffffffull;
  several = __syncthreads_or(several);  // (also: bounds, written by this block, read below)
  if (threadIdx.x == 0) {
    bounds[parts] = static_cast<unsigned>(records);
    prefix[parts] = static_cast<unsigned>(chunks);
    *multi = static_cast<unsigned>(several);
  }
  __syncthreads();
  if (bits > 8) {
    const int low = bits - 8;
    unsigned long long ntiles = 0;
    unsigned s = 0;
    if (threadIdx.x < max_radix) {
      s = bounds[static_cast<long long>(threadIdx.x) << low];
      const unsigned t = bounds[static_cast<long long>(threadIdx.x + 1) << low];
      ntiles = (t - s + scatter_tile - 1) / scatter_tile;
    }
    unsigned long long all_tiles;
    const unsigned long long before = block_exclusive_sum<plan_threads>(ntiles, smem, &all_tiles);
    if (threadIdx.x < max_radix) {
      bucket[threadIdx.x] = s;
      tiles[threadIdx.x] = static_cast<unsigned>(before);
    }
    if (threadIdx.x == 0) tiles[max_radix] = static_cast<unsigned>(all_tiles);
  }
}

// ---- scatter ---------------------------------------------------------------------------------------
/// The records of pass 0 (the input): the key's bits and the value converted to Acc; the word
/// (input index << 32 | key bits) is made when the record is staged, from its position (the
/// index is not kept in a register while the tile is ranked) ...
template <class K, class Acc, class KeyIt, class ValIt>
struct input_records {
  static constexpr bool implicit_index = true;
  using word_type = unsigned;
  KeyIt keys;
  ValIt values;
  __device__ void load(long long i, word_type& w, Acc& v, K& k) const {
    k = keys[i];
    w = hc::key_bits(k);
    v = static_cast<Acc>(values[i]);
  }
};
/// ... and of the passes after it (the previous pass's output: the word as it was written).
template <class K, class Acc>
struct stored_records {
  static constexpr bool implicit_index = false;
  using word_type = unsigned long long;
  const unsigned long long* words;
  const Acc* values;
  __device__ void load(long long i, word_type& w, Acc& v, K& k) const {
    w = words[i];
    v = values[i];
    k = hc::key_from_bits<K>(static_cast<std::uint32_t>(w));
  }
};

/// A scatter tile's shared memory: the tile's digit counts, the records staged in digit order.
template <class Acc>
struct scatter_smem {
  unsigned count[max_radix];
  unsigned long long words[scatter_tile];
  Acc values[scatter_tile];
  unsigned char digit[scatter_tile];
  unsigned local[max_radix], base[max_radix];
  unsigned long long scan[threads / 32 + 1];
};
/// Blocks a multiprocessor should hold of a scatter kernel (oa_tuning::scatter_blocks and
/// scatter_blocks_input: the registers are capped to fit; ~30 / ~38 KB of shared memory a block
/// for 4- / 8-byte aggregates); 0: 5 for aggregates of 4 bytes, 4 for 8.
template <int Tuned, class Acc = int>
inline constexpr int scatter_min_blocks = Tuned > 0 ? Tuned : sizeof(Acc) <= 4 ? 5 : 4;

/// One tile's scatter by digit, the whole block: the tile's records are in registers (item j of
/// lane l of warp w: the tile's record 256 w + 32 j + l; d[j] its digit < radix, or ~0u past the
/// tile's end), `word(j, w_[j])` makes the 64-bit word written. Each record's rank in its digit is
/// a shared atomicAdd on the tile's count of that digit (the 8 of a thread in flight together: no
/// order inside a digit, and none needed, as the scatter keeps no order); each digit's run of the
/// tile is reserved with one atomicAdd on cursors[d] (no order between tiles), the records are
/// staged in shared memory in digit order and each run written contiguously. Items of digit ~0u
/// (past the tile's end, or a hot key's record) are not written. s.count must be zero (cleared
/// before a barrier). d[] is overwritten.
/// (Before 2026-12-02 a warp ranked its items one after another, a match and a read-modify-write
/// of the warp's counts each: the pass took 1.40 ms where this takes 0.97, ncu, H200, 2^26 f32
/// records; group_by.md.)
template <class Acc, class W, class WordOf>
__device__ __forceinline__ void scatter_one_tile(scatter_smem<Acc>& s, const W (&w_)[scatter_items],
                                             const Acc (&v_)[scatter_items], unsigned (&d_)[scatter_items], int radix,
                                             unsigned* cursors, WordOf word,
                                             unsigned long long* words_out, Acc* values_out) {
  // ranks: d_[j] becomes digit | rank << 8 (one register an item)
  {
    unsigned r_[scatter_items];
#pragma unroll
    for (int j = 0; j < scatter_items; ++j) r_[j] = d_[j] != ~0u ? atomicAdd(&s.count[d_[j]], 1u) : 0u;
#pragma unroll
    for (int j = 0; j < scatter_items; ++j)
      if (d_[j] != ~0u) d_[j] |= r_[j] << 8;
  }
  __syncthreads();

  // per digit (thread d): the tile's count of d, its offset in the tile, its run reserved at the
  // digit's cursor
  const unsigned count = static_cast<int>(threadIdx.x) < radix ? s.count[threadIdx.x] : 0u;
  unsigned long long tile_total;
  const unsigned local = static_cast<unsigned>(block_exclusive_sum(count, s.scan, &tile_total));
  unsigned run = 0;  // (the atomic's answer is awaited only after the staging below)
  if (static_cast<int>(threadIdx.x) < radix) {
    s.local[threadIdx.x] = local;
    if (count) run = atomicAdd(&cursors[threadIdx.x], count);
  }
  __syncthreads();

  // staged in digit order, then each digit's run written contiguously
#pragma unroll
  for (int j = 0; j < scatter_items; ++j) {
    if (d_[j] != ~0u) {
      const unsigned d = d_[j] & 0xffu;
      const unsigned at = s.local[d] + (d_[j] >> 8);
      s.words[at] = word(j, w_[j]);
      s.values[at] = v_[j];
      s.digit[at] = static_cast<unsigned char>(d);
    }
  }
  if (static_cast<int>(threadIdx.x) < radix) s.base[threadIdx.x] = run;
  __syncthreads();
  const int staged = static_cast<int>(tile_total);
  for (int k = threadIdx.x; k < staged; k += threads) {
    const unsigned d = s.digit[k];
    const unsigned long long at = static_cast<unsigned long long>(s.base[d]) + (static_cast<unsigned>(k) - s.local[d]);
    words_out[at] = s.words[k];
    values_out[at] = s.values[k];
  }
}

/// One pass of the scatter by digit (see the file's head). Not stable: each tile reserves its run
/// of each digit with one atomicAdd on that digit's cursor (tiles run in any order). Segmented
/// (the second of two passes): the tiles lie inside the first pass's buckets (tiles[], bounds[]
/// from partition_plan_kernel), tile t of bucket a writes digit d at cursors[a << pass.bits | d];
/// else the tiles cover the input and digit d goes to cursors[d], but for the records whose bit
/// is set in hot_map (when hot_list is not null and lists hot keys: theirs, aggregated by the
/// histogram).
template <class K, class Acc, bool Segmented, int MinBlocks, class Src, class Hash>
__global__ void __launch_bounds__(threads, MinBlocks)
    scatter_kernel(Src src, long long n, Hash hash, digit_pass pass, unsigned* cursors, const unsigned* tiles,
                   const unsigned* bounds, const unsigned* hot_list, const unsigned* hot_map,
                   unsigned long long* words_out, Acc* values_out) {
  __shared__ scatter_smem<Acc> s;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int radix = 1 << pass.bits;
  long long base, end;
  unsigned cbase = 0;
  if constexpr (Segmented) {
    const unsigned t = blockIdx.x;
    if (t >= tiles[max_radix]) return;  // (the grid is launched for the most tiles there can be)
    int lo = 0, hi = max_radix - 1;  // the bucket: the last a with tiles[a] <= t
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (tiles[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    const unsigned s0 = bounds[static_cast<long long>(lo) << pass.bits];
    const unsigned e0 = bounds[static_cast<long long>(lo + 1) << pass.bits];
    base = s0 + static_cast<long long>(t - tiles[lo]) * scatter_tile;
    end = base + scatter_tile < static_cast<long long>(e0) ? base + scatter_tile : static_cast<long long>(e0);
    cbase = static_cast<unsigned>(lo) << pass.bits;
  } else {
    base = static_cast<long long>(blockIdx.x) * scatter_tile;
    end = base + scatter_tile < n ? base + scatter_tile : n;
  }
  for (int d = threadIdx.x; d < radix; d += threads) s.count[d] = 0u;
  if constexpr (!Segmented) {
    if (hot_list && hot_list[0] == 0u) hot_map = nullptr;
  }
  __syncthreads();

  using W = typename Src::word_type;
  W w_[scatter_items];
  Acc v_[scatter_items];
  unsigned d_[scatter_items];
  const long long first = base + warp * (32 * scatter_items) + lane;
#pragma unroll
  for (int j = 0; j < scatter_items; ++j) {  // every load in flight before the first rank
    const long long i = first + j * 32;
    d_[j] = ~0u;
    if (i < end) {
      K k;
      src.load(i, w_[j], v_[j], k);
      d_[j] = pass.of(hc::hash_of(hash, k));
      if constexpr (!Segmented) {  // (the word of the warp's 32 records: i - lane is a multiple of 32)
        if (hot_map && ((hot_map[(i - lane) >> 5] >> lane) & 1u)) d_[j] = ~0u;
      }
    }
  }
  scatter_one_tile(
      s, w_, v_, d_, radix, cursors + cbase,
      [&](int j, W w) -> unsigned long long {
        if constexpr (Src::implicit_index) return (static_cast<unsigned long long>(first + j * 32) << 32) | w;
        else return w;
      },
      words_out, values_out);
}

// ---- groups by where they first appear ------------------------------------------------------------
/// The input positions are cut into spans of place_span (2048); a group whose first index lies in
/// span s is appended to span s's region of the group list, which starts at s * place_span (a
/// span holds at most one first appearance a position, so the regions of an n-entry list never
/// overlap).
inline constexpr int place_span_bits = 11;
inline constexpr long long place_span = 1ll << place_span_bits;

/// The group list: words (first index << 32 | key bits) and aggregates, span s's groups at
/// [s * place_span, s * place_span + count[s]).
template <class Acc>
struct span_list {
  unsigned long long* words;
  Acc* values;
  unsigned* count;  // groups a span (cleared before the aggregate)
  /// A place in its span's region for the group of `word` (its offset there) ...
  __device__ __forceinline__ unsigned reserve(unsigned long long word) const {
    return atomicAdd(count + (word >> (32 + place_span_bits)), 1u);
  }
  /// ... and the group stored there.
  __device__ __forceinline__ void store(unsigned long long word, unsigned offset, const Acc& v) const {
    const unsigned long long at = ((word >> (32 + place_span_bits)) << place_span_bits) + offset;
    words[at] = word;
    values[at] = v;
  }
  __device__ __forceinline__ void append(unsigned long long word, const Acc& v) const { store(word, reserve(word), v); }
};

/// One block of plan_threads: base[s] = the groups in the spans before s (block_scan_striped),
/// status->total = all groups.
template <class = void>
__global__ void __launch_bounds__(plan_threads)
    span_scan_kernel(const unsigned* count, long long spans, unsigned* base, build_status* status) {
  __shared__ unsigned long long stripe[plan_threads * 4];
  __shared__ unsigned long long smem[plan_threads / 32 + 1];
  const unsigned long long all = block_scan_striped<plan_threads>(
      spans, [&](long long i) { return static_cast<unsigned long long>(count[i]); },
      [&](long long i, unsigned long long at) { base[i] = static_cast<unsigned>(at); }, stripe, smem);
  if (threadIdx.x == 0) status->total = all;
}

/// A block a span: the span's groups written at their ranks (first-appearance order). The rank of
/// a group = base[s] + the span's first appearances before its first index, counted in a bit map
/// of the span's place_span positions in shared memory (one bit a group, set from the words, then
/// a prefix of the words' counts). The groups are staged in shared memory at their ranks and the
/// stretch [base[s], base[s] + count[s]) of the outputs written in order (one at a time, at their
/// ranks, the stores were 4-byte L2 requests: 0.54 ms for 2^24 groups on an H100). Bitwise
/// (key_equal is ==, on integers): the key is the word's bits; else the input's key at the first
/// index (keys equal under key_equal may differ in their bits: the output is the first
/// appearance's). Nothing when the aggregate stopped (the overflow table overflowed: the call
/// builds one table instead).
template <bool Bitwise, class K, class Acc, class KeyIt, class KeyOut, class ValOut>
__global__ void __launch_bounds__(threads)
    place_kernel(const unsigned long long* words, const Acc* values, const unsigned* count, const unsigned* base,
                 const build_status* status, KeyIt keys, KeyOut keys_out, ValOut values_out) {
  constexpr int span_words = static_cast<int>(place_span / 32);
  static_assert(span_words <= threads, "a thread a bit word");
  __shared__ unsigned bits[span_words];
  __shared__ unsigned before[span_words];
  __shared__ unsigned long long smem[threads / 32 + 1];
  __shared__ std::uint32_t staged_keys[place_span];  // (the keys' bits)
  __shared__ Acc staged_values[place_span];
  if (build_stopped(status)) return;
  const unsigned long long s = blockIdx.x;
  const unsigned c = count[s];
  if (c == 0u) return;
  const unsigned long long first = s << place_span_bits;
  if (threadIdx.x < span_words) bits[threadIdx.x] = 0u;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < c; i += threads) {
    const unsigned f = static_cast<unsigned>(words[first + i] >> 32) & static_cast<unsigned>(place_span - 1);
    atomicOr(&bits[f >> 5], 1u << (f & 31));
  }
  __syncthreads();
  unsigned long long all;
  const unsigned long long ex =
      block_exclusive_sum(threadIdx.x < span_words ? static_cast<unsigned long long>(__popc(bits[threadIdx.x])) : 0ull,
                          smem, &all);
  if (threadIdx.x < span_words) before[threadIdx.x] = static_cast<unsigned>(ex);
  __syncthreads();
  for (unsigned i = threadIdx.x; i < c; i += threads) {
    const unsigned long long w = words[first + i];
    const unsigned f = static_cast<unsigned>(w >> 32) & static_cast<unsigned>(place_span - 1);
    const unsigned r = before[f >> 5] + __popc(bits[f >> 5] & ((1u << (f & 31)) - 1u));
    if constexpr (Bitwise) staged_keys[r] = static_cast<std::uint32_t>(w);
    else staged_keys[r] = hc::key_bits(static_cast<K>(keys[w >> 32]));
    staged_values[r] = values[first + i];
  }
  __syncthreads();
  const unsigned long long b = base[s];
  for (unsigned i = threadIdx.x; i < c; i += threads) {
    keys_out[b + i] = hc::key_from_bits<K>(staged_keys[i]);
    values_out[b + i] = staged_values[i];
  }
}

/// Whether no partition spans several chunks (the plan's flag): then the overflow table stays
/// empty, and is neither cleared nor read. All threads.
__device__ __forceinline__ bool no_overflow(const unsigned* multi) { return !flag_set(multi); }

template <class Table>
__global__ void __launch_bounds__(threads)
    clear_overflow_kernel(Table t, unsigned long long capacity, const unsigned* multi) {
  if (no_overflow(multi)) return;
  hc::clear_slots(t, capacity);
}

/// The overflow table's (or the hot table's: multi null) groups appended to the group list, each
/// to its span's region.
template <class Table, class Acc>
__global__ void __launch_bounds__(threads)
    append_table_kernel(Table t, unsigned long long capacity, span_list<Acc> list, const unsigned* multi) {
  if (multi && no_overflow(multi)) return;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < capacity;
       i += stride)
    if (t.occupied(i)) list.append((t.first_index(i) << 32) | hc::key_bits(t.key(i)), t.value(i));
}
/// An insert into the overflow table gives up after this many probes (the call then builds one
/// table instead, as an overflow past the load limit does).
inline constexpr unsigned long long max_probes_overflow = 256;

// ---- aggregate -------------------------------------------------------------------------------------
/// Where the aggregate pass's groups go: the list (partitions of one chunk) and its count, and
/// the overflow table (the chunks of larger partitions), whose claims go to status->claimed and
/// stop the call past `limit` (the driver then builds one table, as before).
template <class Table, class Acc>
struct aggregate_out {
  span_list<Acc> list;
  Table overflow;
  build_status* status;
  unsigned long long limit;
};

/// Every group of a block's shared table (all of its partition's keys) appended to its span's
/// region of the list; all `Threads` threads, after a barrier. Warp w takes slots [Slots / warps
/// x w, ...), 32 consecutive ones an iteration (the shared-memory reads free of bank conflicts; a
/// thread's consecutive slots would put a warp's reads 128 bytes apart: one bank). A thread's
/// places are reserved 8 at a time, the 8 atomics in flight at once, then those groups stored (one
/// at a time, each store waited for its atomic's answer).
template <int Slots, int Threads, class Front, class Acc>
__device__ __forceinline__ void append_front_groups(const Front& front, const span_list<Acc>& list) {
  constexpr int warps = Threads / 32;
  constexpr int iters = Slots / Threads;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned long long first_slot = static_cast<unsigned long long>(warp) * (Slots / warps) + lane;
  constexpr int batch = 8;  // (16 offsets at once spilled at 64 registers)
  static_assert(Slots % Threads == 0 && iters % batch == 0, "whole batches");
#pragma unroll 1
  for (int j0 = 0; j0 < iters; j0 += batch) {
    unsigned occ = 0, offset[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const unsigned long long w = front.words[first_slot + 32 * (j0 + j)];
      if (w != hc::empty_word) {
        occ |= 1u << j;
        offset[j] = list.reserve(w);
      }
    }
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      if ((occ >> j) & 1u) {
        const unsigned long long slot = first_slot + 32 * (j0 + j);
        list.store(front.words[slot], offset[j], front.value(slot));
      }
    }
  }
}

/// Records [base, end) of the pass's output into registers, strided over the block's Threads
/// (item j of thread t: record base + j Threads + t; past `end`: a zero word and Acc{}), every
/// load issued before any is used.
template <int Items, int Threads, class Acc>
__device__ __forceinline__ void load_records(const unsigned long long* words, const Acc* values, long long base,
                                             long long end, unsigned long long (&w_)[Items], Acc (&v_)[Items]) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const long long i = base + j * Threads + threadIdx.x;
    w_[j] = 0ull;
    v_[j] = Acc{};
    if (i < end) {
      w_[j] = words[i];
      v_[j] = values[i];
    }
  }
}

/// The shared memory aggregate_kernel needs for `Front` (dynamic: words, then aggregates).
template <class Front>
constexpr std::size_t aggregate_smem() {
  return static_cast<std::size_t>(aggregate_slots) * (sizeof(unsigned long long) + sizeof(typename Front::storage));
}

/// Blocks a multiprocessor holds of aggregate_kernel: as many as its shared memory allows (4 with
/// 4-byte aggregates, 48 KB a block; 3 with 8-byte ones), the registers capped to match.
template <class Front>
inline constexpr int aggregate_min_blocks = aggregate_smem<Front>() <= 48 * 1024 ? 4 : 3;

template <class Front, class Table, class Acc, class Hash>
__global__ void __launch_bounds__(threads, aggregate_min_blocks<Front>)
    aggregate_kernel(const unsigned long long* words, const Acc* values, Hash hash, const unsigned* bounds,
                     const unsigned* prefix, const unsigned* unit_part, long long parts,
                     aggregate_out<Table, Acc> out) {
  using K = typename Table::key_type;
  using S = typename Front::storage;
  extern __shared__ unsigned long long agg_smem[];
  const Front front{agg_smem, reinterpret_cast<S*>(agg_smem + aggregate_slots),
                    static_cast<unsigned long long>(aggregate_slots - 1), out.overflow.comb, out.overflow.eq};
  const unsigned unit = blockIdx.x;
  if (unit >= prefix[parts]) return;
  const long long p = unit_part[unit];  // (a binary search over prefix[] was 15 dependent loads)
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
  load_records<items_per_thread, threads>(words, values, b, e, w_, v_);
  for (int i = threadIdx.x; i < aggregate_slots; i += threads) front.clear(static_cast<unsigned long long>(i));
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items_per_thread; ++j) {
    const bool valid = b + j * threads + threadIdx.x < e;
    const unsigned kb = static_cast<unsigned>(w_[j]);
    // a warp of 32 records of one key (a hot key's chunk): one insert of their sum, not 32
    // atomics on one shared word
    const unsigned kb0 = __shfl_sync(0xffffffffu, kb, 0);  // (every lane: not under the && below)
    if (__all_sync(0xffffffffu, valid && kb == kb0)) {
      Acc v = v_[j];
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) v = front.comb.op(v, __shfl_xor_sync(0xffffffffu, v, o));
      const unsigned f = __reduce_min_sync(0xffffffffu, static_cast<unsigned>(w_[j] >> 32));
      if ((threadIdx.x & 31) == 0) {
        const K key = hc::key_from_bits<K>(kb);
        front.template insert<false>(key, hc::hash_of(hash, key), f, v, static_cast<unsigned long long>(aggregate_slots));
      }
    } else if (valid) {
      const K key = hc::key_from_bits<K>(kb);
      front.template insert<false>(key, hc::hash_of(hash, key), w_[j] >> 32, v_[j],
                                   static_cast<unsigned long long>(aggregate_slots));
    }
  }
  __syncthreads();
  if (whole) {
    // every key of the partition is here: each group appended to its span's region of the list
    append_front_groups<aggregate_slots, threads>(front, out.list);
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

// ---- the one-pass build's aggregate ------------------------------------------------------------------
/// The one-pass build (the sample's mode_onepass: uniform keys, up to ~1.2 M of them): one scatter
/// pass into onepass_bits = 8 bits of partitions, each ~m / 256 keys however many records, and
/// one block a partition folding all of its records into a shared table of onepass_slots, so that
/// every record meets a shared-memory slot instead of a random L2 atomic (the one table at
/// m = 2^20), and one pass instead of two reorders them (the partitions of ~2048 records).
inline constexpr int onepass_bits = 8;
inline constexpr int onepass_slots = 8192;
inline constexpr int onepass_threads = 512;
inline constexpr int onepass_items = 8;  // records a thread loads before it inserts them
/// The sample sends keys to the one-pass build up to this load of the partitions' tables (keys
/// per partition / onepass_slots, the partitions' own spread and the estimate's ~5 % beside it).
inline constexpr double onepass_load = 0.6;
/// A record's insert gives up after this many probes: the table is full (the sample's estimate
/// was wrong), and the call then builds one table, as an overflow of the partitioned build does.
inline constexpr unsigned long long onepass_max_probes = 512;

template <class Front>
constexpr std::size_t onepass_smem() {
  return static_cast<std::size_t>(onepass_slots) * (sizeof(unsigned long long) + sizeof(typename Front::storage));
}

/// One block of onepass_threads a partition (grid = 2^onepass_bits), onepass_smem bytes of dynamic
/// shared memory: the partition's records [bounds[p], bounds[p + 1]) into the block's table in
/// rounds of onepass_items a thread (every load of a round in flight before its inserts), then
/// every group appended to its span's region of the list (append_front_groups). A record that
/// finds no slot ends the block after its round and sets status->abort: the host then builds one
/// table.
template <class Front, class Table, class Acc, class Hash>
__global__ void __launch_bounds__(onepass_threads, onepass_smem<Front>() <= 100 * 1024 ? 2 : 1)
    onepass_aggregate_kernel(const unsigned long long* words, const Acc* values, Hash hash, const unsigned* bounds,
                             aggregate_out<Table, Acc> out) {
  using K = typename Table::key_type;
  using S = typename Front::storage;
  extern __shared__ unsigned long long agg_smem[];
  const Front front{agg_smem, reinterpret_cast<S*>(agg_smem + onepass_slots),
                    static_cast<unsigned long long>(onepass_slots - 1), out.overflow.comb, out.overflow.eq};
  __shared__ unsigned s_full;  // a record of the block found no slot, or one of another block
  const long long b = bounds[blockIdx.x], e = bounds[blockIdx.x + 1];
  for (int i = threadIdx.x; i < onepass_slots; i += onepass_threads) front.clear(static_cast<unsigned long long>(i));
  if (threadIdx.x == 0) s_full = 0u;
  __syncthreads();
  bool full = false;
  constexpr long long round = static_cast<long long>(onepass_threads) * onepass_items;
#pragma unroll 1
  for (long long base = b; base < e; base += round) {
    unsigned long long w_[onepass_items];
    Acc v_[onepass_items];
    load_records<onepass_items, onepass_threads>(words, values, base, e, w_, v_);
#pragma unroll
    for (int j = 0; j < onepass_items; ++j) {
      if (base + j * onepass_threads + threadIdx.x < e) {
        const K key = hc::key_from_bits<K>(static_cast<std::uint32_t>(w_[j]));
        full |= front.template insert<false>(key, hc::hash_of(hash, key), w_[j] >> 32, v_[j], onepass_max_probes) < 0;
      }
    }
    // a full table, this block's or another's, ends the block's work after the round (each
    // record after it would probe onepass_max_probes slots: forced at uniform 2^22 keys, 31.8 ms
    // where one table takes 5.2); no barrier a round (one cost the kernel ~20 %: its warps then
    // waited for their loads together)
    // (the loop's trips are the block's: its warps are whole here; the flag by shared atomics, one
    // a warp and round)
    if (threadIdx.x == 0 && *static_cast<volatile unsigned*>(&out.status->abort)) full = true;
    bool stop = __any_sync(0xffffffffu, full);
    if ((threadIdx.x & 31) == 0) stop = atomicOr(&s_full, stop ? 1u : 0u) != 0u || stop;
    if (__shfl_sync(0xffffffffu, stop, 0)) break;
  }
  if (__syncthreads_or(full)) {  // (a thread that left on s_full: the one that set it is full)
    if (threadIdx.x == 0) atomicExch(&out.status->abort, 1u);
    return;
  }
  append_front_groups<onepass_slots, onepass_threads>(front, out.list);
}

}  // namespace algo::detail::group
