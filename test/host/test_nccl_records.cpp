// What <algo/nccl.hpp>'s collectives decide on the host side, checked in plain C++ (no NCCL, no GPU,
// so CI runs it): the records every rank exchanges before anything is written and the verdicts and
// messages every rank derives from them (detail/nccl/record.hpp), the fold of the ranks' partials in
// rank order (detail/nccl/fold.hpp), and the distributed transpose's plan, simulated over many
// splits (detail/nccl/transpose_plan.hpp).
#include "catch.hpp"

#include <algo/detail/nccl/record.hpp>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace nr = algo::detail::nccl;

namespace {

/// The gathered blocks of P ranks calling `kind` on lengths `n` (all fine).
std::vector<unsigned char> blocks_for(nr::collective kind, const std::vector<std::int64_t>& n) {
  const int P = static_cast<int>(n.size());
  std::vector<unsigned char> b(static_cast<std::size_t>(P) * nr::block_bytes, 0xab);
  for (int q = 0; q < P; ++q) {
    nr::rank_record r;
    std::memset(&r, 0, sizeof r);
    r.magic = nr::record_magic;
    r.rank = q;
    r.nranks = P;
    r.algorithm = static_cast<std::uint32_t>(kind);
    r.elem_size = 4;
    r.acc_size = 8;
    r.payload_bytes = 8;
    r.type_hash = nr::type_hash<int, long long>();
    r.n = n[q];
    std::memcpy(b.data() + q * nr::block_bytes, &r, sizeof r);
  }
  return b;
}
nr::rank_record& rec(std::vector<unsigned char>& b, int q) {
  return *reinterpret_cast<nr::rank_record*>(b.data() + q * nr::block_bytes);
}

}  // namespace

TEST_CASE("nccl records: agreeing ranks pass", "[nccl]") {
  auto b = blocks_for(nr::collective::reduce, {5, 0, 7});
  CHECK(nr::first_bad_rank(b.data(), 3) == -1);
  CHECK(nr::describe_failure(b.data(), 3).empty());
}

TEST_CASE("nccl records: a rank's own problem is named with its text", "[nccl]") {
  auto b = blocks_for(nr::collective::inclusive_scan, {5, 6, 7});
  rec(b, 1).problem = static_cast<std::int32_t>(nr::local_problem::message);
  const char text[] = "input is a null pointer with 6 elements";
  std::memcpy(b.data() + nr::block_bytes + nr::record_bytes, text, sizeof text);
  CHECK(nr::first_bad_rank(b.data(), 3) == 1);
  CHECK(nr::describe_failure(b.data(), 3) == "rank 1 of 3: input is a null pointer with 6 elements");
}

TEST_CASE("nccl records: the lowest failing rank is the one every rank names", "[nccl]") {
  auto b = blocks_for(nr::collective::reduce, {1, 2, 3, 4});
  rec(b, 3).problem = static_cast<std::int32_t>(nr::local_problem::wrong_device);
  rec(b, 3).device = 0;
  rec(b, 3).comm_device = 3;
  rec(b, 2).type_hash ^= 1;
  const std::string m = nr::describe_failure(b.data(), 4);
  CHECK(m.rfind("rank 2 of 4: its element type differs from rank 0's", 0) == 0);
  rec(b, 2).type_hash ^= 1;
  CHECK(nr::describe_failure(b.data(), 4).rfind("rank 3 of 4: the communicator belongs to device 3 but the call runs on device 0", 0) == 0);
}

TEST_CASE("nccl records: different collectives, sizes and communicators", "[nccl]") {
  auto b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 1).algorithm = static_cast<std::uint32_t>(nr::collective::inclusive_scan);
  CHECK(nr::describe_failure(b.data(), 2) == "rank 1 of 2: called algo::inclusive_scan while rank 0 called algo::reduce");
  b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 1).acc_size = 4;
  CHECK(nr::first_bad_rank(b.data(), 2) == 1);
  b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 1).nranks = 3;
  CHECK(nr::describe_failure(b.data(), 2).find("communicators differ") != std::string::npos);
  b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 1).magic = 0;
  CHECK(nr::describe_failure(b.data(), 2).find("sent no valid record") != std::string::npos);
}

