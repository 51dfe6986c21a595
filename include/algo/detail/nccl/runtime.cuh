// The plumbing of <algo/nccl.hpp>: NCCL error checks, what a call knows about its communicator,
// the first exchange of every collective (each rank's record and partial, one in-place all-gather of
// 256 bytes per rank), the host's wait for it (polling, with ncclCommGetAsyncError), and the errors
// that reduce_into finds on the device and reports later.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "record.hpp"

namespace algo {

/// An NCCL call failed (also asynchronously: ncclCommGetAsyncError). what() names the algorithm,
/// the call and ncclGetErrorString; code() is the ncclResult_t, call() the NCCL function.
class nccl_error : public error {
 public:
  nccl_error(const std::string& algorithm, const std::string& call, ncclResult_t code, const std::string& detail = "")
      : error("algo::" + algorithm + ": " + call + " failed: " + ncclGetErrorString(code) + " (ncclResult_t " +
              std::to_string(static_cast<int>(code)) + ")" + (detail.empty() ? std::string() : ": " + detail)),
        code_(code),
        call_(call) {}
  ncclResult_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }

 private:
  ncclResult_t code_;
  std::string call_;
};

}  // namespace algo

namespace algo::detail::nccl {

/// ncclInProgress (non-blocking communicators, NCCL 2.14 and later).
#if NCCL_VERSION_CODE >= 21400
inline constexpr ncclResult_t in_progress = ncclInProgress;
#else
inline constexpr ncclResult_t in_progress = static_cast<ncclResult_t>(-1);  // never returned
#endif

/// The code a rank raises when the others do not answer in time (ncclRemoteError: NCCL 2.13 and later).
#if NCCL_VERSION_CODE >= 21300
inline constexpr ncclResult_t no_answer = ncclRemoteError;
#else
inline constexpr ncclResult_t no_answer = ncclSystemError;
#endif

/// How long a rank waits for the others before it gives up: the policy's timeout, else the
/// environment's ALGO_NCCL_TIMEOUT (seconds, read once), else 300 s.
inline std::chrono::milliseconds default_timeout() {
  static const std::chrono::milliseconds t = [] {
    if (const char* s = std::getenv("ALGO_NCCL_TIMEOUT")) {
      char* end = nullptr;
      const double v = std::strtod(s, &end);
      if (end != s && v > 0 && v < 1e9) return std::chrono::milliseconds(static_cast<std::int64_t>(v * 1000.0));
    }
    return std::chrono::milliseconds(300000);
  }();
  return t;
}
inline std::chrono::milliseconds effective_timeout(std::chrono::milliseconds t) {
  return t.count() > 0 ? t : default_timeout();
}

/// The text of the error every rank that waited in vain raises (the same on every rank: no rank
/// number in it).
inline std::string no_answer_text(std::chrono::milliseconds limit, const char* waiting_for) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", static_cast<double>(limit.count()) / 1000.0);
  return std::string("no answer from the other ranks within ") + secs + " s while waiting for " + waiting_for +
         " (a rank failed, exited, or did not make the same call); the communicator cannot be used any more: abort "
         "it (ncclCommAbort) on every rank that is left, then call algo::nccl_release";
}

inline void check_nccl(ncclResult_t r, const char* algorithm, const char* call, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) return;
  if (r == in_progress) {
    // a non-blocking communicator: the call completes in the background; wait until it has been
    // queued (or has failed) before the next step uses its stream
    if (comm == nullptr) return;
    ncclResult_t state = in_progress;
    const auto start = std::chrono::steady_clock::now();
    const auto limit = default_timeout();
    while (state == in_progress) {
      const ncclResult_t q = ncclCommGetAsyncError(comm, &state);
      if (q != ncclSuccess) {
        state = q;
        break;
      }
      if (state == in_progress) {
        if (std::chrono::steady_clock::now() - start > limit)
          throw nccl_error(algorithm, call, no_answer, no_answer_text(limit, "a non-blocking NCCL call to complete"));
        std::this_thread::yield();
      }
    }
    if (state == ncclSuccess) return;
    r = state;
  }
  std::string detail;
