// Run-time plumbing shared by the device backends (cub and cuda): temporaries from the policy's
// resource, the pinned buffer results come back through, device properties, launch checks.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "../../error.hpp"
#include "../../memory_resource.hpp"
#include "../../policy.hpp"

namespace algo::detail::cuda {

inline device_memory_resource& resource_of(const device_policy_base& p) {
  return p.resource ? *p.resource : default_device_resource();
}

/// Device temporary storage for one call; returned to the resource (stream-ordered) on scope exit.
class temporary_buffer {
 public:
  temporary_buffer(const device_policy_base& p, std::size_t bytes)
      : resource_(&resource_of(p)), stream_(p.stream), bytes_(bytes) {
    if (bytes_) ptr_ = resource_->allocate(bytes_, stream_);
  }
  temporary_buffer(const temporary_buffer&) = delete;
  temporary_buffer& operator=(const temporary_buffer&) = delete;
  /// Never throws (it runs while exceptions unwind, too): a resource whose deallocate fails (a
  /// capture that was invalidated, a lost context) keeps the block; the failure is dropped.
  ~temporary_buffer() {
    if (!ptr_) return;
    try {
      resource_->deallocate(ptr_, bytes_, stream_);
    } catch (...) {
      (void)cudaGetLastError();
    }
  }
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t size() const { return bytes_; }

 private:
  device_memory_resource* resource_;
  cudaStream_t stream_;
  std::size_t bytes_;
  void* ptr_ = nullptr;
};

/// Pinned host memory of at least `bytes` (256 at the least), zeroed when (re)allocated; kept for
/// the life of its owner, which is one thread_local per use (copy staging, mapped result slot).
class pinned_host_block {
 public:
  pinned_host_block() = default;
  pinned_host_block(const pinned_host_block&) = delete;
  pinned_host_block& operator=(const pinned_host_block&) = delete;
  ~pinned_host_block() {
    if (p_) cudaFreeHost(p_);
  }
  /// `flags` as for cudaHostAlloc.
  void* at_least(const char* algorithm, std::size_t bytes, unsigned flags) {
    if (bytes_ < bytes) {
      if (p_) cudaFreeHost(p_);
      p_ = nullptr;
      bytes_ = 0;
      const std::size_t want = bytes < 256 ? 256 : bytes;
      check_cuda(cudaHostAlloc(&p_, want, flags), algorithm, "cudaHostAlloc");
      std::memset(p_, 0, want);
      bytes_ = want;
    }
    return p_;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Copies a T from device memory to the host through a pinned staging buffer (one per thread),
/// synchronizing only `stream`.
template <class T>
T copy_to_host(const char* algorithm, const T* d_value, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable<T>::value, "results must be trivially copyable");
  thread_local pinned_host_block staging_block;
  void* const staging = staging_block.at_least(algorithm, sizeof(T), cudaHostAllocDefault);
  check_cuda(cudaMemcpyAsync(staging, d_value, sizeof(T), cudaMemcpyDeviceToHost, stream), algorithm,
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream), algorithm, "cudaStreamSynchronize");
  T out;
  std::memcpy(static_cast<void*>(&out), staging, sizeof(T));
  return out;
}

/// *out = v, on the device (a launch carries v by value: safe to capture into a graph).
template <class OutIt, class T>
__global__ void write_value_kernel(OutIt out, T v) {
  *out = v;
}

/// Raises algo::cuda_error when the last launch failed to start.
inline void check_launch(const char* algorithm, const char* kernel) {
  check_cuda(cudaGetLastError(), algorithm, kernel);
}

/// Properties of the current device that tuning reads (cached per device).
struct device_info {
  int device = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::size_t shared_per_block_optin = 0;
  std::size_t l2_bytes = 0;
  bool pageable_access = false;
  bool writes_host_memory = false;  // kernels can write cudaHostAlloc'ed (mapped) memory at its host address
};

/// The current device's properties. Each device's entry is filled once (under a lock) and never
/// moves afterwards, so the reference stays valid while other threads add other devices.
inline const device_info& current_device_info() {
  constexpr int max_devices = 128;
  static std::mutex mutex;
  static device_info cache[max_devices];
  static std::atomic<bool> ready[max_devices];
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "device_info", "cudaGetDevice");
  if (dev < 0 || dev >= max_devices) fail("device_info", "device ordinal " + std::to_string(dev) + " out of range");
  if (ready[dev].load(std::memory_order_acquire)) return cache[dev];
  std::lock_guard<std::mutex> lock(mutex);
  device_info& d = cache[dev];
  if (!ready[dev].load(std::memory_order_relaxed)) {
    int v = 0;
    d.device = dev;
    check_cuda(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, dev), "device_info", "cudaDeviceGetAttribute");
    check_cuda(cudaDeviceGetAttribute(&d.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev), "device_info",
               "cudaDeviceGetAttribute");
    check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "device_info", "cudaDeviceGetAttribute");
    d.shared_per_block_optin = static_cast<std::size_t>(v);
    check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, dev), "device_info", "cudaDeviceGetAttribute");
    d.l2_bytes = static_cast<std::size_t>(v);
    check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev), "device_info", "cudaDeviceGetAttribute");
    d.pageable_access = v != 0;
    int map = 0, uva = 0;
    check_cuda(cudaDeviceGetAttribute(&map, cudaDevAttrCanMapHostMemory, dev), "device_info", "cudaDeviceGetAttribute");
    check_cuda(cudaDeviceGetAttribute(&uva, cudaDevAttrUnifiedAddressing, dev), "device_info", "cudaDeviceGetAttribute");
    d.writes_host_memory = map != 0 && uva != 0;
    ready[dev].store(true, std::memory_order_release);
  }
  return d;
}

