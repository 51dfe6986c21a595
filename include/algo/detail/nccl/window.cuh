// Memory the ranks of a communicator write into directly: NCCL's symmetric memory windows (NCCL
// 2.28: ncclMemAlloc, the collective ncclCommWindowRegister, and the device API's
// ncclGetPeerPointer, which gives a load/store address of a peer's buffer in this GPU's address
// space). algo::nccl_buffer allocates and registers such a buffer; the window table below lets a
// collective find out whether an output it was given lies in one (transpose then writes its blocks
// straight into the peers' outputs: transpose.cuh).
//
//   allocate      ncclMemAlloc on the communicator's device (no throw yet: a failure is exchanged)
//   agree         an all-reduce (max) of the ranks' failures and of a random tag, waited for with
//                 the timeout, so a rank that is short of memory makes every rank throw the same
//                 error instead of leaving them inside the registration; the tag names this
//                 registration on every rank (a collective checks that its ranks' outputs share it)
//   register      ncclCommWindowRegister (collective); where the communicator has no symmetric
//                 memory, NCCL answers with a local registration handle instead of a window (then the
//                 buffer is plain memory and the collectives take their usual path)
//   map           one small kernel asks ncclGetPeerPointer for every peer's base address, copied to
//                 the host once; only when every rank of the communicator is in its LSA team (one
//                 NVLink domain)
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= 22800
#  define ALGO_NCCL_WINDOWS 1
// NCCL's device headers have unused parameters; a user's -Wextra build must stay quiet
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wunused-parameter"
#  include <nccl_device.h>
#  pragma GCC diagnostic pop
#else
#  define ALGO_NCCL_WINDOWS 0
#endif

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "runtime.cuh"

namespace algo::detail::nccl {

/// A registered buffer as a collective sees it: this rank's part and every rank's base address in
/// this GPU's address space (peers[q] is q's buffer as NCCL maps it here; peers[rank] is a second
/// mapping of `base`, in NCCL's flat range).
struct window_view {
  ncclComm_t comm = nullptr;
  /// The same on every rank for one collective registration, different for every other (collectives
  /// compare it before they take a peer's address from `peers`).
  std::int64_t tag = 0;
  const unsigned char* base = nullptr;
  std::size_t bytes = 0;
  std::vector<unsigned char*> peers;
};

/// Every registered buffer of the process, by communicator and address (the threads of one process
/// register theirs side by side).
class window_table {
 public:
  static window_table& get() {
    static window_table* t = new window_table;  // never destroyed: no CUDA calls at exit
    return *t;
  }
  void add(window_view v) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto key = std::make_pair(v.comm, v.base);
    table_[key] = std::move(v);
  }
  void remove(ncclComm_t comm, const void* base) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      table_.erase(std::make_pair(comm, static_cast<const unsigned char*>(base)));
    } catch (...) {
    }
  }
  /// The window of `comm` that holds [p, p + bytes) whole, with the offset of p in it; false when
  /// there is none.
  bool find(ncclComm_t comm, const void* p, std::size_t bytes, window_view& out, std::size_t& offset) const {
    const auto* b = static_cast<const unsigned char*>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.upper_bound(std::make_pair(comm, b));
    if (it == table_.begin()) return false;
    --it;
    const window_view& w = it->second;
    if (w.comm != comm || b < w.base || b > w.base + w.bytes || bytes > static_cast<std::size_t>(w.base + w.bytes - b))
      return false;
    out = w;
    offset = static_cast<std::size_t>(b - w.base);
    return true;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<ncclComm_t, const unsigned char*>, window_view> table_;
};

#if ALGO_NCCL_WINDOWS
template <int = 0>
__global__ void peer_bases_kernel(ncclWindow_t w, int nranks, unsigned char** out) {
  for (int q = static_cast<int>(threadIdx.x); q < nranks; q += static_cast<int>(blockDim.x))
    out[q] = static_cast<unsigned char*>(ncclGetPeerPointer(w, 0, q));
}
#endif

