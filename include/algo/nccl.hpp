// Scans, reductions and transpose across GPUs, over NCCL (not included by <algo/algo.hpp>: only
// programs that include this header need NCCL; link algo::nccl).
//
//   ncclComm_t comm = ...;                         // yours: ncclCommInitRank, ncclCommInitAll, ncclCommSplit
//   auto p = algo::nccl(comm).on(stream);          // .with(...) passes algo::cuda's strategies / resources
//   algo::inclusive_scan(p, d_in, d_in + n_local, d_out);          // this rank's part of the global scan
//   double s = algo::reduce(p, d_x, d_x + n_local, 0.0);           // the same bits on every rank
//
// SPMD, as MPI_Scan / MPI_Exscan / MPI_Allreduce: every rank of the communicator makes the same call
// with its own local range (any length, zero included); the global sequence is the concatenation of
// the local ranges in rank order. Operators need only be associative (non-commutative ones are
// folded in rank order). Bad input on any rank makes every rank throw the same algo::error, naming
// the rank and the problem, before any output is written (docs/multi-gpu.md).
#pragma once

#include "detail/config.hpp"

#if !ALGO_HAS_CUDA
#  error "<algo/nccl.hpp> needs a CUDA translation unit (nvcc)"
#endif

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "error.hpp"
#include "functional.hpp"
#include "numeric.hpp"
#include "policy.hpp"
#include "transpose.hpp"
#include "detail/nccl/numeric.cuh"
#include "detail/nccl/record.hpp"
#include "detail/nccl/runtime.cuh"
#include "detail/nccl/transpose.cuh"
#include "detail/nccl/window.cuh"

namespace algo {

/// The collective policy: the caller's communicator and the algo::cuda policy each rank runs its
/// local passes with (its stream, memory resource and strategies).
template <class Local = cuda_policy<>>
struct nccl_policy {
  /// The caller's communicator (the library never creates one).
  ncclComm_t comm = nullptr;
  /// The algo::cuda policy of this rank's local passes: its stream, memory resource and strategies.
  Local local{};
  /// How long a call waits for the other ranks before it raises algo::nccl_error (code
  /// ncclRemoteError); zero: the environment's ALGO_NCCL_TIMEOUT (seconds), else 300 s.
  std::chrono::milliseconds wait_limit{0};

