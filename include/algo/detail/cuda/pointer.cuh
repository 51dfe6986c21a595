// Device-policy input checks: null pointers, and raw pointers the GPU cannot reach (pageable host
// memory on a device without cudaDevAttrPageableMemoryAccess), found before anything is launched.
#pragma once

#include <cuda.h>  // CUpointer_attribute, CUdeviceptr (types only: nothing links libcuda)
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

// ---- the driver's pointer query, without linking libcuda ---------------------------------------
/// cuPointerGetAttributes (CUresult (unsigned, CUpointer_attribute*, void**, CUdeviceptr)), found
/// once through the runtime; nullptr where the runtime cannot give it. One attribute through the
/// driver costs less than cudaPointerGetAttributes, which asks for every attribute and maps the
/// answer to the runtime's types (it is paid twice per call: input and output).
using driver_pointer_query_fn = CUresult (*)(unsigned int, CUpointer_attribute*, void**, CUdeviceptr);
inline driver_pointer_query_fn driver_pointer_query() {
  static const driver_pointer_query_fn fn = []() -> driver_pointer_query_fn {
#if CUDART_VERSION >= 12000
    void* f = nullptr;
    cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &f, 12000, cudaEnableDefault, &status);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuPointerGetAttributes", &f, cudaEnableDefault, &status);
#endif
    if (e == cudaSuccess && status == cudaDriverEntryPointSuccess && f) return reinterpret_cast<driver_pointer_query_fn>(f);
    (void)cudaGetLastError();
#endif
    return nullptr;
  }();
  return fn;
}

/// True when the driver knows `p` as CUDA memory (device, pinned host, managed: any memory type
/// but "none"). False says nothing either way (unknown pointer, no driver entry point, an error):
/// the caller then asks the runtime, which decides as before. So this never accepts a pointer the
/// runtime's query would reject: both read the same driver record of the address.
inline bool driver_knows_pointer(const void* p) {
  const driver_pointer_query_fn query = driver_pointer_query();
  if (!query) return false;
  unsigned type = 0;  // CUmemorytype; 0: not a CUDA allocation
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void* data = &type;
  return query(1, &attribute, &data, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS && type != 0;
}

/// The CUDA allocation holding `p` (its start and size in bytes, from the driver's pointer range
/// attributes): false when the driver does not say (not CUDA memory, no driver entry point, an
/// error), and then nothing is known of it.
inline bool allocation_range(const void* p, std::uintptr_t& start, std::size_t& bytes) {
  const driver_pointer_query_fn query = driver_pointer_query();
  if (!query || !p) return false;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  CUpointer_attribute attributes[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* data[2] = {&base, &size};
  if (query(2, attributes, data, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS || base == 0 || size == 0) {
    (void)cudaGetLastError();
    return false;
  }
  start = static_cast<std::uintptr_t>(base);
  bytes = size;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= start && a - start < bytes;
}

/// Throws unless `p` (n elements) is memory the current device can read and write.
inline void check_device_reachable(const char* algorithm, const char* what, const void* p, std::int64_t n) {
  if (n <= 0) return;
  if (p == nullptr) fail(algorithm, std::string(what) + " is a null pointer with " + std::to_string(n) + " elements");
  // a GPU that reads pageable host memory reaches every pointer: no driver query (it costs about a
  // microsecond a pointer, a visible part of a small call's ~10 us)
  if (cuda::current_device_info().pageable_access) return;
  // CUDA memory by the driver's one-attribute query; anything else (host memory, errors) is
  // decided by the runtime's query below, as it always was
  if (driver_knows_pointer(p)) return;
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
