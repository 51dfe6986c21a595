// <algo/cooperative.hpp> inside test kernels, against sequential host references on random data:
//
//   group policies   algo::this_block (library storage, handed-in storage, ranges in shared
//                    memory scanned in place), algo::this_warp, algo::group(tile<8>), group(tile<1>)
//                    and algo::seq in device code: inclusive_scan (with and without init),
//                    exclusive_scan, reduce, transform_reduce (one and two ranges), every thread's
//                    result checked; block sizes 32, 96, 128, 257, 1024; lengths 0, 1, a group's
//                    tile +- 1 and 2^20; int32 (plus), affine_i (non-commutative), take_right,
//                    big32 (32 bytes, non-commutative), double (bitwise equal run to run);
//   collectives      block_scanner (warp_scans over shuffles or volatile shared memory,
//                    kogge_stone, brent_kung), block_reduce, warp_scan, warp_reduce<8 lanes> at the
//                    same block sizes: a row scanned in tiles chained by a prefix callback,
//                    exclusive scan with init and aggregate, two collectives back to back on one
//                    storage (and a union with block_reduce's), warp collectives called from
//                    divergent warps (even warps scan, odd warps reduce 8-lane segments);
//                    warp_transpose_io, aligned (16-byte words) and not, full chunks and tails.
//
// Instantiations are kept few (nvcc time in CI): the group policies' kernels take the policy and the
// algorithm as run-time switches, one kernel per value type.
//
// ALGO_COOP_SMALL=1 in the environment: block sizes 96 and 257 only and no 2^20 rows, for the
// compute-sanitizer runs (memcheck, racecheck, synccheck), which are 10-100x slower.
#include <algo/cooperative.hpp>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_types.hpp"

using namespace algo_test;
namespace cg = cooperative_groups;

namespace {

#define CUDA_OK(call) REQUIRE((call) == cudaSuccess)

/// ALGO_COOP_SMALL=1: the reduced set for the sanitizers.
bool small_run() {
  const char* e = std::getenv("ALGO_COOP_SMALL");
  return e && e[0] == '1';
}
std::vector<int> group_block_sizes() {
  if (small_run()) return {96, 257};
  return {32, 96, 128, 257, 1024};
}

template <class T>
struct dbuf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit dbuf(std::size_t count) : n(count) {
    REQUIRE(cudaMalloc(&p, (count ? count : 1) * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, (count ? count : 1) * sizeof(T)) == cudaSuccess);
  }
  dbuf(const std::vector<T>& h) : dbuf(h.size()) {
    if (!h.empty()) REQUIRE(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  ~dbuf() { cudaFree(p); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    if (n) REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
  }
};

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point<T>::value) {
    const T scale = std::fabs(a) + std::fabs(b) + T(1);
    return std::fabs(a - b) <= T(1e-9) * scale * 1e3;
  } else {
    return a == b;
  }
}

struct identity_fn {
  template <class T>
  __host__ __device__ T operator()(const T& x) const { return x; }
};
struct second_fn {
  template <class T>
  __host__ __device__ T operator()(const T&, const T& b) const { return b; }
};

// ==== group policies ==============================================================================
enum mode : int { m_block = 0, m_block_storage, m_block_shared, m_warp, m_tile8, m_tile1, m_seq, m_count };
const char* mode_name[] = {"this_block", "this_block.with(storage) (scans: block_scan_storage)", "this_block over shared memory", "this_warp",
                           "group(tile<8>)", "group(tile<1>)", "seq"};
enum scan_kind_t : int { k_inclusive = 0, k_inclusive_init, k_exclusive };

/// Group index and group count of a mode in a 1-D grid.
__device__ inline void group_of(int mode, long& g, long& groups) {
  const long b = blockIdx.x, nb = gridDim.x, t = threadIdx.x, bd = blockDim.x;
  switch (mode) {
    case m_warp: g = b * ((bd + 31) / 32) + t / 32; groups = nb * ((bd + 31) / 32); break;
    case m_tile8: g = b * ((bd + 7) / 8) + t / 8; groups = nb * ((bd + 7) / 8); break;
    case m_tile1: g = b * bd + t; groups = nb * bd; break;
    default: g = b; groups = nb; break;
  }
}
long host_groups(int mode, int blocks, int threads) {
  switch (mode) {
    case m_warp: return long(blocks) * ((threads + 31) / 32);
    case m_tile8: return long(blocks) * ((threads + 7) / 8);
    case m_tile1: return long(blocks) * threads;
    default: return blocks;
  }
}

