// The lock of CUDA by Example (seed 002): a word taken with atomicCAS(0 -> 1) and given back with
// atomicExch(1 -> 0), with fences so that what the holder wrote is seen by the next holder, and the
// warp-serialized acquisition the seed uses for its hash table: the lanes of a warp that need locks
// take them one lane at a time, so a lane never spins on a lock held by a sibling that is waiting
// for it to move (what deadlocked before Volta, and what still costs throughput after it).
#pragma once

#include <cuda_runtime_api.h>

namespace algo::detail::cuda::hash {

/// One lock word in global (or shared) memory: 0 free, 1 held.
struct spin_lock {
  unsigned* word;

  __device__ void lock() const {
    unsigned ns = 8;
    while (atomicCAS(word, 0u, 1u) != 0u) {
      __nanosleep(ns);
      if (ns < 256) ns *= 2;
    }
    __threadfence();  // acquire: the previous holder's writes are visible from here on
  }
  __device__ void unlock() const {
    __threadfence();  // release: our writes are visible before the lock is seen free
    atomicExch(word, 0u);
  }
};

/// Runs f() for every lane of this warp that calls it, one lane after another (lowest lane first),
/// each lane's f() completing before the next lane starts. f typically takes a spin_lock, works on
/// what it protects and gives it back.
template <class F>
__device__ __forceinline__ void warp_serialized(F&& f) {
  const unsigned active = __activemask();
  const unsigned me = 1u << (threadIdx.x & 31u);
  unsigned pending = active;
  while (pending) {
    const unsigned leader = pending & (~pending + 1u);
    if (leader == me) f();
    pending &= ~leader;
    __syncwarp(active);
  }
}

}  // namespace algo::detail::cuda::hash
