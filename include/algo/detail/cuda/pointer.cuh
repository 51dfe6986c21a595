// Device-policy input checks: null pointers, and raw pointers the GPU cannot reach (pageable host
// memory on a device without cudaDevAttrPageableMemoryAccess), found before anything is launched.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include <thrust/device_ptr.h>
#include <thrust/iterator/detail/normal_iterator.h>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "runtime.cuh"

namespace algo::detail {

// ---- contiguous storage behind an iterator, when there is one ------------------------------
template <class It>
std::nullptr_t raw_address(const It&) { return nullptr; }  // fancy iterators: nothing to check
template <class T>
T* raw_address(T* p) { return p; }
template <class T>
T* raw_address(const thrust::device_ptr<T>& p) { return p.get(); }
template <class P>
auto raw_address(const thrust::detail::normal_iterator<P>& it) -> decltype(raw_address(it.base())) {
  return raw_address(it.base());
}

/// Throws unless `p` (n elements) is memory the current device can read and write.
inline void check_device_reachable(const char* algorithm, const char* what, const void* p, std::int64_t n) {
  if (n <= 0) return;
  if (p == nullptr) fail(algorithm, std::string(what) + " is a null pointer with " + std::to_string(n) + " elements");
  // a GPU that reads pageable host memory reaches every pointer: no driver query (it costs about a
  // microsecond a pointer, a visible part of a small call's ~10 us)
  if (cuda::current_device_info().pageable_access) return;
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw cuda_error(algorithm, "cudaPointerGetAttributes", e);
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    fail(algorithm, std::string(what) +
                        " is pageable host memory, which this GPU cannot access (copy it to the device, "
                        "or pin it with cudaHostRegister / cudaMallocHost)");
}

template <class Policy, class It, std::enable_if_t<is_device_policy<Policy>::value, int> = 0>
void check_iterator(const char* algorithm, const char* what, const Policy&, const It& it, std::int64_t n) {
  auto p = raw_address(it);
  if constexpr (!std::is_same<decltype(p), std::nullptr_t>::value) check_device_reachable(algorithm, what, p, n);
}

}  // namespace algo::detail
