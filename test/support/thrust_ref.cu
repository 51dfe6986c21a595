// The thrust::device references of the device batteries, compiled once (thrust_ref.cuh says why):
// the definitions, and their instantiations for the value types the batteries run (spec<T>,
// device_checks.cuh: each type's accumulator and operator).
#include "device_checks.cuh"

#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include "thrust_ref.cuh"

namespace algo_test::thrust_ref {

template <class T, class Out>
void inclusive_scan(const T* in, std::int64_t n, Out* out) {
  thrust::inclusive_scan(thrust::device, in, in + n, out);
}
template <class T, class Out, class Op>
void inclusive_scan(const T* in, std::int64_t n, Out* out, Op op) {
  thrust::inclusive_scan(thrust::device, in, in + n, out, op);
}
template <class T, class Out, class Init, class Op>
void inclusive_scan(const T* in, std::int64_t n, Out* out, Init init, Op op) {
  thrust::inclusive_scan(thrust::device, in, in + n, out, init, op);
}
template <class T, class Out, class Init>
void exclusive_scan(const T* in, std::int64_t n, Out* out, Init init) {
  thrust::exclusive_scan(thrust::device, in, in + n, out, init);
}
template <class T, class Out, class Init, class Op>
void exclusive_scan(const T* in, std::int64_t n, Out* out, Init init, Op op) {
  thrust::exclusive_scan(thrust::device, in, in + n, out, init, op);
}

template <class T>
T reduce(const T* in, std::int64_t n) {
  return thrust::reduce(thrust::device, in, in + n);
}
template <class T, class Init>
Init reduce(const T* in, std::int64_t n, Init init) {
  return thrust::reduce(thrust::device, in, in + n, init);
}
template <class T, class Init, class Op>
Init reduce(const T* in, std::int64_t n, Init init, Op op) {
  return thrust::reduce(thrust::device, in, in + n, init, op);
}
template <class T, class Unary, class Init, class Binary>
Init transform_reduce(const T* in, std::int64_t n, Unary unary, Init init, Binary binary) {
  return thrust::transform_reduce(thrust::device, in, in + n, unary, init, binary);
}
template <class T, class Init>
Init inner_product(const T* a, std::int64_t n, const T* b, Init init) {
  return thrust::inner_product(thrust::device, a, a + n, b, init);
}
template <class T, class Init, class Op1, class Op2>
Init inner_product(const T* a, std::int64_t n, const T* b, Init init, Op1 op1, Op2 op2) {
  return thrust::inner_product(thrust::device, a, a + n, b, init, op1, op2);
}

// ---- instantiations ---------------------------------------------------------------------------
// Every type: the scans with init and the type's operator (check_scans_one; test_cuda_scan_checks.cuh
// for int32).
#define ALGO_THRUST_REF_SCANS(T)                                                                        \
  template void inclusive_scan<T, acc_t<T>, acc_t<T>, spec<T>::op>(const T*, std::int64_t, acc_t<T>*, \
                                                                   acc_t<T>, spec<T>::op);            \
  template void exclusive_scan<T, acc_t<T>, acc_t<T>, spec<T>::op>(const T*, std::int64_t, acc_t<T>*, \
                                                                   acc_t<T>, spec<T>::op);
// The accumulator is the value type: the operator without init.
#define ALGO_THRUST_REF_SCANS_SAME(T) \
  template void inclusive_scan<T, T, spec<T>::op>(const T*, std::int64_t, T*, spec<T>::op);
// Arithmetic types: plus (exclusive with init; inclusive without, when the accumulator is the value type).
#define ALGO_THRUST_REF_SCANS_PLUS(T) \
  template void exclusive_scan<T, acc_t<T>, acc_t<T>>(const T*, std::int64_t, acc_t<T>*, acc_t<T>);
#define ALGO_THRUST_REF_SCANS_PLUS_SAME(T) template void inclusive_scan<T, T>(const T*, std::int64_t, T*);
// Arithmetic types: every reduction of check_reduces_one (reduce with init also for
// test_cuda_reduce_checks.cuh).
#define ALGO_THRUST_REF_REDUCES(T)                                                                         \
  template T reduce<T>(const T*, std::int64_t);                                                            \
  template acc_t<T> reduce<T, acc_t<T>>(const T*, std::int64_t, acc_t<T>);                                 \
  template acc_t<T> reduce<T, acc_t<T>, spec<T>::op>(const T*, std::int64_t, acc_t<T>, spec<T>::op);       \
  template wide_t<T> transform_reduce<T, square_wide, wide_t<T>, algo::plus<>>(const T*, std::int64_t,     \
                                                                              square_wide, wide_t<T>,      \
                                                                              algo::plus<>);               \
  template wide_t<T> inner_product<T, wide_t<T>>(const T*, std::int64_t, const T*, wide_t<T>);            \
  template wide_t<T> inner_product<T, wide_t<T>, spec<T>::op, diff_wide>(const T*, std::int64_t, const T*, \
                                                                         wide_t<T>, spec<T>::op, diff_wide);

ALGO_THRUST_REF_SCANS(std::int32_t)
ALGO_THRUST_REF_SCANS_SAME(std::int32_t)
ALGO_THRUST_REF_SCANS_PLUS(std::int32_t)
ALGO_THRUST_REF_SCANS_PLUS_SAME(std::int32_t)
ALGO_THRUST_REF_REDUCES(std::int32_t)

ALGO_THRUST_REF_SCANS(std::uint8_t)  // int64 accumulator
ALGO_THRUST_REF_SCANS_PLUS(std::uint8_t)
ALGO_THRUST_REF_REDUCES(std::uint8_t)

ALGO_THRUST_REF_SCANS(float)
ALGO_THRUST_REF_SCANS_SAME(float)
ALGO_THRUST_REF_SCANS_PLUS(float)
ALGO_THRUST_REF_SCANS_PLUS_SAME(float)
ALGO_THRUST_REF_REDUCES(float)

ALGO_THRUST_REF_SCANS(double)
ALGO_THRUST_REF_SCANS_SAME(double)
ALGO_THRUST_REF_SCANS_PLUS(double)
ALGO_THRUST_REF_SCANS_PLUS_SAME(double)
ALGO_THRUST_REF_REDUCES(double)

ALGO_THRUST_REF_SCANS(affine)
ALGO_THRUST_REF_SCANS_SAME(affine)
ALGO_THRUST_REF_SCANS(affine_i)
ALGO_THRUST_REF_SCANS_SAME(affine_i)
ALGO_THRUST_REF_SCANS(big32)
ALGO_THRUST_REF_SCANS_SAME(big32)

}  // namespace algo_test::thrust_ref
