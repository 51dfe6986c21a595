// Thread layer: how one thread reads a contiguous chunk of `Items` elements from an input iterator.
//
//   load_traits<It>        what the iterator yields, and whether a chunk can be read as 16-byte vectors
//   load_chunk<Items>      a full chunk: LDG.128 vectors when the iterator is vectorizable (a pointer
//                          to a fundamental type, or our transform / zip adaptors over such pointers),
//                          element by element otherwise (any fancy iterator)
//   load_chunk_guarded     a chunk that may stick out of [0, n): only the elements inside are read
//   vector_misalignment    host side: elements between the start and the 16-byte boundary below it
//
// A warp whose lanes read consecutive 16-byte chunks reads 512 contiguous bytes per instruction, so
// "contiguous per thread" (what order-preserving reductions and scans need) and "coalesced across the
// warp" coincide when a chunk is exactly one vector. Callers keep the vector path aligned: the chunk
// start must sit on a 16-byte boundary (see vector_misalignment).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../iterator.hpp"

namespace algo::detail::cuda {

/// Fundamental types that a 16-byte vector carries a whole number of.
template <class T>
inline constexpr bool is_vector_element_v =
    std::is_arithmetic<T>::value && sizeof(T) <= 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T);

// ---- load_traits: what an iterator yields, and how it can be read ----------------------------
/// Any iterator: element-wise reads through operator[].
template <class It>
struct load_traits {
  using value_type = iter_value_t<It>;
  static constexpr bool vectorizable = false;
  static constexpr int vector_items = 1;  // elements per 16-byte vector
  /// Host: the address a vector path would read from (nullptr: none).
  static const void* address(const It&) { return nullptr; }
  /// Host: true when every underlying pointer has the same misalignment (trivially, for one pointer).
  static bool aligned_alike(const It&) { return true; }
};

template <class T>
struct load_traits<T*> {
  using value_type = std::remove_cv_t<T>;
  static constexpr bool vectorizable = is_vector_element_v<value_type>;
  static constexpr int vector_items = vectorizable ? static_cast<int>(16 / sizeof(value_type)) : 1;
  static const void* address(T* p) { return p; }
  static bool aligned_alike(T*) { return true; }
};

/// transform_iterator over a vectorizable iterator: load vectors, then apply the functor.
template <class It, class F>
struct load_traits<transform_iterator<It, F>> {
  using value_type = iter_value_t<transform_iterator<It, F>>;
  static constexpr bool vectorizable = load_traits<It>::vectorizable;
  static constexpr int vector_items = load_traits<It>::vector_items;
  static const void* address(const transform_iterator<It, F>& it) { return load_traits<It>::address(it.base()); }
  static bool aligned_alike(const transform_iterator<It, F>& it) { return load_traits<It>::aligned_alike(it.base()); }
};

/// zip_transform_iterator over two vectorizable iterators of the same vector width: vectorized only
/// when both sit at the same offset from a 16-byte boundary (checked at run time by aligned_alike).
template <class It1, class It2, class F>
struct load_traits<zip_transform_iterator<It1, It2, F>> {
  using Z = zip_transform_iterator<It1, It2, F>;
  using value_type = iter_value_t<Z>;
  static constexpr bool vectorizable = load_traits<It1>::vectorizable && load_traits<It2>::vectorizable &&
                                       load_traits<It1>::vector_items == load_traits<It2>::vector_items;
  static constexpr int vector_items = vectorizable ? load_traits<It1>::vector_items : 1;
  static const void* address(const Z& z) { return load_traits<It1>::address(z.first_base()); }
  static bool aligned_alike(const Z& z) {
    const auto a = reinterpret_cast<std::uintptr_t>(load_traits<It1>::address(z.first_base()));
    const auto b = reinterpret_cast<std::uintptr_t>(load_traits<It2>::address(z.second_base()));
    return a % 16 == b % 16 && load_traits<It1>::aligned_alike(z.first_base()) &&
           load_traits<It2>::aligned_alike(z.second_base());
  }
};