#if NCCL_VERSION_CODE >= 21300
  if (const char* last = ncclGetLastError(comm)) detail = last;
#else
  (void)comm;
#endif
  throw nccl_error(algorithm, call, r, detail);
}

/// Raises the communicator's asynchronous error, if it has one (ncclInProgress is none).
inline void check_async(ncclComm_t comm, const char* algorithm) {
  ncclResult_t state = ncclSuccess;
  check_nccl(ncclCommGetAsyncError(comm, &state), algorithm, "ncclCommGetAsyncError", comm);
  if (state != ncclSuccess && state != in_progress)
    throw nccl_error(algorithm, "ncclCommGetAsyncError (an earlier NCCL operation)", state);
}

/// Makes `dev` current for its scope.
class device_guard {
 public:
  explicit device_guard(int dev) {
    check_cuda(cudaGetDevice(&prev_), "nccl", "cudaGetDevice");
    if (prev_ != dev) check_cuda(cudaSetDevice(dev), "nccl", "cudaSetDevice");
    else prev_ = -1;
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  ~device_guard() {
    if (prev_ >= 0) cudaSetDevice(prev_);
  }

 private:
  int prev_ = -1;
};

/// Switches this thread to cudaStreamCaptureModeRelaxed for its scope (restored on exit, also on
/// exceptions): calls that a capture in global or thread-local mode forbids on the capturing thread
/// (cudaMalloc, cudaHostAlloc, cudaStreamQuery, cudaEventQuery on streams outside the capture) are
/// then allowed. Used around the host-side set-up of a communicator and the exchange of a failing
/// rank, which never touch the captured stream.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() { ok_ = cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess; }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;
  ~relaxed_capture_mode() {
    if (ok_) cudaThreadExchangeStreamCaptureMode(&mode_);
  }

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool ok_ = false;
};

/// What one communicator keeps for the life of the program, created on its device at its first use
/// (so that no later step of a collective must allocate before or during its first exchange):
/// the side streams of the pipelined exchange, and what a rank that fails before its exchange
/// still exchanges with (a device area of P blocks and its pinned host copy), a second area of P
/// blocks for the status exchange at the end of a transpose, and the slot where calls that do not
/// wait (reduce_into, transpose) leave an error they find on the device (mapped host memory:
/// [flag: 4 bytes][nranks: 4][algorithm: 4] ... the records at 64).
/// Keyed by the ncclComm_t and kept after ncclCommDestroy (a few hundred bytes per rank and two
/// streams); algo::nccl_release(comm) frees them (docs/multi-gpu.md).
struct comm_resources {
  int device = -1;
  int nranks = 0;
  cudaStream_t exchange = nullptr;
  cudaStream_t unpack = nullptr;
  unsigned char* blocks = nullptr;         // device: nranks * block_bytes
  unsigned char* status_blocks = nullptr;  // device: nranks * block_bytes (transpose's closing exchange)
  cuda::pinned_host_block host;            // pinned: nranks * block_bytes
  cuda::pinned_host_block deferred_block;
  unsigned char* deferred = nullptr;  // mapped: 64 + nranks * block_bytes
  /// The warm-up exchange of the first use has completed (NCCL's connections are made).
  std::atomic<bool> connected{false};
  comm_resources() = default;
  comm_resources(const comm_resources&) = delete;
  comm_resources& operator=(const comm_resources&) = delete;
  ~comm_resources() {
    // the streams may still hold queued work: cudaStreamDestroy lets it finish; the buffers are
    // only freed by nccl_release, which the caller makes after synchronizing (or aborting)
    if (exchange) cudaStreamDestroy(exchange);
    if (unpack) cudaStreamDestroy(unpack);
    if (blocks) cudaFree(blocks);
    if (status_blocks) cudaFree(status_blocks);
    (void)cudaGetLastError();
  }
};

