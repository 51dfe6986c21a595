// Warp layer of the scans: an inclusive scan across the 32 lanes of a warp, for any associative
// operator (order preserved: lane i gets op(v_0, ..., v_i), combined left to right) and any
// trivially copyable type. Two implementations, selected by the policy's warp phase:
//
//   warp_scan<T, warp_phase::smem_t>  the classic warp-synchronous Kogge-Stone scan over `volatile`
//                                     shared memory (CUDA Handbook 13.4), made correct on Volta and
//                                     later by __syncwarp() between the steps;
//   warp_scan<T, warp_phase::shfl_t>  the same steps through register shuffles (__shfl_up_sync),
//                                     any type moved as 4-byte words (thread/shuffle.cuh).
//
// No identity element is needed: a lane below the step distance keeps its value instead of
// combining with an identity. Both expect a 1-D block (lane = threadIdx.x % 32). By default they
// run over all 32 lanes; a warp_lanes value narrows them to a segment of `width` lanes (a power of
// two: a cooperative-groups tile, or the public warp collectives' logical warps) of which only the
// first may exist (the partial last warp of a block whose size is not a multiple of 32): reads go
// only to lower lanes, so lanes that do not exist are never read, and every exchange names only
// the lanes present (mask).
//
// inclusive_first / scan_first scan only the first `valid` lanes of the segment (the block scan's
// spine over the warps' totals; a last tile's warp whose later lanes hold no items): lanes at or
// past `valid` take part in the exchanges but call no operator, so it sees only the operands a
// left-to-right fold of the real values forms.
#pragma once

#include <cstring>
#include <type_traits>

#include "../../../policy.hpp"
#include "../thread/shuffle.cuh"

namespace algo::detail::cuda {

__device__ __forceinline__ int lane_index() { return static_cast<int>(threadIdx.x) & 31; }
__device__ __forceinline__ int warp_index() { return static_cast<int>(threadIdx.x) >> 5; }

/// The lanes a warp collective runs over: the segment of `width` lanes (a power of two <= 32) that
/// holds the calling lane, of which `mask` (hardware lane bits) are present and calling.
struct warp_lanes {
  unsigned mask = full_warp_mask;
  int width = 32;

  /// The lane's index in its segment.
  __device__ __forceinline__ int rank() const { return lane_index() & (width - 1); }

  /// The segment of `width` lanes holding the calling lane, of which the first `valid`
  /// (1 <= valid <= width) are present.
  __device__ static __forceinline__ warp_lanes segment(int width, int valid) {
    const int base = lane_index() & ~(width - 1);
    const unsigned bits = valid >= 32 ? full_warp_mask : ((1u << valid) - 1u);
    return warp_lanes{bits << base, width};
  }
  /// The calling thread's warp of a 1-D block of `threads` threads (the last one may be partial).
  __device__ static __forceinline__ warp_lanes block_warp(int threads) {
    const int rest = threads - (warp_index() << 5);
    return segment(32, rest < 32 ? rest : 32);
  }
};

template <class T, class Phase = warp_phase::shfl_t>
class warp_scan;

// ---- (b) register shuffles -----------------------------------------------------------------
template <class T>
class warp_scan<T, warp_phase::shfl_t> {
 public:
  /// Shuffles need no shared memory.
  struct temp_storage {};

  __device__ explicit warp_scan(temp_storage&, warp_lanes lanes = warp_lanes{}) : lanes_(lanes) {}

  /// Lane i gets op(v_0, ..., v_i).
  template <class Op>
  __device__ __forceinline__ T inclusive(T v, Op op) const {
    return inclusive_first(v, op, 32);
  }

  /// Inclusive and exclusive results at once; lane 0's exclusive value is unspecified.
  template <class Op>
  __device__ __forceinline__ void scan(const T& v, T& inclusive_out, T& exclusive_out, Op op) const {
    inclusive_out = inclusive(v, op);
    exclusive_out = shfl_up(inclusive_out, 1, lanes_.mask, lanes_.width);
  }

