// Transpose of a matrix distributed by contiguous row blocks across the ranks of an NCCL
// communicator (<algo/nccl.hpp>).
//
// Rank p holds input rows [a_p, b_p) (all cols columns) and receives result rows [c_p, d_p) (result
// row j = input column j; each result row has `rows` elements). Its block for rank q is
// in_p[:, c_q:d_q] transposed: (d_q - c_q) x (b_p - a_p), which lands on q at out_q[:, a_p:b_p].
//
//   0. one all-gather of the ranks' records (shape, row ranges, element type; the host waits for it and
//      every rank raises the same error when one is wrong); the buffers and events of step 2 are
//      allocated before it (sized from the rank's own ranges), so a failure there is reported in it;
//   1. the block that stays (q = p) is transposed straight from `in` into `out` (pitched, one pass), on
//      the unpack stream, beside the packing and the exchange;
//   2. the blocks for the other ranks go in K chunks of result rows: each chunk is transposed into a
//      packed send buffer (algo::cuda's pitched transpose), then sent with grouped ncclSend /
//      ncclRecv (an all-to-all), and each received chunk is copied into its columns of `out`
//      (cudaMemcpy2DAsync; NCCL moves only contiguous bytes). Three streams: the caller's (the
//      transposes), one for NCCL and one for the copies, chained by events, so the exchange of chunk
//      k overlaps the transposes of chunk k + 1 and the copies of chunk k - 1;
//   3. a closing status all-gather on the NCCL stream (no host wait): a rank whose local step failed
//      in step 1 or 2 still posted every send and receive, and says so here; a one-warp check leaves
//      the failure for algo::synchronize on every rank.
//
// The direct path, when every rank's output lies in one algo::nccl_buffer whose peers are mapped
// (window.cuh; the records say so, with each output's offset in it): step 2 becomes one pitched
// transpose per peer, from `in` straight into the peer's output through its NVLink address (each
// byte read once and written once, where the exchange path writes it three times). The record
// exchange of step 0 is the entry barrier (a rank's all-gather runs only after its stream's earlier
// work, so no peer still uses its output), and step 3's status all-gather, queued after the writes,
// is the exit barrier (a rank's stream continues only once every peer's writes into its output
// have completed).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "../../policy.hpp"
#include "../../transpose.hpp"
#include "../cuda/runtime.cuh"
#include "../transpose_shape.hpp"
#include "../validate.hpp"
#include "record.hpp"
#include "runtime.cuh"
#include "transpose_plan.hpp"
#include "window.cuh"

namespace algo::detail::nccl {

/// Events for one call, destroyed at scope exit (cudaEventDestroy is safe on recorded events).
class event_set {
 public:
  explicit event_set(std::size_t n) : ev_(n, nullptr) {
    for (auto& e : ev_) check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "transpose", "cudaEventCreate");
  }
  ~event_set() {
    for (auto e : ev_)
      if (e) cudaEventDestroy(e);
  }
  event_set(const event_set&) = delete;
  event_set& operator=(const event_set&) = delete;
  cudaEvent_t operator[](std::size_t i) const { return ev_[i]; }

 private:
  std::vector<cudaEvent_t> ev_;
};

