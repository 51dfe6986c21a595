// Where device temporaries come from. Steady-state calls do no cudaMalloc / cudaFree: blocks are
// cached per device and handed out again once the stream that last used them is past that use.
//
// Every resource here is safe to use from any number of host threads at once, and inside CUDA
// graph capture: while the calling stream is being captured, temporaries come from
// cudaMallocAsync / cudaFreeAsync on that stream, which the capture turns into graph memory nodes
// (the graph owns them; a replay never shares them with calls outside the graph).
#pragma once

#include "detail/config.hpp"

#if ALGO_HAS_CUDA
#  include <cuda_runtime_api.h>

#  include <cstddef>
#  include <cstdint>
#  include <map>
#  include <memory>
#  include <mutex>
#  include <thread>
#  include <unordered_map>
#  include <vector>

#  include "error.hpp"

#  if defined(LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE) && __has_include(<cuda/memory_resource>)
#    include <cuda/memory_resource>
#    include <cuda/stream_ref>
#  endif

namespace algo {

/// Interface a policy's temporaries are drawn from (`algo::cuda.with(resource)`).
/// deallocate() may be called while work on `stream` still uses the block: the resource must not
/// hand it to another stream before that work is done. Both may be called while `stream` is being
/// captured into a CUDA graph; the block must then stay valid for every replay of the graph (a
/// stream-ordered allocation, cudaMallocAsync, does that: it becomes a graph memory node).
class device_memory_resource {
 public:
  virtual ~device_memory_resource() = default;
  /// At least `bytes` of device memory for work on `stream`.
  virtual void* allocate(std::size_t bytes, cudaStream_t stream) = 0;
  /// Gives back `p` (from allocate(), with the same `bytes`), which work on `stream` may still use.
  virtual void deallocate(void* p, std::size_t bytes, cudaStream_t stream) = 0;
};

namespace detail {
/// Whether `stream` is being captured (an invalidated capture counts too).
inline bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &status), "memory_resource", "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
}
/// Streams whose handle names a different stream on each host thread: cudaStreamPerThread, and the
/// null stream in a translation unit built with --default-stream per-thread.
inline bool per_thread_stream(cudaStream_t stream) {
#  if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  if (stream == nullptr) return true;
#  endif
  return stream == cudaStreamPerThread;
}
}  // namespace detail

/// Byte counts a caching resource keeps (all since construction or the last release()).
struct memory_resource_stats {
  std::size_t bytes_held = 0;        ///< device memory the cache owns now (in use + cached)
  std::size_t bytes_in_use = 0;      ///< handed out and not given back
  std::size_t peak_bytes_held = 0;   ///< the most bytes_held reached
  std::size_t peak_bytes_requested = 0;  ///< the most bytes callers held at once (their own sizes)
  std::size_t mallocs = 0;           ///< cudaMalloc calls
};

/// A caching resource for one device: sizes are rounded up to powers of two (at least 256 bytes);
/// a freed block records an event on its stream, and is reused at once by the same stream (on the
/// same host thread, for per-thread default streams) or by any stream once that event has
/// completed. A request takes a cached block of its own size class or, failing that, of up to
/// four times that size, so the cache does not grow a block per size class under mixed sizes.
/// Thread-safe. Memory goes back to CUDA in release(); a cudaMalloc that fails with
/// cudaErrorMemoryAllocation releases the idle cache and tries once more.
class caching_device_resource final : public device_memory_resource {
 public:
  /// A cache for device `device` (what device() returns); blocks are allocated by cudaMalloc on
  /// the device current at the call.
  explicit caching_device_resource(int device) : device_(device) {}
  caching_device_resource(const caching_device_resource&) = delete;
  caching_device_resource& operator=(const caching_device_resource&) = delete;
  ~caching_device_resource() override { release_noexcept(); }