TEST_CASE("nccl records: every rank raises the same text, prefixed with rank 0's collective", "[nccl]") {
  auto b = blocks_for(nr::collective::reduce, {1, 2});
  CHECK(nr::failure_what(b.data(), 2).empty());
  rec(b, 1).algorithm = static_cast<std::uint32_t>(nr::collective::inclusive_scan);
  // rank 1 called inclusive_scan, rank 0 reduce: both raise algo::reduce's text
  CHECK(nr::failure_what(b.data(), 2) ==
        "algo::reduce: rank 1 of 2: called algo::inclusive_scan while rank 0 called algo::reduce");
  b = blocks_for(nr::collective::transform_reduce_into, {1, 2, 3});
  rec(b, 2).problem = static_cast<std::int32_t>(nr::local_problem::message);
  const char text[] = "output is a null pointer with 1 elements";
  std::memcpy(b.data() + 2 * nr::block_bytes + nr::record_bytes, text, sizeof text);
  CHECK(nr::failure_what(b.data(), 3) == "algo::transform_reduce_into: rank 2 of 3: output is a null pointer with 1 elements");
  // rank 0 sent no valid record: a neutral prefix
  b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 0).magic = 0;
  CHECK(nr::failure_what(b.data(), 2).rfind("algo::nccl: rank 0 of 2: sent no valid record", 0) == 0);
}

namespace {
struct op_a {};
struct op_b {};
}  // namespace

TEST_CASE("nccl records: the operator's type is part of the type hash", "[nccl]") {
  CHECK(nr::type_hash<int, long long, op_a>() == nr::type_hash<int, long long, op_a>());
  CHECK(nr::type_hash<int, long long, op_a>() != nr::type_hash<int, long long, op_b>());
  CHECK(nr::type_hash<int, long long, op_a>() != nr::type_hash<int, long long>());
  auto b = blocks_for(nr::collective::reduce, {1, 2});
  rec(b, 0).type_hash = nr::type_hash<int, long long, op_a>();
  rec(b, 1).type_hash = nr::type_hash<int, long long, op_b>();
  CHECK(nr::first_bad_rank(b.data(), 2) == 1);
  CHECK(nr::describe_failure(b.data(), 2).rfind("rank 1 of 2: its element type differs from rank 0's, or its "
                                                "accumulator or operator type does",
                                                0) == 0);
}

TEST_CASE("nccl records: a global length over 2^63 - 1", "[nccl]") {
  const std::int64_t big = std::int64_t(1) << 62;
  auto b = blocks_for(nr::collective::reduce, {big, big - 1, 0});  // 2^63 - 1 in all
  CHECK(nr::first_bad_rank(b.data(), 3) == -1);
  b = blocks_for(nr::collective::reduce, {big, big, 1});
  CHECK(nr::first_bad_rank(b.data(), 3) == 1);
  CHECK(nr::describe_failure(b.data(), 3).find("overflows a signed 64-bit count") != std::string::npos);
}

TEST_CASE("nccl records: transpose shapes and row ranges", "[nccl]") {
  auto make = [](std::vector<std::array<std::int64_t, 6>> v) {
    auto b = blocks_for(nr::collective::transpose, std::vector<std::int64_t>(v.size(), 0));
    for (std::size_t q = 0; q < v.size(); ++q)
      for (int k = 0; k < 6; ++k) rec(b, static_cast<int>(q)).v[k] = v[q][k];
    return b;
  };
  // 10 x 6 over 3 ranks: rows 0-3, 3-3 (none), 3-10; result rows 0-1, 1-6, 6-6
  auto good = make({{{10, 6, 0, 3, 0, 1}}, {{10, 6, 3, 3, 1, 6}}, {{10, 6, 3, 10, 6, 6}}});
  CHECK(nr::first_bad_rank(good.data(), 3) == -1);
  auto gap = make({{{10, 6, 0, 3, 0, 1}}, {{10, 6, 4, 4, 1, 6}}, {{10, 6, 4, 10, 6, 6}}});
  CHECK(nr::describe_failure(gap.data(), 3).rfind("rank 1 of 3: its input rows [4, 4) do not continue", 0) == 0);
  auto short_end = make({{{10, 6, 0, 3, 0, 1}}, {{10, 6, 3, 3, 1, 6}}, {{10, 6, 3, 9, 6, 6}}});
  CHECK(nr::first_bad_rank(short_end.data(), 3) == 2);
  auto out_gap = make({{{10, 6, 0, 3, 0, 1}}, {{10, 6, 3, 3, 1, 5}}, {{10, 6, 3, 10, 6, 6}}});
  CHECK(nr::describe_failure(out_gap.data(), 3).rfind("rank 2 of 3: its output rows [6, 6)", 0) == 0);
  auto shape = make({{{10, 6, 0, 3, 0, 1}}, {{10, 7, 3, 3, 1, 6}}, {{10, 6, 3, 10, 6, 6}}});
  CHECK(nr::describe_failure(shape.data(), 3).rfind("rank 1 of 3: its matrix is 10 x 7, rank 0's is 10 x 6", 0) == 0);
}

// ---- the distributed transpose's plan, run on the host: P simulated ranks exchange through memcpy ----
#include <algo/detail/nccl/transpose_plan.hpp>