/// Whether `stream` is being captured into a CUDA graph (an invalidated capture counts: work
/// queued on it is not run either). Legal to ask during any capture mode.
inline bool stream_is_capturing(cudaStream_t stream, const char* algorithm) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &status), algorithm, "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
}

/// A reduce that returns its value to the host must wait for the GPU: under stream capture that
/// wait cannot happen (the work only runs when the graph is launched). Refused before anything is
/// queued, so the capture stays intact.
inline void refuse_host_result_under_capture(const char* algorithm, cudaStream_t stream) {
  if (stream_is_capturing(stream, algorithm))
    fail(algorithm,
         "returns its result to the host, which needs a synchronization and cannot be captured into a CUDA "
         "graph; inside a capture use algo::reduce_into / algo::transform_reduce_into (the result is written "
         "to device memory on the stream)");
}

/// Records, on `stream`, an event of this thread's for the current device (timing off), created on
/// first use and kept for the thread's life, and returns it: for a mark a call waits on before it
/// returns (segmented_reduce's "work queued ahead of the kernel", the offsets check's copy), which
/// cost an event created and destroyed a call before. A thread's calls follow one another, so the
/// next record comes only after the wait on this one. An event the runtime no longer knows (a
/// cudaDeviceReset in between) is created again.
inline cudaEvent_t record_thread_event(const char* algorithm, cudaStream_t stream) {
  struct cache {
    cudaEvent_t ev[64] = {};
    cache() = default;
    cache(const cache&) = delete;
    cache& operator=(const cache&) = delete;
    ~cache() {
      for (cudaEvent_t e : ev)
        if (e) (void)cudaEventDestroy(e);  // at thread exit: errors (a runtime already unloaded) ignored
    }
  };
  thread_local cache c;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), algorithm, "cudaGetDevice");
  if (dev < 0 || dev >= 64) fail(algorithm, "device ordinal " + std::to_string(dev) + " out of range");
  cudaEvent_t& e = c.ev[dev];
  for (int attempt = 0;; ++attempt) {
    if (!e) check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), algorithm, "cudaEventCreate");
    const cudaError_t r = cudaEventRecord(e, stream);
    if (r == cudaSuccess) return e;
    if (r != cudaErrorInvalidResourceHandle || attempt > 0) check_cuda(r, algorithm, "cudaEventRecord");
    (void)cudaGetLastError();
    e = nullptr;  // gone with a reset context: a new one
  }
}

/// A result slot of at least `bytes` in pinned, device-mapped host memory, one per thread, for
/// kernels to write a result straight to the host (no device-to-host copy after them: one stream
/// operation and its latency fewer). nullptr when the current device cannot write host memory at
/// its host address (no unified addressing or no host mapping); callers then copy.
/// The caller must synchronize before the thread's next use of the slot.
inline void* mapped_result_slot(const char* algorithm, std::size_t bytes) {
  if (!current_device_info().writes_host_memory) return nullptr;
  thread_local pinned_host_block slot;  // zeroed when allocated: flags start at 0, which no call waits for
  return slot.at_least(algorithm, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
}

}  // namespace algo::detail::cuda