  /// Run on `s` (a stream of the communicator's device).
  nccl_policy on(cudaStream_t s) const {
    nccl_policy p = *this;
    p.local = local.on(s);
    return p;
  }
  /// A strategy tag or a memory resource for the local algo::cuda passes.
  template <class X>
  auto with(X&& x) const {
    using L = std::decay_t<decltype(local.with(std::forward<X>(x)))>;
    nccl_policy<L> p;
    p.comm = comm;
    p.local = local.with(std::forward<X>(x));
    p.wait_limit = wait_limit;
    return p;
  }
  /// Wait at most `d` for the other ranks (a rank that failed, exited or never made the call);
  /// after such a timeout the communicator must be aborted (docs/multi-gpu.md).
  template <class Rep, class Period>
  nccl_policy timeout(std::chrono::duration<Rep, Period> d) const {
    nccl_policy p = *this;
    p.wait_limit = std::chrono::duration_cast<std::chrono::milliseconds>(d);
    if (p.wait_limit.count() <= 0) p.wait_limit = std::chrono::milliseconds(1);
    return p;
  }
  /// The stream the calls run on (the local policy's).
  cudaStream_t stream() const { return local.stream; }
  /// The communicator and the wait limit, as the algorithms hand them to the implementation.
  detail::nccl::comm_link link() const { return detail::nccl::comm_link(comm, wait_limit); }
};

/// algo::nccl(comm): the collective policy over `comm` (the library never creates communicators).
inline nccl_policy<> nccl(ncclComm_t comm) {
  nccl_policy<> p;
  p.comm = comm;
  return p;
}

/// P is an nccl_policy.
template <class P>
struct is_nccl_policy : std::false_type {};
/// Every nccl_policy is one.
template <class L>
struct is_nccl_policy<nccl_policy<L>> : std::true_type {};

/// Waits for everything queued on the policy's stream, then raises what went wrong since the last
/// call: an NCCL error (ncclCommGetAsyncError), or the error that a reduce_into /
/// transform_reduce_into found on the device because some rank's input was bad (their outputs are
/// then left unwritten on every rank). Call it on every rank.
template <class L>
void synchronize(const nccl_policy<L>& p) {
  const char* name = "synchronize";
  const detail::nccl::comm_info c = detail::nccl::query_comm(name, p.link(), p.local.stream);
  if (c.capturing)
    detail::fail(name, "waits on the host and cannot run while the policy's stream is being captured into a CUDA "
                       "graph; call it after launching the graph");
  detail::nccl::wait_for_stream(name, p.comm, p.local.stream, c.timeout, "the stream's work (its exchanges)");
  detail::nccl::raise_deferred(c);
}

/// Frees what the library keeps for `comm` (side streams, a few hundred bytes of device and pinned
/// host memory per rank, made at the communicator's first use and kept, keyed by the ncclComm_t,
/// until this call: ncclCommDestroy does not free them). Call it once per communicator, after the
/// last collective on it has finished (algo::synchronize) and before another communicator may be
/// created at the same address; an error a reduce_into left for algo::synchronize is dropped with
/// them. A later call on `comm` makes them anew.
inline void nccl_release(ncclComm_t comm) { detail::nccl::comm_table::get().release(comm); }

// ---- memory the other ranks write into -------------------------------------------------------------
/// `count` elements of T on the communicator's device that the other ranks of `comm` can write into
/// directly: NCCL's symmetric memory (ncclMemAlloc, registered with ncclCommWindowRegister).
/// `algo::transpose` over `algo::nccl(comm)` whose output lies in one nccl_buffer on every rank
/// writes each block straight into its owner's output over NVLink (no pack, no exchange buffer, no
/// unpack); any other output takes the exchange through NCCL's all-to-all. Collective: every rank
/// constructs it with the same count, in the same order as its other calls on `comm`, outside graph
/// capture (a rank that cannot allocate makes every rank throw the same algo::error; different
/// counts too). Destroy it on every rank after the collectives that wrote into it have finished
/// (algo::synchronize or the stream's synchronization); its destructor never throws. Where NCCL
/// gives the communicator no symmetric memory, or the ranks are not in one NVLink domain, it is
/// plain device memory and direct() is false.
template <class T>
class nccl_buffer {
  static_assert(std::is_trivially_copyable<T>::value, "algo::nccl_buffer holds trivially copyable elements");

 public:
  /// An empty buffer (no memory, no communicator).
  nccl_buffer() = default;
  /// Allocates and registers `count` elements on every rank of `comm`; waits at most `timeout` for
  /// the others (zero: ALGO_NCCL_TIMEOUT, else 300 s).
  nccl_buffer(ncclComm_t comm, std::size_t count, std::chrono::milliseconds timeout = std::chrono::milliseconds(0))
      : count_(count), b_(comm, checked_bytes(count), timeout) {}
  /// Takes `o`'s memory; `o` is left empty.
  nccl_buffer(nccl_buffer&& o) noexcept : count_(o.count_), b_(std::move(o.b_)) { o.count_ = 0; }
  /// Frees this buffer's memory (as the destructor does) and takes `o`'s; `o` is left empty.
  nccl_buffer& operator=(nccl_buffer&& o) noexcept {
    if (this != &o) {
      b_ = std::move(o.b_);
      count_ = o.count_;
      o.count_ = 0;
    }
    return *this;
  }
  /// The first element (device memory of the communicator's device).
  T* data() const { return reinterpret_cast<T*>(b_.data()); }
  /// The number of elements.
  std::size_t size() const { return count_; }
  /// data()
  T* begin() const { return data(); }
  /// data() + size()
  T* end() const { return data() + count_; }
  /// Whether the other ranks write into it directly (NCCL symmetric memory, every rank mapped).
  bool direct() const { return b_.direct(); }
  /// The communicator it was registered with.
  ncclComm_t comm() const { return b_.comm(); }

 private:
  static std::size_t checked_bytes(std::size_t count) {
    if (count > static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T))
      detail::fail("nccl_buffer", std::to_string(count) + " elements overflow the address space");
    return count * sizeof(T);
  }
  std::size_t count_ = 0;
  detail::nccl::window_buffer b_;
};

