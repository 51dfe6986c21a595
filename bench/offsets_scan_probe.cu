// offsets_scan_probe: where segmented_inclusive_scan over offsets in memory spends its time on
// irregular segments against CUB's InclusiveSumByKey (issue 27: the bench's power-law row, 0.91x
// at 3b232a8, 1.04x at bde334a with the heads mask). A development tool, like seg_reduce_probe:
// claims come from `bench --only segmented`.
// 2^26 f32, the bench's segment lengths (bench/segmented.cuh segment_offsets: Pareto 1.2, empty
// segments among them, or one length L with --L), offsets in device memory.
//
// rows (each timed as the bench times a call: events around it, the GPU idle before it; three
// rounds, median of medians), the parts of the public call and the candidates for them:
//   cub InclusiveSumByKey (keys: each element's segment number), algo::inclusive_scan_by_key (the
//   same keys), algo::segmented_inclusive_scan (the public call: the check, its host round trip,
//   the heads mask or uniform heads, the scan); the check alone (read_offsets_device: kernel, copy,
//   event wait); the check kernel alone (launch only); the heads mask built as the library builds
//   it (since 2026-11-27: a block a 32768 elements, written whole; before, a memset and one
//   atomicOr a segment: 0.083 ms on the power law); the scan alone over the mask (mask_heads, built
//   once) and over uniform heads of the mean length (a floor: no heads to read); and candidates
//   for the check: one that reads the offsets coalesced (lane i of a warp takes segment k0 + i, the
//   next offset from the next lane), and the same building the heads mask as it checks (a memset,
//   then one atomicOr per mask word a warp load touches; its mask is compared with the library's);
//   the mask kernel at other shapes (words a block, offsets in flight a thread), each mask
//   compared with the library's.
//   offsets_scan_probe [--L 0] [--reps 30] [--ncu]   (--L 0: the power law; --ncu: one call a row)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "segmented.cuh"

namespace {

using bench::check;
namespace seg = algo::detail::segmented;

struct row {
  std::string name;
  std::function<void()> call;
  std::vector<double> event;
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// The candidate check: warp w takes segments k0 .. k0 + 32 R - 1 (k0 = 32 R w, then a grid of
/// warps further on), lane i segment k0 + 32 j + i for j < R, its offsets read as R coalesced
/// 128-byte loads and one more word; the segment's end from the next lane (lane 31: from lane 0 of
/// the next load). With Mask: the non-empty segments' heads set in `mask` (cleared before), the
/// lanes whose heads share a mask word folded first (the offsets are in order, so they are
/// neighbours) and one atomicOr a word.
template <int R, bool Mask>
__global__ void check_coalesced_kernel(const int* offsets, long long segments, seg::offsets_check* r,
                                       std::uint32_t* mask) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  const long long base = static_cast<long long>(offsets[0]);
  unsigned lmax = 0, lmin = ~0u;
  long long bad = 0x7fffffffffffffffLL;
  for (long long k0 = (blockIdx.x * static_cast<long long>(blockDim.x / 32) + threadIdx.x / 32) * 32 * R; k0 < segments;
       k0 += warps * 32 * R) {
    int o[R + 1];
#pragma unroll
    for (int j = 0; j <= R; ++j) {
      const long long k = k0 + 32 * j + (j < R ? lane : 0);
      o[j] = k <= segments ? offsets[k] : 0;
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const long long k = k0 + 32 * j + lane;
      const int down = __shfl_down_sync(0xffffffffu, o[j], 1);
      const int next0 = __shfl_sync(0xffffffffu, o[j + 1], 0);
      const int hi = lane == 31 ? next0 : down;
      const bool in = k < segments;
      if (in) {
        if (hi < o[j] && k < bad) bad = k;
        const unsigned len = static_cast<unsigned>(hi) - static_cast<unsigned>(o[j]);
        lmax = len > lmax ? len : lmax;
        lmin = len < lmin ? len : lmin;
      }
      if constexpr (Mask) {
        const long long rel = static_cast<long long>(o[j]) - base;
        const long long word = in ? (rel >> 5) : -1;
        unsigned v = in && hi > o[j] ? 1u << (rel & 31) : 0u;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {  // the OR of the lanes below with the same word
          const unsigned t = __shfl_up_sync(0xffffffffu, v, d);
          const long long tw = __shfl_up_sync(0xffffffffu, word, d);
          if (lane >= d && tw == word) v |= t;
        }
        const long long next_word = __shfl_down_sync(0xffffffffu, word, 1);
        if (in && v != 0 && (lane == 31 || next_word != word)) atomicOr(mask + word, v);
      }
    }
  }
  long long longest = static_cast<long long>(lmax);
  long long shortest = lmin == ~0u ? 0x7fffffffffffffffLL : static_cast<long long>(lmin);
  for (int d = 16; d > 0; d /= 2) {
    longest = max(longest, __shfl_down_sync(0xffffffffu, longest, d));
    shortest = min(shortest, __shfl_down_sync(0xffffffffu, shortest, d));
    bad = min(bad, __shfl_down_sync(0xffffffffu, bad, d));
  }
  if (lane == 0) {
    if (longest > 0 && longest > *static_cast<volatile long long*>(&r->max_length)) atomicMax(&r->max_length, longest);
    if (shortest < *static_cast<volatile long long*>(&r->min_length)) atomicMin(&r->min_length, shortest);
    if (bad != 0x7fffffffffffffffLL) atomicMin(&r->bad_at, bad);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    r->first = base;
    r->last = static_cast<long long>(offsets[segments]);
  }
}

/// heads_mask_kernel's other shapes (seg::mask_tuning: the library's).
template <int Words, int Unroll>
struct mask_shape {
  static constexpr int words = Words;
  static constexpr int unroll = Unroll;
};

}  // namespace

