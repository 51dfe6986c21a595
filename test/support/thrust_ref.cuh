// The thrust::device references of the device batteries (device_checks.cuh: check_scans,
// check_reduces; test/device/test_cuda_{scan,reduce}_checks.cuh: the strategy checks), declared
// here and compiled once, in thrust_ref.cu (library algo_test_thrust_ref, linked into every device
// test): each test unit that runs a battery used to compile the same Thrust (CUB) kernels again,
// about a third of test_cub_scan's compile time. Each function is the thrust call its comment names,
// on raw device pointers; thrust_ref.cu instantiates them for the value types of spec<T>
// (device_checks.cuh): a battery on another type fails to link until it is added there.
#pragma once

#include <cstdint>

namespace algo_test::thrust_ref {

// ---- scans ------------------------------------------------------------------------------------
/// thrust::inclusive_scan(thrust::device, in, in + n, out)
template <class T, class Out>
void inclusive_scan(const T* in, std::int64_t n, Out* out);
/// thrust::inclusive_scan(thrust::device, in, in + n, out, op)
template <class T, class Out, class Op>
void inclusive_scan(const T* in, std::int64_t n, Out* out, Op op);
/// thrust::inclusive_scan(thrust::device, in, in + n, out, init, op)
template <class T, class Out, class Init, class Op>
void inclusive_scan(const T* in, std::int64_t n, Out* out, Init init, Op op);
/// thrust::exclusive_scan(thrust::device, in, in + n, out, init)
template <class T, class Out, class Init>
void exclusive_scan(const T* in, std::int64_t n, Out* out, Init init);
/// thrust::exclusive_scan(thrust::device, in, in + n, out, init, op)
template <class T, class Out, class Init, class Op>
void exclusive_scan(const T* in, std::int64_t n, Out* out, Init init, Op op);

// ---- reductions -------------------------------------------------------------------------------
/// thrust::reduce(thrust::device, in, in + n)
template <class T>
T reduce(const T* in, std::int64_t n);
/// thrust::reduce(thrust::device, in, in + n, init)
template <class T, class Init>
Init reduce(const T* in, std::int64_t n, Init init);
/// thrust::reduce(thrust::device, in, in + n, init, op)
template <class T, class Init, class Op>
Init reduce(const T* in, std::int64_t n, Init init, Op op);
/// thrust::transform_reduce(thrust::device, in, in + n, unary, init, binary)
template <class T, class Unary, class Init, class Binary>
Init transform_reduce(const T* in, std::int64_t n, Unary unary, Init init, Binary binary);
/// thrust::inner_product(thrust::device, a, a + n, b, init)
template <class T, class Init>
Init inner_product(const T* a, std::int64_t n, const T* b, Init init);
/// thrust::inner_product(thrust::device, a, a + n, b, init, op1, op2)
template <class T, class Init, class Op1, class Op2>
Init inner_product(const T* a, std::int64_t n, const T* b, Init init, Op1 op1, Op2 op2);

}  // namespace algo_test::thrust_ref
