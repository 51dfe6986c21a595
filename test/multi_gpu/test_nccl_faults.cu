// Faults on one rank that are not about its input (issue 26): the last rank ("bad") fails in a way the
// test injects, and every other rank must raise an error within its timeout (none hangs: the
// launcher kills a hung test and fails it), the same error on every rank where the failing rank can
// still tell the others. One case per run (--case):
//
//   alloc       the bad rank's memory resource fails every allocation: reduce, inclusive_scan,
//               transpose and reduce_into fail on every rank with the same algo::error, naming the
//               rank and the failure, before any output is written; then the communicator still works
//   scan_late   the bad rank's resource fails from its second allocation on, with the reduce-then-scan
//               strategy (whose local scan allocates after the exchange): the bad rank raises its
//               error, every other rank's part of the scan is complete and right
//   trap        a kernel traps on the bad rank inside a reduction (its context is lost): the bad rank
//               raises algo::cuda_error, aborts the communicator and exits; every other rank raises
//               algo::nccl_error (ncclRemoteError, the same text) within its timeout, aborts the
//               communicator, and its stream drains
//   trap2       the same in a reduction whose partials go in a second exchange (over 124 bytes): the
//               trap is found between the two exchanges
//   exit        the bad rank's process ends in the middle of a call (in its resource's allocate):
//               the others raise algo::nccl_error within their timeout and abort
//   stop        (threads) the bad rank never makes the call: the others raise algo::nccl_error
#include <algo/nccl.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

using namespace std::chrono_literals;
constexpr auto fault_timeout = 5s;

/// A resource that fails (throws, as a cudaMalloc that failed makes the caching resource throw) from
/// its `fail_from`-th allocation on (1-based), or ends the process there (`exit_instead`).
class faulty_resource final : public algo::device_memory_resource {
 public:
  faulty_resource(int fail_from, bool exit_instead) : fail_from_(fail_from), exit_(exit_instead) {}
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    if (++count_ >= fail_from_) {
      if (exit_) {
        std::fflush(stdout);
        std::_Exit(mg::planned_exit);
      }
      throw algo::cuda_error("memory_resource", "cudaMalloc (injected)", cudaErrorMemoryAllocation);
    }
    return algo::default_device_resource().allocate(bytes, stream);
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
    algo::default_device_resource().deallocate(p, bytes, stream);
  }

 private:
  int count_ = 0;
  int fail_from_;
  bool exit_;
};

using mg::expect_common_error;
using mg::expect_working;

/// x on every rank but `bad`, where the kernel that reads it traps.
struct trap_on {
  int rank, bad;
  __host__ __device__ long long operator()(int x) const {
#ifdef __CUDA_ARCH__
    if (rank == bad) __trap();
#endif
    return x;
  }
};

