// Warp layer: the in-order fold of one value per lane, result in lane 0. Two implementations, chosen
// by the policy's warp_phase type:
//
//   warp_reduce<warp_phase::smem_t, T>  the classic warp-synchronous code over `volatile` shared
//                                       memory, made correct on Volta and later by __syncwarp()
//                                       between steps (lanes no longer run in lockstep)
//   warp_reduce<warp_phase::shfl_t, T>  __shfl_down_sync, any trivially copyable type
//
// Both keep the operands in order, so any associative operator works: at the step with offset o
// (o = 1, 2, 4, 8, 16, ascending), lane i combines its value, the fold of lanes [i, i+o), with lane
// i+o's, the fold of [i+o, i+2o), on its right. (The textbook descending offsets 16, 8, ... and xor
// butterflies pair lane i with i+16 first: fine for +, wrong for a matrix product.)
//
// `valid` lanes [0, valid) hold values (1 <= valid <= 32); the others are never read. A warp_lanes
// value (warp_scan.cuh) narrows the fold to a segment of `width` lanes (a cooperative-groups tile,
// a logical warp) and to the lanes present (a partial last warp): lane indices are then the
// segment's, and lanes past the ones present must not be counted in `valid`.
#pragma once

#include <cstring>
#include <type_traits>

#include "../../../policy.hpp"
#include "../thread/shuffle.cuh"
#include "warp_scan.cuh"  // lane_index()

namespace algo::detail::cuda {

/// The sum of the warp's 32 values (every lane; all 32 lanes call it).
__device__ __forceinline__ unsigned warp_sum_u32(unsigned c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(full_warp_mask, c);
#else
#pragma unroll
  for (int d = 16; d > 0; d /= 2) c += __shfl_xor_sync(full_warp_mask, c, d);
  return c;
#endif
}

/// Shared-memory storage for N values of T without running constructors (T need only be trivially
/// copyable), viewed as T or, for the volatile warp phase, as volatile words.
template <class T, int N>
struct uninitialized_array {
  static_assert(std::is_trivially_copyable<T>::value, "values must be trivially copyable");
  alignas(T) alignas(4) unsigned char bytes[N * sizeof(T)];
  __device__ __forceinline__ T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return reinterpret_cast<const T*>(bytes)[i]; }
};

/// Volatile access to a shared T: arithmetic types directly, anything else word by word (or byte by
/// byte when T's size is not a multiple of 4). Every lane's stores are visible to the warp after
/// __syncwarp() and the compiler can neither cache nor reorder them.
template <class T>
__device__ __forceinline__ void volatile_store(T* p, const T& v) {
  if constexpr (std::is_arithmetic<T>::value) {
    *static_cast<volatile T*>(p) = v;
  } else if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
    volatile unsigned* q = reinterpret_cast<volatile unsigned*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) q[i] = w[i];
  } else {
    unsigned char b[sizeof(T)];
    memcpy(b, &v, sizeof(T));
    volatile unsigned char* q = reinterpret_cast<volatile unsigned char*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) q[i] = b[i];
  }
}
template <class T>
__device__ __forceinline__ T volatile_load(const T* p) {
  if constexpr (std::is_arithmetic<T>::value) {
    return *static_cast<const volatile T*>(p);
  } else if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned w[sizeof(T) / 4];
    const volatile unsigned* q = reinterpret_cast<const volatile unsigned*>(p);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = q[i];
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

template <class Phase, class T>
struct warp_reduce;

// ==== shuffle ===================================================================================
template <class T>
struct warp_reduce<warp_phase::shfl_t, T> {
  struct storage {};  // registers only

  __device__ __forceinline__ explicit warp_reduce(storage&, warp_lanes lanes = warp_lanes{}) : lanes_(lanes) {}

  /// In-order fold of lanes [0, valid) into lane 0. Every lane of the warp must call it.
  template <class Op>
  __device__ __forceinline__ T reduce(T v, int valid, Op op) const {
    const int lane = lanes_.rank();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      if (o >= lanes_.width) break;
      const T right = shfl_down(v, o, lanes_.mask, lanes_.width);
      if (lane + o < valid) v = op(v, right);
    }
    return v;
  }
  /// All 32 lanes valid.
  template <class Op>
  __device__ __forceinline__ T reduce_full(T v, Op op) const {
    const int lane = lane_index();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T right = shfl_down(v, o);
      if (lane + o < 32) v = op(v, right);
    }
    return v;
  }

 private:
  warp_lanes lanes_;
};

// ==== volatile shared memory ====================================================================
template <class T>
struct warp_reduce<warp_phase::smem_t, T> {
  struct storage {
    uninitialized_array<T, 32> slot;
  };

  __device__ __forceinline__ explicit warp_reduce(storage& s, warp_lanes lanes = warp_lanes{}) : s_(s), lanes_(lanes) {}

  /// In-order fold of lanes [0, valid) into lane 0. Every lane of the warp must call it. At step o
  /// only lanes i = 0 mod 2o write (slot i) and they read slot i+o = o mod 2o: no lane reads a slot
  /// written in the same step, and __syncwarp() separates the steps.
  template <class Op>
  __device__ __forceinline__ T reduce(T v, int valid, Op op) const {
    const int lane = lanes_.rank();
    T* slot = &s_.slot[0];
    __syncwarp(lanes_.mask);  // lanes still reading this storage from an earlier fold are done
    volatile_store(slot + lane, v);
    __syncwarp(lanes_.mask);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      if (o >= lanes_.width) break;
      if ((lane & (2 * o - 1)) == 0 && lane + o < valid) {
        v = op(v, volatile_load(slot + lane + o));
        volatile_store(slot + lane, v);
      }
      __syncwarp(lanes_.mask);
    }
    return v;  // the storage may be reused once every lane is past the last __syncwarp()
  }
  template <class Op>
  __device__ __forceinline__ T reduce_full(T v, Op op) const {
    return reduce(v, 32, op);
  }

 private:
  storage& s_;
  warp_lanes lanes_;
};

}  // namespace algo::detail::cuda