  /// A block of the size class of `bytes`: a cached block that `stream` may take, else a new one
  /// (cudaMalloc). While `stream` is being captured: cudaMallocAsync on it (a graph memory node).
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    if (detail::capturing(stream)) return allocate_in_graph(bytes, stream);
    const std::size_t size = bin_size(bytes);
    const bool per_thread = detail::per_thread_stream(stream);
    const std::thread::id me = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      bool queried = false;
      for (auto bin = free_.lower_bound(size); bin != free_.end() && bin->first <= 4 * size; ++bin) {
        auto& blocks = bin->second;
        for (auto it = blocks.begin(); it != blocks.end(); ++it) {
          const bool same_stream = it->stream == stream && (!per_thread || it->thread == me);
          bool ready = same_stream;
          if (!ready) {
            queried = true;
            ready = cudaEventQuery(it->ready) == cudaSuccess;
          }
          if (ready) {
            void* p = it->ptr;
            spare_events_.push_back(it->ready);
            blocks.erase(it);
            if (queried) (void)cudaGetLastError();  // cudaErrorNotReady from a query is no error
            note_use(p, bytes);
            return p;
          }
        }
      }
      if (queried) (void)cudaGetLastError();
    }
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {  // give the idle cache back and try once more
      (void)cudaGetLastError();
      trim();
      e = cudaMalloc(&p, size);
    }
    detail::check_cuda(e, "memory_resource", "cudaMalloc");
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_[p] = size;
    stats_.bytes_held += size;
    stats_.mallocs += 1;
    if (stats_.bytes_held > stats_.peak_bytes_held) stats_.peak_bytes_held = stats_.bytes_held;
    note_use(p, bytes);
    return p;
  }

  /// Throws only for a block this resource did not hand out. A block whose stream cannot take the
  /// free (an invalidated capture, a lost context) is dropped from the cache (its memory goes back
  /// to CUDA where CUDA still can), so a caller unwinding from such a failure is not stopped here.
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
    if (!p) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto g = in_graph_.find(p);
    if (g != in_graph_.end()) {  // a graph memory node: freed by the graph, in stream order
      in_graph_.erase(g);
      if (cudaFreeAsync(p, stream) != cudaSuccess) (void)cudaGetLastError();  // the capture failed: its graph is gone
      return;
    }
    auto u = requested_.find(p);
    if (u != requested_.end()) {
      requested_bytes_ -= u->second;
      requested_.erase(u);
    }
    (void)bytes;
    const std::size_t size = sizes_.at(p);
    stats_.bytes_in_use -= size;
    cudaEvent_t ev = nullptr;
    if (!spare_events_.empty()) {
      ev = spare_events_.back();
      spare_events_.pop_back();
    } else if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) {
      ev = nullptr;
    }
    if (ev == nullptr || cudaEventRecord(ev, stream) != cudaSuccess) {
      // the block's last use cannot be tracked: it leaves the cache (cudaFree waits for the device)
      (void)cudaGetLastError();
      if (ev) spare_events_.push_back(ev);
      if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
      sizes_.erase(p);
      stats_.bytes_held -= size;
      return;
    }
    free_[size].push_back(block{p, stream, std::this_thread::get_id(), ev});
  }

  /// Frees every cached block (waits for their last uses). Blocks in use stay theirs.
  void release() { release_noexcept(); }
  /// The device given at construction.
  int device() const { return device_; }
  /// The byte counts now.
  memory_resource_stats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  /// Starts the peaks over from the current values.
  void reset_peaks() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_bytes_held = stats_.bytes_held;
    stats_.peak_bytes_requested = requested_bytes_;
  }

 private:
  struct block {
    void* ptr;
    cudaStream_t stream;
    std::thread::id thread;
    cudaEvent_t ready;
  };
  static std::size_t bin_size(std::size_t bytes) {
    std::size_t s = 256;
    while (s < bytes) s <<= 1;
    return s;
  }
  void* allocate_in_graph(std::size_t bytes, cudaStream_t stream) {
    void* p = nullptr;
    detail::check_cuda(cudaMallocAsync(&p, bytes, stream), "memory_resource", "cudaMallocAsync (graph capture)");
    std::lock_guard<std::mutex> lock(mutex_);
    in_graph_.emplace(p, bytes);
    return p;
  }
  void note_use(void* p, std::size_t bytes) {  // under mutex_
    stats_.bytes_in_use += sizes_.at(p);
    requested_[p] = bytes;
    requested_bytes_ += bytes;
    if (requested_bytes_ > stats_.peak_bytes_requested) stats_.peak_bytes_requested = requested_bytes_;
  }
  void trim() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, bin] : free_)
      for (auto& b : bin) {
        cudaEventSynchronize(b.ready);
        cudaFree(b.ptr);
        sizes_.erase(b.ptr);
        stats_.bytes_held -= size;
        spare_events_.push_back(b.ready);
      }
    free_.clear();
  }
  void release_noexcept() noexcept {
    try {
      trim();
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto e : spare_events_) cudaEventDestroy(e);
      spare_events_.clear();
      stats_.peak_bytes_held = stats_.bytes_held;
      stats_.peak_bytes_requested = requested_bytes_;
    } catch (...) {
    }
  }

  int device_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<block>> free_;       // by size class
  std::unordered_map<void*, std::size_t> sizes_;         // every block the cache owns: its size class
  std::unordered_map<void*, std::size_t> requested_;     // blocks in use: the caller's byte count
  std::unordered_map<void*, std::size_t> in_graph_;      // blocks of graph memory nodes (capture)
  std::vector<cudaEvent_t> spare_events_;
  std::size_t requested_bytes_ = 0;
  memory_resource_stats stats_;
};