/// Group g < rows scans row g (length n) of `in` into `out`; other groups call with empty ranges.
/// Every thread records the returned iterator's offset in ends[thread].
template <class T, class Op>
__global__ void __launch_bounds__(1024) scan_kernel(const T* in, T* out, long n, long rows, int mode, int kind, T init, Op op, long* ends) {
  long g, groups;
  group_of(mode, g, groups);
  const long len = g < rows ? n : 0;
  const T* first = in + (g < rows ? g * n : 0);
  T* d = out + (g < rows ? g * n : 0);
  T* r = d;
  auto run = [&](const auto& policy, const T* f, T* o) {
    switch (kind) {
      case k_inclusive: return algo::inclusive_scan(policy, f, f + len, o, op);
      case k_inclusive_init: return algo::inclusive_scan(policy, f, f + len, o, op, init);
      default: return algo::exclusive_scan(policy, f, f + len, o, init, op);
    }
  };
  switch (mode) {
    case m_block: r = run(algo::this_block, first, d); break;
    case m_block_storage: {
      // the scans' storage with staging (the reduce kernel hands in the plain block_storage)
      __shared__ algo::block_scan_storage<T> storage;
      r = run(algo::this_block.with(storage), first, d);
      break;
    }
    case m_block_shared: {
      // In place over dynamic shared memory (len elements).
      extern __shared__ __align__(16) unsigned char dyn[];
      T* s = reinterpret_cast<T*>(dyn);
      for (long i = threadIdx.x; i < len; i += blockDim.x) s[i] = first[i];
      __syncthreads();
      T* e = run(algo::this_block, s, s);
      __syncthreads();
      for (long i = threadIdx.x; i < len; i += blockDim.x) d[i] = s[i];
      r = d + (e - s);
      break;
    }
    case m_warp: r = run(algo::this_warp, first, d); break;
    case m_tile8: r = run(algo::group(cg::tiled_partition<8>(cg::this_thread_block())), first, d); break;
    case m_tile1: r = run(algo::group(cg::tiled_partition<1>(cg::this_thread_block())), first, d); break;
    default:
      if (threadIdx.x == 0) r = run(algo::seq, first, d);
      else r = d + len;
      break;
  }
  ends[blockIdx.x * long(blockDim.x) + threadIdx.x] = r - d;
}

/// Every thread of group g < rows writes the group's fold of row g to results[thread].
template <class T, class Op>
__global__ void __launch_bounds__(1024) reduce_kernel(const T* in, const T* in2, long n, long rows, int mode, int kind, T init, Op op,
                              T* results) {
  long g, groups;
  group_of(mode, g, groups);
  const long len = g < rows ? n : 0;
  const T* first = in + (g < rows ? g * n : 0);
  const T* first2 = in2 + (g < rows ? g * n : 0);
  auto run = [&](const auto& policy) {
    switch (kind) {
      case 0: return algo::reduce(policy, first, first + len, init, op);
      case 1: return algo::transform_reduce(policy, first, first + len, init, op, identity_fn{});
      default: return algo::transform_reduce(policy, first2, first2 + len, first, init, op, second_fn{});
    }
  };
  T r{};
  switch (mode) {
    case m_block: r = run(algo::this_block); break;
    case m_block_storage: {
      __shared__ algo::block_storage<T> storage;
      r = run(algo::this_block.with(storage));
      break;
    }
    case m_warp: r = run(algo::this_warp); break;
    case m_tile8: r = run(algo::group(cg::tiled_partition<8>(cg::this_thread_block()))); break;
    case m_tile1: r = run(algo::group(cg::tiled_partition<1>(cg::this_thread_block()))); break;
    case m_seq:
      if (threadIdx.x == 0) r = run(algo::seq);
      break;
    default: break;
  }
  results[blockIdx.x * long(blockDim.x) + threadIdx.x] = r;
}