/// Host: how many elements lie between the 16-byte boundary at or below the iterator's address and
/// the address itself (0 when there is no vector path). Reading from (start - misalignment) in
/// 16-byte steps keeps every vector aligned.
template <class It>
int vector_misalignment(const It& it) {
  using tr = load_traits<It>;
  if constexpr (!tr::vectorizable) {
    return 0;
  } else {
    const auto a = reinterpret_cast<std::uintptr_t>(tr::address(it));
    constexpr std::uintptr_t elem = 16 / tr::vector_items;
    return static_cast<int>((a % 16) / elem);
  }
}

// ---- device side ------------------------------------------------------------------------------
namespace load_detail {

/// Items elements from an aligned pointer, as Items / vector_items 16-byte loads (LDG.E.128).
template <int Items, class T>
__device__ __forceinline__ void load_vectors(const T* p, std::remove_cv_t<T> (&v)[Items]) {
  using U = std::remove_cv_t<T>;
  constexpr int per = static_cast<int>(16 / sizeof(U));
  static_assert(Items % per == 0, "a vectorized chunk is a whole number of 16-byte vectors");
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 w[Items / per];
#pragma unroll
  for (int k = 0; k < Items / per; ++k) w[k] = __ldg(q + k);  // all loads issued before any use
#pragma unroll
  for (int k = 0; k < Items / per; ++k) memcpy(&v[k * per], &w[k], 16);
}

template <int Items, class T>
__device__ __forceinline__ void load_full(T* p, std::remove_cv_t<T> (&v)[Items]) {
  load_vectors<Items>(p, v);
}

template <int Items, class It, class F>
__device__ __forceinline__ void load_full(const transform_iterator<It, F>& it,
                                          iter_value_t<transform_iterator<It, F>> (&v)[Items]) {
  iter_value_t<It> raw[Items];
  load_full<Items>(it.base(), raw);
#pragma unroll
  for (int j = 0; j < Items; ++j) v[j] = it.functor()(raw[j]);
}

template <int Items, class It1, class It2, class F>
__device__ __forceinline__ void load_full(const zip_transform_iterator<It1, It2, F>& it,
                                          iter_value_t<zip_transform_iterator<It1, It2, F>> (&v)[Items]) {
  iter_value_t<It1> a[Items];
  iter_value_t<It2> b[Items];
  load_full<Items>(it.first_base(), a);
  load_full<Items>(it.second_base(), b);
#pragma unroll
  for (int j = 0; j < Items; ++j) v[j] = it.functor()(a[j], b[j]);
}

}  // namespace load_detail

/// Reads the Items elements it[0..Items). With Vector (only allowed when load_traits<It> is
/// vectorizable and Items is a multiple of its vector width), `it`'s address must be 16-byte aligned
/// and the chunk is read as 16-byte vectors; otherwise element by element.
template <int Items, bool Vector, class It>
__device__ __forceinline__ void load_chunk(const It& it, typename load_traits<It>::value_type (&v)[Items]) {
  if constexpr (Vector) {
    static_assert(load_traits<It>::vectorizable && Items % load_traits<It>::vector_items == 0,
                  "vector loads need a vectorizable iterator and whole vectors");
    load_detail::load_full<Items>(it, v);
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) v[j] = it[j];
  }
}

/// Reads the elements first[start + j] (j < Items) that lie in [0, n); the others are left alone.
/// `start` may be negative (a chunk that begins before the range, as the head of an aligned walk).
template <int Items, class It>
__device__ __forceinline__ void load_chunk_guarded(const It& first, std::int64_t start, std::int64_t n,
                                                   typename load_traits<It>::value_type (&v)[Items]) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const std::int64_t i = start + j;
    if (i >= 0 && i < n) v[j] = first[i];
  }
}

}  // namespace algo::detail::cuda