/// A stream-ordered pool on cudaMallocAsync / cudaFreeAsync: the device's memory pool (or one of
/// the caller's, `cudaMemPool_t`), with a release threshold so freed memory stays in the pool
/// instead of going back to the driver at every synchronization. Stream ordering makes reuse across
/// streams safe without events; inside graph capture the same calls become graph memory nodes.
class async_pool_resource final : public device_memory_resource {
 public:
  /// The current device's default pool; `release_threshold` bytes stay reserved after a
  /// synchronization (the default: keep everything, as the caching resource does).
  explicit async_pool_resource(std::uint64_t release_threshold = UINT64_MAX) {
    int device = 0;
    detail::check_cuda(cudaGetDevice(&device), "memory_resource", "cudaGetDevice");
    detail::check_cuda(cudaDeviceGetDefaultMemPool(&pool_, device), "memory_resource", "cudaDeviceGetDefaultMemPool");
    set_release_threshold(release_threshold);
  }
  /// A pool of the caller's (created with cudaMemPoolCreate, or RMM's, ...); not destroyed here.
  explicit async_pool_resource(cudaMemPool_t pool) : pool_(pool) {}

  /// Bytes the pool keeps reserved after a synchronization (cudaMemPoolAttrReleaseThreshold).
  void set_release_threshold(std::uint64_t bytes) {
    detail::check_cuda(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &bytes), "memory_resource",
                       "cudaMemPoolSetAttribute");
  }
  /// The pool the memory comes from.
  cudaMemPool_t pool() const { return pool_; }

  /// cudaMallocFromPoolAsync from the pool, on `stream`.
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    void* p = nullptr;
    detail::check_cuda(cudaMallocFromPoolAsync(&p, bytes, pool_, stream), "memory_resource", "cudaMallocFromPoolAsync");
    return p;
  }
  /// cudaFreeAsync on `stream` (nothing for a null pointer).
  void deallocate(void* p, std::size_t, cudaStream_t stream) override {
    if (p) detail::check_cuda(cudaFreeAsync(p, stream), "memory_resource", "cudaFreeAsync");
  }

 private:
  cudaMemPool_t pool_ = nullptr;
};

#  if defined(LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE) && __has_include(<cuda/memory_resource>)
/// Any CCCL memory resource (libcu++'s `cuda::mr`, as RMM's resources are) as a resource of the
/// device policies: `algo::cccl_resource r{ref}; algo::cuda.with(r)`. `Ref` is
/// `cuda::mr::async_resource_ref<cuda::mr::device_accessible>` by default (or any type with
/// allocate_async / deallocate_async taking a cuda::stream_ref). Non-owning, as the ref is.
/// Available where the translation unit defines LIBCUDACXX_ENABLE_EXPERIMENTAL_MEMORY_RESOURCE
/// (CCCL 3.0 still marks <cuda/memory_resource> experimental) before including algo.
template <class Ref = ::cuda::mr::async_resource_ref<::cuda::mr::device_accessible>>
class cccl_resource final : public device_memory_resource {
 public:
  /// Allocates through `ref` (not owned).
  explicit cccl_resource(Ref ref) : ref_(ref) {}
  /// ref.allocate_async(bytes, 256, stream): 256-byte aligned, as cudaMalloc.
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    return ref_.allocate_async(bytes, alignment, ::cuda::stream_ref(stream));
  }
  /// ref.deallocate_async on `stream` (nothing for a null pointer).
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
    if (p) ref_.deallocate_async(p, bytes, alignment, ::cuda::stream_ref(stream));
  }
  /// The resource reference.
  Ref get() const { return ref_; }

 private:
  static constexpr std::size_t alignment = 256;  // what cudaMalloc gives, and the temporaries assume
  Ref ref_;
};
/// `algo::cccl_resource r{ref}` deduces Ref from the reference.
template <class Ref>
cccl_resource(Ref) -> cccl_resource<Ref>;
#  endif

namespace detail {
/// The library's caching resource of `device` (created on first use; deliberately never destroyed,
/// so no cudaFree runs after the CUDA runtime has shut down at exit).
inline caching_device_resource& caching_resource_of(int device) {
  static std::mutex mutex;
  static auto& per_device = *new std::map<int, std::unique_ptr<caching_device_resource>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& r = per_device[device];
  if (!r) r = std::make_unique<caching_device_resource>(device);
  return *r;
}
}  // namespace detail

/// The library's caching resource for the current device: where algo::cuda and algo::cub take
/// temporaries unless the policy names another resource.
inline caching_device_resource& default_caching_resource() {
  int device = 0;
  detail::check_cuda(cudaGetDevice(&device), "memory_resource", "cudaGetDevice");
  return detail::caching_resource_of(device);
}
/// default_caching_resource(), as a device_memory_resource.
inline device_memory_resource& default_device_resource() { return default_caching_resource(); }

}  // namespace algo
#endif
