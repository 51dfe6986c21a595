// Scans and reductions across the ranks of an NCCL communicator (<algo/nccl.hpp>).
//
//   1. each rank checks its arguments (the single-GPU checks; the communicator's device) and, when
//      they are fine, folds its local range into a partial with algo::cuda (reduce_into: no host wait);
//   2. one in-place ncclAllGather of 256 bytes per rank carries every rank's record (verdict, length,
//      element sizes, type hash) and partial (any trivially copyable type, as bytes);
//   3. a one-warp kernel checks every record (the same code on every rank: the same verdict) and folds
//      the partials in rank order: all P of them for a reduction (every rank folds the same bytes in
//      the same order, so the result is bit-identical everywhere), those of the lower ranks for a scan
//      (the rank's prefix); it writes the result to mapped host memory, or, for reduce_into, to the
//      caller's output;
//   4. the host waits for it (reductions that return, and scans, which must know the verdict before
//      they write) and raises the common error if any rank was wrong; a scan then runs its local scan
//      with algo::cuda, seeded with the prefix (init applies once, at the global start).
//
// A partial is the fold of the rank's elements alone: for a plus on arithmetic types it starts from
// the identity (0, or -0.0 for floating point, which keeps every sum exact), for any other operator
// it is folded as (present, value) pairs, so that no identity is needed and operators need only be
// associative. Partials are combined with op(Acc, Acc).
// Accumulators over 128 bytes (with the pair's flag) do not fit the first exchange: their records
// go first (with a host wait), their partials in a second all-gather.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../cuda/numeric.cuh"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"
#include "../scan_kind.hpp"
#include "../validate.hpp"
#include "fold.hpp"
#include "record.hpp"
#include "runtime.cuh"