// ---- the host's wait ----------------------------------------------------------------------------
/// Whether `stream` has finished its work: true when idle, false when busy; throws the stream's
/// CUDA error (a kernel that faulted: the context is lost), or an NCCL error of the communicator.
inline bool stream_done(const char* name, ncclComm_t comm, cudaStream_t stream) {
  const cudaError_t e = cudaStreamQuery(stream);
  if (e != cudaSuccess && e != cudaErrorNotReady) throw cuda_error(name, "a kernel or NCCL operation on the stream", e);
  if (e == cudaErrorNotReady) (void)cudaGetLastError();
  check_async(comm, name);
  return e == cudaSuccess;
}

/// Raises the error of a wait that found no answer in time.
[[noreturn]] inline void fail_no_answer(const char* name, std::chrono::milliseconds limit, const char* waiting_for) {
  throw nccl_error(name, "the wait for the other ranks", no_answer, no_answer_text(limit, waiting_for));
}

/// Waits for everything queued on `stream`: polls (the CUDA runtime's blocking waits cannot be
/// given up), asks the communicator whether NCCL failed, and gives up after `limit` (a rank that
/// died or never called leaves the others' NCCL kernels waiting; the caller must then abort the
/// communicator).
inline void wait_for_stream(const char* name, ncclComm_t comm, cudaStream_t stream, std::chrono::milliseconds limit,
                            const char* waiting_for = "the exchange") {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (stream_done(name, comm, stream)) break;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > limit) fail_no_answer(name, limit, waiting_for);
    if (waited > std::chrono::microseconds(200)) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  check_async(comm, name);
}

class comm_table {
 public:
  static comm_table& get() {
    static comm_table* t = new comm_table;  // never destroyed: no CUDA calls at exit
    return *t;
  }
  /// The communicator's resources (created on `dev` for `nranks` ranks at first use). Creating them
  /// may throw (memory running out); the table holds the lock only to look up and insert, so that
  /// the threads of one process (one GPU each) make their communicators' state side by side.
  comm_resources& at(ncclComm_t comm, int dev, int nranks) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = table_.find(comm);
      if (it != table_.end() && it->second->device == dev && it->second->nranks == nranks) return *it->second;
    }
    // a new communicator (or another one at the address of a destroyed one): streams, cudaMalloc,
    // cudaHostAlloc, allowed even on a thread that is capturing
    relaxed_capture_mode relaxed;
    auto r = std::make_unique<comm_resources>();
    device_guard g(dev);
    r->device = dev;
    r->nranks = nranks;
    const char* name = "nccl";
    check_cuda(cudaStreamCreateWithFlags(&r->exchange, cudaStreamNonBlocking), name, "cudaStreamCreateWithFlags");
    check_cuda(cudaStreamCreateWithFlags(&r->unpack, cudaStreamNonBlocking), name, "cudaStreamCreateWithFlags");
    const std::size_t bytes = static_cast<std::size_t>(nranks) * block_bytes;
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&r->blocks), bytes), name, "cudaMalloc");
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&r->status_blocks), bytes), name, "cudaMalloc");
    r->host.at_least(name, bytes, cudaHostAllocPortable);
    r->deferred = static_cast<unsigned char*>(
        r->deferred_block.at_least(name, 64 + bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    std::unique_ptr<comm_resources> old;  // declared before the lock: destroyed after it is released
    std::lock_guard<std::mutex> lock(mutex_);
    auto& e = table_[comm];
    if (e && e->device == dev && e->nranks == nranks) return *e;
    old = std::move(e);
    e = std::move(r);
    return *e;
  }
  /// Frees the communicator's resources, if it has any.
  void release(ncclComm_t comm) noexcept {
    std::unique_ptr<comm_resources> r;
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = table_.find(comm);
      if (it == table_.end()) return;
      r = std::move(it->second);
      table_.erase(it);
    } catch (...) {
    }
  }

 private:
  std::mutex mutex_;
  std::map<ncclComm_t, std::unique_ptr<comm_resources>> table_;
};

/// The communicator a call runs over and how long its waits may last (0: default_timeout()).
struct comm_link {
  ncclComm_t comm = nullptr;
  std::chrono::milliseconds timeout{0};
  comm_link() = default;
  comm_link(ncclComm_t c, std::chrono::milliseconds t = std::chrono::milliseconds(0)) : comm(c), timeout(t) {}
};