  /// Lane i < valid gets op(v_0, ..., v_i); lanes at or past `valid` call no operator (their
  /// results are unspecified). `span` bounds `valid` (a constant where the caller has one: the
  /// steps stop below it).
  template <class Op>
  __device__ __forceinline__ T inclusive_first(T v, Op op, int valid, int span = 32) const {
    const int lane = lanes_.rank();
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      if (d >= lanes_.width || d >= span) break;
      const T other = shfl_up(v, d, lanes_.mask, lanes_.width);
      if (lane >= d && lane < valid) v = op(other, v);
    }
    return v;
  }
  template <class Op>
  __device__ __forceinline__ void scan_first(const T& v, T& inclusive_out, T& exclusive_out, Op op, int valid,
                                             int span = 32) const {
    inclusive_out = inclusive_first(v, op, valid, span);
    exclusive_out = shfl_up(inclusive_out, 1, lanes_.mask, lanes_.width);
  }

 private:
  warp_lanes lanes_;
};

// ---- (a) volatile shared memory, Kogge-Stone with __syncwarp() -----------------------------
template <class T>
class warp_scan<T, warp_phase::smem_t> {
  static_assert(std::is_trivially_copyable<T>::value, "warp_scan needs a trivially copyable type");
  // 16 padding slots before the 32 lanes' slots: lane i reads slot 16 + i - d for d <= 16, which
  // is always inside the array, so the loads need no bounds test (the value read by a lane below
  // d is ignored: without an identity element there is nothing sensible to pad with).
  static constexpr int pad = 16;
  static constexpr int slots = pad + 32;
  static constexpr int words = (sizeof(T) + 3) / 4;

 public:
  /// T is stored as 4-byte word planes (slot-major per word): conflict-free and volatile-friendly
  /// for any type, including structs that have no volatile copy constructor.
  struct temp_storage {
    unsigned w[words][slots];
  };

  __device__ explicit warp_scan(temp_storage& s, warp_lanes lanes = warp_lanes{}) : s_(s), lanes_(lanes) {}

  template <class Op>
  __device__ __forceinline__ T inclusive(T v, Op op) const {
    return inclusive_first(v, op, 32);
  }

  template <class Op>
  __device__ __forceinline__ void scan(const T& v, T& inclusive_out, T& exclusive_out, Op op) const {
    inclusive_out = inclusive(v, op);
    exclusive_out = get(pad + lanes_.rank() - 1);  // lane 0 reads a padding slot: unspecified
  }

  /// As the shuffle form's: the first `valid` lanes scanned, the others call no operator.
  template <class Op>
  __device__ __forceinline__ T inclusive_first(T v, Op op, int valid, int span = 32) const {
    const int lane = lanes_.rank();
    const int i = pad + lane;
    __syncwarp(lanes_.mask);  // lanes still reading this storage from an earlier scan are done
    put(i, v);
    __syncwarp(lanes_.mask);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      if (d >= lanes_.width || d >= span) break;
      const T other = get(i - d);
      __syncwarp(lanes_.mask);  // every lane has read step d's inputs before any lane overwrites them
      if (lane >= d && lane < valid) {
        v = op(other, v);
        put(i, v);
      }
      __syncwarp(lanes_.mask);
    }
    return v;
  }
  template <class Op>
  __device__ __forceinline__ void scan_first(const T& v, T& inclusive_out, T& exclusive_out, Op op, int valid,
                                             int span = 32) const {
    inclusive_out = inclusive_first(v, op, valid, span);
    exclusive_out = get(pad + lanes_.rank() - 1);
  }

 private:
  __device__ __forceinline__ void put(int slot, const T& v) const {
    unsigned tmp[words] = {};
    memcpy(tmp, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < words; ++k) static_cast<volatile unsigned*>(s_.w[k])[slot] = tmp[k];
  }
  __device__ __forceinline__ T get(int slot) const {
    unsigned tmp[words];
#pragma unroll
    for (int k = 0; k < words; ++k) tmp[k] = static_cast<volatile unsigned*>(s_.w[k])[slot];
    T v;
    memcpy(&v, tmp, sizeof(T));
    return v;
  }

  temp_storage& s_;
  warp_lanes lanes_;
};

// ---- suffix scan (used by the look-back) -----------------------------------------------------
/// Lane i >= first gets op(v_i, v_{i+1}, ..., v_31), combined left to right (a Kogge-Stone scan
/// run from the top lane down). Lanes below `first` may hold anything (slots the look-back found
/// empty, or before the first tile): they never call the operator and their values are never
/// read by a lane at or above `first`, so the operator sees only real values.
template <class T, class Op>
__device__ __forceinline__ T warp_suffix_scan(T v, Op op, int first = 0) {
  const int lane = lane_index();
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const T other = shfl_down(v, d);
    if (lane >= first && lane + d < 32) v = op(v, other);
  }
  return v;
}

}  // namespace algo::detail::cuda
