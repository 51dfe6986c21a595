// Shared by the multi-GPU tests: how the global sequence is split across ranks, device buffers, a way
// to compare bytes across ranks (an all-gather of them), and the checks of an error every rank raises.
#pragma once

#include <algo/nccl.hpp>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "launcher.hpp"

namespace mg {

/// Local lengths of the P ranks for a global length n: 0 even, 1 rank 0 empty, 2 the last rank
/// empty, 3 rank 0 holds one element, 4 rank 0 holds 4097 (past a tile of 4096), 5 rank 0 holds
/// 12288 (a whole number of tiles), the rest even over the others.
inline std::vector<std::int64_t> split(std::int64_t n, int P, int pattern) {
  std::vector<std::int64_t> len(P, 0);
  if (P == 1) {
    len[0] = n;
    return len;
  }
  auto even = [&](int from, int to, std::int64_t m) {  // ranks [from, to)
    const int k = to - from;
    for (int r = from; r < to; ++r) len[r] = m / k + (r - from < m % k ? 1 : 0);
  };
  switch (pattern) {
    case 1: even(1, P, n); break;
    case 2: even(0, P - 1, n); break;
    case 3: len[0] = n < 1 ? n : 1; even(1, P, n - len[0]); break;
    case 4: len[0] = n < 4097 ? n : 4097; even(1, P, n - len[0]); break;
    case 5: len[0] = n < 12288 ? n : 12288; even(1, P, n - len[0]); break;
    default: even(0, P, n); break;
  }
  return len;
}
inline constexpr int split_patterns = 6;

inline std::int64_t offset_of(const std::vector<std::int64_t>& len, int rank) {
  std::int64_t o = 0;
  for (int r = 0; r < rank; ++r) o += len[r];
  return o;
}

template <class T>
struct dbuf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit dbuf(std::size_t count) : n(count) { die_cuda(cudaMalloc(&p, (count ? count : 1) * sizeof(T)), "cudaMalloc"); }
  /// A copy of `h`, complete on the device when this returns: a cudaMemcpy from pageable memory may
  /// return before its DMA has landed, and the tests' non-blocking streams are not ordered after it.
  dbuf(const std::vector<T>& h) : dbuf(h.size()) {
    if (n) die_cuda(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    die_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  ~dbuf() { cudaFree(p); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  std::vector<T> host(std::size_t from = 0, std::size_t count = static_cast<std::size_t>(-1)) const {
    if (count == static_cast<std::size_t>(-1)) count = n - from;
    std::vector<T> h(count);
    if (count) die_cuda(cudaMemcpy(h.data(), p + from, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
};

/// Every rank's `bytes` bytes, in rank order (an all-gather; the stream is synchronized).
inline std::vector<unsigned char> gather_bytes(const rank_context& ctx, const void* host, std::size_t bytes) {
  dbuf<unsigned char> d(bytes * ctx.nranks);
  die_cuda(cudaMemcpy(d.p + bytes * ctx.rank, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  die_nccl(ncclAllGather(d.p + bytes * ctx.rank, d.p, bytes, ncclUint8, ctx.comm, nullptr), "ncclAllGather");
  die_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  return d.host();
}

/// Whether every rank holds the same bytes.
inline bool same_on_all_ranks(const rank_context& ctx, const void* host, std::size_t bytes) {
  const std::vector<unsigned char> all = gather_bytes(ctx, host, bytes);
  for (int r = 1; r < ctx.nranks; ++r)
    if (std::memcmp(all.data(), all.data() + bytes * r, bytes) != 0) return false;
  return true;
}

inline std::uint64_t hash_string(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// ---- errors that every rank must raise alike -------------------------------------------------------
/// Runs `call` on every rank; expects every rank to throw an algo::error whose message contains
/// `needle` and is the same on every rank.
inline void expect_common_error(const rank_context& ctx, checker& ck, const std::string& what,
                         const std::function<void()>& call, const std::string& needle) {
  std::string message;
  bool threw = false;
  try {
    call();
  } catch (const algo::error& e) {
    threw = true;
    message = e.what();
  }
  // every rank joins the comparison (an all-gather), also one that threw nothing (its hash is the
  // empty message's), so that a rank's missing error is a failure, never a hang
  const std::uint64_t h = hash_string(message);
  const bool same = same_on_all_ranks(ctx, &h, sizeof h);
  ck.expect(threw, what + ": no algo::error was thrown");
  if (!threw) return;
  ck.expect(message.find(needle) != std::string::npos, what + ": message lacks '" + needle + "': " + message);
  ck.expect(same, what + ": ranks raised different messages (this one: " + message + ")");
  if (ctx.rank == 0) std::printf("  %s -> %s\n", what.c_str(), message.c_str());
}

/// The communicator still works: a reduce of every rank's 1000 ones.
inline void expect_working(const rank_context& ctx, checker& ck, cudaStream_t stream, const std::string& after) {
  dbuf<int> ones(std::vector<int>(1000, 1));
  const int s = algo::reduce(algo::nccl(ctx.comm).on(stream), ones.p, ones.p + 1000, 0);
  ck.expect(s == 1000 * ctx.nranks, "after " + after + ": the next reduce gave " + std::to_string(s));
}

// ---- value types and operators ----------------------------------------------------------------------
/// x -> a x + b over uint32 (exact, wrapping); compose(f, g) = g after f: non-commutative.
struct affine {
  std::uint32_t a, b;
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return affine{f.a * g.a, f.b * g.a + g.b};
  }
};
inline bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }

/// A 2x2 matrix of uint64 (32 bytes), multiplied (wrapping): non-commutative.
struct mat2 {
  std::uint64_t m[4];
};
struct matmul {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return mat2{{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
                 x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};
inline bool operator==(const mat2& x, const mat2& y) { return std::memcmp(&x, &y, sizeof x) == 0; }
static_assert(sizeof(mat2) == 32, "a 32-byte struct");

inline std::uint32_t mix(std::uint64_t i) {
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdull;
  i ^= i >> 33;
  return static_cast<std::uint32_t>(i);
}
inline int int_at(std::int64_t i) { return static_cast<int>(mix(i) % 2001) - 1000; }
inline float float_at(std::int64_t i) { return static_cast<float>(static_cast<int>(mix(i) % 20001) - 10000) * 1.0e-3f + 0.1f; }
inline affine affine_at(std::int64_t i) { return affine{(mix(i) | 1u), mix(i + 7)}; }
inline mat2 mat_at(std::int64_t i) { return mat2{{mix(i) | 1ull, mix(i + 1), mix(i + 2), mix(i + 3) | 1ull}}; }

}  // namespace mg
