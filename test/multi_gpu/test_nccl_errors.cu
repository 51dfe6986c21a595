// Bad input on one rank fails every rank with the same algo::error (naming the rank and the problem),
// no rank writes output, and none hangs (the launcher's timeout turns a hang into a failure). After
// each error the communicator still works: a correct reduce follows every case.
#include <algo/nccl.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

using mg::expect_common_error;
using mg::expect_working;

void body(const mg::rank_context& ctx, mg::checker& ck) {
  cudaStream_t stream;
  mg::die_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const auto p = algo::nccl(ctx.comm).on(stream);
  const int bad = ctx.nranks - 1;
  const bool me_bad = ctx.rank == bad;
  const std::string bad_rank = "rank " + std::to_string(bad) + " of " + std::to_string(ctx.nranks);
  mg::dbuf<int> data(std::vector<int>(4096, 3));
  mg::dbuf<int> out(std::vector<int>(4096, -7));
  auto out_untouched = [&](const std::string& what) {
    const auto h = out.host();
    bool same = true;
    for (int v : h) same = same && v == -7;
    ck.expect(same, what + ": the output was written");
  };

  // ---- a null input pointer on one rank ----------------------------------------------------------------
  expect_common_error(ctx, ck, "reduce, null input",
                      [&] {
                        const int* in = me_bad ? nullptr : data.p;
                        algo::reduce(p, in, in + 100, 0);
                      },
                      bad_rank);
  expect_working(ctx, ck, stream, "reduce, null input");

  // ---- a null output pointer in a scan: nothing written anywhere -----------------------------------------
  expect_common_error(ctx, ck, "inclusive_scan, null output",
                      [&] { algo::inclusive_scan(p, data.p, data.p + 100, me_bad ? static_cast<int*>(nullptr) : out.p); },
                      bad_rank);
  mg::die_cuda(cudaStreamSynchronize(stream), "sync");
  out_untouched("inclusive_scan, null output");
  expect_working(ctx, ck, stream, "inclusive_scan, null output");

  // ---- last before first ----------------------------------------------------------------------------------
  expect_common_error(ctx, ck, "exclusive_scan, negative length",
                      [&] { algo::exclusive_scan(p, data.p + 10, data.p + (me_bad ? 5 : 20), out.p, 0); },
                      bad_rank + ": last precedes first");
  mg::die_cuda(cudaStreamSynchronize(stream), "sync");
  out_untouched("exclusive_scan, negative length");

  // ---- reduce_into: the bad rank throws at once, the others at synchronize; nothing written ------------------
  {
    std::string message;
    bool threw = false;
    try {
      const int* in = me_bad ? nullptr : data.p;
      algo::reduce_into(p, in, in + 100, out.p, 0);
      algo::synchronize(p);
    } catch (const algo::error& e) {
      threw = true;
      message = e.what();
    }
    ck.expect(threw, "reduce_into, null input: no error");
    ck.expect(message.find(bad_rank) != std::string::npos, "reduce_into, null input: message " + message);
    const std::uint64_t h = mg::hash_string(message);
    ck.expect(mg::same_on_all_ranks(ctx, &h, sizeof h), "reduce_into, null input: ranks raised different messages (" +
                                                            message + ")");
    out_untouched("reduce_into, null input");
    expect_working(ctx, ck, stream, "reduce_into, null input");
  }

  // ---- a scan inside a stream capture (on every rank): it must wait on the host, so every rank
  // refuses it with the same error (rank 0's), after an exchange on a side stream; the capture stays
  // valid (nothing was queued on the captured stream) -----------------------------------------------------
  {
    const std::string rank0 = "rank 0 of " + std::to_string(ctx.nranks);
    mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    expect_common_error(ctx, ck, "inclusive_scan under capture",
                        [&] {
                          mg::die_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                                       "cudaStreamBeginCapture");
                          auto end_capture = [&] {
                            cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
                            mg::die_cuda(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
                            ck.expect(status == cudaStreamCaptureStatusActive,
                                      "inclusive_scan under capture: the capture was invalidated");
                            cudaGraph_t g = nullptr;
                            const cudaError_t e = cudaStreamEndCapture(stream, &g);
                            ck.expect(e == cudaSuccess, std::string("inclusive_scan under capture: cudaStreamEndCapture: ") +
                                                            cudaGetErrorString(e));
                            if (g) cudaGraphDestroy(g);
                          };
                          try {
                            algo::inclusive_scan(p, data.p, data.p + 100, out.p);
                          } catch (...) {
                            end_capture();
                            throw;
                          }
                          end_capture();
                        },
                        rank0 + ": the policy's stream is being captured");
    mg::die_cuda(cudaStreamSynchronize(stream), "sync");
    out_untouched("inclusive_scan under capture");
    expect_working(ctx, ck, stream, "inclusive_scan under capture");
  }

  // ---- reduce_into with a bad input, captured on every rank: nothing is thrown during the capture; at
  // each launch of the graphs no rank writes *out and every rank's synchronize raises the same error -------
  {
    mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const int* in = me_bad ? nullptr : data.p;
    std::string at_capture;
    cudaGraph_t graph = nullptr;
    mg::die_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
      algo::reduce_into(p, in, in + 100, out.p, 0);
    } catch (const algo::error& e) {
      at_capture = e.what();
    }
    mg::die_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    ck.expect(at_capture.empty(), "reduce_into captured, null input: thrown during the capture: " + at_capture);
    cudaGraphExec_t exec = nullptr;
    mg::die_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    for (int launch = 0; launch < 2; ++launch) {
      mg::die_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
      std::string message;
      try {
        algo::synchronize(p);
      } catch (const algo::error& e) {
        message = e.what();
      }
      const std::string what = "reduce_into captured, null input, launch " + std::to_string(launch + 1);
      const std::uint64_t h = mg::hash_string(message);
      const bool same = mg::same_on_all_ranks(ctx, &h, sizeof h);
      ck.expect(message.find(bad_rank + ": input is a null pointer") != std::string::npos, what + ": message " + message);
      ck.expect(same, what + ": ranks raised different messages (" + message + ")");
      out_untouched(what);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    expect_working(ctx, ck, stream, "reduce_into captured, null input");
  }

  // ---- transpose: row ranges that do not tile the matrix ------------------------------------------------------
  {
    const std::int64_t rows = 8 * ctx.nranks, cols = 4 * ctx.nranks;
    mg::dbuf<float> a(static_cast<std::size_t>(rows * cols)), t(static_cast<std::size_t>(rows * cols));
    const std::int64_t rb = 8 * ctx.rank, re = rb + 8 - (me_bad ? 1 : 0);
    expect_common_error(ctx, ck, "transpose, a gap in the rows",
                        [&] {
                          algo::transpose(p, a.p, rows, cols, algo::row_range{rb, re}, t.p,
                                          algo::row_range{4 * ctx.rank, 4 * ctx.rank + 4});
                        },
                        bad_rank);
    if (ctx.nranks >= 2)
    expect_common_error(ctx, ck, "transpose, shapes differ",
                          [&] {
                            algo::transpose(p, a.p, rows, cols + (me_bad ? 1 : 0), algo::row_range{8 * ctx.rank, 8 * ctx.rank + 8},
                                            t.p, algo::row_range{4 * ctx.rank, 4 * ctx.rank + 4 + (me_bad ? 1 : 0)});
                          },
                          bad_rank);
    expect_working(ctx, ck, stream, "transpose errors");
  }

  if (ctx.nranks >= 2) {
    // ---- element types differ between ranks --------------------------------------------------------------------
    mg::dbuf<double> dd(std::vector<double>(100, 1.0));
    expect_common_error(ctx, ck, "reduce, element types differ",
                        [&] {
                          if (me_bad) algo::reduce(p, dd.p, dd.p + 100, 0.0);
                          else algo::reduce(p, data.p, data.p + 100, 0);
                        },
                        bad_rank + ": its element type differs");
    expect_working(ctx, ck, stream, "element types differ");

    // ---- operators differ between ranks (the same accumulator, the same partial size) --------------------------
    expect_common_error(ctx, ck, "reduce, operators differ",
                        [&] {
                          if (me_bad) algo::reduce(p, data.p, data.p + 100, 0, algo::minimum<>{});
                          else algo::reduce(p, data.p, data.p + 100, 0, algo::maximum<>{});
                        },
                        bad_rank + ": its element type differs from rank 0's, or its accumulator or operator type does");
    expect_working(ctx, ck, stream, "operators differ");

    // ---- different collectives ----------------------------------------------------------------------------------
    expect_common_error(ctx, ck, "reduce against inclusive_scan",
                        [&] {
                          if (me_bad) algo::inclusive_scan(p, data.p, data.p + 100, out.p);
                          else algo::reduce(p, data.p, data.p + 100, 0);
                        },
                        bad_rank + ": called algo::inclusive_scan while rank 0 called algo::reduce");
    mg::die_cuda(cudaStreamSynchronize(stream), "sync");
    out_untouched("reduce against inclusive_scan");
    expect_working(ctx, ck, stream, "different collectives");

    // ---- the communicator of another device -----------------------------------------------------------------------
    expect_common_error(ctx, ck, "reduce, communicator of another device",
                        [&] {
                          if (me_bad) {
                            mg::die_cuda(cudaSetDevice(0), "cudaSetDevice");
                            try {
                              algo::reduce(algo::nccl(ctx.comm), static_cast<const int*>(nullptr),
                                           static_cast<const int*>(nullptr), 0);
                            } catch (...) {
                              mg::die_cuda(cudaSetDevice(ctx.device), "cudaSetDevice");
                              throw;
                            }
                            mg::die_cuda(cudaSetDevice(ctx.device), "cudaSetDevice");
                          } else {
                            algo::reduce(p, data.p, data.p + 100, 0);
                          }
                        },
                        bad_rank + ": the communicator belongs to device " + std::to_string(bad));
    expect_working(ctx, ck, stream, "communicator of another device");
  }

  // ---- algo::nccl_buffer of different sizes: every rank throws the same error, nothing registered -----------
  if (ctx.nranks > 1) {
    expect_common_error(ctx, ck, "nccl_buffer, different counts",
                        [&] { algo::nccl_buffer<float> b(ctx.comm, me_bad ? 1000 : 2000); },
                        "the ranks asked for buffers of different sizes (4000 to 8000 bytes)");
    expect_working(ctx, ck, stream, "nccl_buffer, different counts");
  }
  // ---- a transpose whose output is inside the input's nccl_buffer on one rank: refused everywhere --------------
  {
    algo::nccl_buffer<float> b(ctx.comm, 64 * 64 * 2);
    const std::int64_t n = 64;
    const std::int64_t lr = n / ctx.nranks + (ctx.rank < n % ctx.nranks ? 1 : 0);
    std::int64_t rb = 0;
    for (int q = 0; q < ctx.rank; ++q) rb += n / ctx.nranks + (q < n % ctx.nranks ? 1 : 0);
    float* in = b.data();
    float* o = me_bad ? b.data() + 1 : b.data() + 64 * 64;  // the bad rank's output overlaps its input
    expect_common_error(ctx, ck, "transpose into an nccl_buffer, output overlapping the input",
                        [&] {
                          algo::transpose(p, in, n, n, algo::row_range{rb, rb + lr}, o,
                                          algo::row_range{rb, rb + lr});
                        },
                        bad_rank + ": output overlaps input");
    algo::synchronize(p);
    expect_working(ctx, ck, stream, "transpose into an nccl_buffer, output overlapping the input");
  }

  // ---- a null communicator is refused at once (nothing to exchange with) ------------------------------------------
  {
    bool threw = false;
    try {
      algo::reduce(algo::nccl(nullptr), data.p, data.p + 10, 0);
    } catch (const algo::error&) {
      threw = true;
    }
    ck.expect(threw, "a null communicator was accepted");
  }
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