// ---- inclusive_scan / exclusive_scan -----------------------------------------------------------------
/// This rank's part of the inclusive scan of the global sequence (plus, in the value type).
template <class L, class InIt, class OutIt>
OutIt inclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first) {
  return detail::nccl::scan<true>("inclusive_scan", p.link(), p.local, first, last, d_first, plus<>{},
                                  detail::no_init_t{});
}
/// This rank's part of the inclusive scan of the global sequence with op, in the value type.
template <class L, class InIt, class OutIt, class Op>
OutIt inclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first, Op op) {
  return detail::nccl::scan<true>("inclusive_scan", p.link(), p.local, first, last, d_first, op, detail::no_init_t{});
}
/// init applies once, at the start of the global sequence (rank 0's first element).
template <class L, class InIt, class OutIt, class Op, class T>
OutIt inclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first, Op op, T init) {
  detail::check_fold<Op, T, InIt>();
  using Acc = detail::accumulator_t<Op, T, detail::iter_value_t<InIt>>;
  return detail::nccl::scan<true>("inclusive_scan", p.link(), p.local, first, last, d_first, op, static_cast<Acc>(init));
}
/// Thrust's form: init is the value type's T{}, operator plus.
template <class L, class InIt, class OutIt>
OutIt exclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first) {
  using T = detail::iter_value_t<InIt>;
  return exclusive_scan(p, first, last, d_first, T{}, plus<T>{});
}
/// This rank's part of the exclusive scan of the global sequence from init (once, at the start of
/// the global sequence), with plus<T>.
template <class L, class InIt, class OutIt, class T>
OutIt exclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first, T init) {
  return exclusive_scan(p, first, last, d_first, init, plus<T>{});
}
/// This rank's part of the exclusive scan of the global sequence from init, with op.
template <class L, class InIt, class OutIt, class T, class Op>
OutIt exclusive_scan(const nccl_policy<L>& p, InIt first, InIt last, OutIt d_first, T init, Op op) {
  detail::check_fold<Op, T, InIt>();
  using Acc = detail::accumulator_t<Op, T, detail::iter_value_t<InIt>>;
  return detail::nccl::scan<false>("exclusive_scan", p.link(), p.local, first, last, d_first, op, static_cast<Acc>(init));
}

// ---- reduce / transform_reduce (every rank returns the same bits) --------------------------------------
namespace detail::nccl {
template <class L, class It, class T, class Op>
T reduce_entry(const char* name, collective kind, const nccl_policy<L>& p, It first, It last, T init, Op op) {
  check_fold<Op, T, It>();
  return reduce<iter_value_t<It>>(
      name, kind, p.link(), p.local, first,
      [&] {
        const std::int64_t n = checked_distance(name, first, last);
        check_iterator(name, "input", p.local, first, n);
        return n;
      },
      init, op, no_output{}, true);
}
template <class L, class It1, class It2, class T, class ReduceOp, class TransformOp>
T transform_reduce2_entry(const nccl_policy<L>& p, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                          TransformOp transform_op) {
  const char* name = "transform_reduce";
  using Z = zip_transform_iterator<It1, It2, TransformOp>;
  check_fold<ReduceOp, T, Z>();
  return reduce<iter_value_t<Z>>(
      name, collective::transform_reduce, p.link(), p.local, Z(first1, first2, transform_op),
      [&] {
        const std::int64_t n = checked_distance(name, first1, last1);
        check_iterator(name, "first input", p.local, first1, n);
        check_iterator(name, "second input", p.local, first2, n);
        return n;
      },
      init, reduce_op, no_output{}, true);
}
}  // namespace detail::nccl

