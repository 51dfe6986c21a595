// Where every piece of the distributed transpose comes from and goes to (plain C++, so the index
// arithmetic is tested on the host: test/host/test_nccl_records.cpp simulates the ranks with it).
//
// Rank p holds input rows [a_p, b_p) (all cols columns, packed) and receives result rows [c_p, d_p)
// (result row j = input column j, `rows` elements each). Its block for rank q is in_p[:, c_q:d_q]
// transposed, (d_q - c_q) x (b_p - a_p), which lands on q at out_q[:, a_p:b_p]. The blocks for other
// ranks are cut into K chunks of the receiver's result rows; the same cut on both sides, so the
// bytes rank p sends to q in chunk k are exactly what q receives from p in chunk k.
// All offsets and counts are in elements.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace algo::detail::nccl {

/// A rank's part: input rows [rb, re), result rows [ob, oe).
struct rank_rows {
  std::int64_t rb = 0, re = 0, ob = 0, oe = 0;
};

/// A transpose of r x c elements from src + src_offset (rows ld_src apart) to dst + dst_offset
/// (rows ld_dst apart): dst[j * ld_dst + i] = src[i * ld_src + j].
struct transpose_step {
  std::int64_t src_offset = 0, r = 0, c = 0, ld_src = 0, dst_offset = 0, ld_dst = 0;
  bool empty() const { return r == 0 || c == 0; }
};
/// `count` elements at `offset`.
struct span_step {
  std::int64_t offset = 0, count = 0;
};
/// A pitched copy: `height` rows of `width` elements, from src + src_offset (src_pitch apart) to
/// dst + dst_offset (dst_pitch apart).
struct copy_step {
  std::int64_t dst_offset = 0, dst_pitch = 0, src_offset = 0, src_pitch = 0, width = 0, height = 0;
  bool empty() const { return width == 0 || height == 0; }
};

/// How many chunks: about 64 MB of the whole matrix per rank and chunk, 1 to 8 (the same on every
/// rank: it depends only on the shape, the element size and the rank count).
inline int chunk_count(std::int64_t rows, std::int64_t cols, std::size_t elem, int nranks) {
  const double bytes = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(elem) / nranks;
  const int k = static_cast<int>(bytes / (64.0 * 1024 * 1024));
  return std::max(1, std::min(8, k));
}

/// Start of chunk k of K over [0, len) (even split).
inline std::int64_t chunk_begin(std::int64_t len, int k, int K) { return len * k / K; }

class transpose_plan {
 public:
  /// `ranks[q]`: rank q's rows (as every rank learnt from the records); `me`: this rank.
  transpose_plan(std::int64_t rows, std::int64_t cols, std::size_t elem, std::vector<rank_rows> ranks, int me)
      : rows_(rows), cols_(cols), me_(me), r_(std::move(ranks)) {
    P_ = static_cast<int>(r_.size());
    K_ = chunk_count(rows, cols, elem, P_);
    send_off_.assign(P_ + 1, 0);
    recv_off_.assign(P_ + 1, 0);
    for (int q = 0; q < P_; ++q) {
      const std::int64_t hq = q == me ? 0 : height(q);
      const std::int64_t wq = q == me ? 0 : width(q);
      send_off_[q + 1] = send_off_[q] + hq * lr();
      recv_off_[q + 1] = recv_off_[q] + lc() * wq;
    }
  }
  int ranks() const { return P_; }
  int me() const { return me_; }
  int chunks() const { return K_; }
  std::int64_t lr() const { return width(me_); }   // this rank's input rows
  std::int64_t lc() const { return height(me_); }  // this rank's result rows
  std::int64_t send_elements() const { return send_off_[P_]; }
  std::int64_t recv_elements() const { return recv_off_[P_]; }
  std::int64_t out_elements() const { return lc() * rows_; }

  /// in_me[:, c_me:d_me] transposed straight into out_me[:, a_me:b_me].
  transpose_step stay() const { return direct(me_); }
  /// The whole block for q, in_me[:, c_q:d_q] transposed straight into q's output at out_q[:, a_me:b_me]
  /// (the direct path: q's output is mapped into this rank's address space).
  transpose_step direct(int q) const { return {r_[q].ob, lr(), height(q), cols_, r_[me_].rb, rows_}; }
  /// Chunk k of the block for q: in_me[:, c_q + s0 : c_q + s1] transposed into the send buffer.
  transpose_step pack(int q, int k) const {
    const std::int64_t s0 = chunk_begin(height(q), k, K_), s1 = chunk_begin(height(q), k + 1, K_);
    return {r_[q].ob + s0, lr(), s1 - s0, cols_, send_off_[q] + s0 * lr(), lr()};
  }
  /// What goes to q in chunk k (in the send buffer).
  span_step send(int q, int k) const {
    const std::int64_t s0 = chunk_begin(height(q), k, K_), s1 = chunk_begin(height(q), k + 1, K_);
    return {send_off_[q] + s0 * lr(), (s1 - s0) * lr()};
  }
  /// What comes from q in chunk k (in the receive buffer).
  span_step recv(int q, int k) const {
    const std::int64_t r0 = chunk_begin(lc(), k, K_), r1 = chunk_begin(lc(), k + 1, K_);
    return {recv_off_[q] + r0 * width(q), (r1 - r0) * width(q)};
  }
  /// Chunk k from q, from the receive buffer into its columns of out.
  copy_step unpack(int q, int k) const {
    const std::int64_t r0 = chunk_begin(lc(), k, K_), r1 = chunk_begin(lc(), k + 1, K_);
    return {r0 * rows_ + r_[q].rb, rows_, recv_off_[q] + r0 * width(q), width(q), width(q), r1 - r0};
  }

 private:
  std::int64_t width(int q) const { return r_[q].re - r_[q].rb; }   // q's input rows
  std::int64_t height(int q) const { return r_[q].oe - r_[q].ob; }  // q's result rows
  std::int64_t rows_, cols_;
  int me_, P_ = 1, K_ = 1;
  std::vector<rank_rows> r_;
  std::vector<std::int64_t> send_off_, recv_off_;
};

}  // namespace algo::detail::nccl