namespace algo::detail::nccl {

// ---- partials ----------------------------------------------------------------------------------------
/// Plus on an arithmetic accumulator: the partial starts from the identity (0; -0.0 for floating
/// point, the exact identity of IEEE addition).
template <class Op, class Acc>
inline constexpr bool plus_identity_v =
    is_plus_on_v<Op, Acc> && std::is_arithmetic<Acc>::value && !std::is_same<Acc, bool>::value;

template <class Op, class Acc>
using partial_t = std::conditional_t<plus_identity_v<Op, Acc>, Acc, lifted<Acc>>;

/// Whether a partial travels in the first exchange, in its block beside the record (else the records
/// go first, with a host wait, and the partials in a second all-gather). The one test used by every
/// path: the exchange itself and the reductions that decide whether they may be captured.
template <class Partial>
inline constexpr bool fits_first_exchange_v = sizeof(Partial) <= inline_payload_bytes && alignof(Partial) <= 128;

template <class Acc>
Acc plus_identity() {
  if constexpr (std::is_floating_point<Acc>::value) return -Acc(0);
  else return Acc(0);
}

/// The local reduce's output iterator: the one thread that writes the reduce's result writes the
/// rank's record (carried by value) into its block first, then the partial beside it, so the record
/// costs no launch of its own (or no output at all: `block` null).
template <class W>
struct record_then_partial {
  unsigned char* block;
  W* partial;
  rank_record rec;
  struct proxy {
    const record_then_partial* self;
    __device__ void operator=(const W& v) const {
      if (self->block) memcpy(self->block, &self->rec, sizeof(rank_record));
      *self->partial = v;
    }
  };
  __device__ proxy operator*() const { return proxy{this}; }
};

/// The rank's partial (n >= 1 elements) into `payload`, on the local policy's stream, and, when
/// `block` is not null, its record into `block` (by the same thread, after the fold).
template <class Local, class It, class Acc, class Op>
void local_partial(const Local& local, It first, std::int64_t n, unsigned char* payload, Op op, unsigned char* block,
                   const rank_record& rec) {
  if constexpr (plus_identity_v<Op, Acc>) {
    reduce_into(local, first, n, record_then_partial<Acc>{block, reinterpret_cast<Acc*>(payload), rec},
                plus_identity<Acc>(), op);
  } else {
    using L = lifted<Acc>;
    L empty;
    std::memset(static_cast<void*>(&empty), 0, sizeof(L));
    reduce_into(local, transform_iterator<It, lift_value<Acc>>(first, lift_value<Acc>{}), n,
                record_then_partial<L>{block, reinterpret_cast<L*>(payload), rec}, empty, lifted_op<Op, Acc>{op});
  }
}

// ---- the fold -------------------------------------------------------------------------------------------
/// Where the fold kernel puts its result: host memory (mapped, or a device area copied back).
/// Layout: [0] flag (the ticket, written last), [4] has, [8] bad; value at 64; blocks (only when bad) after.
template <class T>
inline constexpr std::size_t value_offset = 64;
template <class T>
inline constexpr std::size_t blocks_offset = 64 + (sizeof(T) + 63) / 64 * 64;

/// One warp. Checks the records (first_bad_rank), then folds the partials of ranks [0, upto) in
/// rank order onto init (when there is one) and writes the result: to `slot` (a host slot: the
/// value as Result, its presence, the verdict, the blocks when bad, then the ticket), and, when
/// `out_enabled`, through `out` (reduce_into: Result(acc), or init itself when every range is empty).
/// `payloads` holds partial_t values with a stride of `payload_stride` bytes.
template <class Acc, class Partial, class Result, class Op, class OutIt>
__global__ void fold_kernel(const unsigned char* blocks, const unsigned char* payloads, std::size_t payload_stride,
                            int nranks, int upto, cuda::maybe_value<Acc> init, Result init_result, Op op, OutIt out,
                            bool out_enabled, unsigned char* slot, unsigned ticket, unsigned char* deferred,
                            std::uint32_t algorithm) {
  __shared__ int bad;
  if (threadIdx.x == 0) bad = first_bad_rank(blocks, nranks) >= 0 ? 1 : 0;
  __syncthreads();
  if (bad) {
    unsigned char* dst = slot ? slot + blocks_offset<Result> : (deferred ? deferred + 64 : nullptr);
    if (dst) {
      const std::size_t words = static_cast<std::size_t>(nranks) * block_bytes / 16;
      for (std::size_t i = threadIdx.x; i < words; i += blockDim.x)
        reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(blocks)[i];
    }
  } else if (threadIdx.x == 0) {
    const fold_value<Acc> acc =
        fold_partials<Acc, Partial>(blocks, payloads, payload_stride, upto, init.has, init.value, op);
    const bool any = acc.any;
    Result result = any ? static_cast<Result>(acc.value) : init_result;
    if (out_enabled) *out = result;
    if (slot) {
      memcpy(slot + value_offset<Result>, &result, sizeof(Result));
      *reinterpret_cast<volatile unsigned*>(slot + 4) = acc.has ? 1u : 0u;
    }
  }
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (slot) {
      *reinterpret_cast<volatile unsigned*>(slot + 8) = static_cast<unsigned>(bad);
      __threadfence_system();
      *reinterpret_cast<volatile unsigned*>(slot) = ticket;
    } else if (deferred && bad) {
      *reinterpret_cast<volatile unsigned*>(deferred + 4) = static_cast<unsigned>(nranks);
      *reinterpret_cast<volatile unsigned*>(deferred + 8) = algorithm;
      __threadfence_system();
      *reinterpret_cast<volatile unsigned*>(deferred) = 1u;
    }
  }
}

/// An output iterator that writes nothing (the fold's out when the result goes to the host only).
struct no_output {
  struct proxy {
    template <class T>
    __device__ void operator=(const T&) const {}
  };
  __device__ proxy operator*() const { return {}; }
};

// ---- one exchange-and-fold, the common part of every scan and reduction --------------------------------
struct fold_request {
  const char* name;
  collective kind;
  int upto;              // fold the partials of ranks [0, upto)
  bool wait;             // the host waits for the verdict and the result
  bool compute_partial;  // this rank's partial is needed by someone (the last rank's scan partial is not)
};

/// The result of a fold that the host waited for.
template <class Result>
struct fold_result {
  Result value;
  bool has;
};

