// reduce_strategy::atomic: one pass, one launch; each block pre-reduces its range, then combines its
// partial into the result with ONE hardware atomic (atomicAdd / atomicMin / atomicMax / atomicAnd /
// atomicOr / atomicXor).
//
//   arm      block 0 sets the accumulator to init, then arms this call's epoch (reduce_sync.cuh)
//   reduce   every block folds its contiguous range (reduce_range.cuh)
//   combine  thread 0 waits for the epoch, applies its partial atomically, takes a ticket
//   publish  the last ticket's block copies the accumulator to the output (any output iterator)
//
// Only for operator/type pairs with a hardware atomic (a compile-time error otherwise): blocks combine
// in whatever order they finish, so the operator must be commutative, and float/double sums are NOT
// deterministic from run to run (the rounding depends on that order). Integer results are exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../../functional.hpp"
#include "../runtime.cuh"
#include "reduce_range.cuh"
#include "reduce_sync.cuh"

namespace algo::detail::cuda {

// ---- which operator/type pairs have a hardware atomic ------------------------------------------------
enum class atomic_kind { none, add, min, max, and_, or_, xor_ };

template <class Op>
struct atomic_kind_of : std::integral_constant<atomic_kind, atomic_kind::none> {};
template <class U>
struct atomic_kind_of<algo::plus<U>> : std::integral_constant<atomic_kind, atomic_kind::add> {};
template <class U>
struct atomic_kind_of<algo::minimum<U>> : std::integral_constant<atomic_kind, atomic_kind::min> {};
template <class U>
struct atomic_kind_of<algo::maximum<U>> : std::integral_constant<atomic_kind, atomic_kind::max> {};
template <class U>
struct atomic_kind_of<algo::bit_and<U>> : std::integral_constant<atomic_kind, atomic_kind::and_> {};
template <class U>
struct atomic_kind_of<algo::bit_or<U>> : std::integral_constant<atomic_kind, atomic_kind::or_> {};
template <class U>
struct atomic_kind_of<algo::bit_xor<U>> : std::integral_constant<atomic_kind, atomic_kind::xor_> {};

template <class T>
inline constexpr bool is_atomic_integer_v =
    std::is_integral<T>::value && !std::is_same<T, bool>::value && (sizeof(T) == 4 || sizeof(T) == 8);

/// True when `Op` on `T` maps to one hardware atomic on sm_90: integer (32/64-bit) add, min, max and
/// bitwise ops; float and double add. (There is no hardware float min/max atomic.)
template <class Op, class T>
inline constexpr bool has_hardware_atomic_v =
    atomic_kind_of<Op>::value != atomic_kind::none &&
    (is_atomic_integer_v<T> ||
     ((std::is_same<T, float>::value || std::is_same<T, double>::value) && atomic_kind_of<Op>::value == atomic_kind::add));

/// *p = *p op v, atomically.
template <atomic_kind K, class T>
__device__ __forceinline__ void atomic_combine(T* p, T v) {
  if constexpr (std::is_floating_point<T>::value) {
    atomicAdd(p, v);
  } else if constexpr (sizeof(T) == 4) {
    using W = std::conditional_t<std::is_signed<T>::value, int, unsigned>;
    W* q = reinterpret_cast<W*>(p);
    const W w = static_cast<W>(v);
    if constexpr (K == atomic_kind::add) atomicAdd(q, w);
    if constexpr (K == atomic_kind::min) atomicMin(q, w);
    if constexpr (K == atomic_kind::max) atomicMax(q, w);
    if constexpr (K == atomic_kind::and_) atomicAnd(q, w);
    if constexpr (K == atomic_kind::or_) atomicOr(q, w);
    if constexpr (K == atomic_kind::xor_) atomicXor(q, w);
  } else {
    // 64-bit: add and bitwise ops are the same bits signed or not; min/max need the signedness
    using U = unsigned long long;
    using S = long long;
    if constexpr (K == atomic_kind::add) atomicAdd(reinterpret_cast<U*>(p), static_cast<U>(v));
    if constexpr (K == atomic_kind::and_) atomicAnd(reinterpret_cast<U*>(p), static_cast<U>(v));
    if constexpr (K == atomic_kind::or_) atomicOr(reinterpret_cast<U*>(p), static_cast<U>(v));
    if constexpr (K == atomic_kind::xor_) atomicXor(reinterpret_cast<U*>(p), static_cast<U>(v));
    if constexpr (K == atomic_kind::min || K == atomic_kind::max) {
      if constexpr (std::is_signed<T>::value) {
        if constexpr (K == atomic_kind::min) atomicMin(reinterpret_cast<S*>(p), static_cast<S>(v));
        else atomicMax(reinterpret_cast<S*>(p), static_cast<S>(v));
      } else {
        if constexpr (K == atomic_kind::min) atomicMin(reinterpret_cast<U*>(p), static_cast<U>(v));
        else atomicMax(reinterpret_cast<U*>(p), static_cast<U>(v));
      }
    }
  }
}

template <class T>
struct atomic_temp {
  static std::size_t bytes() { return 256; }
  unsigned long long* ticket;  // [0, 8)
  T* acc;                      // [16, 16 + sizeof(T))
  static atomic_temp carve(void* p) {
    auto* base = static_cast<unsigned char*>(p);
    return {reinterpret_cast<unsigned long long*>(base), reinterpret_cast<T*>(base + 16)};
  }
};

template <class Agent, atomic_kind K, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_atomic_kernel(It first, reduce_layout L, OutIt out, T init, Op op, atomic_temp<T> temp,
                         unsigned long long tag) {
  __shared__ typename Agent::storage smem;
  __shared__ bool last;
  const epoch_ticket ticket{temp.ticket, tag};
  const bool single = gridDim.x == 1;

  // ---- arm: the accumulator starts at init --------------------------------------------------------
  if (!single && blockIdx.x == 0 && threadIdx.x == 0) {
    store_coherent(temp.acc, init);
    ticket.arm();  // a release: whoever sees the epoch sees init
  }

  // ---- reduce this block's range ------------------------------------------------------------------
  const maybe_value<T> part = Agent{smem, first, L}.reduce_block(op);
  if (single) {
    if (threadIdx.x == 0) *out = part.has ? static_cast<T>(op(init, part.value)) : init;
    return;
  }

  // ---- combine: one atomic per block, then a ticket ------------------------------------------------
  if (threadIdx.x == 0) {
    ticket.wait();
    atomic_combine<K>(temp.acc, part.value);
    last = ticket.take() == gridDim.x - 1;
  }
  __syncthreads();

  // ---- publish: the last block copies the accumulator out -------------------------------------------
  if (last && threadIdx.x == 0) {
    *out = load_coherent(temp.acc);
    ticket.disarm();
  }
}

template <class Agent, class RawOp, class It, class OutIt, class T, class Op>
struct reduce_atomic {
  static_assert(has_hardware_atomic_v<RawOp, T>,
                "algo::reduce_strategy::atomic needs an operator and accumulator type with a hardware atomic: "
                "algo::plus, algo::minimum, algo::maximum, algo::bit_and, algo::bit_or or algo::bit_xor on a "
                "32- or 64-bit integer, or algo::plus on float / double. Use reduce_strategy::retirement_count "
                "(the default) for anything else.");
  static constexpr atomic_kind kind = atomic_kind_of<RawOp>::value;

  static auto kernel() { return reduce_atomic_kernel<Agent, kind, It, OutIt, T, Op>; }
  static std::size_t temp_bytes(const reduce_layout& L) { return L.blocks > 1 ? atomic_temp<T>::bytes() : 0; }
  static void run(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                  Op op, void* temp) {
    const auto tmp = L.blocks > 1 ? atomic_temp<T>::carve(temp) : atomic_temp<T>{nullptr, nullptr};
    kernel()<<<L.blocks, Agent::threads, 0, stream>>>(first, L, out, init, op, tmp, next_epoch_tag());
    check_launch(algorithm, "reduce_atomic_kernel");
  }
};

}  // namespace algo::detail::cuda
