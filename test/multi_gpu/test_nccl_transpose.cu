// algo::transpose over algo::nccl(comm): a rows x cols matrix distributed by row blocks, the result by
// row blocks of the result; each rank's part against algo::cuda's transpose of the whole matrix.
// Odd shapes (8191 x 8193), every pair of uneven splits of the input rows and of the output rows,
// empty ranks, matrices without rows or without columns.
#include <algo/nccl.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

template <class T>
void check_shape(const mg::rank_context& ctx, mg::checker& ck, cudaStream_t stream, std::int64_t rows,
                 std::int64_t cols, int in_pattern, int out_pattern) {
  const auto p = algo::nccl(ctx.comm).on(stream);
  const auto in_len = mg::split(rows, ctx.nranks, in_pattern);
  const auto out_len = mg::split(cols, ctx.nranks, out_pattern);
  const std::int64_t rb = mg::offset_of(in_len, ctx.rank), re = rb + in_len[ctx.rank];
  const std::int64_t ob = mg::offset_of(out_len, ctx.rank), oe = ob + out_len[ctx.rank];
  const std::string where = std::to_string(rows) + " x " + std::to_string(cols) + " splits " +
                            std::to_string(in_pattern) + "/" + std::to_string(out_pattern);

  std::vector<T> h(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<T>(mg::mix(i) % 1000003);
  mg::dbuf<T> full(h), ref(static_cast<std::size_t>(rows * cols)), out(static_cast<std::size_t>((oe - ob) * rows));
  mg::die_cuda(cudaMemset(out.p, 0xff, out.n * sizeof(T)), "cudaMemset");
  mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // the legacy stream's set-up is done
  T* end = algo::transpose(p, full.p + rb * cols, rows, cols, algo::row_range{rb, re}, out.p, algo::row_range{ob, oe});
  ck.expect(end == out.p + (oe - ob) * rows, where + ": returned end");
  mg::die_cuda(cudaStreamSynchronize(stream), "sync");
  algo::transpose(algo::cuda, full.p, rows, cols, ref.p);
  const auto got = out.host();
  const auto want = ref.host(static_cast<std::size_t>(ob * rows), static_cast<std::size_t>((oe - ob) * rows));
  ck.expect(got.size() == want.size() && (got.empty() || std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0),
            where + ": result rows differ from algo::cuda's transpose of the whole matrix");
}

void body(const mg::rank_context& ctx, mg::checker& ck) {
  cudaStream_t stream;
  mg::die_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  // every pair of input and output splits (patterns 1 and 3 of the output: rank 0 receives no result
  // rows, or one), and empty matrices both ways (no rows, no columns)
  const std::int64_t shapes[][2] = {{1, 1}, {5, 7}, {3, 1000}, {1000, 3}, {0, 5}, {5, 0}, {0, 0}, {257, 129}};
  for (const auto& s : shapes)
    for (int a = 0; a < mg::split_patterns; a += 1)
      for (int b = 0; b < mg::split_patterns; b += 1) {
        check_shape<float>(ctx, ck, stream, s[0], s[1], a, b);
        if (ctx.nranks == 1) break;
      }
  check_shape<double>(ctx, ck, stream, 513, 1025, 4, 1);
  // the issue's odd shape, uneven row splits of the input and of the result
  check_shape<float>(ctx, ck, stream, 8191, 8193, 4, 5);
  check_shape<float>(ctx, ck, stream, 8191, 8193, 0, 0);
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
