// What memory an iterator reads (or writes) at its positions, as far as the library can prove it.
// algo::par's scans use it to tell whether writing the output may change an input still to be read
// (host/par.hpp), transpose to refuse an output that overlaps its input (transpose.hpp).
//
// An iterator is described as a set of streams: contiguous arrays it touches at its own position
// only, element i at `address + i * size`. What the library knows:
//   no streams       counting and constant iterators (algo has none of its own; thrust's, and
//                    cuda::constant_iterator from CCCL 3.1 on), and thrust::discard_iterator
//                    (cuda::discard_iterator) as an output: they touch no memory of the caller's;
//   one stream       raw pointers and std::vector iterators (not vector<bool>); with Thrust,
//                    host_vector / device_vector iterators, and thrust::device_ptr under nvcc;
//   their streams    transform iterators (algo's and thrust's, input and output) and zip iterators
//                    (algo's zip_transform_iterator, thrust::zip_iterator) over such iterators, when
//                    every functor involved is stateless (std::is_empty) and the values it is given
//                    are not pointers;
//   nothing          every other iterator: permutation and reverse iterators, transforms with a
//                    stateful functor (it may hold a pointer to the output), any type the library
//                    does not know. Such an iterator is taken to possibly touch any memory.
// The assumption behind "stateless": a functor without data members computes from the values it
// is given, not from memory it reaches through their addresses or through globals.
//
// Thrust's iterators are recognized when Thrust is there: always under nvcc, and in a plain C++
// translation unit that included a Thrust header before algo's (otherwise they are unknown, which
// costs algo::par some speed, never correctness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <type_traits>
#include <vector>

#include "cccl.hpp"
#include "config.hpp"
#include "iterator.hpp"

#if ALGO_HAS_CUDA || defined(THRUST_VERSION)
#  define ALGO_ALIAS_THRUST 1
#  include <thrust/iterator/constant_iterator.h>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/detail/normal_iterator.h>
#  include <thrust/iterator/discard_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#  include <thrust/iterator/transform_output_iterator.h>
#  include <thrust/iterator/zip_iterator.h>
#  include <thrust/tuple.h>
#  if ALGO_CCCL_HAS_CUDA_ITERATORS
#    include <cuda/iterator>
#  endif
#  if ALGO_HAS_CUDA
#    include <thrust/device_ptr.h>
#  endif
#else
#  define ALGO_ALIAS_THRUST 0
#endif

