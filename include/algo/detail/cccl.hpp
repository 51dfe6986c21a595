// Which CCCL (Thrust, CUB, libcu++) is on the include path, for the few places where algo's headers
// differ between releases. Included only where Thrust or libcu++ is there (alias.hpp).
//
//   ALGO_CCCL_VERSION             CCCL_VERSION (MMMmmmppp: 3000001 is 3.0.1, 3005000 is 3.5.0) from
//                                 <cuda/version>, which every CCCL 3.x has; 0 without CCCL
//   ALGO_CCCL_HAS_CUDA_ITERATORS  <cuda/iterator>: cuda::constant_iterator, cuda::counting_iterator,
//                                 cuda::discard_iterator, ... (CCCL 3.1 on; 3.0.1, CUDA 13.0's, has none)
//   ALGO_SUPPRESS_DEPRECATED_PUSH / _POP
//                                 around a declaration that names one of Thrust's deprecated types on
//                                 purpose (thrust::constant_iterator is deprecated in CCCL 3.5, "Use
//                                 cuda::constant_iterator instead"), so that users' builds, warnings as
//                                 errors included, stay quiet: the host compiler's -Wdeprecated-declarations
//                                 and nvcc's front end (#1444-D) both.
#pragma once

#include "config.hpp"

#if ALGO_HAS_CCCL && defined(__has_include)
#  if __has_include(<cuda/version>)
#    include <cuda/version>
#  endif
#endif

#if defined(CCCL_VERSION)
#  define ALGO_CCCL_VERSION CCCL_VERSION
#else
#  define ALGO_CCCL_VERSION 0
#endif

#if ALGO_CCCL_VERSION >= 3001000
#  define ALGO_CCCL_HAS_CUDA_ITERATORS 1
#else
#  define ALGO_CCCL_HAS_CUDA_ITERATORS 0
#endif

#if defined(__NVCC__)
#  define ALGO_NV_DIAG_SUPPRESS_DEPRECATED_PUSH _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1444")
#  define ALGO_NV_DIAG_SUPPRESS_DEPRECATED_POP _Pragma("nv_diagnostic pop")
#else
#  define ALGO_NV_DIAG_SUPPRESS_DEPRECATED_PUSH
#  define ALGO_NV_DIAG_SUPPRESS_DEPRECATED_POP
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define ALGO_SUPPRESS_DEPRECATED_PUSH                                                              \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"") \
        ALGO_NV_DIAG_SUPPRESS_DEPRECATED_PUSH
#  define ALGO_SUPPRESS_DEPRECATED_POP ALGO_NV_DIAG_SUPPRESS_DEPRECATED_POP _Pragma("GCC diagnostic pop")
#elif defined(_MSC_VER)
#  define ALGO_SUPPRESS_DEPRECATED_PUSH \
    __pragma(warning(push)) __pragma(warning(disable : 4996)) ALGO_NV_DIAG_SUPPRESS_DEPRECATED_PUSH
#  define ALGO_SUPPRESS_DEPRECATED_POP ALGO_NV_DIAG_SUPPRESS_DEPRECATED_POP __pragma(warning(pop))
#else
#  define ALGO_SUPPRESS_DEPRECATED_PUSH ALGO_NV_DIAG_SUPPRESS_DEPRECATED_PUSH
#  define ALGO_SUPPRESS_DEPRECATED_POP ALGO_NV_DIAG_SUPPRESS_DEPRECATED_POP
#endif
