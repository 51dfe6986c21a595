// An open-addressing hash table on the device (the anchor is cuCollections' static_map; this one is
// written for group-by): linear probing over a power-of-two array of slots, each slot one
// structure (one cache sector for small keys and values), claimed lock-free by atomicCAS on its
// 64-bit word. The word also carries the smallest input index seen for the key (its first
// appearance), kept by atomicMin, so group_reduce can order groups without another pass.
//
// Two layouts:
//   packed   keys of <= 4 bytes and indices < 2^31: word = (first index << 32) | key bits, EMPTY =
//            all ones. One CAS claims the slot *and* publishes the key; the aggregate starts from
//            the combiner's identity (written when the table is initialized).
//   general  any trivially copyable key: word = EMPTY, BUSY (claimed, key being written) or the
//            first index; the claimer writes the key (and the first value, for combiners without
//            an identity) and then publishes the index with a release. A reader that finds BUSY
//            waits for the publication (a few instructions of another thread).
// insert() returns 1 when it claimed a new slot, 0 when the key was there, -1 when every slot was
// probed without finding the key or room (the table is full: the caller grows it).
// The same code runs on shared memory; the per-block table in front of the global one uses the
// packed layout split into two arrays (oa_split_table: words, aggregates), which spreads a warp's
// combines over every bank.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include <cuda/atomic>

#include "../reduce/reduce_sync.cuh"
#include "combine.cuh"
#include "probe.cuh"

namespace algo::detail::cuda::hash {

inline constexpr unsigned long long empty_word = ~0ull;
inline constexpr unsigned long long busy_word = ~0ull - 1;

template <class K, class S, bool Packed>
struct oa_slot;
template <class K, class S>
struct oa_slot<K, S, true> {
  unsigned long long word;
  S value;
};
template <class K, class S>
struct oa_slot<K, S, false> {
  unsigned long long word;
  unsigned lock;  // used by combine_kind::locked only
  K key;
  S value;
};

__device__ __forceinline__ unsigned long long load_word(const unsigned long long* p) {
  return *reinterpret_cast<const volatile unsigned long long*>(p);
}
__device__ __forceinline__ unsigned long long load_word_acquire(unsigned long long* p) {
  return ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(*p).load(::cuda::memory_order_acquire);
}

/// A view of a table: `slots` (capacity = mask + 1) in global or shared memory.
template <class K, class Acc, class Combiner, bool Packed, class Eq>
struct oa_table {
  using key_type = K;
  using combiner_type = Combiner;
  using storage = typename Combiner::storage;
  using slot = oa_slot<K, storage, Packed>;
  static constexpr bool packed = Packed;

  slot* slots;
  unsigned long long mask;
  Combiner comb;
  mutable Eq eq;

  /// Adds (key, value) seen first at input index `first` (value: one Acc, or with Partial a
  /// storage aggregate). Probes at most `max_probes` slots (the shared table gives up early).
  template <bool Partial, class Val>
  __device__ int insert(const K& key, std::uint64_t h, unsigned long long first, const Val& value,
                        unsigned long long max_probes) const {
    linear_probe p(h, mask);
    for (unsigned long long probes = 0; probes < max_probes && probes <= mask; ++probes, p.next()) {
      slot& s = slots[p.slot];
      if constexpr (Packed) {
        const unsigned long long mine = (first << 32) | key_bits(key);
        unsigned long long w = load_word(&s.word);
        bool claimed = false;
        if (w == empty_word) {
          w = atomicCAS(&s.word, empty_word, mine);
          claimed = w == empty_word;
        }
        if (claimed || eq(key_from_bits<K>(static_cast<std::uint32_t>(w)), key)) {
          if (!claimed && (w >> 32) > first) atomicMin(&s.word, (first << 32) | (w & 0xffffffffull));
          combine<Partial>(s, value);
          return claimed ? 1 : 0;
        }
      } else {
        unsigned long long w = load_word_acquire(&s.word);
        if (w == empty_word) {
          w = atomicCAS(&s.word, empty_word, busy_word);
          if (w == empty_word) {
            store_coherent(&s.key, key);
            if constexpr (Combiner::has_identity) {
              combine<Partial>(s, value);
            } else {
              if constexpr (Partial) store_coherent(&s.value, value);
              else comb.first(&s.value, value);
            }
            ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(s.word).store(
                first, ::cuda::memory_order_release);
            return 1;
          }
        }
        while (w == busy_word) w = load_word_acquire(&s.word);
        if (eq(load_coherent(&s.key), key)) {
          if (w > first) atomicMin(&s.word, first);
          combine<Partial>(s, value);
          return 0;
        }
      }
    }
    return -1;
  }

  /// The slot holding key, or -1.
  __device__ long long find(const K& key, std::uint64_t h) const {
    linear_probe p(h, mask);
    for (unsigned long long probes = 0; probes <= mask; ++probes, p.next()) {
      const slot& s = slots[p.slot];
      const unsigned long long w = load_word(&s.word);
      if (w == empty_word) return -1;
      if constexpr (Packed) {
        if (eq(key_from_bits<K>(static_cast<std::uint32_t>(w)), key)) return static_cast<long long>(p.slot);
      } else {
        if (w != busy_word && eq(load_coherent(&s.key), key)) return static_cast<long long>(p.slot);
      }
    }
    return -1;
  }