/// Whether `p` is device memory (cudaPointerGetAttributes; false for host memory and on any error).
inline bool is_device_memory(const void* p) {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

/// A positive 63-bit number from the system's entropy and the clock (the registration's tag).
inline std::int64_t random_tag() {
  std::uint64_t x = 0;
  try {
    std::random_device rd;
    x = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  } catch (...) {
  }
  x ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ull;
  const std::int64_t t = static_cast<std::int64_t>(x >> 1);
  return t == 0 ? 1 : t;
}

/// The state behind one algo::nccl_buffer: allocated, agreed on and registered in the constructor,
/// deregistered and freed (never throwing) in the destructor.
class window_buffer {
 public:
  window_buffer() = default;
  window_buffer(ncclComm_t comm, std::size_t bytes, std::chrono::milliseconds timeout) : comm_(comm) {
    const char* name = "nccl_buffer";
    if (comm == nullptr) fail(name, "the communicator is null");
    int nranks = 0, rank = 0;
    check_nccl(ncclCommCuDevice(comm, &device_), name, "ncclCommCuDevice", comm);
    check_nccl(ncclCommCount(comm, &nranks), name, "ncclCommCount", comm);
    check_nccl(ncclCommUserRank(comm, &rank), name, "ncclCommUserRank", comm);
    device_guard g(device_);
    // the registration wants whole pages; NCCL's allocation is rounded up further (its granularity)
    constexpr std::size_t page = 4096;
    bytes_ = bytes;
    const std::size_t reserved = (bytes == 0 ? page : (bytes + page - 1) / page * page);

    // ---- allocate (a failure is told to the others below) ----
    bool alloc_failed = false;
    const char* alloc_call = ALGO_NCCL_WINDOWS ? "ncclMemAlloc" : "cudaMalloc";
#if ALGO_NCCL_WINDOWS
    if (ncclMemAlloc(reinterpret_cast<void**>(&p_), reserved) != ncclSuccess || p_ == nullptr) {
      p_ = nullptr;
      alloc_failed = true;
    }
#else
    if (cudaMalloc(reinterpret_cast<void**>(&p_), reserved) != cudaSuccess) {
      (void)cudaGetLastError();
      p_ = nullptr;
      alloc_failed = true;
    }
#endif
    // ---- agree: the largest failure flag and the largest tag of the ranks (the others are waiting to
    // register) ----
    std::int64_t* flag = nullptr;
    cudaStream_t s = nullptr;
    cuda::pinned_host_block host;
    try {
      check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), name, "cudaStreamCreateWithFlags");
      check_cuda(cudaMalloc(reinterpret_cast<void**>(&flag), 4 * sizeof(std::int64_t)), name, "cudaMalloc");
      // [failing rank + 1, tag, bytes, -bytes]: after the max, [the last failing rank + 1, one tag, the
      // largest and minus the smallest size]
      auto* h = static_cast<std::int64_t*>(host.at_least(name, 4 * sizeof(std::int64_t), cudaHostAllocDefault));
      h[0] = alloc_failed ? rank + 1 : 0;
      h[1] = random_tag();
      h[2] = static_cast<std::int64_t>(bytes);
      h[3] = -static_cast<std::int64_t>(bytes);
      check_cuda(cudaMemcpyAsync(flag, h, 4 * sizeof(std::int64_t), cudaMemcpyHostToDevice, s), name, "cudaMemcpyAsync");
      if (nranks > 1) check_nccl(ncclAllReduce(flag, flag, 4, ncclInt64, ncclMax, comm, s), name, "ncclAllReduce", comm);
      check_cuda(cudaMemcpyAsync(h, flag, 4 * sizeof(std::int64_t), cudaMemcpyDeviceToHost, s), name, "cudaMemcpyAsync");
      wait_for_stream(name, comm, s, effective_timeout(timeout), "the other ranks' allocations");
      // the same text on every rank
      if (h[2] != -h[3])
        fail(name, "the ranks asked for buffers of different sizes (" + std::to_string(-h[3]) + " to " +
                       std::to_string(h[2]) + " bytes); every rank must construct it with the same count");
      if (h[0] != 0)
        fail(name, "rank " + std::to_string(h[0] - 1) + " of " + std::to_string(nranks) + " could not allocate " +
                       std::to_string(reserved) + " bytes (" + alloc_call + "); nothing was registered on any rank");
      tag_ = h[1];
    } catch (...) {
      if (flag) cudaFree(flag);
      if (s) cudaStreamDestroy(s);
      release_memory();
      throw;
    }
    cudaFree(flag);
    cudaStreamDestroy(s);
    (void)cudaGetLastError();

#if ALGO_NCCL_WINDOWS
    // ---- register (collective; no window where NCCL has no symmetric memory for this communicator) ----
    ncclWindow_t win = nullptr;
    try {
      check_nccl(ncclCommWindowRegister(comm, p_, reserved, &win, NCCL_WIN_COLL_SYMMETRIC), name,
                 "ncclCommWindowRegister", comm);
    } catch (...) {
      release_memory();
      throw;
    }
    win_ = win;
    // ---- map: every peer's address, when all of them are in this rank's NVLink domain ----
    // Without symmetric memory for the communicator (one rank, peers without direct P2P, more than one
    // node, NCCL_WIN_ENABLE=0 or NCCL_CUMEM_ENABLE=0), NCCL 2.28 answers with a local registration
    // handle in host memory instead of the window's device structure: only a handle in device memory
    // is a window the device API can read.
    if (win_ != nullptr && nranks > 1 && ncclTeamLsa(comm).nRanks == nranks && is_device_memory(win_)) {
      unsigned char** d = nullptr;
      std::vector<unsigned char*> peers(static_cast<std::size_t>(nranks), nullptr);
      try {
        check_cuda(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(void*) * static_cast<std::size_t>(nranks)), name,
                   "cudaMalloc");
        peer_bases_kernel<><<<1, 32>>>(win_, nranks, d);
        check_cuda(cudaGetLastError(), name, "peer_bases_kernel");
        check_cuda(cudaMemcpy(peers.data(), d, sizeof(void*) * static_cast<std::size_t>(nranks),
                              cudaMemcpyDeviceToHost),
                   name, "cudaMemcpy");
        cudaFree(d);
        d = nullptr;
      } catch (...) {
        if (d) cudaFree(d);
        release_memory();
        throw;
      }
      bool all = true;  // (peers[rank] is this buffer's second mapping, in NCCL's flat address range)
      for (auto* q : peers) all = all && q != nullptr;
      if (all) {
        window_table::get().add(window_view{comm, tag_, p_, reserved, std::move(peers)});
        direct_ = true;
      }
    }