/// A 160-byte accumulator: its partial does not fit the first exchange (two exchanges).
struct wide {
  long long v[20];
};
struct wide_of {
  int rank, bad;
  __host__ __device__ wide operator()(int x) const {
#ifdef __CUDA_ARCH__
    if (rank == bad) __trap();
#endif
    wide w{};
    w.v[0] = x;
    return w;
  }
};
struct wide_plus {
  __host__ __device__ wide operator()(const wide& a, const wide& b) const {
    wide r;
    for (int i = 0; i < 20; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
};

/// After a fault that the other ranks can only see as silence: the survivors' error is an
/// algo::nccl_error (a timeout: ncclRemoteError and the same text everywhere; or NCCL's own report
/// of the lost peer), raised within the timeout and a margin; they abort the communicator, after
/// which their stream drains. The bad rank does `on_bad` (it may end its process).
void expect_survivors_give_up(const mg::rank_context& ctx, mg::checker& ck, cudaStream_t stream, const std::string& what,
                              bool bad_exits, const std::function<void()>& call) {
  const bool me_bad = ctx.rank == ctx.nranks - 1;
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  bool nccl = false, other = false;
  ncclResult_t code = ncclSuccess;
  try {
    call();
  } catch (const algo::nccl_error& e) {
    nccl = true;
    code = e.code();
    message = e.what();
  } catch (const algo::error& e) {
    other = true;
    message = e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("rank %d: %s -> after %.1f s: %s\n", ctx.rank, what.c_str(), waited, message.c_str());
  std::fflush(stdout);
  if (me_bad) {
    // the failing rank: its own error (a lost context: algo::cuda_error), then what the README says
    // it can still do: abort the communicator, release algo's state for it, and exit
    ck.expect(nccl || other, what + ": the failing rank raised nothing");
  } else {
    ck.expect(nccl, what + ": a surviving rank did not raise algo::nccl_error (" + message + ")");
    const bool timed_out = code == ncclRemoteError && message.find("no answer from the other ranks within 5 s") != std::string::npos;
    ck.expect(timed_out || code != ncclSuccess, what + ": unexpected error code");
    ck.expect(waited < 5.0 + 20.0, what + ": the error came after " + std::to_string(waited) + " s");
  }
  const ncclResult_t aborted = ncclCommAbort(ctx.comm);
  *ctx.aborted = true;
  ck.expect(aborted == ncclSuccess || me_bad, what + ": ncclCommAbort failed");
  algo::nccl_release(ctx.comm);
  if (me_bad) {
    std::printf("rank %d: aborted the communicator after its fault%s\n", ctx.rank, bad_exits ? "; exiting" : "");
    std::fflush(stdout);
    if (bad_exits && ck.failures == 0) std::_Exit(mg::planned_exit);
    return;
  }
  // the survivor's stream: the aborted NCCL kernels end, so the stream drains
  const cudaError_t drained = cudaStreamSynchronize(stream);
  ck.expect(drained == cudaSuccess, what + ": the stream did not drain after the abort: " + cudaGetErrorString(drained));
}

void body(const mg::rank_context& ctx, mg::checker& ck) {
  cudaStream_t stream;
  mg::die_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const int bad = ctx.nranks - 1;
  const bool me_bad = ctx.rank == bad;
  const std::string bad_rank = "rank " + std::to_string(bad) + " of " + std::to_string(ctx.nranks);
  const auto p = algo::nccl(ctx.comm).on(stream).timeout(fault_timeout);
  // random data (a fixed seed per index), never zeros
  std::vector<int> h(5000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = mg::int_at(static_cast<std::int64_t>(i) + 1000 * ctx.rank);
  mg::dbuf<int> data(h);
  mg::dbuf<int> out(std::vector<int>(5000, -7));
  auto out_untouched = [&](const std::string& what) {
    mg::die_cuda(cudaStreamSynchronize(stream), "sync");
    bool same = true;
    for (int v : out.host()) same = same && v == -7;
    ck.expect(same, what + ": the output was written");
  };
  // the communicator's first use, outside any fault (every case below starts from a working one)
  expect_working(ctx, ck, stream, "the first call");

  const std::string& c = ctx.fault;
  if (c == "alloc") {
    faulty_resource broken(1, false);
    const auto q = me_bad ? p.with(broken) : p;
    const std::string needle = bad_rank + ": algo::memory_resource: cudaMalloc (injected) failed";
    expect_common_error(ctx, ck, "reduce, allocation fails", [&] { algo::reduce(q, data.p, data.p + 5000, 0LL); }, needle);
    expect_working(ctx, ck, stream, "reduce, allocation fails");
    expect_common_error(ctx, ck, "inclusive_scan, allocation fails",
                        [&] { algo::inclusive_scan(q, data.p, data.p + 5000, out.p); }, needle);
    out_untouched("inclusive_scan, allocation fails");
    const std::int64_t rows = 8 * ctx.nranks, cols = 4 * ctx.nranks;
    mg::dbuf<float> a(static_cast<std::size_t>(rows * cols)), t(std::vector<float>(rows * cols, -7.0f));
    expect_common_error(ctx, ck, "transpose, allocation fails",
                        [&] {
                          algo::transpose(q, a.p, rows, cols, algo::row_range{8 * ctx.rank, 8 * ctx.rank + 8}, t.p,
                                          algo::row_range{4 * ctx.rank, 4 * ctx.rank + 4});
                        },
                        needle);
    mg::die_cuda(cudaStreamSynchronize(stream), "sync");
    bool t_same = true;
    for (float v : t.host()) t_same = t_same && v == -7.0f;
    ck.expect(t_same, "transpose, allocation fails: the output was written");
    {
      std::string message;
      try {
        algo::reduce_into(q, data.p, data.p + 5000, out.p, 0);
        algo::synchronize(q);
      } catch (const algo::error& e) {
        message = e.what();
      }
      const std::uint64_t hm = mg::hash_string(message);
      ck.expect(message.find(needle) != std::string::npos, "reduce_into, allocation fails: message " + message);
      ck.expect(mg::same_on_all_ranks(ctx, &hm, sizeof hm), "reduce_into, allocation fails: ranks differ: " + message);
      out_untouched("reduce_into, allocation fails");
    }
    expect_working(ctx, ck, stream, "allocation failures");
  } else if (c == "scan_late") {
    // the exchange's buffer comes first (allocation 1); the local scan's come after the exchange
    // (2^20 elements a rank: a size at which the local scan allocates its tile partials)
    faulty_resource late(2, false);
    const auto q = me_bad ? p.with(late).with(algo::scan_strategy::reduce_then_scan)
                          : p.with(algo::scan_strategy::reduce_then_scan);
    constexpr std::size_t m = std::size_t(1) << 20;
    std::vector<int> hl(m);
    for (std::size_t i = 0; i < m; ++i) hl[i] = mg::int_at(static_cast<std::int64_t>(i) + 7 * m * ctx.rank);
    mg::dbuf<int> in_late(hl);
    mg::dbuf<int> out_late(std::vector<int>(m, -7));
    std::string message;
    try {
      algo::inclusive_scan(q, in_late.p, in_late.p + m, out_late.p);
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
    } catch (const algo::error& e) {
      message = e.what();
    }
    if (me_bad) {
      ck.expect(message.find("cudaMalloc (injected)") != std::string::npos,
                "scan_late: the failing rank raised " + (message.empty() ? std::string("nothing") : message));
    } else {
      ck.expect(message.empty(), "scan_late: a rank whose scan is complete raised " + message);
      // its part of the global scan: the prefix of the lower ranks, then its own elements
      long long prefix = 0;
      for (int r = 0; r < ctx.rank; ++r)
        for (std::size_t i = 0; i < m; ++i) prefix += mg::int_at(static_cast<std::int64_t>(i) + 7 * m * r);
      const auto got = out_late.host();
      bool right = true;
      long long run = prefix;
      for (std::size_t i = 0; i < m; ++i) {
        run += hl[i];
        right = right && got[i] == static_cast<int>(run);
      }
      ck.expect(right, "scan_late: this rank's part of the scan is wrong");
    }
    expect_working(ctx, ck, stream, "scan_late");
  } else if (c == "trap") {
    expect_survivors_give_up(ctx, ck, stream, "transform_reduce, a kernel traps on " + bad_rank, true, [&] {
      algo::transform_reduce(p, data.p, data.p + 5000, 0LL, algo::plus<>{}, trap_on{ctx.rank, bad});
    });
  } else if (c == "trap2") {
    expect_survivors_give_up(ctx, ck, stream, "transform_reduce (two exchanges), a kernel traps on " + bad_rank, true,
                             [&] {
      algo::transform_reduce(p, data.p, data.p + 5000, wide{}, wide_plus{}, wide_of{ctx.rank, bad});
    });
  } else if (c == "exit") {
    faulty_resource dies(1, true);
    const auto q = me_bad ? p.with(dies) : p;
    expect_survivors_give_up(ctx, ck, stream, "reduce, " + bad_rank + " exits in the call", true,
                             [&] { algo::reduce(q, data.p, data.p + 5000, 0LL); });
  } else if (c == "stop") {
    expect_survivors_give_up(ctx, ck, stream, "reduce, " + bad_rank + " never calls", false, [&] {
      if (me_bad) throw algo::error("algo::test: this rank does not make the call");
      algo::reduce(p, data.p, data.p + 5000, 0LL);
    });
  } else {
    ck.fail("unknown --case '" + c + "'");
  }
  if (!*ctx.aborted) mg::die_cuda(cudaStreamSynchronize(stream), "sync");
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