  // ---- reading a finished table (after the kernels that build it) ----
  __device__ bool occupied(unsigned long long i) const {
    const unsigned long long w = slots[i].word;
    return Packed ? w != empty_word : w < busy_word;
  }
  __device__ unsigned long long first_index(unsigned long long i) const {
    const unsigned long long w = slots[i].word;
    return Packed ? (w >> 32) : w;
  }
  __device__ K key(unsigned long long i) const {
    if constexpr (Packed) return key_from_bits<K>(static_cast<std::uint32_t>(slots[i].word));
    else return slots[i].key;
  }
  __device__ Acc value(unsigned long long i) const { return Combiner::result(slots[i].value); }

 private:
  template <bool Partial, class Val>
  __device__ void combine(slot& s, const Val& value) const {
    unsigned* lock = nullptr;
    if constexpr (!Packed) lock = &s.lock;
    if constexpr (Partial) comb.merge(&s.value, lock, value);
    else comb.add(&s.value, lock, value);
  }
};

/// The packed layout split into two arrays, the words (key and first index) and the aggregates,
/// instead of one array of slots; for the per-block table in shared memory. A warp's 32 random
/// keys then spread their aggregates over all 32 banks (a 16-byte slot puts every aggregate on one
/// of 8 banks: 4-8-way conflicts on every combine, which is a compare-and-swap loop for `float` and
/// 64-bit sums in shared memory on sm_90). Used (insert) with keys of <= 4 bytes and combiners with
/// an identity only, as the packed layout.
template <class K, class Acc, class Combiner, class Eq>
struct oa_split_table {
  using key_type = K;
  using acc_type = Acc;
  using combiner_type = Combiner;
  using storage = typename Combiner::storage;
  static constexpr bool packed = true;

  unsigned long long* words;
  storage* values;
  unsigned long long mask;
  Combiner comb;
  mutable Eq eq;

  /// As oa_table::insert: 1 claimed, 0 found, -1 no room within max_probes.
  template <bool Partial, class Val>
  __device__ int insert(const K& key, std::uint64_t h, unsigned long long first, const Val& value,
                        unsigned long long max_probes) const {
    linear_probe p(h, mask);
    const unsigned long long mine = (first << 32) | key_bits(key);
    for (unsigned long long probes = 0; probes < max_probes && probes <= mask; ++probes, p.next()) {
      unsigned long long* wp = words + p.slot;
      unsigned long long w = load_word(wp);
      bool claimed = false;
      if (w == empty_word) {
        w = atomicCAS(wp, empty_word, mine);
        claimed = w == empty_word;
      }
      if (claimed || eq(key_from_bits<K>(static_cast<std::uint32_t>(w)), key)) {
        if (!claimed && (w >> 32) > first) atomicMin(wp, (first << 32) | (w & 0xffffffffull));
        if constexpr (Partial) comb.merge(values + p.slot, nullptr, value);
        else comb.add(values + p.slot, nullptr, value);
        return claimed ? 1 : 0;
      }
    }
    return -1;
  }

  /// The slot holding key, or -1.
  __device__ long long find(const K& key, std::uint64_t h) const {
    linear_probe p(h, mask);
    for (unsigned long long probes = 0; probes <= mask; ++probes, p.next()) {
      const unsigned long long w = load_word(words + p.slot);
      if (w == empty_word) return -1;
      if (eq(key_from_bits<K>(static_cast<std::uint32_t>(w)), key)) return static_cast<long long>(p.slot);
    }
    return -1;
  }

  /// Adds (value, first) to the key in `slot` (found by find(); keys never leave a slot): the
  /// first index kept by atomicMin, the value combined.
  template <class Val>
  __device__ void add_at(unsigned long long slot, unsigned long long first, const Val& value) const {
    unsigned long long* wp = words + slot;
    const unsigned long long w = load_word(wp);
    if ((w >> 32) > first) atomicMin(wp, (first << 32) | (w & 0xffffffffull));
    comb.add(values + slot, nullptr, value);
  }

  // ---- reading it (after a barrier, or after the kernels that build it) ----
  __device__ bool occupied(unsigned long long i) const { return words[i] != empty_word; }
  __device__ unsigned long long first_index(unsigned long long i) const { return words[i] >> 32; }
  __device__ K key(unsigned long long i) const { return key_from_bits<K>(static_cast<std::uint32_t>(words[i])); }
  __device__ Acc value(unsigned long long i) const { return Combiner::result(values[i]); }
  /// Empties slot i (no other thread using it).
  __device__ void clear(unsigned long long i) const {
    words[i] = empty_word;
    if constexpr (Combiner::has_identity) values[i] = Combiner::identity();
  }
};

template <class K, class Acc, class Combiner, class Eq>
__global__ void clear_split_table_kernel(oa_split_table<K, Acc, Combiner, Eq> t, unsigned long long capacity) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < capacity;
       i += stride)
    t.clear(i);
}

/// Writes an empty slot (word EMPTY, the identity where the combiner has one, lock free).
template <class Table>
__device__ void clear_slot(typename Table::slot& s) {
  s.word = empty_word;
  if constexpr (!Table::packed) s.lock = 0u;
  if constexpr (Table::combiner_type::has_identity) s.value = Table::combiner_type::identity();
}

/// Empties slots [0, capacity) of t, the grid's threads striding over them (every thread calls it).
template <class Table>
__device__ void clear_slots(const Table& t, unsigned long long capacity) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < capacity;
       i += stride)
    clear_slot<Table>(t.slots[i]);
}

template <class Table>
__global__ void clear_table_kernel(Table t, unsigned long long capacity) {
  clear_slots(t, capacity);
}

}  // namespace algo::detail::cuda::hash