/// The sum of the global sequence from the value type's T{}, returned on every rank (the same bits).
template <class L, class It>
detail::iter_value_t<It> reduce(const nccl_policy<L>& p, It first, It last) {
  using T = detail::iter_value_t<It>;
  return detail::nccl::reduce_entry("reduce", detail::nccl::collective::reduce, p, first, last, T{}, plus<T>{});
}
/// init + the sum of the global sequence with plus<T>, returned on every rank (the same bits).
template <class L, class It, class T>
T reduce(const nccl_policy<L>& p, It first, It last, T init) {
  return detail::nccl::reduce_entry("reduce", detail::nccl::collective::reduce, p, first, last, init, plus<T>{});
}
/// init op x_0 op x_1 ... over the global sequence, in rank order, returned on every rank (the same
/// bits).
template <class L, class It, class T, class Op>
T reduce(const nccl_policy<L>& p, It first, It last, T init, Op op) {
  return detail::nccl::reduce_entry("reduce", detail::nccl::collective::reduce, p, first, last, init, op);
}
/// reduce_op-fold of transform_op(x) over the global sequence onto init, returned on every rank.
template <class L, class It, class T, class ReduceOp, class TransformOp, detail::enable_iterator<It> = 0>
T transform_reduce(const nccl_policy<L>& p, It first, It last, T init, ReduceOp reduce_op, TransformOp transform_op) {
  using X = detail::transform_iterator<It, TransformOp>;
  const char* name = "transform_reduce";
  detail::check_fold<ReduceOp, T, X>();
  return detail::nccl::reduce<detail::iter_value_t<X>>(
      name, detail::nccl::collective::transform_reduce, p.link(), p.local, X(first, transform_op),
      [&] {
        const std::int64_t n = detail::checked_distance(name, first, last);
        detail::check_iterator(name, "input", p.local, first, n);
        return n;
      },
      init, reduce_op, detail::nccl::no_output{}, true);
}
/// Inner product of the global sequences: init + sum of a_i * b_i with plus<T> and multiplies<T>,
/// returned on every rank.
template <class L, class It1, class It2, class T>
T transform_reduce(const nccl_policy<L>& p, It1 first1, It1 last1, It2 first2, T init) {
  return detail::nccl::transform_reduce2_entry(p, first1, last1, first2, init, plus<T>{}, multiplies<T>{});
}
/// reduce_op-fold of transform_op(a_i, b_i) over the global sequences onto init, returned on every
/// rank.
template <class L, class It1, class It2, class T, class ReduceOp, class TransformOp>
T transform_reduce(const nccl_policy<L>& p, It1 first1, It1 last1, It2 first2, T init, ReduceOp reduce_op,
                   TransformOp transform_op) {
  return detail::nccl::transform_reduce2_entry(p, first1, last1, first2, init, reduce_op, transform_op);
}

// ---- reduce_into / transform_reduce_into (on the stream, no host wait) ----------------------------------
// The result lands in *out on every rank (device memory, written on the policy's stream). These do
// not wait for the exchange: when another rank's input is bad, no rank writes *out and the error is
// raised by algo::synchronize(policy) on every rank (the rank whose own input is bad raises it at
// once). Accumulators over 124 bytes are the exception: their records are checked on the host first.
namespace detail::nccl {
template <class V, class L, class It, class Checks, class OutIt, class T, class Op>
void reduce_into_entry(const char* name, collective kind, const nccl_policy<L>& p, It first, Checks&& checks,
                       OutIt out, T init, Op op) {
  reduce<V>(
      name, kind, p.link(), p.local, first,
      [&] {
        const std::int64_t n = checks();
        check_iterator(name, "output", p.local, out, 1);
        return n;
      },
      init, op, cuda::unwrap(out), false);
}
}  // namespace detail::nccl