/// Steps 1-3 (and 4's wait) for a range of n elements of value type V folded in Acc, result in Result.
/// `partial(payload)` queues the rank's partial. `out` (with out_enabled) receives the result on
/// the device. Returns the host's copy of the result when req.wait.
template <class V, class Acc, class Result, class Local, class PartialFn, class Op, class OutIt>
fold_result<Result> exchange_and_fold(const fold_request& req, const comm_info& c, const Local& local,
                                      const local_verdict& verdict, std::int64_t n, PartialFn&& partial,
                                      cuda::maybe_value<Acc> init, Result init_result, Op op, OutIt out,
                                      bool out_enabled) {
  using Partial = partial_t<Op, Acc>;
  static_assert(std::is_trivially_copyable<Acc>::value, "algo::nccl: the accumulator must be trivially copyable");
  static_assert(std::is_trivially_copyable<Result>::value, "algo::nccl: the result must be trivially copyable");
  constexpr bool inline_payload = fits_first_exchange_v<Partial>;
  const rank_record rec = make_record(req.kind, c, sizeof(V), sizeof(Acc), sizeof(Partial), type_hash<V, Acc, Op>(), n);

  const cudaStream_t s = local.stream;
  const std::size_t P = static_cast<std::size_t>(c.nranks);
  // the second exchange (partials over 124 bytes): per rank, the partial (padded to 256 bytes) and a
  // status block (the rank's record again, or its problem when it failed between the exchanges)
  const std::size_t status_offset = (sizeof(Partial) + 255) / 256 * 256;
  const std::size_t stride2 = status_offset + block_bytes;
  const std::size_t blocks_bytes = P * block_bytes;
  const std::size_t second_bytes = inline_payload ? 0 : P * stride2;
  constexpr std::size_t slot_bytes = blocks_offset<Result>;  // + blocks, sized at run time
  const std::size_t host_bytes = slot_bytes + blocks_bytes;
  const bool need_host = req.wait || !inline_payload;

  // everything up to the all-gather: any exception here (memory, a launch, the local partial)
  // becomes this rank's problem, and the rank still joins the exchange (fail_after_exchange, with
  // the communicator's own buffers), so that no peer waits for it forever
  local_verdict v = verdict;
  host_slot hs;
  bool device_slot = false;
  std::optional<cuda::temporary_buffer> buf;
  unsigned char *blocks = nullptr, *second = nullptr, *dslot = nullptr, *mine = nullptr, *my_payload = nullptr;
  auto set_up = [&](bool failing) {
    if (need_host) hs = thread_host_slot(req.name, host_bytes);
    device_slot = need_host && !hs.mapped;
    buf.emplace(local, blocks_bytes + second_bytes + (device_slot ? host_bytes : 0));
    blocks = buf->as<unsigned char>();
    second = blocks + blocks_bytes;
    dslot = device_slot ? second + second_bytes : nullptr;
    mine = blocks + static_cast<std::size_t>(c.rank) * block_bytes;
    my_payload = inline_payload ? mine + record_bytes : second + static_cast<std::size_t>(c.rank) * stride2;
    if (failing) {
      write_record_text_kernel<><<<1, 1, 0, s>>>(mine, failing_record(rec, v));
      cuda::check_launch(req.name, "write_record_text_kernel");
    } else {
      // the record: written by the local reduce's last thread when there is one (no launch of its own)
      const bool with_partial = n > 0 && req.compute_partial;
      if (!with_partial) {
        write_record_kernel<><<<1, 1, 0, s>>>(mine, rec);
        cuda::check_launch(req.name, "write_record_kernel");
      }
      if (!inline_payload) {
        write_record_kernel<><<<1, 1, 0, s>>>(my_payload + status_offset, rec);
        cuda::check_launch(req.name, "write_record_kernel");
      }
      if (with_partial) partial(my_payload, mine, rec);
    }
  };
  if (v.problem == local_problem::none) {
    try {
      set_up(false);
    } catch (...) {
      buf.reset();
      v = verdict_from_current_exception(req.name);
    }
  }
  if (v.problem != local_problem::none) {
    if (c.capturing && !req.wait && inline_payload) {
      // a call that does not wait, inside a stream capture: the other ranks capture their exchange
      // (it runs when the graph is launched), so this rank captures its failing record the same way
      // rather than exchanging now; at every launch of the graphs every rank's fold finds it, no
      // rank writes *out, and algo::synchronize raises the same error on every rank
      if (c.device != c.comm_device)
        fail(req.name, "rank " + std::to_string(c.rank) + " of " + std::to_string(c.nranks) +
                           ": the communicator belongs to device " + std::to_string(c.comm_device) +
                           " but the call runs on device " + std::to_string(c.device) +
                           "; inside a stream capture this rank cannot take part in the captured exchange, so the "
                           "other ranks' graphs must not be launched");
      set_up(true);  // an exception here leaves this rank out of the captured exchange (as above)
    } else {
      fail_after_exchange(req.name, c, rec, v, local.stream);
    }
  }
  // one rank: the in-place all-gather would copy nothing
  if (c.nranks > 1)
    check_nccl(ncclAllGather(mine, blocks, block_bytes, ncclUint8, c.comm, s), req.name, "ncclAllGather", c.comm);

  if constexpr (!inline_payload) {
    // records first: every rank must know they agree (and the partial's size) before the second
    // exchange. A rank that fails between the two exchanges (a copy, its local partial found faulty
    // by the wait) still joins the second one, with its problem in its status block, so that every
    // rank raises the same error; only an NCCL failure or a wait that timed out leaves at once
    std::optional<local_verdict> between;
    try {
      check_cuda(cudaMemcpyAsync(hs.host + slot_bytes, blocks, blocks_bytes, cudaMemcpyDeviceToHost, s), req.name,
                 "cudaMemcpyAsync");
      wait_for_stream(req.name, c.comm, s, c.timeout);
    } catch (const nccl_error&) {
      throw;
    } catch (...) {
      between = verdict_from_current_exception(req.name);
    }
    if (!between) check_records(req.name, hs.host + slot_bytes, c.nranks);  // the same verdict on every rank
    if (between) {
      (void)cudaGetLastError();
      write_record_text_kernel<><<<1, 1, 0, s>>>(my_payload + status_offset, failing_record(rec, *between));
      if (const cudaError_t launched = cudaGetLastError(); launched != cudaSuccess)
        throw cuda_error(req.name,
                         "rank " + std::to_string(c.rank) + " of " + std::to_string(c.nranks) + " (" + between->text +
                             "): sending its problem to the other ranks (write_record_text_kernel)",
                         launched);
    }
    if (c.nranks > 1)
      check_nccl(ncclAllGather(my_payload, second, stride2, ncclUint8, c.comm, s), req.name, "ncclAllGather", c.comm);
    check_cuda(cudaMemcpy2DAsync(hs.host + slot_bytes, block_bytes, second + status_offset, stride2, block_bytes, P,
                                 cudaMemcpyDeviceToHost, s),
               req.name, "cudaMemcpy2DAsync");
    wait_for_stream(req.name, c.comm, s, c.timeout);
    check_records(req.name, hs.host + slot_bytes, c.nranks);
    if (between) fail(req.name, "internal: this rank's problem did not reach the second exchange");
  }

  const unsigned ticket = next_ticket();
  unsigned char* kernel_slot = req.wait ? (device_slot ? dslot : hs.host) : nullptr;
  unsigned char* deferred = nullptr;
  if (!req.wait) deferred = deferred_for(c);
  const unsigned char* payloads = inline_payload ? blocks + record_bytes : second;
  const std::size_t stride = inline_payload ? block_bytes : stride2;
  if (req.wait && !device_slot) *reinterpret_cast<volatile unsigned*>(hs.host) = 0;
  fold_kernel<Acc, Partial, Result><<<1, 32, 0, s>>>(blocks, payloads, stride, c.nranks, req.upto, init, init_result,
                                                     accumulate_with<Op, Acc>{op}, out, out_enabled, kernel_slot,
                                                     ticket, deferred, static_cast<std::uint32_t>(req.kind));
  cuda::check_launch(req.name, "fold_kernel");

  fold_result<Result> r{init_result, false};
  if (!req.wait) return r;
  if (device_slot) {
    check_cuda(cudaMemcpyAsync(hs.host, dslot, host_bytes, cudaMemcpyDeviceToHost, s), req.name, "cudaMemcpyAsync");
    wait_for_stream(req.name, c.comm, s, c.timeout);
  } else {
    wait_for_flag(req.name, c, s, reinterpret_cast<volatile unsigned*>(hs.host), ticket);
  }
  unsigned bad = 0, has = 0;
  std::memcpy(&bad, hs.host + 8, 4);
  std::memcpy(&has, hs.host + 4, 4);
  if (bad) {
    check_records(req.name, hs.host + slot_bytes, c.nranks);
    fail(req.name, "internal: the device found a problem the host does not see");
  }
  std::memcpy(static_cast<void*>(&r.value), hs.host + value_offset<Result>, sizeof(Result));
  r.has = has != 0;
  return r;
}