#endif
  }
  window_buffer(const window_buffer&) = delete;
  window_buffer& operator=(const window_buffer&) = delete;
  window_buffer(window_buffer&& o) noexcept { swap(o); }
  window_buffer& operator=(window_buffer&& o) noexcept {
    if (this != &o) {
      window_buffer gone(std::move(*this));
      swap(o);
    }
    return *this;
  }
  ~window_buffer() { release_memory(); }

  unsigned char* data() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  bool direct() const { return direct_; }
  std::int64_t tag() const { return tag_; }
  ncclComm_t comm() const { return comm_; }

 private:
  void swap(window_buffer& o) noexcept {
    std::swap(comm_, o.comm_);
    std::swap(device_, o.device_);
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    std::swap(direct_, o.direct_);
    std::swap(tag_, o.tag_);
#if ALGO_NCCL_WINDOWS
    std::swap(win_, o.win_);
#endif
  }
  /// Never throws: the table entry, the window (a local step in NCCL 2.28), then the memory.
  void release_memory() noexcept {
    if (p_ == nullptr) return;
    int prev = -1;
    const bool switched = cudaGetDevice(&prev) == cudaSuccess && prev != device_ && cudaSetDevice(device_) == cudaSuccess;
    if (direct_) window_table::get().remove(comm_, p_);
#if ALGO_NCCL_WINDOWS
    if (win_ != nullptr) (void)ncclCommWindowDeregister(comm_, win_);
    win_ = nullptr;
    (void)ncclMemFree(p_);
#else
    (void)cudaFree(p_);
#endif
    p_ = nullptr;
    direct_ = false;
    if (switched) (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
  }

  ncclComm_t comm_ = nullptr;
  int device_ = 0;
  unsigned char* p_ = nullptr;
  std::size_t bytes_ = 0;
  bool direct_ = false;
  std::int64_t tag_ = 0;
#if ALGO_NCCL_WINDOWS
  ncclWindow_t win_ = nullptr;
#endif
};

}  // namespace algo::detail::nccl
