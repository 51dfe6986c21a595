// algo::transpose over algo::nccl(comm): a rows x cols matrix distributed by row blocks, the result by
// row blocks of the result; each rank's part against algo::cuda's transpose of the whole matrix.
// Odd shapes (8191 x 8193), every pair of uneven splits of the input rows and of the output rows,
// empty ranks, matrices without rows or without columns; outputs in plain device memory (the
// exchange through NCCL), in one algo::nccl_buffer on every rank at a different offset on each (the
// direct path where the peers are mapped), and in an nccl_buffer on every rank but rank 0 (the
// ranks must agree on the exchange), each repeated and compared bit for bit.
#include <algo/nccl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common.cuh"

namespace {

/// Where a rank's output lives.
enum class out_kind {
  plain,   // device memory of its own: the exchange through NCCL's all-to-all
  buffer,  // one algo::nccl_buffer on every rank (at 3 * rank elements in): the direct path
  mixed,   // an nccl_buffer on every rank but rank 0: the all-to-all again (the ranks agree)
};
const char* kind_name(out_kind k) { return k == out_kind::plain ? "plain" : k == out_kind::buffer ? "nccl_buffer" : "mixed"; }

template <class T>
void check_shape(const mg::rank_context& ctx, mg::checker& ck, cudaStream_t stream, std::int64_t rows,
                 std::int64_t cols, int in_pattern, int out_pattern, out_kind kind = out_kind::plain) {
  const auto p = algo::nccl(ctx.comm).on(stream);
  const auto in_len = mg::split(rows, ctx.nranks, in_pattern);
  const auto out_len = mg::split(cols, ctx.nranks, out_pattern);
  const std::int64_t rb = mg::offset_of(in_len, ctx.rank), re = rb + in_len[ctx.rank];
  const std::int64_t ob = mg::offset_of(out_len, ctx.rank), oe = ob + out_len[ctx.rank];
  const std::int64_t out_n = (oe - ob) * rows;
  const std::string where = std::to_string(rows) + " x " + std::to_string(cols) + " splits " +
                            std::to_string(in_pattern) + "/" + std::to_string(out_pattern) + " " + kind_name(kind);

  std::vector<T> h(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<T>(mg::mix(i) % 1000003);
  mg::dbuf<T> full(h), ref(static_cast<std::size_t>(rows * cols)), plain(static_cast<std::size_t>(out_n));
  // the buffer: collective, the same count on every rank (the largest output and the offsets)
  algo::nccl_buffer<T> shared;
  T* out = plain.p;
  if (kind != out_kind::plain) {
    std::int64_t most = 0;
    for (auto len : out_len) most = std::max(most, len * rows);
    shared = algo::nccl_buffer<T>(ctx.comm, static_cast<std::size_t>(most + 3 * ctx.nranks));
    if (kind == out_kind::buffer || ctx.rank != 0) out = shared.data() + 3 * ctx.rank;
    if (ctx.rank == 0 && kind == out_kind::buffer && rows >= 1023)
      std::printf("  nccl_buffer: direct() %s\n", shared.direct() ? "true (peers mapped: the direct path)" : "false (plain memory)");
  }
  algo::transpose(algo::cuda, full.p, rows, cols, ref.p);
  const auto want = ref.host(static_cast<std::size_t>(ob * rows), static_cast<std::size_t>(out_n));
  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    mg::die_cuda(cudaMemset(out, 0xff, static_cast<std::size_t>(out_n) * sizeof(T)), "cudaMemset");
    mg::die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // the legacy stream's set-up is done
    T* end = algo::transpose(p, full.p + rb * cols, rows, cols, algo::row_range{rb, re}, out, algo::row_range{ob, oe});
    ck.expect(end == out + out_n, where + ": returned end");
    algo::synchronize(p);
    std::vector<T> got(static_cast<std::size_t>(out_n));
    mg::die_cuda(cudaMemcpy(got.data(), out, got.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    ck.expect(got.size() == want.size() && (got.empty() || std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0),
              where + ": result rows differ from algo::cuda's transpose of the whole matrix (run " +
                  std::to_string(run) + ")");
    if (run == 0) first = got;
    else ck.expect(got == first, where + ": the second run differs from the first");
    if (kind == out_kind::plain) break;
  }
}

void body(const mg::rank_context& ctx, mg::checker& ck) {
  // ALGO_TEST_SMALL=1 (under compute-sanitizer): the odd shape 1023 x 1025 instead of 8191 x 8193
  const bool small = std::getenv("ALGO_TEST_SMALL") != nullptr;
  const std::int64_t big_r = small ? 1023 : 8191, big_c = small ? 1025 : 8193;
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
  check_shape<float>(ctx, ck, stream, big_r, big_c, 4, 5);
  check_shape<float>(ctx, ck, stream, big_r, big_c, 0, 0);
  // outputs in an algo::nccl_buffer (the direct path where the peers are mapped), and on all ranks
  // but one (the exchange again): odd shapes, uneven splits, a rank without result rows, an 8-byte type
  for (out_kind k : {out_kind::buffer, out_kind::mixed}) {
    check_shape<float>(ctx, ck, stream, big_r, big_c, 4, 5, k);
    check_shape<float>(ctx, ck, stream, 257, 129, 2, 1, k);
    check_shape<float>(ctx, ck, stream, 5, 7, 0, 3, k);
    check_shape<double>(ctx, ck, stream, 513, 1025, 4, 1, k);
  }
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) { return mg::main(argc, argv, body); }
