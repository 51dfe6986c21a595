// Where device temporaries come from. Steady-state calls do no cudaMalloc / cudaFree: blocks are
// cached per device and handed out again once the stream that last used them is past that use.
#pragma once

#include "detail/config.hpp"

#if ALGO_HAS_CUDA
#  include <cuda_runtime_api.h>

#  include <cstddef>
#  include <map>
#  include <memory>
#  include <mutex>
#  include <vector>

#  include "error.hpp"

namespace algo {

/// Interface a policy's temporaries are drawn from (`algo::cuda.with(resource)`).
/// deallocate() may be called while work on `stream` still uses the block: the resource must not
/// hand it to another stream before that work is done.
class device_memory_resource {
 public:
  virtual ~device_memory_resource() = default;
  virtual void* allocate(std::size_t bytes, cudaStream_t stream) = 0;
  virtual void deallocate(void* p, std::size_t bytes, cudaStream_t stream) = 0;
};

/// A caching resource for one device: sizes are rounded up to powers of two (at least 256 bytes);
/// a freed block records an event on its stream, and is reused at once by the same stream or by any
/// stream once that event has completed. Thread-safe. Memory goes back to CUDA in release().
class caching_device_resource final : public device_memory_resource {
 public:
  explicit caching_device_resource(int device) : device_(device) {}
  caching_device_resource(const caching_device_resource&) = delete;
  caching_device_resource& operator=(const caching_device_resource&) = delete;
  ~caching_device_resource() override { release_noexcept(); }

  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    const std::size_t size = bin_size(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& bin = free_[size];
      for (auto it = bin.begin(); it != bin.end(); ++it) {
        if (it->stream == stream || cudaEventQuery(it->ready) == cudaSuccess) {
          void* p = it->ptr;
          events_.push_back(it->ready);
          bin.erase(it);
          return p;
        }
      }
    }
    (void)cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady is not an error for anyone else
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {  // give the cache back and try once more
      (void)cudaGetLastError();
      trim();
      e = cudaMalloc(&p, size);
    }
    detail::check_cuda(e, "memory_resource", "cudaMalloc");
    return p;
  }

  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
    if (!p) return;
    std::lock_guard<std::mutex> lock(mutex_);
    cudaEvent_t ev;
    if (!events_.empty()) {
      ev = events_.back();
      events_.pop_back();
    } else {
      detail::check_cuda(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "memory_resource", "cudaEventCreate");
    }
    detail::check_cuda(cudaEventRecord(ev, stream), "memory_resource", "cudaEventRecord");
    free_[bin_size(bytes)].push_back(block{p, stream, ev});
  }

  /// Frees every cached block (waits for their last uses).
  void release() { release_noexcept(); }
  int device() const { return device_; }

 private:
  struct block {
    void* ptr;
    cudaStream_t stream;
    cudaEvent_t ready;
  };
  static std::size_t bin_size(std::size_t bytes) {
    std::size_t s = 256;
    while (s < bytes) s <<= 1;
    return s;
  }
  void trim() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, bin] : free_)
      for (auto& b : bin) {
        cudaEventSynchronize(b.ready);
        cudaFree(b.ptr);
        events_.push_back(b.ready);
      }
    free_.clear();
  }
  void release_noexcept() noexcept {
    try {
      trim();
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto e : events_) cudaEventDestroy(e);
      events_.clear();
    } catch (...) {
    }
  }

  int device_;
  std::mutex mutex_;
  std::map<std::size_t, std::vector<block>> free_;
  std::vector<cudaEvent_t> events_;  // spare events, recycled
};

/// The library's caching resource for the current device (created on first use; deliberately never
/// destroyed, so no cudaFree runs after the CUDA runtime has shut down at exit).
inline device_memory_resource& default_device_resource() {
  static std::mutex mutex;
  static auto& per_device = *new std::map<int, std::unique_ptr<caching_device_resource>>();
  int device = 0;
  detail::check_cuda(cudaGetDevice(&device), "memory_resource", "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  auto& r = per_device[device];
  if (!r) r = std::make_unique<caching_device_resource>(device);
  return *r;
}

}  // namespace algo
#endif
