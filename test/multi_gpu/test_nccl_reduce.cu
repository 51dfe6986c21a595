// algo::reduce / transform_reduce (both forms) / reduce_into / transform_reduce_into over
// algo::nccl(comm): against algo::cuda over the concatenated sequence, thrust::reduce on the gathered
// data and a sequential host fold (non-commutative operators), over uneven splits; float results
// bit-identical across ranks and runs.
#include <algo/nccl.hpp>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

using mg::affine;
using mg::mat2;

struct square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};
struct mul_pair {
  __host__ __device__ long long operator()(int x, int y) const { return static_cast<long long>(x) * y; }
};

void body(const mg::rank_context& ctx, mg::checker& ck) {
  cudaStream_t stream;
  mg::die_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const auto p = algo::nccl(ctx.comm).on(stream);
  // ---- reduce_into captured into a CUDA graph (the communicator's first use): every replay folds the
  // data present then ---------------------------------------------------------------------------------
  {
    const std::int64_t m = 1000 + 37 * ctx.rank, total_m = 1000LL * ctx.nranks + 37LL * ctx.nranks * (ctx.nranks - 1) / 2;
    mg::dbuf<int> d(std::vector<int>(m, 1));
    mg::dbuf<long long> out(1);
    // the first call on the communicator is the captured one: its set-up (side streams, exchange
    // buffers, the slot for deferred errors) is made on the capturing thread
    mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // the set-up copies are done
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    mg::die_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    algo::reduce_into(p, d.p, d.p + m, out.p, 5LL);
    mg::die_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    mg::die_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    mg::die_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    algo::synchronize(p);
    ck.expect(out.host()[0] == 5 + total_m, "graph replay 1: reduce_into gave " + std::to_string(out.host()[0]));
    mg::die_cuda(cudaMemcpy(d.p, std::vector<int>(m, 3).data(), m * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
    mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    mg::die_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    algo::synchronize(p);
    ck.expect(out.host()[0] == 5 + 3 * total_m, "graph replay 2: reduce_into gave " + std::to_string(out.host()[0]));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  const std::int64_t sizes[] = {0, 1, 3, 5000, (1 << 20) + 3};
  for (std::int64_t n : sizes) {
    for (int pat = 0; pat < mg::split_patterns; ++pat) {
      if (ctx.nranks == 1 && pat > 0) break;
      const auto len = mg::split(n, ctx.nranks, pat);
      const std::int64_t off = mg::offset_of(len, ctx.rank), m = len[ctx.rank];
      const std::string where = "n " + std::to_string(n) + " split " + std::to_string(pat);

      // ---- int, plus (the identity path) ----------------------------------------------------------
      std::vector<int> hi(n);
      for (std::int64_t i = 0; i < n; ++i) hi[i] = mg::int_at(i);
      mg::dbuf<int> di(hi);
      const long long got = algo::reduce(p, di.p + off, di.p + off + m, 7LL);
      const long long ref_cuda = algo::reduce(algo::cuda, di.p, di.p + n, 7LL);
      const long long ref_thrust = thrust::reduce(thrust::device, di.p, di.p + n, 7LL);
      ck.expect(got == ref_cuda, where + ": reduce int != algo::cuda on the concatenation");
      ck.expect(got == ref_thrust, where + ": reduce int != thrust::reduce");
      const int got_default = algo::reduce(p, di.p + off, di.p + off + m);
      ck.expect(got_default == algo::reduce(algo::cuda, di.p, di.p + n), where + ": reduce int (no init)");

      // ---- affine maps (non-commutative, the (present, value) path) -------------------------------
      std::vector<affine> ha(n);
      affine ref_a{1, 0};
      for (std::int64_t i = 0; i < n; ++i) {
        ha[i] = mg::affine_at(i);
        ref_a = mg::compose{}(ref_a, ha[i]);
      }
      mg::dbuf<affine> da(ha);
      const affine got_a = algo::reduce(p, da.p + off, da.p + off + m, affine{1, 0}, mg::compose{});
      ck.expect(got_a == ref_a, where + ": reduce affine != sequential fold");
      ck.expect(got_a == algo::reduce(algo::cuda, da.p, da.p + n, affine{1, 0}, mg::compose{}),
                where + ": reduce affine != algo::cuda");

      // ---- 32-byte struct ------------------------------------------------------------------------------
      std::vector<mat2> hm(n);
      mat2 ref_m{{1, 0, 0, 1}};
      for (std::int64_t i = 0; i < n; ++i) {
        hm[i] = mg::mat_at(i);
        ref_m = mg::matmul{}(ref_m, hm[i]);
      }
      mg::dbuf<mat2> dm(hm);
      const mat2 got_m = algo::reduce(p, dm.p + off, dm.p + off + m, mat2{{1, 0, 0, 1}}, mg::matmul{});
      ck.expect(got_m == ref_m, where + ": reduce mat2 != sequential fold");

      // ---- float: the same bits on every rank and every run ------------------------------------------
      std::vector<float> hf(n);
      double exact = 0.5, magnitude = 0.5;
      for (std::int64_t i = 0; i < n; ++i) {
        hf[i] = mg::float_at(i);
        exact += hf[i];
        magnitude += std::abs(hf[i]);
      }
      mg::dbuf<float> df(hf);
      const float f1 = algo::reduce(p, df.p + off, df.p + off + m, 0.5f);
      const float f2 = algo::reduce(p, df.p + off, df.p + off + m, 0.5f);
      ck.expect(std::memcmp(&f1, &f2, sizeof f1) == 0, where + ": float reduce differs from run to run");
      ck.expect(mg::same_on_all_ranks(ctx, &f1, sizeof f1), where + ": float reduce differs between ranks");
      ck.expect(std::abs(f1 - exact) <= 1e-5 * magnitude,
                where + ": float reduce far from the exact sum");

      // ---- transform_reduce, both forms ------------------------------------------------------------------
      long long sq = 0, dot = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        sq += static_cast<long long>(hi[i]) * hi[i];
        dot += static_cast<long long>(hi[i]) * hi[n - 1 - i];
      }
      std::vector<int> hr(hi.rbegin(), hi.rend());
      mg::dbuf<int> dr(hr);
      ck.expect(algo::transform_reduce(p, di.p + off, di.p + off + m, 0LL, algo::plus<>{}, square{}) == sq,
                where + ": transform_reduce");
      ck.expect(algo::transform_reduce(p, di.p + off, di.p + off + m, dr.p + off, 0LL, algo::plus<>{}, mul_pair{}) ==
                    dot,
                where + ": transform_reduce (two ranges)");
      ck.expect(algo::transform_reduce(p, di.p + off, di.p + off + m, dr.p + off, 0LL) == dot,
                where + ": transform_reduce (inner product)");

      // ---- reduce_into / transform_reduce_into: on the stream, then synchronize ---------------------------
      mg::dbuf<long long> outs(4);
      mg::dbuf<affine> out_a(1);
      algo::reduce_into(p, di.p + off, di.p + off + m, outs.p + 0, 7LL);
      algo::transform_reduce_into(p, di.p + off, di.p + off + m, outs.p + 1, 0LL, algo::plus<>{}, square{});
      algo::transform_reduce_into(p, di.p + off, di.p + off + m, dr.p + off, outs.p + 2, 0LL);
      algo::transform_reduce_into(p, di.p + off, di.p + off + m, dr.p + off, outs.p + 3, 0LL, algo::plus<>{},
                                  mul_pair{});
      algo::reduce_into(p, da.p + off, da.p + off + m, out_a.p, affine{1, 0}, mg::compose{});
      algo::synchronize(p);
      const auto h = outs.host();
      ck.expect(h[0] == ref_cuda, where + ": reduce_into");
      ck.expect(h[1] == sq, where + ": transform_reduce_into");
      ck.expect(h[2] == dot && h[3] == dot, where + ": transform_reduce_into (two ranges)");
      ck.expect(out_a.host()[0] == ref_a, where + ": reduce_into affine");
    }
  }

  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
