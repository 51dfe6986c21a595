// Compiler/toolkit detection shared by every algo header.
#pragma once

#include <cstddef>
#include <cstdint>

// ALGO_HAS_CUDA: the translation unit is compiled by nvcc (or clang in CUDA mode), so the
// device policies (algo::cuda, algo::cub) and everything under detail/cuda and detail/cub exist.
#if defined(__CUDACC__)
#  define ALGO_HAS_CUDA 1
#  define ALGO_HD __host__ __device__
#  define ALGO_DEVICE __device__
#else
#  define ALGO_HAS_CUDA 0
#  define ALGO_HD
#  define ALGO_DEVICE
#endif

#if defined(__CUDA_ARCH__)
#  define ALGO_DEVICE_PASS 1
#else
#  define ALGO_DEVICE_PASS 0
#endif

// ALGO_GLOBAL_CONSTANT: a policy object usable in host and device code (algo::seq, algo::this_block):
// a __device__ constexpr variable in nvcc's device pass (device code may not refer to an ordinary
// namespace-scope object of class type), an inline constexpr one elsewhere (as CCCL's thrust::seq).
#if defined(__CUDA_ARCH__)
#  define ALGO_GLOBAL_CONSTANT __device__ constexpr
#else
#  define ALGO_GLOBAL_CONSTANT inline constexpr
#endif

// ALGO_HAS_OPENACC: the translation unit is compiled with OpenACC (-fopenacc: _OPENACC), so the
// directive-based policy algo::acc and everything under detail/acc exist (policy.hpp, <algo/acc.hpp>).
#if defined(_OPENACC) && !defined(__CUDACC__)
#  define ALGO_HAS_OPENACC 1
#else
#  define ALGO_HAS_OPENACC 0
#endif

// ALGO_EXEC_CHECK_DISABLE, on the line before a __host__ __device__ function template that calls
// user code (iterator adaptors, operator wrappers): nvcc then checks only the instantiations that
// are really used on the device, so host policies over host-only iterators (std::vector's) and
// host-only functors build without warnings #20011 / #20014 / #20013.
#if defined(__CUDACC__) && !defined(__clang__)
#  define ALGO_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#  define ALGO_EXEC_CHECK_DISABLE
#endif

// ALGO_HAS_CCCL: libcu++ (<cuda/std/...>, part of the CUDA toolkit's CCCL) is on the include path:
// always under nvcc, and in a plain C++ translation unit whose include path has the toolkit's CCCL
// directory. algo then recognizes libcu++'s (and Thrust's) function objects (functional.hpp).
// Nothing needs CCCL: without it, or with ALGO_NO_CCCL defined, those headers are left alone.
#if ALGO_HAS_CUDA
#  define ALGO_HAS_CCCL 1
#elif !defined(ALGO_NO_CCCL) && defined(__has_include)
#  if __has_include(<cuda/std/functional>)
#    define ALGO_HAS_CCCL 1
#  endif
#endif
#if !defined(ALGO_HAS_CCCL)
#  define ALGO_HAS_CCCL 0
#endif