// ---- the local scan, seeded with a prefix known at run time -------------------------------------------
template <class... S, bool Inclusive, class InIt, class OutIt, class Op, class Acc>
void local_scan(const cuda_policy<S...>& policy, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op,
                cuda::maybe_value<Acc> init) {
  using Policy = cuda_policy<S...>;
  auto in = cuda::unwrap(first);
  auto o = cuda::unwrap(out);
  const cuda::scan_problem<Acc, decltype(in), decltype(o), accumulate_with<Op, Acc>> problem{
      in, o, n, accumulate_with<Op, Acc>{op}, init, !Inclusive, Inclusive ? "inclusive_scan" : "exclusive_scan"};
  cuda::run_scan(policy, typename Policy::scan_strategy{}, typename Policy::warp_phase{}, typename Policy::block_scan{},
                 problem);
}

// ---- entry points (called by <algo/nccl.hpp> with the local algo::cuda policy) ---------------------------
/// Scans: Init is no_init_t (inclusive without init) or the accumulator type already.
template <bool Inclusive, class Local, class InIt, class OutIt, class Op, class Init>
OutIt scan(const char* name, const comm_link& comm, const Local& local, InIt first, InIt last, OutIt d_first, Op op,
           Init init) {
  using V = iter_value_t<InIt>;
  using Acc = scan_accumulator_t<InIt, Init>;
  static_assert(std::is_trivially_copyable<Acc>::value && std::is_default_constructible<Acc>::value,
                "algo::nccl scans need a trivially copyable, default-constructible accumulator");
  const comm_info c = query_comm(name, comm, local.stream);
  std::int64_t n = 0;
  const local_verdict v = run_local_checks(name, c, [&] {
    n = checked_distance(name, first, last);
    check_iterator(name, "input", local, first, n);
    check_iterator(name, "output", local, d_first, n);
  });
  cuda::maybe_value<Acc> seed = cuda::none<Acc>();
  if constexpr (!std::is_same<Init, no_init_t>::value) seed = cuda::some(static_cast<Acc>(init));
  // what the fold returns when no lower rank has elements: the init itself (or nothing: has = 0)
  Acc seed_value;
  std::memset(static_cast<void*>(&seed_value), 0, sizeof(Acc));
  if (seed.has) seed_value = seed.value;
  const fold_request req{name, Inclusive ? collective::inclusive_scan : collective::exclusive_scan, c.rank, true,
                         c.rank + 1 < c.nranks};
  const fold_result<Acc> prefix = exchange_and_fold<V, Acc, Acc>(
      req, c, local, v, n, [&](unsigned char* payload, unsigned char* block, const rank_record& r) {
        local_partial<Local, InIt, Acc>(local, first, n, payload, op, block, r);
      },
      seed, seed_value, op, no_output{}, false);
  if (n == 0) return d_first;
  local_scan(local, scan_kind<Inclusive>{}, first, n, d_first, op,
             prefix.has ? cuda::some(prefix.value) : cuda::none<Acc>());
  return d_first + n;
}

