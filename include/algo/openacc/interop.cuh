// The definitions of <algo/openacc/interop.hpp>, for ONE CUDA translation unit of the program
// (compiled by nvcc, e.g. `algo_entry.cu` holding just this include):
//
//   #include <algo/openacc/interop.cuh>                 // the standard instantiations
//   #include "my_ops.hpp"                                // struct affine, struct then { ALGO_HD ... }
//   ALGO_INTEROP_INSTANTIATE_OP(affine, then)            // scans and reductions of affine maps
//   ALGO_INTEROP_INSTANTIATE_TRANSPOSE(my_pixel)         // transpose of another trivially copyable type
//
// Define ALGO_INTEROP_NO_STANDARD_INSTANTIATIONS before the include to instantiate only what you
// name (nvcc time: each type's scans cost seconds of compilation).
#pragma once

#if !defined(__CUDACC__)
#  error "<algo/openacc/interop.cuh> is compiled by nvcc (one translation unit of the program)"
#endif

#include <cstdint>

#include "../algo.hpp"
#include "interop.hpp"

namespace algo::interop {
namespace detail {
/// Calls f with the algo policy p names, on p's stream.
template <class F>
void run(device_policy p, F&& f) {
  const cudaStream_t s = p.stream;
  if (p.which == backend::cub) f(algo::cub.on(s));
  else f(algo::cuda.on(s));
}
}  // namespace detail

template <class T, class Op>
void inclusive_scan(device_policy p, const T* first, const T* last, T* d_first, Op op) {
  detail::run(p, [&](const auto& policy) { algo::inclusive_scan(policy, first, last, d_first, op); });
}
template <class T, class Op>
void exclusive_scan(device_policy p, const T* first, const T* last, T* d_first, T init, Op op) {
  detail::run(p, [&](const auto& policy) { algo::exclusive_scan(policy, first, last, d_first, init, op); });
}
template <class T, class Op>
void reduce_into(device_policy p, const T* first, const T* last, T* d_out, T init, Op op) {
  detail::run(p, [&](const auto& policy) { algo::reduce_into(policy, first, last, d_out, init, op); });
}
template <class T, class Op>
T reduce(device_policy p, const T* first, const T* last, T init, Op op) {
  T r = init;
  detail::run(p, [&](const auto& policy) { r = algo::reduce(policy, first, last, init, op); });
  return r;
}
template <class T>
void transpose(device_policy p, const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  detail::run(p, [&](const auto& policy) { algo::transpose(policy, in, rows, cols, out); });
}

}  // namespace algo::interop

/// Scans, reduce and reduce_into of T under Op (at global scope, in the interop.cuh translation unit).
#define ALGO_INTEROP_INSTANTIATE_OP(T, Op)                                                                         \
  template void algo::interop::inclusive_scan<T, Op>(algo::interop::device_policy, const T*, const T*, T*, Op);     \
  template void algo::interop::exclusive_scan<T, Op>(algo::interop::device_policy, const T*, const T*, T*, T, Op);  \
  template void algo::interop::reduce_into<T, Op>(algo::interop::device_policy, const T*, const T*, T*, T, Op);     \
  template T algo::interop::reduce<T, Op>(algo::interop::device_policy, const T*, const T*, T, Op);
/// transpose of T.
#define ALGO_INTEROP_INSTANTIATE_TRANSPOSE(T) \
  template void algo::interop::transpose<T>(algo::interop::device_policy, const T*, std::int64_t, std::int64_t, T*);

/// \cond ALGO_INTEROP_INSTANTIATIONS
#if !defined(ALGO_INTEROP_NO_STANDARD_INSTANTIATIONS)
#  define ALGO_INTEROP_STANDARD(T) ALGO_INTEROP_INSTANTIATE_OP(T, algo::plus<T>) ALGO_INTEROP_INSTANTIATE_TRANSPOSE(T)
ALGO_INTEROP_STANDARD(int)
ALGO_INTEROP_STANDARD(unsigned)
ALGO_INTEROP_STANDARD(long long)
ALGO_INTEROP_STANDARD(unsigned long long)
ALGO_INTEROP_STANDARD(float)
ALGO_INTEROP_STANDARD(double)
ALGO_INTEROP_INSTANTIATE_TRANSPOSE(signed char)
ALGO_INTEROP_INSTANTIATE_TRANSPOSE(unsigned char)
ALGO_INTEROP_INSTANTIATE_TRANSPOSE(short)
ALGO_INTEROP_INSTANTIATE_TRANSPOSE(unsigned short)
#  undef ALGO_INTEROP_STANDARD
#endif
/// \endcond
