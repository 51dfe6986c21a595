// How a value is combined into a table slot's aggregate on the device, one type per
// group::combine_kind (detail/group/ops.hpp). The same code works on shared and global memory
// (generic addresses). Every combiner has
//   storage                   what a slot holds (Acc, or exact_sum<Acc>)
//   identity()                what a fresh slot starts from (kinds with an identity)
//   add(dst, lock, v)         dst := dst op v, concurrently with other threads
//   merge(dst, lock, part)    dst := dst op part (a partial aggregate: the shared table's flush)
//   first(dst, v)             the claiming thread's plain write of the first value (kinds without
//                             an identity; before the slot is published)
//   result(storage) -> Acc
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <type_traits>

#include "../../group/ops.hpp"
#include "../../iterator.hpp"
#include "../reduce/reduce_sync.cuh"
#include "lock.cuh"

namespace algo::detail::cuda::hash {

using group::combine_kind;
using group::op_family;

/// atomicAdd / Min / Max / And / Or / Xor for 4- and 8-byte integers and (add) float / double.
template <op_family F, class T>
__device__ __forceinline__ void atomic_native(T* p, T v) {
  using U = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  using S = std::conditional_t<sizeof(T) == 4, int, long long>;
  if constexpr (F == op_family::plus) {
    if constexpr (std::is_floating_point<T>::value) atomicAdd(p, v);
    else atomicAdd(reinterpret_cast<U*>(p), static_cast<U>(v));
  } else if constexpr (F == op_family::minimum) {
    if constexpr (std::is_signed<T>::value) atomicMin(reinterpret_cast<S*>(p), static_cast<S>(v));
    else atomicMin(reinterpret_cast<U*>(p), static_cast<U>(v));
  } else if constexpr (F == op_family::maximum) {
    if constexpr (std::is_signed<T>::value) atomicMax(reinterpret_cast<S*>(p), static_cast<S>(v));
    else atomicMax(reinterpret_cast<U*>(p), static_cast<U>(v));
  } else if constexpr (F == op_family::bit_and) {
    atomicAnd(reinterpret_cast<U*>(p), static_cast<U>(v));
  } else if constexpr (F == op_family::bit_or) {
    atomicOr(reinterpret_cast<U*>(p), static_cast<U>(v));
  } else {
    atomicXor(reinterpret_cast<U*>(p), static_cast<U>(v));
  }
}

/// *p := f(*p) by a compare-and-swap loop on the 4- or 8-byte word (lock-free); stops early when
/// f leaves the value unchanged (minimum / maximum mostly do).
template <class T, class F>
__device__ __forceinline__ void atomic_update(T* p, F&& f) {
  using W = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  W* wp = reinterpret_cast<W*>(p);
  W old = *reinterpret_cast<volatile W*>(wp);
  for (;;) {
    T cur;
    memcpy(&cur, &old, sizeof(T));
    const T nv = f(cur);
    W nw;
    memcpy(&nw, &nv, sizeof(T));
    if (nw == old) return;
    const W prev = atomicCAS(wp, old, nw);
    if (prev == old) return;
    old = prev;
  }
}

template <combine_kind Kind, class Op, class Acc>
struct combiner;

template <class Op, class Acc>
struct combiner<combine_kind::native, Op, Acc> {
  using storage = Acc;
  static constexpr bool has_identity = true;
  static constexpr op_family family = group::op_family_of<Op, Acc>();
  accumulate_with<Op, Acc> op;
  ALGO_HD static Acc identity() { return group::identity_of<Op, Acc>(); }
  __device__ void add(storage* dst, unsigned*, const Acc& v) const { atomic_native<family>(dst, v); }
  __device__ void merge(storage* dst, unsigned*, const storage& part) const { atomic_native<family>(dst, part); }
  __device__ void first(storage* dst, const Acc& v) const { *dst = v; }
  ALGO_HD static Acc result(const storage& s) { return s; }
};

template <class Op, class Acc>
struct combiner<combine_kind::cas_ident, Op, Acc> {
  using storage = Acc;
  static constexpr bool has_identity = true;
  accumulate_with<Op, Acc> op;
  ALGO_HD static Acc identity() { return group::identity_of<Op, Acc>(); }
  __device__ void add(storage* dst, unsigned*, const Acc& v) const {
    atomic_update(dst, [&](const Acc& cur) { return op(cur, v); });
  }
  __device__ void merge(storage* dst, unsigned* l, const storage& part) const { add(dst, l, part); }
  __device__ void first(storage* dst, const Acc& v) const { *dst = v; }
  ALGO_HD static Acc result(const storage& s) { return s; }
};

template <class Op, class Acc>
struct combiner<combine_kind::cas, Op, Acc> {
  using storage = Acc;
  static constexpr bool has_identity = false;
  accumulate_with<Op, Acc> op;
  ALGO_HD static Acc identity() { return Acc{}; }
  __device__ void add(storage* dst, unsigned*, const Acc& v) const {
    atomic_update(dst, [&](const Acc& cur) { return op(cur, v); });
  }
  __device__ void merge(storage* dst, unsigned* l, const storage& part) const { add(dst, l, part); }
  __device__ void first(storage* dst, const Acc& v) const { store_coherent(dst, v); }
  ALGO_HD static Acc result(const storage& s) { return s; }
};

template <class Op, class Acc>
struct combiner<combine_kind::locked, Op, Acc> {
  using storage = Acc;
  static constexpr bool has_identity = false;
  accumulate_with<Op, Acc> op;
  ALGO_HD static Acc identity() { return Acc{}; }
  __device__ void add(storage* dst, unsigned* lock, const Acc& v) const {
    warp_serialized([&] {
      const spin_lock l{lock};
      l.lock();
      store_coherent(dst, op(load_coherent(dst), v));
      l.unlock();
    });
  }
  __device__ void merge(storage* dst, unsigned* l, const storage& part) const { add(dst, l, part); }
  __device__ void first(storage* dst, const Acc& v) const { store_coherent(dst, v); }
  ALGO_HD static Acc result(const storage& s) { return s; }
};

/// Exact float / double sums: integer atomics on the limbs (order-independent), rounded once.
template <class Op, class Acc>
struct combiner<combine_kind::exact, Op, Acc> {
  using storage = group::exact_sum<Acc>;
  static constexpr bool has_identity = true;
  accumulate_with<Op, Acc> op;
  ALGO_HD static storage identity() {
    storage s;
    for (int k = 0; k < storage::limbs; ++k) s.limb[k] = 0;
    s.special = 0;
    return s;
  }
  __device__ void add(storage* dst, unsigned*, const Acc& v) const {
    const group::exact_parts p = group::exact_split(v);
    if (p.special) atomicOr(&dst->special, p.special);
    if (p.first < 0) return;
#pragma unroll
    for (int j = 0; j < 3; ++j)
      if (p.delta[j] != 0 && p.first + j < storage::limbs)
        atomicAdd(reinterpret_cast<unsigned long long*>(&dst->limb[p.first + j]),
                  static_cast<unsigned long long>(p.delta[j]));
  }
  __device__ void merge(storage* dst, unsigned*, const storage& part) const {
    if (part.special) atomicOr(&dst->special, part.special);
    for (int k = 0; k < storage::limbs; ++k)
      if (part.limb[k] != 0)
        atomicAdd(reinterpret_cast<unsigned long long*>(&dst->limb[k]), static_cast<unsigned long long>(part.limb[k]));
  }
  __device__ void first(storage* dst, const Acc& v) const { add(dst, nullptr, v); }
  ALGO_HD static Acc result(const storage& s) { return group::exact_result(s); }
};

}  // namespace algo::detail::cuda::hash
