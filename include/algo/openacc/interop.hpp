// algo from OpenACC programs: the device policies algo::cuda and algo::cub called from a plain C++
// translation unit (g++ -fopenacc) on device memory, on the CUDA stream of an OpenACC async queue.
//
// An OpenACC program keeps its arrays on the GPU with data directives; `host_data use_device(x)`
// gives it their device addresses, and `acc_get_cuda_stream(q)` the stream its `async(q)` constructs
// run on. Calls through this header queue algo's kernels on that stream: ordered with the directive
// loops before and after them, and no host synchronization in between.
//
//   // app.cpp, g++ -fopenacc -foffload=nvptx-none
//   #include <algo/openacc/interop.hpp>
//   #pragma acc data copyin(x[0:n]) create(y[0:n])
//   {
//     #pragma acc parallel loop async(1) present(x[0:n])       ... writes x
//     #pragma acc host_data use_device(x, y)
//     algo::interop::inclusive_scan(algo::interop::cuda.on_queue(1), x, x + n, y);
//     #pragma acc parallel loop async(1) present(y[0:n])       ... reads y
//     #pragma acc wait(1)
//   }
//
//   // algo_entry.cu, nvcc (once per program): the definitions, and the instantiations
//   #include <algo/openacc/interop.cuh>
//
// The functions are templates declared here and defined in interop.cuh: that translation unit
// instantiates the sums for int, unsigned, long long, unsigned long long, float and double (scans,
// reduce, reduce_into) and transpose for those and 8/16-bit integers; your own types and operators
// are one macro there (ALGO_INTEROP_INSTANTIATE_OP(T, Op)). An operator used from both sides is
// declared in a header both see, its operator() marked ALGO_HD (__host__ __device__ under nvcc).
// The program links with g++ -fopenacc -foffload=nvptx-none and the CUDA runtime (libcudart).
//
// All pointers are device addresses. Scans, reduce_into and transpose are asynchronous on the
// stream; reduce returns the value to the host (it waits for the stream). Bad input raises
// algo::error, CUDA failures algo::cuda_error, exactly as the policies do (they run the call).
#pragma once

#include <cstdint>

#include "../detail/config.hpp"
#include "../functional.hpp"

#if defined(_OPENACC)
#  include <openacc.h>
#endif

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace algo::interop {

/// The algo policy that runs a call: `cuda` (algo::cuda, the in-house kernels) or `cub` (algo::cub,
/// the CUB / cuBLAS baseline).
enum class backend { cuda, cub };

/// Which device policy runs a call (algo::cuda or algo::cub), and on which CUDA stream.
struct device_policy {
  backend which = backend::cuda;  ///< algo::cuda or algo::cub
  CUstream_st* stream = nullptr;  ///< the CUDA stream (a cudaStream_t; nullptr: the null stream)

  /// On a CUDA stream (a cudaStream_t).
  constexpr device_policy on(CUstream_st* s) const { return device_policy{which, s}; }
#if defined(_OPENACC)
  /// On the CUDA stream of OpenACC async queue q (acc_get_cuda_stream(q)); a queue that has not
  /// been used yet is created first (by an empty construct on it). On OpenACC's host fallback
  /// there is no stream, and no device memory either: nothing here can run then.
  device_policy on_queue(int q = acc_async_noval) const {
    void* s = acc_get_cuda_stream(q);
    if (s == nullptr) {
#  pragma acc parallel async(q) num_gangs(1)
      {
      }
      s = acc_get_cuda_stream(q);
    }
    return device_policy{which, static_cast<CUstream_st*>(s)};
  }
#endif
};

/// algo::cuda on the null stream; `.on(stream)`, `.on_queue(q)` pick another.
inline constexpr device_policy cuda{backend::cuda, nullptr};
/// algo::cub on the null stream; `.on(stream)`, `.on_queue(q)` pick another.
inline constexpr device_policy cub{backend::cub, nullptr};

// ---- scans (asynchronous) --------------------------------------------------------------------------
/// d_first[i] = first[0] op ... op first[i] (op = algo::plus<T> when not given).
template <class T, class Op = plus<T>>
void inclusive_scan(device_policy p, const T* first, const T* last, T* d_first, Op op = {});
/// d_first[0] = init, d_first[i] = init op first[0] op ... op first[i-1].
template <class T, class Op = plus<T>>
void exclusive_scan(device_policy p, const T* first, const T* last, T* d_first, T init, Op op = {});

// ---- reductions ------------------------------------------------------------------------------------
/// *d_out = init op first[0] op ... (d_out: device memory), asynchronous.
template <class T, class Op = plus<T>>
void reduce_into(device_policy p, const T* first, const T* last, T* d_out, T init, Op op = {});
/// init op first[0] op ..., returned to the host (waits for the stream).
template <class T, class Op = plus<T>>
T reduce(device_policy p, const T* first, const T* last, T init, Op op = {});

// ---- transpose (asynchronous) ----------------------------------------------------------------------
/// Row-major rows x cols in, cols x rows out (algo::cub: cuBLAS geam for float and double).
template <class T>
void transpose(device_policy p, const T* in, std::int64_t rows, std::int64_t cols, T* out);

// The instantiations interop.cuh provides (so a call with them compiles to a reference to that
// translation unit's code, never to a definition here).
/// \cond ALGO_INTEROP_INSTANTIATIONS
#define ALGO_INTEROP_DECLARE_OP(T, Op)                                                                   \
  extern template void inclusive_scan<T, Op>(device_policy, const T*, const T*, T*, Op);                  \
  extern template void exclusive_scan<T, Op>(device_policy, const T*, const T*, T*, T, Op);               \
  extern template void reduce_into<T, Op>(device_policy, const T*, const T*, T*, T, Op);                  \
  extern template T reduce<T, Op>(device_policy, const T*, const T*, T, Op);
#define ALGO_INTEROP_DECLARE(T) \
  ALGO_INTEROP_DECLARE_OP(T, plus<T>) extern template void transpose<T>(device_policy, const T*, std::int64_t, std::int64_t, T*);
ALGO_INTEROP_DECLARE(int)
ALGO_INTEROP_DECLARE(unsigned)
ALGO_INTEROP_DECLARE(long long)
ALGO_INTEROP_DECLARE(unsigned long long)
ALGO_INTEROP_DECLARE(float)
ALGO_INTEROP_DECLARE(double)
extern template void transpose<signed char>(device_policy, const signed char*, std::int64_t, std::int64_t, signed char*);
extern template void transpose<unsigned char>(device_policy, const unsigned char*, std::int64_t, std::int64_t, unsigned char*);
extern template void transpose<short>(device_policy, const short*, std::int64_t, std::int64_t, short*);
extern template void transpose<unsigned short>(device_policy, const unsigned short*, std::int64_t, std::int64_t, unsigned short*);
#undef ALGO_INTEROP_DECLARE
/// \endcond

}  // namespace algo::interop