template <class T, class Op>
std::vector<T> host_scan(const T* in, long n, int kind, const T& init, Op op) {
  std::vector<T> out(n);
  if (n == 0) return out;
  T acc = kind == k_inclusive ? in[0] : init;
  for (long i = 0; i < n; ++i) {
    if (kind == k_exclusive) {
      out[i] = acc;
      acc = op(acc, in[i]);
    } else {
      if (!(kind == k_inclusive && i == 0)) acc = op(acc, in[i]);
      out[i] = acc;
    }
  }
  return out;
}

/// Elements a thread of a group policy holds per tile (the range algorithms' K).
template <class T>
constexpr long items_per_thread = algo::detail::cuda::coop::range_items<T>;

/// Lengths: 0, 1, a tile of the group -1 / +1, and (few rows) 2^20.
std::vector<long> lengths_for(int mode, int threads, long k) {
  long group = mode == m_warp ? 32 : mode == m_tile8 ? 8 : mode == m_tile1 ? 1 : mode == m_seq ? 1 : threads;
  if (mode == m_warp && threads < 32) group = threads;
  const long tile = group * k;
  if (small_run()) return {0, 1, tile - 1, tile + 1, 3 * tile + 5};
  return {0, 1, tile - 1, tile + 1, 3 * tile + 5, 1L << 20};
}

