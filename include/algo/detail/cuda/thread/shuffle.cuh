// Thread layer: warp shuffles of any trivially copyable type, moved as 4-byte words. `mask` names
// the lanes taking part (all of them must make the call: a partial last warp passes only its
// present lanes); `width` (a power of two <= 32) splits the warp into independent segments, as the
// intrinsics' width argument does (lane indices are then relative to the segment).
#pragma once

#include <cstring>
#include <type_traits>

namespace algo::detail::cuda {

inline constexpr unsigned full_warp_mask = 0xffffffffu;

template <class T>
struct shuffle_words {
  static_assert(std::is_trivially_copyable<T>::value, "warp shuffles need a trivially copyable type");
  static constexpr int count = (sizeof(T) + 3) / 4;
  unsigned w[count];
};

/// Value of `v` in lane (lane_id - delta); lanes below delta get their own value back.
template <class T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned delta, unsigned mask = full_warp_mask, int width = 32) {
  if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
    return __shfl_up_sync(mask, v, delta, width);
  } else {
    shuffle_words<T> in{}, out;
    memcpy(&in, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < shuffle_words<T>::count; ++i) out.w[i] = __shfl_up_sync(mask, in.w[i], delta, width);
    T r;
    memcpy(&r, &out, sizeof(T));
    return r;
  }
}

/// Value of `v` in lane (lane_id + delta); the top lanes get their own value back.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, unsigned mask = full_warp_mask, int width = 32) {
  if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
    return __shfl_down_sync(mask, v, delta, width);
  } else {
    shuffle_words<T> in{}, out;
    memcpy(&in, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < shuffle_words<T>::count; ++i) out.w[i] = __shfl_down_sync(mask, in.w[i], delta, width);
    T r;
    memcpy(&r, &out, sizeof(T));
    return r;
  }
}

/// Value of `v` in lane `src`.
template <class T>
__device__ __forceinline__ T shfl_idx(const T& v, int src, unsigned mask = full_warp_mask, int width = 32) {
  if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
    return __shfl_sync(mask, v, src, width);
  } else {
    shuffle_words<T> in{}, out;
    memcpy(&in, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < shuffle_words<T>::count; ++i) out.w[i] = __shfl_sync(mask, in.w[i], src, width);
    T r;
    memcpy(&r, &out, sizeof(T));
    return r;
  }
}

}  // namespace algo::detail::cuda
