// Inter-block coordination for the single-pass reductions, kept in per-call temporary storage.
//
// The problem: temporaries come from the caching resource, which hands out memory with whatever the
// last user left in it, so a retirement counter or a mutex cannot be assumed to start at 0; and the
// retirement strategy must stay ONE kernel launch (a cudaMemsetAsync before it would cost another
// stream operation, about as much as the second launch we are saving).
//
// The choice, an epoch scheme: every call gets a fresh 40-bit tag from the host (a process-wide
// counter, never 0). The counter and the mutex words carry the tag in their high bits.
//   arm      block 0 opens the call's epoch as its first action: ticket = tag << 24 (count 0),
//            mutex = tag << 1 (unlocked), after initializing anything else the others need.
//   wait     a block that needs the word spins until it carries this call's tag. Blocks only get
//            there after reducing their whole range, long after block 0 started (blocks are
//            dispatched in index order, the same forward-progress assumption CUB's decoupled
//            look-back makes), so in practice nobody spins.
//   disarm   the block that finishes last writes 0 back ("resets the counter for the next call"):
//            a CUDA graph replaying the same kernel with the same tag then finds 0, not its own
//            stale epoch.
// Stale contents are harmless unless they equal this call's tagged value exactly (the high 40 bits
// of a 64-bit word matching a tag never used before in this process): we accept that 2^-40-ish
// chance rather than add a launch.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>

namespace algo::detail::cuda {

// ---- host: tags ---------------------------------------------------------------------------------
inline constexpr int epoch_tag_bits = 40;
inline constexpr int ticket_count_bits = 24;  // at most 2^24 - 1 blocks per call

/// A tag never handed out before in this process (until 2^40 - 2 calls), never 0.
inline std::uint64_t next_epoch_tag() {
  static std::atomic<std::uint64_t> counter{
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull};
  constexpr std::uint64_t span = (std::uint64_t{1} << epoch_tag_bits) - 2;
  return counter.fetch_add(1, std::memory_order_relaxed) % span + 1;
}

// ---- device: loads and stores that bypass L1 (other SMs wrote / will read these) ----------------
/// Reads a T written by another block (ld.global.cg: L2, never a stale L1 line).
template <class T>
__device__ __forceinline__ T load_coherent(const T* p) {
  static_assert(std::is_trivially_copyable<T>::value, "");
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    const unsigned* q = reinterpret_cast<const unsigned*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = __ldcg(q + i);
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  } else {
    unsigned char b[sizeof(T)];
    const volatile unsigned char* q = reinterpret_cast<const volatile unsigned char*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = q[i];
    T v;
    memcpy(&v, b, sizeof(T));
    return v;
  }
}
/// Writes a T for another block to read (st.global.cg).
template <class T>
__device__ __forceinline__ void store_coherent(T* p, const T& v) {
  static_assert(std::is_trivially_copyable<T>::value, "");
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
    unsigned* q = reinterpret_cast<unsigned*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) __stcg(q + i, w[i]);
  } else {
    unsigned char b[sizeof(T)];
    memcpy(b, &v, sizeof(T));
    volatile unsigned char* q = reinterpret_cast<volatile unsigned char*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) q[i] = b[i];
  }
}

// ---- device: the retirement ticket ----------------------------------------------------------------
// The words are driven through ::cuda::atomic_ref with explicit memory orders (libcu++'s spelling of
// atomicAdd + __threadfence()): a release publishes what the thread wrote before it, an acquire
// makes what the releasing thread wrote visible to this one; a __syncthreads() after the acquire
// extends that to the rest of the block.
using device_word = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;

/// One 64-bit word: (tag << 24) | tickets taken so far.
struct epoch_ticket {
  unsigned long long* word;
  unsigned long long tag;

  /// Block 0, first thing (after writing whatever the other blocks will read once armed).
  __device__ void arm() const { device_word(*word).store(tag << ticket_count_bits, ::cuda::memory_order_release); }
  /// Spins until block 0 has armed this call's epoch.
  __device__ void wait() const {
    while ((device_word(*word).load(::cuda::memory_order_acquire) >> ticket_count_bits) != tag) __nanosleep(64);
  }
  /// Takes the next ticket (0, 1, ... in retirement order), publishing everything this thread wrote
  /// before (release) and seeing everything earlier ticket holders published (acquire). After wait().
  __device__ unsigned take() const {
    const unsigned long long old = device_word(*word).fetch_add(1ull, ::cuda::memory_order_acq_rel);
    return static_cast<unsigned>(old & ((1ull << ticket_count_bits) - 1));
  }
  /// The last block, when done: the word goes back to 0 (no live epoch).
  __device__ void disarm() const { device_word(*word).store(0ull, ::cuda::memory_order_relaxed); }
};

// ---- device: the global mutex ------------------------------------------------------------------------
/// One 64-bit word: (tag << 1) | locked, taken with a compare-and-swap (atomicCAS) and given back
/// with an exchange (atomicExch), as CUDA by Example's lock. Until block 0 arms it, no CAS can
/// succeed (the word does not hold "tag, unlocked"), so early arrivals spin as if it were held.
struct epoch_mutex {
  unsigned long long* word;
  unsigned long long tag;

  __device__ void arm() const { device_word(*word).store(tag << 1, ::cuda::memory_order_release); }
  __device__ void lock() const {
    unsigned ns = 32;
    for (;;) {
      unsigned long long expected = tag << 1;  // armed and unlocked
      if (device_word(*word).compare_exchange_strong(expected, (tag << 1) | 1ull, ::cuda::memory_order_acquire,
                                                     ::cuda::memory_order_relaxed))
        return;
      __nanosleep(ns);
      if (ns < 1024) ns *= 2;
    }
  }
  __device__ void unlock() const { device_word(*word).exchange(tag << 1, ::cuda::memory_order_release); }
  __device__ void disarm() const { device_word(*word).store(0ull, ::cuda::memory_order_relaxed); }

  /// Runs f() under the lock for every calling lane of this warp, one lane after another. Lanes of
  /// one warp spinning on a lock that another lane of the same warp holds could starve that lane
  /// (and did deadlock before Volta's independent thread scheduling): serializing the warp's lanes
  /// explicitly makes each acquire independent of its siblings.
  template <class F>
  __device__ void critical_section(F&& f) const {
    const unsigned active = __activemask();
    const unsigned me = 1u << (threadIdx.x & 31u);
    unsigned pending = active;
    while (pending) {
      const unsigned leader = pending & (~pending + 1u);  // lowest pending lane
      if (leader == me) {
        lock();
        f();
        unlock();
      }
      pending &= ~leader;
      __syncwarp(active);
    }
  }
};

}  // namespace algo::detail::cuda