namespace {

void run_step(const float* src, float* dst, const nr::transpose_step& t) {
  for (std::int64_t i = 0; i < t.r; ++i)
    for (std::int64_t j = 0; j < t.c; ++j) dst[t.dst_offset + j * t.ld_dst + i] = src[t.src_offset + i * t.ld_src + j];
}

/// Transposes a rows x cols matrix over ranks with the given input / result row counts, as
/// detail/nccl/transpose.cuh does (stay, then per chunk: pack, exchange, unpack), on the host.
bool simulate(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& in_rows,
              const std::vector<std::int64_t>& out_rows, std::size_t elem_for_chunks, bool direct = false) {
  const int P = static_cast<int>(in_rows.size());
  std::vector<nr::rank_rows> ranges(P);
  std::int64_t a = 0, c = 0;
  for (int q = 0; q < P; ++q) {
    ranges[q] = {a, a + in_rows[q], c, c + out_rows[q]};
    a += in_rows[q];
    c += out_rows[q];
  }
  std::vector<float> m(rows * cols);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i);
  std::vector<nr::transpose_plan> plans;
  std::vector<std::vector<float>> send(P), recv(P), out(P);
  for (int q = 0; q < P; ++q) {
    plans.emplace_back(rows, cols, elem_for_chunks, ranges, q);
    send[q].assign(plans[q].send_elements(), -1.0f);
    recv[q].assign(plans[q].recv_elements(), -1.0f);
    out[q].assign(plans[q].out_elements(), -1.0f);
  }
  for (int p = 0; p < P; ++p) run_step(m.data() + ranges[p].rb * cols, out[p].data(), plans[p].stay());
  // the direct path: every rank writes its block for q straight into q's output
  for (int p = 0; direct && p < P; ++p)
    for (int q = 0; q < P; ++q)
      if (q != p) run_step(m.data() + ranges[p].rb * cols, out[q].data(), plans[p].direct(q));
  const int K = direct ? 0 : plans[0].chunks();
  for (int k = 0; k < K; ++k) {
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < P; ++q)
        if (q != p) run_step(m.data() + ranges[p].rb * cols, send[p].data(), plans[p].pack(q, k));
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < P; ++q) {
        if (q == p) continue;
        const nr::span_step s = plans[p].send(q, k), r = plans[q].recv(p, k);
        if (s.count != r.count) return false;  // NCCL would hang or corrupt here
        std::copy(send[p].begin() + s.offset, send[p].begin() + s.offset + s.count, recv[q].begin() + r.offset);
      }
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < P; ++q) {
        if (q == p) continue;
        const nr::copy_step u = plans[p].unpack(q, k);
        for (std::int64_t h = 0; h < u.height; ++h)
          for (std::int64_t w = 0; w < u.width; ++w)
            out[p][u.dst_offset + h * u.dst_pitch + w] = recv[p][u.src_offset + h * u.src_pitch + w];
      }
  }
  for (int p = 0; p < P; ++p)
    for (std::int64_t j = ranges[p].ob; j < ranges[p].oe; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        if (out[p][(j - ranges[p].ob) * rows + i] != m[i * cols + j]) return false;
  return true;
}

}  // namespace

TEST_CASE("nccl transpose plan: every rank's result rows, simulated on the host", "[nccl]") {
  CHECK(simulate(1, 1, {1}, {1}, 4));
  CHECK(simulate(5, 7, {5}, {7}, 4));
  CHECK(simulate(5, 7, {2, 3}, {4, 3}, 4));
  CHECK(simulate(5, 7, {0, 5}, {7, 0}, 4));
  CHECK(simulate(5, 7, {5, 0}, {0, 7}, 4));
  CHECK(simulate(9, 4, {1, 0, 8}, {2, 2, 0}, 4));
  CHECK(simulate(31, 17, {3, 11, 0, 17}, {5, 0, 6, 6}, 4));
  CHECK(simulate(0, 5, {0, 0}, {2, 3}, 4));
  CHECK(simulate(6, 0, {3, 3}, {0, 0}, 4));
  // several chunks: an element size that makes the plan cut each block in 8 (1 GB per rank)
  CHECK(nr::chunk_count(64, 64, std::size_t(1) << 20, 2) == 8);
  CHECK(simulate(64, 64, {20, 44}, {37, 27}, std::size_t(1) << 20));
  CHECK(simulate(63, 65, {1, 30, 32}, {33, 0, 32}, std::size_t(1) << 20));
  CHECK(nr::chunk_count(40, 3, std::size_t(1) << 23, 3) == 5);
  CHECK(simulate(40, 3, {13, 14, 13}, {1, 1, 1}, std::size_t(1) << 23));  // fewer result rows than chunks
}