/// What a call knows about its communicator and where it runs.
struct comm_info {
  ncclComm_t comm = nullptr;
  int rank = 0;
  int nranks = 1;
  int comm_device = 0;
  int device = 0;        // the device the call runs on (the stream's, else the current one)
  bool capturing = false;
  std::chrono::milliseconds timeout{0};  // how long a wait for the other ranks may last
  std::string problem;   // a CUDA call that failed while asking the above (this rank's problem)
  comm_resources* res = nullptr;
};

/// Makes NCCL's connections for this library's exchanges once, at the communicator's first use: an
/// all-gather of one block per rank on the side stream, outside any capture, waited for here.
/// NCCL (2.22 and later) connects lazily, at a communicator's first collective of a kind; made while
/// the calling thread captures its stream, that set-up (allocations, copies, peer mappings) broke the
/// captures that other threads of the process ran on their GPUs at the same time (the
/// one-thread-per-GPU form: cudaErrorStreamCaptureInvalidated, issue 26). Every rank makes its
/// first call on the communicator at the same collective, so the warm-up exchanges match.
inline void connect(const char* name, const comm_info& c) {
  if (c.res->connected.load(std::memory_order_acquire)) return;
  if (c.nranks == 1) {  // nothing to connect
    c.res->connected.store(true, std::memory_order_release);
    return;
  }
  relaxed_capture_mode relaxed;
  device_guard g(c.comm_device);
  const cudaStream_t s = c.res->exchange;
  unsigned char* const mine = c.res->blocks + static_cast<std::size_t>(c.rank) * block_bytes;
  check_nccl(ncclAllGather(mine, c.res->blocks, block_bytes, ncclUint8, c.comm, s), name,
             "ncclAllGather (the communicator's first use)", c.comm);
  wait_for_stream(name, c.comm, s, c.timeout, "the first exchange on the communicator");
  c.res->connected.store(true, std::memory_order_release);
}

/// The communicator's rank, size and device (a null communicator, or NCCL failing to answer, throws
/// at once: there is no exchange to take part in), where the call runs and whether its stream is
/// being captured (a CUDA failure there becomes the rank's problem, for the exchange), and the
/// communicator's resources (created, and its connections made, at its first use: a rank that cannot
/// make them throws at once, and the others' first calls end by their timeout).
inline comm_info query_comm(const char* name, const comm_link& link, cudaStream_t stream) {
  const ncclComm_t comm = link.comm;
  if (comm == nullptr) fail(name, "the communicator is null");
  comm_info c;
  c.comm = comm;
  c.timeout = effective_timeout(link.timeout);
  check_nccl(ncclCommUserRank(comm, &c.rank), name, "ncclCommUserRank", comm);
  check_nccl(ncclCommCount(comm, &c.nranks), name, "ncclCommCount", comm);
  check_nccl(ncclCommCuDevice(comm, &c.comm_device), name, "ncclCommCuDevice", comm);
  try {
    c.res = &comm_table::get().at(comm, c.comm_device, c.nranks);
  } catch (const std::exception& e) {
    fail(name, "rank " + std::to_string(c.rank) + " of " + std::to_string(c.nranks) +
                   ": the communicator's state could not be made at its first use (" + e.what() +
                   "); this rank cannot take part in the exchange, so the other ranks' calls end by their timeout");
  }
  connect(name, c);
  c.device = c.comm_device;
  try {
    // whether the stream is being captured: asked first, because CUDA refuses to name a capturing
    // stream's device (cudaStreamGetDevice returns cudaErrorStreamCaptureUnsupported and invalidates
    // the capture, CUDA 13.0 on an H100)
    c.capturing = cuda::stream_is_capturing(stream, name);
    // the device the call runs on: the current one (temporaries are allocated there), and, outside
    // a capture, the stream's; either one differing from the communicator's is this rank's error.
    // Under capture the stream's device is not checked (a documented precondition: the capturing
    // stream belongs to the current device)
    check_cuda(cudaGetDevice(&c.device), name, "cudaGetDevice");
#if CUDART_VERSION >= 12080
    if (!c.capturing && c.device == c.comm_device && stream != nullptr && stream != cudaStreamLegacy &&
        stream != cudaStreamPerThread) {
      int sdev = c.device;
      if (cudaStreamGetDevice(stream, &sdev) == cudaSuccess) c.device = sdev;
      else (void)cudaGetLastError();
    }
#endif
  } catch (const std::exception& e) {
    c.problem = e.what();
  }
  return c;
}