template <class T, class Op>
void check_group_scans(Op op, const T& init, std::uint64_t seed, bool only_block_modes = false) {
  // the kernel's static shared memory (the library's staging and the handed-in storage, about
  // 40 KB) plus up to 48 KB of dynamic shared memory for the in-place mode
  CUDA_OK(cudaFuncSetAttribute(scan_kernel<T, Op>, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
  for (int threads : group_block_sizes()) {
    for (int mode = 0; mode < m_count; ++mode) {
      if (only_block_modes && mode != m_block && mode != m_warp) continue;
      for (long n : lengths_for(mode, threads, items_per_thread<T>)) {
        if (n < 0) continue;
        const bool big = n >= (1L << 20);
        if (mode == m_block_shared && n * long(sizeof(T)) > 48 * 1024) continue;
        const int blocks = big ? 1 : 2;
        const long groups = host_groups(mode, blocks, threads);
        const long rows = big ? (groups < 3 ? groups : 3) : groups;
        if (big && mode == m_seq && threads > 32) continue;  // one thread, 2^20 elements: enough once
        const auto h = random_vector<T>(std::size_t(rows * n), seed + n + 7 * mode + threads);
        dbuf<T> in(h);
        dbuf<T> out(std::size_t(rows * n));
        dbuf<long> ends(std::size_t(blocks) * threads);
        for (int kind : {k_inclusive, k_inclusive_init, k_exclusive}) {
          CAPTURE(type_name_v<T>, threads, mode_name[mode], n, kind);
          const std::size_t shmem = mode == m_block_shared ? std::size_t(n) * sizeof(T) : 0;
          scan_kernel<<<blocks, threads, shmem>>>(in.p, out.p, n, rows, mode, kind, init, op, ends.p);
          CUDA_OK(cudaGetLastError());
          CUDA_OK(cudaDeviceSynchronize());
          const auto got = out.get();
          for (long r = 0; r < rows; ++r) {
            const auto want = host_scan(h.data() + r * n, n, kind, init, op);
            long bad = -1;
            for (long i = 0; i < n && bad < 0; ++i)
              if (!same(got[r * n + i], want[i])) bad = i;
            CAPTURE(r, bad);
            REQUIRE(bad < 0);
          }
          const auto e = ends.get();
          for (long t = 0; t < long(e.size()); ++t) {
            long g, tb = t / threads, tt = t % threads;
            switch (mode) {
              case m_warp: g = tb * ((threads + 31) / 32) + tt / 32; break;
              case m_tile8: g = tb * ((threads + 7) / 8) + tt / 8; break;
              case m_tile1: g = t; break;
              default: g = tb; break;
            }
            const long want = g < rows ? n : 0;
            CAPTURE(t);
            REQUIRE(e[t] == want);
          }
        }
      }
    }
  }
}

template <class T, class Op>
void check_group_reduces(Op op, const T& init, std::uint64_t seed) {
  for (int threads : group_block_sizes()) {
    for (int mode = 0; mode < m_count; ++mode) {
      if (mode == m_block_shared) continue;
      for (long n : lengths_for(mode, threads, items_per_thread<T>)) {
        const bool big = n >= (1L << 20);
        const int blocks = big ? 1 : 2;
        const long groups = host_groups(mode, blocks, threads);
        const long rows = big ? (groups < 3 ? groups : 3) : groups;
        if (big && mode == m_seq && threads > 32) continue;
        const auto h = random_vector<T>(std::size_t(rows * n), seed + n + 11 * mode + threads);
        const auto h2 = random_vector<T>(std::size_t(rows * n), seed + n + 13 * mode + threads + 1);
        dbuf<T> in(h), in2(h2);
        dbuf<T> res(std::size_t(blocks) * threads);
        for (int kind : {0, 1, 2}) {
          CAPTURE(type_name_v<T>, threads, mode_name[mode], n, kind);
          reduce_kernel<<<blocks, threads>>>(in.p, in2.p, n, rows, mode, kind, init, op, res.p);
          CUDA_OK(cudaGetLastError());
          CUDA_OK(cudaDeviceSynchronize());
          const auto got = res.get();
          for (long t = 0; t < long(got.size()); ++t) {
            long g, tb = t / threads, tt = t % threads;
            switch (mode) {
              case m_warp: g = tb * ((threads + 31) / 32) + tt / 32; break;
              case m_tile8: g = tb * ((threads + 7) / 8) + tt / 8; break;
              case m_tile1: g = t; break;
              default: g = tb; break;
            }
            if (g >= rows || (mode == m_seq && tt != 0)) continue;
            // kind 2 folds the first range (second_fn picks first2's element: `first` here).
            const T* row = h.data() + g * n;
            T want = init;
            for (long i = 0; i < n; ++i) want = op(want, row[i]);
            CAPTURE(t, g);
            REQUIRE(same(got[t], want));
          }
        }
      }
    }
  }
}

// ==== collectives =================================================================================
template <class Choice, class Phase>
struct config {
  using choice = Choice;
  using phase = Phase;
};
using warp_scans_shfl = config<algo::block_scan::warp_scans_t, algo::warp_phase::shfl_t>;
using warp_scans_smem = config<algo::block_scan::warp_scans_t, algo::warp_phase::smem_t>;
using kogge_stone = config<algo::block_scan::kogge_stone_t, algo::warp_phase::shfl_t>;
using brent_kung = config<algo::block_scan::brent_kung_t, algo::warp_phase::shfl_t>;

constexpr int coll_items = 3;

/// A running total in warp 0: what the tiles of a row chain through (after the first tile).
template <class T, class Op>
struct running_prefix {
  T total;
  Op op;
  __device__ T operator()(const T& aggregate) {
    const T before = total;
    total = op(total, aggregate);
    return before;
  }
};

/// Per block b, row b of length n:
///   incl    the row's inclusive scan (tiles of Threads x 3 items, a prefix callback between tiles;
///           the first tile uses the form without callback)
///   excl    exclusive scan with init of x_t = row[min(t, n-1)] (one value a thread)
///   red     [3b]: that scan's aggregate, [3b+1]: block_reduce's fold, [3b+2]: block_scanner::reduce
///   warp    even warps: warp_scan inclusive of x over the warp; odd warps: warp_reduce over 8-lane
///           segments (divergent calls)
template <int Threads, class Config, class T, class Op>
__global__ void __launch_bounds__(Threads) collectives_kernel(const T* in, T* incl, T* excl, T* red, T* warp, long n,
                                                               T init, Op op) {
  using scan_t = algo::block_scanner<T, Threads, typename Config::choice, typename Config::phase>;
  using reduce_t = algo::block_reduce<T, Threads, typename Config::phase>;
  __shared__ union {
    typename scan_t::temp_storage scan;
    typename reduce_t::temp_storage reduce;
  } tmp;
  const int t = threadIdx.x;
  const T* row = in + blockIdx.x * n;
  T* out = incl + blockIdx.x * n;

  // ---- a row, tile by tile ------------------------------------------------------------------------
  running_prefix<T, Op> prefix{T{}, op};
  for (long base = 0; base < n; base += Threads * coll_items) {
    const long left = n - base;
    const int valid = left < Threads * coll_items ? int(left) : Threads * coll_items;
    T items[coll_items];
    algo::load_blocked(t, row + base, items, valid, row[base]);
    if (base == 0) {
      T aggregate;
      scan_t(tmp.scan).inclusive_scan(items, op, aggregate);
      prefix.total = aggregate;  // every thread's copy; warp 0's is the one used
    } else {
      scan_t(tmp.scan).inclusive_scan(items, op, prefix);
    }
    algo::store_blocked(t, out + base, items, valid);
  }

  // ---- one value a thread: two scans back to back on one storage, then block_reduce --------------
  const T x = row[t < n ? t : n - 1];
  T aggregate;
  const T e = scan_t(tmp.scan).exclusive_scan(x, init, op, aggregate);
  const T all = scan_t(tmp.scan).reduce(x, op);  // same storage, no barrier needed
  excl[blockIdx.x * Threads + t] = e;
  __syncthreads();  // the union's other member next
  const T folded = reduce_t(tmp.reduce).reduce(x, op);
  if (t == 0) {
    red[3 * blockIdx.x] = aggregate;
    red[3 * blockIdx.x + 1] = folded;
  }
  if (t == Threads - 1) red[3 * blockIdx.x + 2] = all;

  // ---- warps, divergent ------------------------------------------------------------------------------
  using wscan_t = algo::warp_scan<T, 32, typename Config::phase>;
  using wred_t = algo::warp_reduce<T, 8, typename Config::phase>;
  __shared__ typename wscan_t::temp_storage wscan[(Threads + 31) / 32];
  // Odd warps only: 4 segments of 8 lanes each.
  __shared__ typename wred_t::temp_storage wred[((Threads + 31) / 32 / 2 + 1) * 4];
  T w;
  if ((t / 32) % 2 == 0) {
    w = wscan_t(wscan[t / 32]).inclusive_scan(x, op);
  } else {
    w = wred_t(wred[(t / 64) * 4 + (t % 32) / 8]).reduce(x, op);
  }
  warp[blockIdx.x * Threads + t] = w;
}

template <int Threads, class Config, class T, class Op>
void check_collectives(Op op, const T& init, std::uint64_t seed) {
  const int blocks = 2;
  for (long n : {1L, long(Threads) * coll_items - 1, long(Threads) * coll_items + 1, 5L * Threads * coll_items + 7}) {
    CAPTURE(Threads, type_name_v<T>, n);
    const auto h = random_vector<T>(std::size_t(blocks * n), seed + n);
    dbuf<T> in(h), incl(std::size_t(blocks * n)), excl(std::size_t(blocks) * Threads), red(std::size_t(blocks) * 3),
        warp(std::size_t(blocks) * Threads);
    collectives_kernel<Threads, Config><<<blocks, Threads>>>(in.p, incl.p, excl.p, red.p, warp.p, n, init, op);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    const auto gi = incl.get(), ge = excl.get(), gr = red.get(), gw = warp.get();
    for (int b = 0; b < blocks; ++b) {
      const T* row = h.data() + b * n;
      const auto want = host_scan(row, n, k_inclusive, init, op);
      for (long i = 0; i < n; ++i) {
        CAPTURE(b, i);
        REQUIRE(gi[b * n + i] == want[i]);
      }
      std::vector<T> x(Threads);
      for (int t = 0; t < Threads; ++t) x[t] = row[t < n ? t : n - 1];
      T acc = init;
      for (int t = 0; t < Threads; ++t) {
        CAPTURE(b, t);
        REQUIRE(ge[b * Threads + t] == acc);
        acc = op(acc, x[t]);
      }
      T fold = x[0];
      for (int t = 1; t < Threads; ++t) fold = op(fold, x[t]);
      REQUIRE(gr[3 * b] == fold);
      REQUIRE(gr[3 * b + 1] == fold);
      REQUIRE(gr[3 * b + 2] == fold);
      for (int t = 0; t < Threads; ++t) {
        T want_w;
        if ((t / 32) % 2 == 0) {
          want_w = x[t / 32 * 32];
          for (int u = t / 32 * 32 + 1; u <= t; ++u) want_w = op(want_w, x[u]);
        } else {
          const int s0 = t / 8 * 8, s1 = s0 + 8 < Threads ? s0 + 8 : Threads;
          want_w = x[s0];
          for (int u = s0 + 1; u < s1; ++u) want_w = op(want_w, x[u]);
        }
        CAPTURE(b, t);
        REQUIRE(gw[b * Threads + t] == want_w);
      }
    }
  }
}

template <class Config, class T, class Op>
void check_collectives_all_sizes(Op op, const T& init, std::uint64_t seed) {
  if (small_run()) {
    check_collectives<96, Config>(op, init, seed);
    check_collectives<257, Config>(op, init, seed);
    return;
  }
  check_collectives<32, Config>(op, init, seed);
  check_collectives<96, Config>(op, init, seed);
  check_collectives<128, Config>(op, init, seed);
  check_collectives<257, Config>(op, init, seed);
  check_collectives<1024, Config>(op, init, seed);
}

/// Each of 4 warps moves its chunk of 32 x Items elements through algo::warp_transpose_io: blocked
/// registers out to `blocked`, then stored to `out` (positions below valid).
template <class T, int Items>
__global__ void warp_io_kernel(const T* in, T* out, int valid, T fill, T* blocked) {
  using io_t = algo::warp_transpose_io<T, Items>;
  __shared__ typename io_t::temp_storage s[4];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long chunk = 32L * Items;
  T items[Items];
  if (valid >= 32 * Items) io_t(s[w]).load(in + w * chunk, items);
  else io_t(s[w]).load(in + w * chunk, items, valid, fill);
  for (int k = 0; k < Items; ++k) blocked[(w * 32 + lane) * Items + k] = items[k];
  if (valid >= 32 * Items) io_t(s[w]).store(out + w * chunk, items);
  else io_t(s[w]).store(out + w * chunk, items, valid);
}

template <class T, int Items>
void check_warp_io(const T& fill, std::uint64_t seed) {
  const long chunk = 32L * Items, total = 4 * chunk;
  for (int offset : {0, 1}) {  // 16-byte aligned (words) or not (elements)
    for (int valid : {int(chunk), int(chunk) - 1, 37, 1}) {
      CAPTURE(type_name_v<T>, Items, offset, valid);
      const auto h = random_vector<T>(std::size_t(total + 1), seed + valid);
      dbuf<T> in(h), out{std::size_t(total + 1)}, blocked{std::size_t(total)};
      warp_io_kernel<T, Items><<<1, 128>>>(in.p + offset, out.p + offset, valid, fill, blocked.p);
      CUDA_OK(cudaGetLastError());
      CUDA_OK(cudaDeviceSynchronize());
      const auto gb = blocked.get(), go = out.get();
      for (long w = 0; w < 4; ++w)
        for (long i = 0; i < chunk; ++i) {
          CAPTURE(w, i);
          const T want = i < valid ? h[offset + w * chunk + i] : fill;
          REQUIRE(gb[w * chunk + i] == want);
          REQUIRE(go[offset + w * chunk + i] == (i < valid ? h[offset + w * chunk + i] : T{}));
        }
    }
  }
}

}  // namespace

TEST_CASE("collectives: warp_transpose_io (coalesced in memory, blocked in registers)", "[cooperative][collectives]") {
  check_warp_io<std::int32_t, 16>(-5, 20);
  check_warp_io<big32, 2>(big32{9, 9, 9, 9}, 21);
}

TEST_CASE("group policies: scans of int32 and of non-commutative affine maps", "[cooperative][group]") {
  check_group_scans<std::int32_t>(algo::plus<>{}, std::int32_t(5), 1);
  check_group_scans<affine_i>(compose_affine_i{}, affine_i{3, -7}, 2);
}

TEST_CASE("group policies: scans of a 32-byte struct and take_right", "[cooperative][group]") {
  check_group_scans<big32>(big32_mul{}, big32{1, 2, 3, 5}, 3, true);
  check_group_scans<std::int32_t>(take_right{}, std::int32_t(-1), 4, true);
}

TEST_CASE("group policies: reductions return the fold to every thread", "[cooperative][group]") {
  check_group_reduces<std::int32_t>(algo::plus<>{}, std::int32_t(5), 5);
  check_group_reduces<affine_i>(compose_affine_i{}, affine_i{3, -7}, 6);
  check_group_reduces<std::int32_t>(take_right{}, std::int32_t(-1), 7);
}

TEST_CASE("group policies: double results are bitwise equal run to run", "[cooperative][group]") {
  const long n = small_run() ? 1L << 14 : 1L << 20;
  const auto h = random_vector<double>(std::size_t(3 * n), 8);
  dbuf<double> in(h), out(std::size_t(3 * n)), res(1024);
  dbuf<long> ends(1024);
  std::vector<double> first_scan, first_red;
  for (int run = 0; run < 2; ++run) {
    for (int mode : {int(m_block), int(m_warp)}) {
      CUDA_OK(cudaMemset(out.p, 0, 3 * n * sizeof(double)));
      CUDA_OK(cudaMemset(res.p, 0, 1024 * sizeof(double)));
      scan_kernel<<<1, 1024>>>(in.p, out.p, n, 3, mode, k_inclusive, 0.0, algo::plus<>{}, ends.p);
      reduce_kernel<<<1, 1024>>>(in.p, in.p, n, 3, mode, 0, 0.0, algo::plus<>{}, res.p);
      CUDA_OK(cudaDeviceSynchronize());
      auto s = out.get();
      auto r = res.get();
      const std::size_t k = mode == m_block ? 0 : 1;
      if (run == 0) {
        first_scan.insert(first_scan.end(), s.begin(), s.end());
        first_red.insert(first_red.end(), r.begin(), r.end());
      } else {
        REQUIRE(std::memcmp(s.data(), first_scan.data() + k * s.size(), s.size() * sizeof(double)) == 0);
        REQUIRE(std::memcmp(r.data(), first_red.data() + k * r.size(), r.size() * sizeof(double)) == 0);
      }
      // Against the sequential sum, within rounding.
      double want = 0, magnitude = 0;
      for (long i = 0; i < n; ++i) {
        want += h[i];
        magnitude += std::fabs(h[i]);
      }
      CAPTURE(mode, r[0], want);
      REQUIRE(std::fabs(r[0] - want) <= 1e-10 * magnitude);
    }
  }
}

TEST_CASE("collectives: block_scanner (warp scans over shuffles), block_reduce, warp_scan, warp_reduce",
          "[cooperative][collectives]") {
  check_collectives_all_sizes<warp_scans_shfl>(compose_affine_i{}, affine_i{3, -7}, 10);
  check_collectives_all_sizes<warp_scans_shfl>(algo::plus<>{}, std::int32_t(5), 11);
  check_collectives<96, warp_scans_shfl>(big32_mul{}, big32{1, 2, 3, 5}, 12);
  check_collectives<257, warp_scans_shfl>(big32_mul{}, big32{1, 2, 3, 5}, 13);
}

TEST_CASE("collectives: warp scans over volatile shared memory", "[cooperative][collectives]") {
  check_collectives_all_sizes<warp_scans_smem>(compose_affine_i{}, affine_i{3, -7}, 14);
}

TEST_CASE("collectives: Kogge-Stone and Brent-Kung block scans", "[cooperative][collectives]") {
  check_collectives_all_sizes<kogge_stone>(compose_affine_i{}, affine_i{3, -7}, 15);
  check_collectives_all_sizes<brent_kung>(compose_affine_i{}, affine_i{3, -7}, 16);
  check_collectives<257, kogge_stone>(big32_mul{}, big32{1, 2, 3, 5}, 17);
  check_collectives<96, brent_kung>(big32_mul{}, big32{1, 2, 3, 5}, 18);
}