/// Reductions of a ready-made input iterator (transform / zip adaptors included). `checks` runs the
/// single-GPU checks and returns n. Returns the result when `wait`, else writes it through out.
template <class V, class T, class Local, class It, class Checks, class Op, class OutIt>
T reduce(const char* name, collective kind, const comm_link& comm, const Local& local, It first, Checks&& checks, T init,
         Op op, OutIt out, bool wait) {
  using Acc = accumulator_t<Op, T, V>;
  static_assert(std::is_trivially_copyable<Acc>::value && std::is_default_constructible<Acc>::value,
                "algo::nccl reductions need a trivially copyable, default-constructible accumulator");
  const comm_info c = query_comm(name, comm, local.stream);
  std::int64_t n = 0;
  // reduce_into never waits (so it may be captured into a CUDA graph), unless its partial is too
  // large for the first exchange
  constexpr bool inline_payload = fits_first_exchange_v<partial_t<Op, Acc>>;
  const local_verdict v = run_local_checks(name, c, [&] { n = checks(); }, !wait && inline_payload);
  // one rank returning to the host: nothing to exchange, no record to check, no fold to queue; the
  // local reduce with init is the whole call (algo::cuda's own path: its time, not a second kernel
  // and a host slot on top of it)
  if (c.nranks == 1 && wait && v.problem == local_problem::none) {
    if (n == 0) return init;
    return reduce_nonempty(local, first, n, init, op);
  }
  const fold_request req{name, kind, c.nranks, wait, true};
  const fold_result<T> r = exchange_and_fold<V, Acc, T>(
      req, c, local, v, n, [&](unsigned char* payload, unsigned char* block, const rank_record& r) {
        local_partial<Local, It, Acc>(local, first, n, payload, op, block, r);
      },
      cuda::some(static_cast<Acc>(init)), init, op, out, !wait);
  return r.value;
}

}  // namespace algo::detail::nccl