/// Streams of one communicator for the pipelined exchange.
struct comm_streams {
  cudaStream_t exchange = nullptr;
  cudaStream_t unpack = nullptr;
};
inline comm_streams streams_for(const comm_info& c) { return comm_streams{c.res->exchange, c.res->unpack}; }

/// Waits until *flag == ticket (a word in mapped host memory that a kernel on `stream` writes last).
/// Never blocks in the CUDA runtime: it polls, asks the stream whether it failed and the
/// communicator whether NCCL failed, backs off to short sleeps after a millisecond, and gives up
/// after the call's timeout (wait_for_stream).
inline void wait_for_flag(const char* name, const comm_info& c, cudaStream_t stream, const volatile unsigned* flag,
                          unsigned ticket) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned polls = 1; *flag != ticket; ++polls) {
    if (polls % 64 != 0) continue;
    const bool idle = stream_done(name, c.comm, stream);
    if (idle && *flag != ticket) {
      // the stream is idle: the value must be there (or the kernel wrote it before we looked)
      std::atomic_thread_fence(std::memory_order_acquire);
      if (*flag != ticket) fail(name, "internal: the exchange finished without its result");
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > c.timeout) fail_no_answer(name, c.timeout, "the exchange");
    if (waited > std::chrono::milliseconds(1)) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

/// One ticket per wait on this thread (never 0).
inline unsigned next_ticket() {
  thread_local unsigned last = 0;
  if (++last == 0) last = 1;
  return last;
}

/// Host memory for what the device sends back at the end of an exchange: mapped (kernels write it
/// directly) when the device can, else pinned (a copy lands there). One per thread; a call waits
/// before it returns, so the next call may reuse it.
struct host_slot {
  unsigned char* host = nullptr;
  bool mapped = false;
};
inline host_slot thread_host_slot(const char* name, std::size_t bytes) {
  // 64 KB at the least (up to ~250 ranks): growing means cudaFreeHost, which may wait for every
  // device, and with one thread per GPU a device may be waiting for this thread's next collective
  constexpr std::size_t at_least = std::size_t(1) << 16;
  if (bytes < at_least) bytes = at_least;
  thread_local cuda::pinned_host_block block;
  host_slot s;
  s.mapped = cuda::current_device_info().writes_host_memory;
  s.host = static_cast<unsigned char*>(
      block.at_least(name, bytes, s.mapped ? (cudaHostAllocPortable | cudaHostAllocMapped) : cudaHostAllocPortable));
  return s;
}

// ---- errors found on the device by calls that do not wait (reduce_into) --------------------------
/// Per communicator (comm_resources::deferred): a flag and a copy of the records of the exchange
/// that failed, in mapped host memory, written by the fold kernel; raised by algo::synchronize.
inline unsigned char* deferred_for(const comm_info& c) { return c.res->deferred; }

/// Raises (once) the error a non-waiting call of this communicator found on the device.
inline void raise_deferred(const comm_info& c) {
  unsigned char* base = deferred_for(c);
  volatile unsigned* flag = reinterpret_cast<volatile unsigned*>(base);
  if (*flag == 0) return;
  std::atomic_thread_fence(std::memory_order_acquire);
  const std::string message = failure_what(base + 64, c.nranks);
  *flag = 0;
  // the same message as the rank whose input was bad raised at once (prefixed with rank 0's collective)
  if (message.empty()) fail("synchronize", "an earlier call failed on another rank");
  throw error(message);
}

// ---- the first exchange --------------------------------------------------------------------------
/// Writes the rank's record into its block (one thread).
template <int = 0>
__global__ void write_record_kernel(unsigned char* block, rank_record rec) {
  memcpy(block, &rec, sizeof(rec));
}

/// A record and 128 bytes of text, by value (kernel arguments: safe in any stream state).
struct record_and_text {
  rank_record rec;
  char text[inline_payload_bytes];
};
/// Writes a rank's record and text into its block (one thread).
template <int = 0>
__global__ void write_record_text_kernel(unsigned char* block, record_and_text r) {
  memcpy(block, &r.rec, sizeof(r.rec));
  memcpy(block + record_bytes, r.text, inline_payload_bytes);
}

/// Checks the records of a closing status exchange (transpose) on the device: when a rank failed,
/// copies them to the communicator's deferred slot for algo::synchronize to raise (one warp).
template <int = 0>
__global__ void status_check_kernel(const unsigned char* blocks, int nranks, unsigned char* deferred,
                                    std::uint32_t algorithm) {
  __shared__ int bad;
  if (threadIdx.x == 0) bad = first_bad_rank(blocks, nranks) >= 0 ? 1 : 0;
  __syncthreads();
  if (!bad) return;
  const std::size_t words = static_cast<std::size_t>(nranks) * block_bytes / 16;
  for (std::size_t i = threadIdx.x; i < words; i += blockDim.x)
    reinterpret_cast<uint4*>(deferred + 64)[i] = reinterpret_cast<const uint4*>(blocks)[i];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    *reinterpret_cast<volatile unsigned*>(deferred + 4) = static_cast<unsigned>(nranks);
    *reinterpret_cast<volatile unsigned*>(deferred + 8) = algorithm;
    __threadfence_system();
    *reinterpret_cast<volatile unsigned*>(deferred) = 1u;
  }
}