TEST_CASE("nccl transpose plan: the direct path (blocks straight into the peers' outputs), simulated", "[nccl]") {
  CHECK(simulate(1, 1, {1}, {1}, 4, true));
  CHECK(simulate(5, 7, {2, 3}, {4, 3}, 4, true));
  CHECK(simulate(5, 7, {0, 5}, {7, 0}, 4, true));
  CHECK(simulate(9, 4, {1, 0, 8}, {2, 2, 0}, 4, true));
  CHECK(simulate(31, 17, {3, 11, 0, 17}, {5, 0, 6, 6}, 4, true));
  CHECK(simulate(63, 65, {1, 30, 32}, {33, 0, 32}, 4, true));
  CHECK(simulate(6, 0, {3, 3}, {0, 0}, 4, true));
  CHECK(simulate(0, 5, {0, 0}, {2, 3}, 4, true));
}

// ---- the fold of the partials in rank order (what the fold kernel runs) ------------------------------
#include <algo/detail/nccl/fold.hpp>

namespace {
struct map2 {  // x -> a x + b, composed left to right: non-commutative
  long long a, b;
};
struct then {
  map2 operator()(const map2& f, const map2& g) const { return map2{f.a * g.a, f.b * g.a + g.b}; }
};
bool same(const map2& x, const map2& y) { return x.a == y.a && x.b == y.b; }
}  // namespace

TEST_CASE("nccl fold: partials of non-empty ranks in rank order, init first", "[nccl]") {
  // ranks 0..3 with 3, 0, 2, 5 elements; rank 1's payload is garbage (it has no elements)
  auto b = blocks_for(nr::collective::reduce, {3, 0, 2, 5});
  const map2 p[4] = {{2, 1}, {99, 99}, {3, 5}, {7, 11}};
  std::vector<unsigned char> payloads(4 * nr::block_bytes, 0);
  for (int q = 0; q < 4; ++q) std::memcpy(payloads.data() + q * nr::block_bytes, &p[q], sizeof(map2));
  then op;
  const map2 init{1, 4};
  // a reduction: every rank, init first
  auto all = nr::fold_partials<map2, map2>(b.data(), payloads.data(), nr::block_bytes, 4, true, init, op);
  CHECK(all.has);
  CHECK(all.any);
  CHECK(same(all.value, op(op(op(init, p[0]), p[2]), p[3])));
  // a scan's prefix for rank 2: init, then rank 0 (rank 1 is empty)
  auto pre2 = nr::fold_partials<map2, map2>(b.data(), payloads.data(), nr::block_bytes, 2, true, init, op);
  CHECK(same(pre2.value, op(init, p[0])));
  // rank 0: init itself, no partial
  auto pre0 = nr::fold_partials<map2, map2>(b.data(), payloads.data(), nr::block_bytes, 0, true, init, op);
  CHECK(pre0.has);
  CHECK_FALSE(pre0.any);
  CHECK(same(pre0.value, init));
  // an inclusive scan without init: rank 0 has no prefix, rank 1 and 2 get rank 0's partial
  auto none0 = nr::fold_partials<map2, map2>(b.data(), payloads.data(), nr::block_bytes, 0, false, map2{0, 0}, op);
  CHECK_FALSE(none0.has);
  auto none2 = nr::fold_partials<map2, map2>(b.data(), payloads.data(), nr::block_bytes, 2, false, map2{0, 0}, op);
  CHECK(none2.has);
  CHECK(same(none2.value, p[0]));
  // ranks before which every range is empty
  auto e = blocks_for(nr::collective::reduce, {0, 0, 4});
  auto pe = nr::fold_partials<map2, map2>(e.data(), payloads.data(), nr::block_bytes, 2, false, map2{0, 0}, op);
  CHECK_FALSE(pe.has);
  // (present, value) partials, in a payload area of their own stride
  using L = nr::lifted<map2>;
  std::vector<unsigned char> lp(4 * 256, 0);
  for (int q = 0; q < 4; ++q) {
    const L l{p[q], q == 1 ? 0 : 1};
    std::memcpy(lp.data() + q * 256, &l, sizeof(L));
  }
  auto lf = nr::fold_partials<map2, L>(b.data(), lp.data(), 256, 4, true, init, op);
  CHECK(same(lf.value, all.value));
  // lifted_op keeps order and skips empty sides
  nr::lifted_op<then, map2> lop{op};
  const L x{p[0], 1}, y{p[2], 1}, none{map2{0, 0}, 0};
  CHECK(same(lop(x, y).value, op(p[0], p[2])));
  CHECK(same(lop(none, y).value, p[2]));
  CHECK(same(lop(x, none).value, p[0]));
}
