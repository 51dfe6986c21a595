// The hash table of CUDA by Example (seed 002), as the seed builds it: an array of buckets, each the
// head of a chain of entries; entries come from a pool allocated up front (record i owns pool entry
// i, so no allocator is needed on the device); one lock per bucket (atomicCAS / atomicExch,
// lock.cuh), the lanes of a warp taking their locks one at a time. Every update happens under the
// bucket's lock, so any operator works, and every record pays a lock round trip: the reference the
// lock-free table (open_addressing.cuh) is measured against.
//
// For group-by an entry also keeps its aggregate and the smallest input index of its key (the
// key's first appearance); `created` has one bit per pool entry that heads a group.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../reduce/reduce_sync.cuh"
#include "lock.cuh"
#include "probe.cuh"

namespace algo::detail::cuda::hash {

template <class K, class Acc>
struct chain_entry {
  K key;
  Acc value;
  long long next;  // pool index of the next entry of the chain, -1 at the end
  unsigned long long first;
};

template <class K, class Acc, class Op, class Eq>
struct chained_table {
  long long* heads;   // per bucket: the first entry, -1 when empty
  unsigned* locks;    // per bucket
  chain_entry<K, Acc>* pool;
  unsigned* created;  // one bit per pool entry
  unsigned long long bucket_mask;
  mutable Op op;      // returns Acc
  mutable Eq eq;

  /// Record `i` (key, value): combined into its key's entry, or a new entry (pool[i]) at the head of
  /// the bucket's chain. Returns true when it created the entry.
  __device__ bool insert(unsigned long long i, const K& key, std::uint64_t h, const Acc& value) const {
    const unsigned long long b = h & bucket_mask;
    bool made = false;
    warp_serialized([&] {
      const spin_lock l{locks + b};
      l.lock();
      long long e = load_coherent(heads + b);
      while (e >= 0 && !eq(load_coherent(&pool[e].key), key)) e = load_coherent(&pool[e].next);
      if (e >= 0) {
        chain_entry<K, Acc>& x = pool[e];
        store_coherent(&x.value, static_cast<Acc>(op(load_coherent(&x.value), value)));
        if (load_coherent(&x.first) > i) store_coherent(&x.first, i);
      } else {
        chain_entry<K, Acc>& x = pool[i];
        store_coherent(&x.key, key);
        store_coherent(&x.value, value);
        store_coherent(&x.next, load_coherent(heads + b));
        store_coherent(&x.first, i);
        store_coherent(heads + b, static_cast<long long>(i));
        made = true;
      }
      l.unlock();
    });
    if (made) atomicOr(created + (i >> 5), 1u << (i & 31));
    return made;
  }

  /// The entry holding key, or -1 (after the kernels that build the table).
  __device__ long long find(const K& key, std::uint64_t h) const {
    long long e = heads[h & bucket_mask];
    while (e >= 0 && !eq(pool[e].key, key)) e = pool[e].next;
    return e;
  }

  // ---- reading a finished table: entries are groups where `created` says so ----
  __device__ bool occupied(unsigned long long i) const { return (created[i >> 5] >> (i & 31)) & 1u; }
  __device__ unsigned long long first_index(unsigned long long i) const { return pool[i].first; }
  __device__ K key(unsigned long long i) const { return pool[i].key; }
  __device__ Acc value(unsigned long long i) const { return pool[i].value; }
};

}  // namespace algo::detail::cuda::hash