inline rank_record make_record(collective algorithm, const comm_info& c, std::uint32_t elem_size,
                               std::uint32_t acc_size, std::uint32_t payload_bytes, std::uint64_t hash, std::int64_t n) {
  rank_record r;
  std::memset(&r, 0, sizeof(r));
  r.magic = record_magic;
  r.problem = 0;
  r.rank = c.rank;
  r.nranks = c.nranks;
  r.algorithm = static_cast<std::uint32_t>(algorithm);
  r.elem_size = elem_size;
  r.acc_size = acc_size;
  r.device = c.device;
  r.comm_device = c.comm_device;
  r.payload_bytes = payload_bytes;
  r.type_hash = hash;
  r.n = n;
  return r;
}

/// The verdict of a rank on itself before anything is queued: a device problem, or the text of the
/// single-GPU checks (which the caller ran inside `checks`, catching algo::error).
struct local_verdict {
  local_problem problem = local_problem::none;
  std::string text;
};

/// A rank's own problem from the text of an exception (without its "algo::<name>: " prefix).
inline local_verdict verdict_from_text(const char* name, std::string t) {
  local_verdict v;
  v.problem = local_problem::message;
  const std::string prefix = std::string("algo::") + name + ": ";
  if (t.compare(0, prefix.size(), prefix) == 0) t = t.substr(prefix.size());
  v.text = t;
  return v;
}
/// The same for the exception being handled (call it inside a catch block).
inline local_verdict verdict_from_current_exception(const char* name) {
  try {
    throw;
  } catch (const std::exception& e) {
    return verdict_from_text(name, e.what());
  } catch (...) {
    return verdict_from_text(name, "an exception that is not a std::exception");
  }
}

/// Runs the local checks; any exception (an algo::error for bad input, an algo::cuda_error for a
/// CUDA call that failed, anything else) becomes the rank's problem, for every rank to raise after
/// the exchange: a rank must never leave before the exchange its peers wait in.
template <class F>
local_verdict run_local_checks(const char* name, const comm_info& c, F&& checks, bool may_capture = false) {
  local_verdict v;
  if (!c.problem.empty()) return verdict_from_text(name, c.problem);
  if (c.device != c.comm_device) {
    v.problem = local_problem::wrong_device;
    return v;
  }
  if (c.capturing && !may_capture) {
    v.problem = local_problem::capturing;
    return v;
  }
  try {
    checks();
  } catch (...) {
    v = verdict_from_current_exception(name);
  }
  return v;
}

