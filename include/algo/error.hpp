// algo::error (bad input, raised before anything is launched or written) and algo::cuda_error.
#pragma once

#include <stdexcept>
#include <string>

#include "detail/config.hpp"

#if ALGO_HAS_CUDA
#  include <cuda_runtime_api.h>
#endif

namespace algo {

/// Every error algo raises derives from this. The message starts with "algo::<algorithm>: ".
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

#if ALGO_HAS_CUDA
/// A CUDA runtime call failed; what() names the algorithm, the call and CUDA's error string.
class cuda_error : public error {
 public:
  /// The error `code` that `call` returned inside algo::`algorithm`.
  cuda_error(const std::string& algorithm, const std::string& call, cudaError_t code)
      : error("algo::" + algorithm + ": " + call + " failed: " + cudaGetErrorName(code) + " (" +
              cudaGetErrorString(code) + ")"),
        code_(code) {}
  /// The CUDA error code.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};
#endif

namespace detail {

[[noreturn]] inline void fail(const char* algorithm, const std::string& problem) {
  throw error(std::string("algo::") + algorithm + ": " + problem);
}

#if ALGO_HAS_CUDA
inline void check_cuda(cudaError_t code, const char* algorithm, const char* call) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-less error state so later calls start clean
    throw cuda_error(algorithm, call, code);
  }
}
#endif

}  // namespace detail
}  // namespace algo
