// Hashing and probing for the device hash tables: the user's hash is mixed once more (a weak hash
// such as the identity would otherwise cluster consecutive keys in consecutive slots), the home
// slot is the mixed value modulo a power-of-two capacity, and probing is linear (the next slots
// share the home slot's cache line: one memory transaction covers several probes).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../config.hpp"

namespace algo::detail::cuda::hash {

/// MurmurHash3's 64-bit finalizer (a bijection: distinct hashes stay distinct).
ALGO_HD inline std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/// The mixed hash of key under the user's hash (any function object returning an integer).
ALGO_EXEC_CHECK_DISABLE
template <class Hash, class K>
ALGO_HD inline std::uint64_t hash_of(Hash& hash, const K& key) {
  return mix64(static_cast<std::uint64_t>(hash(key)));
}

/// Linear probing over a power-of-two table: home slot, then home + 1, ... (mod capacity).
struct linear_probe {
  std::uint64_t slot, mask;
  ALGO_HD linear_probe(std::uint64_t h, std::uint64_t m) : slot(h & m), mask(m) {}
  ALGO_HD void next() { slot = (slot + 1) & mask; }
};

/// Keys of at most 4 bytes packed into (and out of) the low half of a 64-bit slot word.
template <class K>
inline constexpr bool packable_key_v = std::is_trivially_copyable<K>::value && sizeof(K) <= 4;

template <class K>
ALGO_HD inline std::uint32_t key_bits(const K& key) {
  std::uint32_t b = 0;
  memcpy(&b, &key, sizeof(K));
  return b;
}
template <class K>
ALGO_HD inline K key_from_bits(std::uint32_t b) {
  K key;
  memcpy(&key, &b, sizeof(K));
  return key;
}

/// Smallest power of two >= x (x >= 1).
inline std::uint64_t pow2_ceil(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

}  // namespace algo::detail::cuda::hash
