// group_reduce on algo::cuda, the emit pass (split from detail/group/device.cuh): each group's key and
// aggregate written at its rank.
//   open addressing   emit_in_order_kernel: the first appearances walked in input order (a thread a
//                     word of the bit map), each one's key found again in the table and written with
//                     its aggregate at the next rank (the outputs written in order)
//   locked_chaining   emit_kernel: every group writes its key and aggregate at its rank
// rank_emit_in_order / rank_emit run the rank pass's per-word prefixes, then the emit.
#pragma once

#include <cuda_runtime_api.h>

#include "../../policy.hpp"
#include "../cuda/hash/probe.cuh"
#include "../cuda/runtime.cuh"
#include "common.cuh"
#include "rank.cuh"

namespace algo::detail::group {

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

}  // namespace algo::detail::group
