// Thread layer: copies from global to shared memory that need no registers (cp.async, sm_80+):
// each thread issues its copies, closes them into a group, and later waits for the groups it needs;
// a barrier then makes one thread's copies visible to the others. On the host (index checks) and
// before sm_80 a plain copy.
//   copy_async16(smem, gmem, bytes)  one 16-byte vector, `bytes` (1..16) read, the rest zero-filled
//   copy_async<Bytes>(smem, gmem)    Bytes = 4, 8 or 16, both addresses aligned to Bytes
//   async_commit()                   closes this thread's group of copies (maybe empty)
//   async_wait<Pending>()            waits until at most Pending of its newest groups are in flight
#pragma once

#include <cstdint>

#include "../../config.hpp"

namespace algo::detail::cuda {

ALGO_HD inline void copy_async16(void* smem, const void* gmem, int bytes) {
#if ALGO_DEVICE_PASS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(gmem), "r"(bytes) : "memory");
#else
  unsigned char* d = static_cast<unsigned char*>(smem);
  const unsigned char* g = static_cast<const unsigned char*>(gmem);
  for (int k = 0; k < 16; ++k) d[k] = k < bytes ? g[k] : 0;
#endif
}

template <int Bytes>
ALGO_HD void copy_async(void* smem, const void* gmem) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if ALGO_DEVICE_PASS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(gmem) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(gmem), "n"(Bytes) : "memory");
  }
#else
  unsigned char* d = static_cast<unsigned char*>(smem);
  const unsigned char* g = static_cast<const unsigned char*>(gmem);
  for (int k = 0; k < Bytes; ++k) d[k] = g[k];
#endif
}

ALGO_HD inline void async_commit() {
#if ALGO_DEVICE_PASS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int Pending>
ALGO_HD void async_wait() {
#if ALGO_DEVICE_PASS && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

}  // namespace algo::detail::cuda