/// *out = the sum of the global sequence from T{}, on every rank, written on the policy's stream
/// without a host wait (errors another rank found: algo::synchronize).
template <class L, class It, class OutIt>
void reduce_into(const nccl_policy<L>& p, It first, It last, OutIt out) {
  using T = detail::iter_value_t<It>;
  reduce_into(p, first, last, out, T{}, plus<T>{});
}
/// *out = init + the sum of the global sequence with plus<T>, on every rank (on the stream, no host wait).
template <class L, class It, class OutIt, class T>
void reduce_into(const nccl_policy<L>& p, It first, It last, OutIt out, T init) {
  reduce_into(p, first, last, out, init, plus<T>{});
}
/// *out = init op x_0 op ... over the global sequence in rank order, on every rank (on the stream,
/// no host wait).
template <class L, class It, class OutIt, class T, class Op>
void reduce_into(const nccl_policy<L>& p, It first, It last, OutIt out, T init, Op op) {
  const char* name = "reduce_into";
  detail::check_fold<Op, T, It>();
  detail::nccl::reduce_into_entry<detail::iter_value_t<It>>(
      name, detail::nccl::collective::reduce_into, p, first,
      [&] {
        const std::int64_t n = detail::checked_distance(name, first, last);
        detail::check_iterator(name, "input", p.local, first, n);
        return n;
      },
      out, init, op);
}
/// *out = reduce_op-fold of transform_op(x) over the global sequence onto init, on every rank (on
/// the stream, no host wait).
template <class L, class It, class OutIt, class T, class ReduceOp, class TransformOp>
void transform_reduce_into(const nccl_policy<L>& p, It first, It last, OutIt out, T init, ReduceOp reduce_op,
                           TransformOp transform_op) {
  const char* name = "transform_reduce_into";
  using X = detail::transform_iterator<It, TransformOp>;
  detail::check_fold<ReduceOp, T, X>();
  detail::nccl::reduce_into_entry<detail::iter_value_t<X>>(
      name, detail::nccl::collective::transform_reduce_into, p, X(first, transform_op),
      [&] {
        const std::int64_t n = detail::checked_distance(name, first, last);
        detail::check_iterator(name, "input", p.local, first, n);
        return n;
      },
      out, init, reduce_op);
}
/// *out = the inner product of the global sequences (plus<T>, multiplies<T>), on every rank (on the
/// stream, no host wait).
template <class L, class It1, class It2, class OutIt, class T>
void transform_reduce_into(const nccl_policy<L>& p, It1 first1, It1 last1, It2 first2, OutIt out, T init) {
  transform_reduce_into(p, first1, last1, first2, out, init, plus<T>{}, multiplies<T>{});
}
/// *out = reduce_op-fold of transform_op(a_i, b_i) over the global sequences onto init, on every
/// rank (on the stream, no host wait).
template <class L, class It1, class It2, class OutIt, class T, class ReduceOp, class TransformOp>
void transform_reduce_into(const nccl_policy<L>& p, It1 first1, It1 last1, It2 first2, OutIt out, T init,
                           ReduceOp reduce_op, TransformOp transform_op) {
  const char* name = "transform_reduce_into";
  using Z = detail::zip_transform_iterator<It1, It2, TransformOp>;
  detail::check_fold<ReduceOp, T, Z>();
  detail::nccl::reduce_into_entry<detail::iter_value_t<Z>>(
      name, detail::nccl::collective::transform_reduce_into, p, Z(first1, first2, transform_op),
      [&] {
        const std::int64_t n = detail::checked_distance(name, first1, last1);
        detail::check_iterator(name, "first input", p.local, first1, n);
        detail::check_iterator(name, "second input", p.local, first2, n);
        return n;
      },
      out, init, reduce_op);
}

// ---- transpose ----------------------------------------------------------------------------------------
/// A contiguous range of rows [begin, end).
struct row_range {
  std::int64_t begin = 0;  ///< the first row
  std::int64_t end = 0;    ///< one past the last row
};

/// A rows x cols row-major matrix distributed by contiguous row blocks: this rank holds rows
/// [in_rows.begin, in_rows.end) at `in` (packed, row-major, (end - begin) x cols). The cols x rows
/// result is distributed the same way: this rank receives result rows [out_rows.begin,
/// out_rows.end) at `out` ((end - begin) x rows). The ranges of the ranks must cover [0, rows) and
/// [0, cols) in rank order (any lengths, zero included). Asynchronous after one small exchange (the
/// host waits for the ranks' ranges). Returns out + its element count. When every rank's `out` lies
/// in one algo::nccl_buffer whose direct() is true, each block is written straight into its owner's
/// output (one pass); otherwise the blocks go through NCCL's all-to-all (pack, exchange, unpack).
template <class L, class T>
T* transpose(const nccl_policy<L>& p, const T* in, std::int64_t rows, std::int64_t cols, row_range in_rows, T* out,
             row_range out_rows) {
  return detail::nccl::transpose(p.link(), p.local, in, rows, cols, in_rows.begin, in_rows.end, out, out_rows.begin,
                                 out_rows.end);
}

}  // namespace algo
