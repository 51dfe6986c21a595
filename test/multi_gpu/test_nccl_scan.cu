// algo::inclusive_scan / exclusive_scan over algo::nccl(comm): each rank's output against its part of
// algo::cuda's scan of the concatenated sequence, thrust::inclusive_scan / exclusive_scan on the
// gathered data and a sequential host fold (non-commutative operators), over uneven splits; float
// scans bit-identical from run to run.
#include <algo/nccl.hpp>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

using mg::affine;
using mg::mat2;

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void body(const mg::rank_context& ctx, mg::checker& ck) {
  cudaStream_t stream;
  mg::die_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const auto p = algo::nccl(ctx.comm).on(stream);
  const std::int64_t sizes[] = {0, 1, 3, 5000, (1 << 20) + 3};
  for (std::int64_t n : sizes) {
    for (int pat = 0; pat < mg::split_patterns; ++pat) {
      if (ctx.nranks == 1 && pat > 0) break;
      const auto len = mg::split(n, ctx.nranks, pat);
      const std::int64_t off = mg::offset_of(len, ctx.rank), m = len[ctx.rank];
      const std::string where = "n " + std::to_string(n) + " split " + std::to_string(pat);

      // ---- int: plus, without and with init; exclusive ------------------------------------------------
      std::vector<int> hi(n);
      for (std::int64_t i = 0; i < n; ++i) hi[i] = mg::int_at(i);
      mg::dbuf<int> di(hi), ref(n), out(m);
      algo::inclusive_scan(p, di.p + off, di.p + off + m, out.p);
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      algo::inclusive_scan(algo::cuda, di.p, di.p + n, ref.p);
      ck.expect(out.host() == ref.host(off, m), where + ": inclusive_scan int != algo::cuda");
      thrust::inclusive_scan(thrust::device, di.p, di.p + n, ref.p);
      ck.expect(out.host() == ref.host(off, m), where + ": inclusive_scan int != thrust");

      algo::inclusive_scan(p, di.p + off, di.p + off + m, out.p, algo::plus<>{}, 100);
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      algo::inclusive_scan(algo::cuda, di.p, di.p + n, ref.p, algo::plus<>{}, 100);
      ck.expect(out.host() == ref.host(off, m), where + ": inclusive_scan int with init");

      algo::exclusive_scan(p, di.p + off, di.p + off + m, out.p, -5);
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      thrust::exclusive_scan(thrust::device, di.p, di.p + n, ref.p, -5);
      ck.expect(out.host() == ref.host(off, m), where + ": exclusive_scan int != thrust");

      // ---- affine maps (non-commutative) ---------------------------------------------------------------
      std::vector<affine> ha(n), inc(n), exc(n);
      affine acc{1, 0}, acc_inc{0, 0};
      for (std::int64_t i = 0; i < n; ++i) {
        ha[i] = mg::affine_at(i);
        exc[i] = acc;
        acc = mg::compose{}(acc, ha[i]);
        acc_inc = i == 0 ? ha[0] : mg::compose{}(acc_inc, ha[i]);
        inc[i] = acc_inc;
      }
      mg::dbuf<affine> da(ha), oa(m);
      algo::inclusive_scan(p, da.p + off, da.p + off + m, oa.p, mg::compose{});
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      ck.expect(same_bytes(oa.host(), std::vector<affine>(inc.begin() + off, inc.begin() + off + m)),
                where + ": inclusive_scan affine (no init) != sequential fold");
      algo::exclusive_scan(p, da.p + off, da.p + off + m, oa.p, affine{1, 0}, mg::compose{});
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      ck.expect(same_bytes(oa.host(), std::vector<affine>(exc.begin() + off, exc.begin() + off + m)),
                where + ": exclusive_scan affine != sequential fold");

      // ---- 32-byte struct, with init ---------------------------------------------------------------------
      std::vector<mat2> hm(n), ms(n);
      mat2 mm{{1, 2, 3, 5}};
      for (std::int64_t i = 0; i < n; ++i) {
        hm[i] = mg::mat_at(i);
        mm = mg::matmul{}(mm, hm[i]);
        ms[i] = mm;
      }
      mg::dbuf<mat2> dm(hm), om(m);
      algo::inclusive_scan(p, dm.p + off, dm.p + off + m, om.p, mg::matmul{}, mat2{{1, 2, 3, 5}});
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      ck.expect(same_bytes(om.host(), std::vector<mat2>(ms.begin() + off, ms.begin() + off + m)),
                where + ": inclusive_scan mat2 != sequential fold");

      // ---- float: the same bits from run to run; close to algo::cuda --------------------------------------
      std::vector<float> hf(n);
      std::vector<double> magnitude(n);
      for (std::int64_t i = 0; i < n; ++i) {
        hf[i] = mg::float_at(i);
        magnitude[i] = (i ? magnitude[i - 1] : 0.0) + std::abs(hf[i]);
      }
      mg::dbuf<float> df(hf), of1(m), of2(m), rf(n);
      algo::inclusive_scan(p, df.p + off, df.p + off + m, of1.p);
      algo::inclusive_scan(p, df.p + off, df.p + off + m, of2.p);
      mg::die_cuda(cudaStreamSynchronize(stream), "sync");
      const auto f1 = of1.host(), f2 = of2.host();
      ck.expect(same_bytes(f1, f2), where + ": float inclusive_scan differs from run to run");
      algo::inclusive_scan(algo::cuda, df.p, df.p + n, rf.p);
      const auto fr = rf.host(off, m);
      bool close = true;
      for (std::int64_t i = 0; i < m; ++i)
        if (std::abs(f1[i] - fr[i]) > 1e-5 * magnitude[off + i] + 1e-6) close = false;
      ck.expect(close, where + ": float inclusive_scan far from algo::cuda's");
    }
  }
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
