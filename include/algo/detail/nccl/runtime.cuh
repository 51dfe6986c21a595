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
#include <cstring>
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

inline void check_nccl(ncclResult_t r, const char* algorithm, const char* call, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) return;
  if (r == in_progress) {
    // a non-blocking communicator: the call completes in the background; wait until it has been
    // queued (or has failed) before the next step uses its stream
    if (comm == nullptr) return;
    ncclResult_t state = in_progress;
    while (state == in_progress) {
      const ncclResult_t q = ncclCommGetAsyncError(comm, &state);
      if (q != ncclSuccess) {
        state = q;
        break;
      }
      if (state == in_progress) std::this_thread::yield();
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
/// still exchanges with (a device area of P blocks and its pinned host copy), and the slot where
/// calls that do not wait (reduce_into) leave an error they find on the device (mapped host memory:
/// [flag: 4 bytes][nranks: 4][algorithm: 4] ... the records at 64).
/// Keyed by the ncclComm_t and kept after ncclCommDestroy (a few hundred bytes per rank and two
/// streams); algo::nccl_release(comm) frees them (README, "Several GPUs").
struct comm_resources {
  int device = -1;
  int nranks = 0;
  cudaStream_t exchange = nullptr;
  cudaStream_t unpack = nullptr;
  unsigned char* blocks = nullptr;  // device: nranks * block_bytes
  cuda::pinned_host_block host;     // pinned: nranks * block_bytes
  cuda::pinned_host_block deferred_block;
  unsigned char* deferred = nullptr;  // mapped: 64 + nranks * block_bytes
  comm_resources() = default;
  comm_resources(const comm_resources&) = delete;
  comm_resources& operator=(const comm_resources&) = delete;
  ~comm_resources() {
    // the streams may still hold queued work: cudaStreamDestroy lets it finish; the buffers are
    // only freed by nccl_release, which the caller makes after synchronizing
    if (exchange) cudaStreamDestroy(exchange);
    if (unpack) cudaStreamDestroy(unpack);
    if (blocks) cudaFree(blocks);
  }
};

class comm_table {
 public:
  static comm_table& get() {
    static comm_table* t = new comm_table;  // never destroyed: no CUDA calls at exit
    return *t;
  }
  /// The communicator's resources (created on `dev` for `nranks` ranks at first use).
  comm_resources& at(ncclComm_t comm, int dev, int nranks) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& e = table_[comm];
    if (e && e->device == dev && e->nranks == nranks) return *e;
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
    r->host.at_least(name, bytes, cudaHostAllocPortable);
    r->deferred = static_cast<unsigned char*>(
        r->deferred_block.at_least(name, 64 + bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    e = std::move(r);
    return *e;
  }
  /// Frees the communicator's resources, if it has any.
  void release(ncclComm_t comm) {
    std::unique_ptr<comm_resources> r;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = table_.find(comm);
      if (it == table_.end()) return;
      r = std::move(it->second);
      table_.erase(it);
    }
  }

 private:
  std::mutex mutex_;
  std::map<ncclComm_t, std::unique_ptr<comm_resources>> table_;
};

/// What a call knows about its communicator and where it runs.
struct comm_info {
  ncclComm_t comm = nullptr;
  int rank = 0;
  int nranks = 1;
  int comm_device = 0;
  int device = 0;        // the device the call runs on (the stream's, else the current one)
  bool capturing = false;
  std::string problem;   // a CUDA call that failed while asking the above (this rank's problem)
  comm_resources* res = nullptr;
};

/// The communicator's rank, size and device (a null communicator, or NCCL failing to answer, throws
/// at once: there is no exchange to take part in), where the call runs and whether its stream is
/// being captured (a CUDA failure there becomes the rank's problem, for the exchange), and the
/// communicator's resources (created at its first use).
inline comm_info query_comm(const char* name, ncclComm_t comm, cudaStream_t stream) {
  if (comm == nullptr) fail(name, "the communicator is null");
  comm_info c;
  c.comm = comm;
  check_nccl(ncclCommUserRank(comm, &c.rank), name, "ncclCommUserRank", comm);
  check_nccl(ncclCommCount(comm, &c.nranks), name, "ncclCommCount", comm);
  check_nccl(ncclCommCuDevice(comm, &c.comm_device), name, "ncclCommCuDevice", comm);
  c.res = &comm_table::get().at(comm, c.comm_device, c.nranks);
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

// ---- the host's wait ----------------------------------------------------------------------------
/// Waits until *flag == ticket (a word in mapped host memory that a kernel on `stream` writes last).
/// Never blocks in the CUDA runtime: it polls, asks the stream whether it failed and the
/// communicator whether NCCL failed (a peer that died or an NCCL error would otherwise hang the
/// wait), and backs off to short sleeps after a millisecond.
inline void wait_for_flag(const char* name, ncclComm_t comm, cudaStream_t stream, const volatile unsigned* flag,
                          unsigned ticket) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned polls = 1; *flag != ticket; ++polls) {
    if (polls % 64 != 0) continue;
    const cudaError_t e = cudaStreamQuery(stream);
    if (e != cudaSuccess && e != cudaErrorNotReady) throw cuda_error(name, "a kernel or NCCL operation on the stream", e);
    if (e == cudaErrorNotReady) (void)cudaGetLastError();
    check_async(comm, name);
    if (e == cudaSuccess && *flag != ticket) {
      // the stream is idle: the value must be there (or the kernel wrote it before we looked)
      std::atomic_thread_fence(std::memory_order_acquire);
      if (*flag != ticket) fail(name, "internal: the exchange finished without its result");
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(1))
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  std::atomic_thread_fence(std::memory_order_acquire);
}

/// Waits for everything queued on `stream` (polling, as wait_for_flag).
inline void wait_for_stream(const char* name, ncclComm_t comm, cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) throw cuda_error(name, "a kernel or NCCL operation on the stream", e);
    (void)cudaGetLastError();
    check_async(comm, name);
    if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(200))
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  check_async(comm, name);
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
  write_record_text_kernel<><<<1, 1, 0, s>>>(mine, rt);
  cuda::check_launch(name, "write_record_text_kernel");
  check_nccl(ncclAllGather(mine, blocks, block_bytes, ncclUint8, c.comm, s), name, "ncclAllGather", c.comm);
  check_cuda(cudaMemcpyAsync(host, blocks, bytes, cudaMemcpyDeviceToHost, s), name, "cudaMemcpyAsync");
  wait_for_stream(name, c.comm, s);
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