namespace algo::detail {

/// A contiguous array an iterator touches at its own position: element i at address + i * size.
struct access_stream {
  const void* address;
  std::size_t size;
};

/// access_traits<It>: `known` (false: It may touch any memory), `streams` (how many arrays it
/// touches, when known) and get(it, s), which writes those streams to s[0 .. streams).
template <class It, class = void>
struct access_traits {
  static constexpr bool known = false;
  static constexpr int streams = 0;
  static void get(const It&, access_stream*) {}
};

namespace alias_detail {
/// Touches no memory of the caller's.
struct no_streams {
  static constexpr bool known = true;
  static constexpr int streams = 0;
  template <class It>
  static void get(const It&, access_stream*) {}
};

/// One stream: the element `it` refers to (it must be dereferenceable).
template <class It>
struct one_stream {
  static constexpr bool known = true;
  static constexpr int streams = 1;
  static void get(const It& it, access_stream* s) {
    s[0] = access_stream{static_cast<const void*>(std::addressof(*it)), sizeof(iter_value_t<It>)};
  }
};

/// A functor applied to values of type V reads nothing else (see the assumption at the top).
template <class F, class... V>
inline constexpr bool transparent_functor_v =
    std::is_empty<F>::value && !(std::is_pointer<std::decay_t<V>>::value || ...);

/// The streams of Base, seen through a transparent functor; unknown otherwise.
template <class Base, bool Transparent>
struct through {
  static constexpr bool known = Transparent && access_traits<Base>::known;
  static constexpr int streams = known ? access_traits<Base>::streams : 0;
  static void get_base(const Base& b, access_stream* s) {
    if constexpr (known) access_traits<Base>::get(b, s);
  }
};

/// std::vector<T>::iterator / const_iterator (not vector<bool>: its elements are bits).
template <class It, class V = iter_value_t<It>>
inline constexpr bool is_std_vector_iterator_v =
    !std::is_same<V, bool>::value &&
    (std::is_same<It, typename std::vector<V>::iterator>::value ||
     std::is_same<It, typename std::vector<V>::const_iterator>::value);
template <class It, class = void>
struct is_std_vector_iterator : std::false_type {};
template <class It>
struct is_std_vector_iterator<It, std::void_t<iter_value_t<It>>>
    : std::bool_constant<!std::is_pointer<It>::value && is_std_vector_iterator_v<It>> {};
}  // namespace alias_detail

// ---- memory: pointers, vectors ------------------------------------------------------------------
template <class T>
struct access_traits<T*, std::enable_if_t<std::is_object<T>::value>> {
  static constexpr bool known = true;
  static constexpr int streams = 1;
  static void get(T* p, access_stream* s) { s[0] = access_stream{static_cast<const void*>(p), sizeof(T)}; }
};
template <class It>
struct access_traits<It, std::enable_if_t<alias_detail::is_std_vector_iterator<It>::value>>
    : alias_detail::one_stream<It> {};

// ---- algo's adaptors -------------------------------------------------------------------------------
template <class It, class F>
struct access_traits<transform_iterator<It, F>>
    : alias_detail::through<It, alias_detail::transparent_functor_v<F, iter_value_t<It>>> {
  static void get(const transform_iterator<It, F>& t, access_stream* s) { access_traits::get_base(t.base(), s); }
};

template <class It1, class It2, class F>
struct access_traits<zip_transform_iterator<It1, It2, F>> {
  using A = access_traits<It1>;
  using B = access_traits<It2>;
  static constexpr bool known =
      A::known && B::known && alias_detail::transparent_functor_v<F, iter_value_t<It1>, iter_value_t<It2>>;
  static constexpr int streams = known ? A::streams + B::streams : 0;
  static void get(const zip_transform_iterator<It1, It2, F>& z, access_stream* s) {
    if constexpr (known) {
      A::get(z.first_base(), s);
      B::get(z.second_base(), s + A::streams);
    }
  }
};

// ---- Thrust's ------------------------------------------------------------------------------------
#if ALGO_ALIAS_THRUST
template <class I, class S, class T, class D>
struct access_traits<thrust::counting_iterator<I, S, T, D>> : alias_detail::no_streams {};
// thrust::constant_iterator is deprecated in CCCL 3.5 (for cuda::constant_iterator): still
// recognized, for callers that pass it, without the deprecation warning in every user's build.
ALGO_SUPPRESS_DEPRECATED_PUSH
template <class V, class I, class S>
struct access_traits<thrust::constant_iterator<V, I, S>> : alias_detail::no_streams {};
ALGO_SUPPRESS_DEPRECATED_POP
template <class S>
struct access_traits<thrust::discard_iterator<S>> : alias_detail::no_streams {};
#  if ALGO_CCCL_HAS_CUDA_ITERATORS
// their replacements (CCCL 3.1 on)
template <class T, class I>
struct access_traits<::cuda::constant_iterator<T, I>> : alias_detail::no_streams {};
template <>
struct access_traits<::cuda::discard_iterator> : alias_detail::no_streams {};
#  endif

template <class P>
struct access_traits<thrust::detail::normal_iterator<P>> : access_traits<P> {
  static void get(const thrust::detail::normal_iterator<P>& it, access_stream* s) {
    access_traits<P>::get(it.base(), s);
  }
};
#  if ALGO_HAS_CUDA
template <class T>
struct access_traits<thrust::device_ptr<T>> {
  static constexpr bool known = true;
  static constexpr int streams = 1;
  static void get(const thrust::device_ptr<T>& p, access_stream* s) {
    s[0] = access_stream{static_cast<const void*>(p.get()), sizeof(T)};
  }
};
#  endif

template <class F, class It, class R, class V>
struct access_traits<thrust::transform_iterator<F, It, R, V>>
    : alias_detail::through<It, alias_detail::transparent_functor_v<F, iter_value_t<It>>> {
  static void get(const thrust::transform_iterator<F, It, R, V>& t, access_stream* s) {
    access_traits::get_base(t.base(), s);
  }
};
/// As an output: writes f(value) to its base (f is given the scan's values, never pointers here
/// unless the values are pointers).
template <class F, class It>
struct access_traits<thrust::transform_output_iterator<F, It>> : alias_detail::through<It, std::is_empty<F>::value> {
  static void get(const thrust::transform_output_iterator<F, It>& t, access_stream* s) {
    access_traits::get_base(t.base(), s);
  }
};

template <class... Its>
struct access_traits<thrust::zip_iterator<thrust::tuple<Its...>>> {
  static constexpr bool known = (access_traits<Its>::known && ...);
  static constexpr int streams = known ? (0 + ... + access_traits<Its>::streams) : 0;
  static void get(const thrust::zip_iterator<thrust::tuple<Its...>>& z, access_stream* s) {
    if constexpr (known) get_each(z.get_iterator_tuple(), s, std::index_sequence_for<Its...>{});
  }

 private:
  template <class Tuple, std::size_t... K>
  static void get_each(const Tuple& t, access_stream* s, std::index_sequence<K...>) {
    int at = 0;
    ((access_traits<Its>::get(thrust::get<K>(t), s + at), at += access_traits<Its>::streams), ...);
  }
};
#endif

// ---- what an output may do to an input -----------------------------------------------------------
enum class alias_kind {
  none,           // the input reads nothing that the output writes
  same_position,  // the input's element i reads, of what the output writes, only the output's element i
  other,          // anything else, or unknown
};

/// How the n_in elements read through `in` relate to the n_out elements written through `out`.
/// same_position only when n_in == n_out (an in-place scan, directly or through a transform or zip
/// over the output). Both ranges must be non-empty (their first positions dereferenceable).
template <class InIt, class OutIt>
alias_kind alias_between(const InIt& in, std::int64_t n_in, const OutIt& out, std::int64_t n_out) {
  using A = access_traits<InIt>;
  using B = access_traits<OutIt>;
  if constexpr (!A::known) {
    return alias_kind::other;
  } else if constexpr (A::streams == 0) {
    return alias_kind::none;  // reads no memory at all
  } else if constexpr (!B::known) {
    return alias_kind::other;
  } else if constexpr (B::streams == 0) {
    return alias_kind::none;  // writes no memory at all
  } else {
    access_stream a[A::streams], b[B::streams];
    A::get(in, a);
    B::get(out, b);
    alias_kind kind = alias_kind::none;
    for (const access_stream& x : a) {
      const auto x0 = reinterpret_cast<std::uintptr_t>(x.address);
      const auto x1 = x0 + static_cast<std::uintptr_t>(n_in) * x.size;
      for (const access_stream& y : b) {
        const auto y0 = reinterpret_cast<std::uintptr_t>(y.address);
        const auto y1 = y0 + static_cast<std::uintptr_t>(n_out) * y.size;
        if (x1 <= y0 || y1 <= x0) continue;  // disjoint
        if (x0 == y0 && x.size == y.size && n_in == n_out) {
          kind = alias_kind::same_position;
        } else {
          return alias_kind::other;
        }
      }
    }
    return kind;
  }
}

}  // namespace algo::detail
