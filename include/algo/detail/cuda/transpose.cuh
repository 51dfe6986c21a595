// algo::cuda transpose: the in-house kernels (transpose/transpose_*.cuh), chosen by the policy's
// transpose_strategy type (policy.hpp), never by a run-time switch:
//
//   naive_row, naive_col, unrolled, diagonal   transpose/transpose_naive.cuh
//   tiled, tiled_padded                        transpose/transpose_tiled.cuh
//   fast (the default)                         transpose/transpose_fast.cuh
//
// Raw pointers (also thrust::device_ptr and device_vector iterators) to the same trivially
// copyable type of 1, 2, 4, 8 or 16 bytes are moved as unsigned words of that size, so every type
// of one size shares the kernels; anything else (fancy iterators, converting element types, other
// sizes) runs the strategy's kernel on the iterators themselves, and `fast` falls back to
// tiled_padded there. No cuBLAS on this path.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../../policy.hpp"
#include "../transpose_shape.hpp"
#include "transpose/transpose_common.cuh"
#include "transpose/transpose_copy.cuh"
#include "transpose/transpose_fast.cuh"
#include "transpose/transpose_naive.cuh"
#include "transpose/transpose_tiled.cuh"
#include "pointer.cuh"

namespace algo::detail::cuda::transpose_kernels {

// ---- strategy -> kernel -------------------------------------------------------------------------
template <class InIt, class OutIt>
void run(transpose_strategy::naive_row_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  naive_row(st, in, out, s);
}
template <class InIt, class OutIt>
void run(transpose_strategy::naive_col_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  naive_col<1, false>(st, in, out, s);
}
template <class InIt, class OutIt>
void run(transpose_strategy::unrolled_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  naive_col<transpose_tuning::unroll, false>(st, in, out, s);
}
template <class InIt, class OutIt>
void run(transpose_strategy::diagonal_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  naive_col<1, true>(st, in, out, s);
}
template <class InIt, class OutIt>
void run(transpose_strategy::tiled_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  tiled<false>(st, in, out, s);
}
template <class InIt, class OutIt>
void run(transpose_strategy::tiled_padded_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  tiled<true>(st, in, out, s);
}
/// fast on iterators it cannot vectorize: the padded tile kernel.
template <class InIt, class OutIt>
void run(transpose_strategy::fast_t, cudaStream_t st, InIt in, OutIt out, const transpose_shape& s) {
  tiled<true>(st, in, out, s);
}

// ---- iterators -> words ---------------------------------------------------------------------------
/// The strategy on E-byte words.
template <int E, class Strategy>
void run_words(Strategy, cudaStream_t stream, const void* in, void* out, const transpose_shape& s) {
  using W = word_t<E>;
  const W* win = static_cast<const W*>(in);
  W* wout = static_cast<W*>(out);
  if constexpr (std::is_same<Strategy, transpose_strategy::fast_t>::value) fast<E>(stream, win, wout, s);
  else run(Strategy{}, stream, win, wout, s);
}

template <class Strategy, class InIt, class OutIt>
void dispatch(Strategy, cudaStream_t stream, InIt in, OutIt out, const transpose_shape& s) {
  using Src = decltype(raw_address(in));
  using Dst = decltype(raw_address(out));
  if constexpr (std::is_pointer<Src>::value && std::is_pointer<Dst>::value) {
    using T = std::remove_cv_t<std::remove_pointer_t<Src>>;
    using U = std::remove_pointer_t<Dst>;
    if constexpr (std::is_same<T, U>::value && std::is_trivially_copyable<T>::value && is_word_size_v<sizeof(T)>) {
      constexpr int E = sizeof(T);
      const void* src = raw_address(in);
      void* dst = raw_address(out);
      if constexpr (alignof(T) >= alignof(word_t<E>)) {
        run_words<E>(Strategy{}, stream, src, dst, s);
      } else {  // e.g. a 16-byte struct of floats: words only where the addresses allow
        constexpr std::uintptr_t a = alignof(word_t<E>);
        if (reinterpret_cast<std::uintptr_t>(src) % a == 0 && reinterpret_cast<std::uintptr_t>(dst) % a == 0)
          run_words<E>(Strategy{}, stream, src, dst, s);
        else
          run(Strategy{}, stream, in, out, s);
      }
      return;
    } else {
      run(Strategy{}, stream, in, out, s);
    }
  } else {
    run(Strategy{}, stream, in, out, s);
  }
}

}  // namespace algo::detail::cuda::transpose_kernels

namespace algo::detail {

template <class... S, class InIt, class OutIt>
void transpose(const cuda_policy<S...>& p, InIt in, OutIt out, const transpose_shape& s) {
  using strategy = typename cuda_policy<S...>::transpose_strategy;
  cuda::transpose_kernels::dispatch(strategy{}, p.stream, in, out, s);
}

}  // namespace algo::detail