int main(int argc, char** argv) {
  long long L = 0;
  int reps = 30;
  bool ncu = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--L") && i + 1 < argc) L = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--ncu")) ncu = true;
  }
  const long long n = 1ll << 26;
  const std::vector<int> ho = bench::segment_offsets(n, L > 0 ? L : 1, L <= 0);
  const long long segments = static_cast<long long>(ho.size()) - 1;
  std::vector<float> h(static_cast<std::size_t>(n));
  unsigned s = 12345;
  for (auto& x : h) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  std::vector<int> hk(static_cast<std::size_t>(n));
  for (long long k = 0; k < segments; ++k)
    for (int i = ho[static_cast<std::size_t>(k)]; i < ho[static_cast<std::size_t>(k) + 1]; ++i) hk[static_cast<std::size_t>(i)] = static_cast<int>(k);
  bench::device_array<float> v(h), out(static_cast<std::size_t>(n)), out2(static_cast<std::size_t>(n));
  bench::device_array<int> off(ho), keys(hk);
  bench::device_array<std::uint32_t> mask(static_cast<std::size_t>((n + 31) / 32)), mask2(static_cast<std::size_t>((n + 31) / 32));
  bench::device_array<seg::offsets_check> rc(1);
  bench::cub_temp t([&](void* p, std::size_t& b) {
    return cub::DeviceScan::InclusiveSumByKey(p, b, keys.p, v.p, out.p, static_cast<int>(n));
  });
  const auto& policy = algo::cuda;
  const auto scan_with = [&](auto heads, float* o) {
    algo::detail::segmented_scan_run<seg::lift_plain, float>("probe", policy, heads, static_cast<const float*>(v.p), n, o,
                                                             algo::plus<>{}, 0.0f, algo::detail::alias_kind::none);
  };
  const seg::offsets_check start{0, 0, 0x7fffffffffffffffLL, 0, 0x7fffffffffffffffLL};
  const unsigned check_grid = seg::small_grid((segments + seg::check_run - 1) / seg::check_run, 256);
  const auto coalesced_grid = [&](int r) {
    const long long warps = (segments + 32ll * r - 1) / (32ll * r);
    const long long blocks = (warps + 7) / 8;
    return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
  };
  const long long mean = n / segments;

  std::vector<row> rows;
  rows.push_back({"cub InclusiveSumByKey (keys)", [&] {
                    std::size_t b = t.bytes;
                    check(cub::DeviceScan::InclusiveSumByKey(t.p, b, keys.p, v.p, out.p, static_cast<int>(n)), "cub");
                  }});
  rows.push_back({"algo::inclusive_scan_by_key (keys)",
                  [&] { algo::inclusive_scan_by_key(algo::cuda, keys.p, keys.p + n, v.p, out.p); }});
  rows.push_back({"algo::segmented_inclusive_scan (offsets)",
                  [&] { algo::segmented_inclusive_scan(algo::cuda, v.p, off.p, off.p + segments + 1, out.p); }});
  rows.push_back({"check: read_offsets_device (kernel+copy+wait)",
                  [&] { (void)seg::read_offsets_device("probe", policy, static_cast<const int*>(off.p), segments); }});
  rows.push_back({"check kernel alone (library's)", [&] {
                    algo::detail::cuda::write_value_kernel<<<1, 1>>>(rc.p, start);
                    seg::check_offsets_kernel<<<check_grid, 256>>>(static_cast<const int*>(off.p), segments, rc.p);
                  }});
  rows.push_back({"check kernel coalesced, R=4", [&] {
                    algo::detail::cuda::write_value_kernel<<<1, 1>>>(rc.p, start);
                    check_coalesced_kernel<4, false><<<coalesced_grid(4), 256>>>(off.p, segments, rc.p, nullptr);
                  }});
  rows.push_back({"check kernel coalesced, R=8", [&] {
                    algo::detail::cuda::write_value_kernel<<<1, 1>>>(rc.p, start);
                    check_coalesced_kernel<8, false><<<coalesced_grid(8), 256>>>(off.p, segments, rc.p, nullptr);
                  }});
  rows.push_back({"check + mask kernel (memset, coalesced R=4)", [&] {
                    algo::detail::cuda::write_value_kernel<<<1, 1>>>(rc.p, start);
                    check(cudaMemsetAsync(mask2.p, 0, static_cast<std::size_t>((n + 31) / 32) * 4), "memset");
                    check_coalesced_kernel<4, true><<<coalesced_grid(4), 256>>>(off.p, segments, rc.p, mask2.p);
                  }});
  rows.push_back({"heads mask, library's (a block a 32768 elements)", [&] {
                    seg::heads_mask_device("probe", policy, static_cast<const int*>(off.p), segments, 0, n, mask.p);
                  }});
  const auto mask_row = [&](auto tuning) {
    return [&, tuning] {
      seg::heads_mask_device<decltype(tuning)>("probe", policy, static_cast<const int*>(off.p), segments, 0, n, mask2.p);
    };
  };
  rows.push_back({"heads mask, 1024 words a block, 8 in flight", mask_row(mask_shape<1024, 8>{})});
  rows.push_back({"heads mask, 2048 words a block, 4 in flight", mask_row(mask_shape<2048, 4>{})});
  rows.push_back({"heads mask, 2048 words a block, 8 in flight", mask_row(mask_shape<2048, 8>{})});
  rows.push_back({"heads mask, 512 words a block, 4 in flight", mask_row(mask_shape<512, 4>{})});
  rows.push_back({"scan alone, mask_heads (mask built)", [&] { scan_with(seg::mask_heads{mask.p}, out2.p); }});
  rows.push_back({"scan alone, uniform_heads of the mean (floor)", [&] { scan_with(seg::uniform_heads{mean}, out2.p); }});

  if (ncu) {  // one call a row, nothing else (the mask the scan reads: built by the row before it)
    for (auto& r : rows) r.call();
    check(cudaDeviceSynchronize(), "ncu calls");
    return 0;
  }
  // results: the masks agree, the scans over offsets and over the mask agree bit for bit, the
  // coalesced check finds what the library's finds
  for (auto& r : rows) r.call();
  check(cudaDeviceSynchronize(), "first calls");
  {
    const std::size_t words = static_cast<std::size_t>((n + 31) / 32);
    std::vector<std::uint32_t> m1(words), m2(words);
    check(cudaMemcpy(m1.data(), mask.p, words * 4, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(m2.data(), mask2.p, words * 4, cudaMemcpyDeviceToHost), "copy");
    std::printf("check masks equal (library's, the last row writing the other buffer): %s\n", m1 == m2 ? "yes" : "NO");
    for (auto& r : rows) {  // every other shape of the mask kernel against the library's
      if (r.name.rfind("heads mask, ", 0) != 0 || r.name.find("library") != std::string::npos) continue;
      check(cudaMemset(mask2.p, 0xff, words * 4), "memset");
      r.call();
      check(cudaMemcpy(m2.data(), mask2.p, words * 4, cudaMemcpyDeviceToHost), "copy");
      std::printf("check %s: %s\n", r.name.c_str(), m1 == m2 ? "equal" : "DIFFERENT");
    }
    algo::segmented_inclusive_scan(policy, static_cast<const float*>(v.p), static_cast<const int*>(off.p),
                                   static_cast<const int*>(off.p) + segments + 1, out.p);
    scan_with(seg::mask_heads{mask.p}, out2.p);
    check(cudaDeviceSynchronize(), "scans");
    std::vector<float> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    check(cudaMemcpy(a.data(), out.p, n * 4, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(b.data(), out2.p, n * 4, cudaMemcpyDeviceToHost), "copy");
    std::printf("check scans (the public call, mask_heads) bitwise equal: %s\n",
                std::memcmp(a.data(), b.data(), n * 4) == 0 ? "yes" : "NO");
    seg::offsets_check c2{};
    check(cudaMemcpy(&c2, rc.p, sizeof(c2), cudaMemcpyDeviceToHost), "copy");
    const seg::offsets_info info = seg::read_offsets_device("probe", policy, static_cast<const int*>(off.p), segments);
    std::printf("check verdicts: library first %lld last %lld max %lld min %lld; coalesced+mask first %lld last %lld max %lld "
                "min %lld bad %lld\n",
                static_cast<long long>(info.first), static_cast<long long>(info.last),
                static_cast<long long>(info.max_length), static_cast<long long>(info.min_length), c2.first, c2.last,
                c2.max_length, c2.min_length, c2.bad_at);
  }
  cudaEvent_t ea, eb;
  check(cudaEventCreate(&ea), "cudaEventCreate");
  check(cudaEventCreate(&eb), "cudaEventCreate");
  for (int round = 0; round < 3; ++round) {
    for (auto& r : rows) {
      for (int w = 0; w < 3; ++w) r.call();
      check(cudaDeviceSynchronize(), "warm-up");
      std::vector<double> ev;
      for (int i = 0; i < reps; ++i) {
        check(cudaEventRecord(ea), "rec");
        r.call();
        check(cudaEventRecord(eb), "rec");
        check(cudaEventSynchronize(eb), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, ea, eb), "elapsed");
        ev.push_back(ms);
      }
      r.event.push_back(median(ev));
    }
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("\n%s, 2^26 f32, %s (%lld segments, mean %lld), offsets in device memory; ms, median of 3 rounds\n",
              prop.name, L > 0 ? ("L = " + std::to_string(L)).c_str() : "power law", segments, mean);
  std::printf("%-52s %9s %8s\n", "row", "event", "cub/row");
  const double cub = median(rows[0].event);
  for (auto& r : rows) std::printf("%-52s %9.4f %8.3f\n", r.name.c_str(), median(r.event), cub / median(r.event));
  return 0;
}