template <class Local, class T>
T* transpose(const comm_link& link, const Local& local, const T* in, std::int64_t rows, std::int64_t cols,
             std::int64_t row_begin, std::int64_t row_end, T* out, std::int64_t out_begin, std::int64_t out_end) {
  static_assert(std::is_trivially_copyable<T>::value, "algo::nccl transpose needs a trivially copyable element type");
  const char* name = "transpose";
  const comm_info c = query_comm(name, link, local.stream);
  const ncclComm_t comm = c.comm;
  std::int64_t lr = 0, lc = 0;
  local_verdict v = run_local_checks(name, c, [&] {
    checked_matrix_size(name, rows, cols);
    if (row_begin < 0 || row_end < row_begin || row_end > rows)
      fail(name, "input rows [" + std::to_string(row_begin) + ", " + std::to_string(row_end) + ") are not within [0, " +
                     std::to_string(rows) + ")");
    if (out_begin < 0 || out_end < out_begin || out_end > cols)
      fail(name, "output rows [" + std::to_string(out_begin) + ", " + std::to_string(out_end) +
                     ") are not within [0, " + std::to_string(cols) + ")");
    lr = row_end - row_begin;
    lc = out_end - out_begin;
    check_iterator(name, "input", local, in, lr * cols);
    check_iterator(name, "output", local, out, lc * rows);
    const auto* ib = reinterpret_cast<const unsigned char*>(in);
    const auto* ob = reinterpret_cast<const unsigned char*>(out);
    const std::size_t in_bytes = static_cast<std::size_t>(lr * cols) * sizeof(T);
    const std::size_t out_bytes = static_cast<std::size_t>(lc * rows) * sizeof(T);
    if (in_bytes && out_bytes && ib < ob + out_bytes && ob < ib + in_bytes)
      fail(name, "output overlaps input (transpose is not in-place)");
  });
  // the algo::nccl_buffer the output lies in, if any (its tag and the output's offset go in the record)
  window_view window;
  std::size_t window_offset = 0;
  const bool in_window = v.problem == local_problem::none && c.nranks > 1 &&
                         window_table::get().find(c.comm, out, static_cast<std::size_t>(lc * rows) * sizeof(T), window,
                                                  window_offset);
  rank_record rec = make_record(collective::transpose, c, sizeof(T), 0, 0, type_hash<T, T>(), lr);
  rec.v[6] = in_window ? window.tag : 0;
  rec.v[7] = static_cast<std::int64_t>(window_offset);
  rec.v[0] = rows;
  rec.v[1] = cols;
  rec.v[2] = row_begin;
  rec.v[3] = row_end;
  rec.v[4] = out_begin;
  rec.v[5] = out_end;

  // ---- 0. the records, through the communicator's own buffers (nothing to allocate before the
  // exchange); a launch that fails still makes this rank join the exchange, with its problem ----------
  const cudaStream_t s = local.stream;
  const int P = c.nranks, me = c.rank;
  const std::size_t blocks_bytes = static_cast<std::size_t>(P) * block_bytes;
  unsigned char* const blocks = c.res->blocks;
  unsigned char* const mine = blocks + static_cast<std::size_t>(me) * block_bytes;
  // what the exchange of the blocks needs, sized from this rank's own ranges (when the ranges agree,
  // as the records make sure before anything is queued, the plan's sizes are these): a send buffer
  // of the blocks for the other ranks, (cols - lc) x lr, a receive buffer of theirs, lc x (rows - lr),
  // and the events of K chunks; allocated before the exchange, so that a rank short of memory tells
  // the others there instead of leaving them waiting in the all-to-all (a rank whose output lies in
  // an nccl_buffer expects the direct path and allocates them only if the records say otherwise)
  const std::size_t elem = sizeof(T);
  const int K = chunk_count(rows, cols, elem, P);
  std::int64_t send_elements = 0, recv_elements = 0;
  std::optional<cuda::temporary_buffer> sendbuf, recvbuf;
  std::optional<event_set> ev;  // [0] start, [1..K] packed, [K+1..2K] received, [2K+1] exchanged, [2K+2] unpacked
  if (v.problem == local_problem::none) {
    try {
      if (P > 1) {
        send_elements = (cols - lc) * lr;
        recv_elements = lc * (rows - lr);
        constexpr std::size_t max_elements = static_cast<std::size_t>(-1) / sizeof(T);
        if (static_cast<std::size_t>(send_elements) > max_elements || static_cast<std::size_t>(recv_elements) > max_elements)
          fail(name, "the exchange buffers overflow size_t bytes");
        if (!in_window) {
          sendbuf.emplace(local, static_cast<std::size_t>(send_elements) * elem);
          recvbuf.emplace(local, static_cast<std::size_t>(recv_elements) * elem);
        }
        ev.emplace(static_cast<std::size_t>(2 * K + 3));
      }
      write_record_kernel<><<<1, 1, 0, s>>>(mine, rec);
      cuda::check_launch(name, "write_record_kernel");
    } catch (...) {
      v = verdict_from_current_exception(name);
    }
  }
  if (v.problem != local_problem::none) {
    ev.reset();
    recvbuf.reset();
    sendbuf.reset();
  }
  if (v.problem != local_problem::none) fail_after_exchange(name, c, rec, v, local.stream);
  std::vector<rank_rows> ranges(static_cast<std::size_t>(P));
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(P), 0);  // the outputs' byte offsets in the buffer
  bool direct = P > 1;  // every rank's output in the same nccl_buffer
  {
    if (P > 1) check_nccl(ncclAllGather(mine, blocks, block_bytes, ncclUint8, comm, s), name, "ncclAllGather", comm);
    unsigned char* const host = static_cast<unsigned char*>(c.res->host.at_least(name, blocks_bytes, cudaHostAllocPortable));
    check_cuda(cudaMemcpyAsync(host, blocks, blocks_bytes, cudaMemcpyDeviceToHost, s), name, "cudaMemcpyAsync");
    wait_for_stream(name, comm, s, c.timeout);
    check_records(name, host, P);
    for (int q = 0; q < P; ++q) {
      rank_record r;
      std::memcpy(&r, host + static_cast<std::size_t>(q) * block_bytes, sizeof(rank_record));
      ranges[q] = rank_rows{r.v[2], r.v[3], r.v[4], r.v[5]};
      offsets[q] = r.v[7];
      direct = direct && r.v[6] != 0 && r.v[6] == rec.v[6];
    }
  }
  const transpose_plan plan(rows, cols, elem, std::move(ranges), me);
  auto run = [&](const Local& on, const T* src, T* dst, const transpose_step& t) {
    if (!t.empty()) algo::transpose(on, src + t.src_offset, t.r, t.c, t.ld_src, dst + t.dst_offset, t.ld_dst);
  };

  // ---- 1. the block that stays: on the caller's stream alone (one rank), else on the unpack stream,
  // beside the packing and the exchange (the unpacks queue behind it) -----------------------------------------
  if (P == 1) {
    run(local, in, out, plan.stay());
    return out + plan.out_elements();
  }

  // ---- 2. the rest: straight into the peers' outputs, or in chunks through NCCL --------------------------
  const event_set& e = *ev;
  const comm_streams cs = streams_for(c);

  /// Whatever happens from here on, an open NCCL group is closed, and the caller's stream waits for
  /// the side streams before the buffers (freed on the caller's stream) go back.
  struct side_join {
    cudaStream_t caller, exchange, unpack;
    cudaEvent_t exchanged, unpacked;
    bool group_open = false;
    bool joined = false;
    ~side_join() {
      if (group_open) (void)ncclGroupEnd();
      if (!joined) {
        if (cudaEventRecord(exchanged, exchange) == cudaSuccess) (void)cudaStreamWaitEvent(caller, exchanged, 0);
        if (cudaEventRecord(unpacked, unpack) == cudaSuccess) (void)cudaStreamWaitEvent(caller, unpacked, 0);
        (void)cudaGetLastError();
      }
    }
  } join{s, cs.exchange, cs.unpack, e[2 * K + 1], e[2 * K + 2]};

  // From here on a local step that fails (a launch, an event, a copy, an allocation) does not stop
  // this rank: it still posts every send and receive the others expect (so none of them waits for
  // it), skips its remaining local steps, and tells the others in a closing status exchange; every
  // rank's algo::synchronize then raises the same error (the output is undefined on every rank), and
  // this rank raises it at once. Only a failing NCCL call leaves at once (the others' waits end by
  // their timeout).
  std::optional<local_verdict> failed;
  auto attempt = [&](auto&& step) {
    if (failed) return;
    try {
      step();
    } catch (const nccl_error&) {
      throw;
    } catch (...) {
      failed = verdict_from_current_exception(name);
    }
  };
  attempt([&] {
    check_cuda(cudaEventRecord(e[0], s), name, "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(cs.exchange, e[0], 0), name, "cudaStreamWaitEvent");
    check_cuda(cudaStreamWaitEvent(cs.unpack, e[0], 0), name, "cudaStreamWaitEvent");
    run(local.on(cs.unpack), in, out, plan.stay());
  });

  if (direct) {
    // one pitched transpose per peer, on the caller's stream, starting with the next rank (the ranks
    // do not all write to the same peer at once); the addresses are the peers' outputs as mapped here
    for (int i = 1; i < P; ++i) {
      const int q = (me + i) % P;
      attempt([&] {
        const transpose_step t = plan.direct(q);
        if (t.empty()) return;
        T* const peer_out = reinterpret_cast<T*>(window.peers[static_cast<std::size_t>(q)] + offsets[q]);
        algo::detail::transpose(local, in + t.src_offset, peer_out + t.dst_offset,
                                transpose_shape{t.r, t.c, t.ld_src, t.ld_dst, 1, 0, 0});
        cuda::check_launch(name, "the direct transpose into a peer's output");
      });
    }
    attempt([&] {
      check_cuda(cudaEventRecord(e[1], s), name, "cudaEventRecord");
      check_cuda(cudaStreamWaitEvent(cs.exchange, e[1], 0), name, "cudaStreamWaitEvent");
    });
    if (failed) {  // the closing exchange must still follow every write this rank queued
      (void)cudaGetLastError();
      if (cudaEventRecord(e[1], s) == cudaSuccess) (void)cudaStreamWaitEvent(cs.exchange, e[1], 0);
      (void)cudaGetLastError();
    }
  } else {
    // a rank that expected the direct path allocates its exchange buffers now; if it cannot, it still
    // posts its sends and receives (from its input, into its output: the output is undefined then)
    attempt([&] {
      if (!sendbuf) sendbuf.emplace(local, static_cast<std::size_t>(send_elements) * elem);
      if (!recvbuf) recvbuf.emplace(local, static_cast<std::size_t>(recv_elements) * elem);
    });
    if (plan.send_elements() != send_elements || plan.recv_elements() != recv_elements || plan.chunks() != K)
      fail(name, "internal: the plan's buffers differ from the ones allocated before the exchange");
    T* const send = sendbuf ? sendbuf->as<T>() : const_cast<T*>(in);
    T* const recv = recvbuf ? recvbuf->as<T>() : out;
    for (int k = 0; k < K; ++k) {
      // pack chunk k of every other rank's block
      attempt([&] {
        for (int q = 0; q < P; ++q)
          if (q != me) run(local, in, send, plan.pack(q, k));
        check_cuda(cudaEventRecord(e[1 + k], s), name, "cudaEventRecord");
        check_cuda(cudaStreamWaitEvent(cs.exchange, e[1 + k], 0), name, "cudaStreamWaitEvent");
      });
      // exchange chunk k
      check_nccl(ncclGroupStart(), name, "ncclGroupStart", comm);
      join.group_open = true;
      for (int q = 0; q < P; ++q) {
        if (q == me) continue;
        const span_step out_span = plan.send(q, k), in_span = plan.recv(q, k);
        if (out_span.count)
          check_nccl(ncclSend(send + out_span.offset, static_cast<std::size_t>(out_span.count) * elem, ncclUint8, q, comm,
                              cs.exchange),
                     name, "ncclSend", comm);
        if (in_span.count)
          check_nccl(ncclRecv(recv + in_span.offset, static_cast<std::size_t>(in_span.count) * elem, ncclUint8, q, comm,
                              cs.exchange),
                     name, "ncclRecv", comm);
      }
      join.group_open = false;
      check_nccl(ncclGroupEnd(), name, "ncclGroupEnd", comm);
      // unpack chunk k into its columns of out
      attempt([&] {
        check_cuda(cudaEventRecord(e[1 + K + k], cs.exchange), name, "cudaEventRecord");
        check_cuda(cudaStreamWaitEvent(cs.unpack, e[1 + K + k], 0), name, "cudaStreamWaitEvent");
        for (int q = 0; q < P; ++q) {
          if (q == me) continue;
          const copy_step u = plan.unpack(q, k);
          if (u.empty()) continue;
          check_cuda(cudaMemcpy2DAsync(out + u.dst_offset, static_cast<std::size_t>(u.dst_pitch) * elem,
                                       recv + u.src_offset, static_cast<std::size_t>(u.src_pitch) * elem,
                                       static_cast<std::size_t>(u.width) * elem, static_cast<std::size_t>(u.height),
                                       cudaMemcpyDeviceToDevice, cs.unpack),
                     name, "cudaMemcpy2DAsync");
        }
      });
    }
  }

  // the closing status exchange (on the NCCL stream, no host wait): every rank's record again, or
  // this rank's problem; a device check leaves a failure for algo::synchronize
  unsigned char* const status = c.res->status_blocks;
  unsigned char* const my_status = status + static_cast<std::size_t>(me) * block_bytes;
  (void)cudaGetLastError();
  record_and_text failed_record;
  if (failed) failed_record = failing_record(rec, *failed);
  if (failed) write_record_text_kernel<><<<1, 1, 0, cs.exchange>>>(my_status, failed_record);
  else write_record_kernel<><<<1, 1, 0, cs.exchange>>>(my_status, rec);
  if (const cudaError_t launched = cudaGetLastError(); launched != cudaSuccess)
    throw cuda_error(name,
                     "rank " + std::to_string(me) + " of " + std::to_string(P) +
                         ": the closing status exchange (write_record_kernel; the other ranks' next waits end by "
                         "their timeout)",
                     launched);
  check_nccl(ncclAllGather(my_status, status, block_bytes, ncclUint8, comm, cs.exchange), name, "ncclAllGather",
             comm);
  status_check_kernel<><<<1, 32, 0, cs.exchange>>>(status, P, c.res->deferred,
                                                    static_cast<std::uint32_t>(collective::transpose));
  cuda::check_launch(name, "status_check_kernel");
  if (failed) {
    // this rank raises the message the others get from algo::synchronize (when it is the first to fail)
    throw error("algo::transpose: rank " + std::to_string(me) + " of " + std::to_string(P) + ": " +
                std::string(failed_record.text));
  }

  // the caller's stream continues once everything is in place (and the buffers are free to go back)
  check_cuda(cudaEventRecord(e[2 * K + 1], cs.exchange), name, "cudaEventRecord");
  check_cuda(cudaEventRecord(e[2 * K + 2], cs.unpack), name, "cudaEventRecord");
  check_cuda(cudaStreamWaitEvent(s, e[2 * K + 1], 0), name, "cudaStreamWaitEvent");
  check_cuda(cudaStreamWaitEvent(s, e[2 * K + 2], 0), name, "cudaStreamWaitEvent");
  join.joined = true;
  return out + plan.out_elements();
}

}  // namespace algo::detail::nccl