/// A rank whose own input is bad still takes part in the first exchange (so no rank waits for it
/// forever), on its communicator's device and a side stream, then raises what every rank raises.
/// The record of a rank with a problem, and the problem's text (cut to 127 bytes).
inline record_and_text failing_record(rank_record rec, const local_verdict& v) {
  rec.problem = static_cast<std::int32_t>(v.problem);
  record_and_text rt;
  std::memset(&rt, 0, sizeof(rt));
  rt.rec = rec;
  std::strncpy(rt.text, v.text.c_str(), inline_payload_bytes - 1);
  if (v.text.size() >= inline_payload_bytes - 1) std::memcpy(rt.text + inline_payload_bytes - 4, "...", 3);
  return rt;
}

/// Runs on the side stream, now, even when the caller's stream is being captured (a waiting call
/// refused under capture, or one whose set-up failed): the host-side calls it makes (event record,
/// polling the side stream) are allowed there by the relaxed capture mode, for its duration.
[[noreturn]] inline void fail_after_exchange(const char* name, const comm_info& c, rank_record rec,
                                             const local_verdict& v, cudaStream_t user_stream) {
  const record_and_text rt = failing_record(rec, v);
  relaxed_capture_mode relaxed;
  device_guard g(c.comm_device);
  const cudaStream_t s = c.res->exchange;
  // keep NCCL's order on this communicator: the side stream starts after the caller's work
  if (!c.capturing && c.device == c.comm_device) {
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) == cudaSuccess) {
      if (cudaEventRecord(ev, user_stream) == cudaSuccess) cudaStreamWaitEvent(s, ev, 0);
      cudaEventDestroy(ev);
    }
    (void)cudaGetLastError();
  }
  // the communicator's own blocks and host copy (made at its first use): nothing to allocate here
  const std::size_t bytes = static_cast<std::size_t>(c.nranks) * block_bytes;
  unsigned char* const blocks = c.res->blocks;
  unsigned char* const host = static_cast<unsigned char*>(c.res->host.at_least(name, bytes, cudaHostAllocPortable));
  unsigned char* mine = blocks + static_cast<std::size_t>(c.rank) * block_bytes;
  // nothing before the all-gather throws for a reason the record could carry: a launch error left
  // by an earlier call (not sticky) is cleared first; a record that cannot be launched (a lost
  // context) cannot be sent at all, so the rank raises its own problem and the others' waits end by
  // their timeout
  (void)cudaGetLastError();
  write_record_text_kernel<><<<1, 1, 0, s>>>(mine, rt);
  if (const cudaError_t launched = cudaGetLastError(); launched != cudaSuccess)
    throw cuda_error(name,
                     "rank " + std::to_string(c.rank) + " of " + std::to_string(c.nranks) + " (" + v.text +
                         "): sending its problem to the other ranks (write_record_text_kernel)",
                     launched);
  if (c.nranks > 1)
    check_nccl(ncclAllGather(mine, blocks, block_bytes, ncclUint8, c.comm, s), name, "ncclAllGather", c.comm);
  check_cuda(cudaMemcpyAsync(host, blocks, bytes, cudaMemcpyDeviceToHost, s), name, "cudaMemcpyAsync");
  wait_for_stream(name, c.comm, s, c.timeout);
  const std::string message = failure_what(host, c.nranks);
  if (message.empty()) fail(name, "internal: this rank's problem did not reach the exchange");
  throw error(message);
}

/// Checks the records on the host (after a wait): every rank raises the same algo::error, its
/// prefix the collective rank 0 called (not this rank's own `name`: ranks may have called different
/// ones).
inline void check_records(const char* /*name*/, const unsigned char* blocks, int nranks) {
  const std::string message = failure_what(blocks, nranks);
  if (!message.empty()) throw error(message);
}

}  // namespace algo::detail::nccl
