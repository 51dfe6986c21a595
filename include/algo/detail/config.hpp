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
