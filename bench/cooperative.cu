// Inside a kernel (issue 17; `bench --only cooperative`): 2^26 elements (2^24 with --quick) of
// random data cut into rows, one group a row, against CUB's collectives in the same kind of kernel
// and against a device-to-device copy (scans) or cub::DeviceReduce over the whole array (sums):
//
//   row_scan  i32 rows of 2^12 / 2^14 / 2^16, affine maps (8 bytes, non-commutative) rows of 2^14:
//             memcpy D2D (the baseline of the ratio column) / the CUB kernel (BlockLoad + BlockScan +
//             BlockStore, warp-transposed, 256 threads x 16 items, 8 for affine maps; a prefix
//             callback between tiles) / algo::inclusive_scan(algo::this_block, row...) (256 threads)
//             / algo::block_scanner with each block-scan choice (warp_scans, kogge_stone, brent_kung;
//             i32 only; 256 x 16, loads and stores through algo::warp_transpose_io, a prefix
//             callback between tiles; warp_scans also with direct 16-byte loads and stores, the
//             access pattern of the group policy)
//   row_sum   f32 rows of 256 / 4096 / 2^16: cub::DeviceReduce::Sum over the whole array (the
//             baseline) / CUB warp per row (cub::WarpReduce after float4 striped loads) / CUB block
//             per row (cub::BlockReduce, 256 threads) / algo::reduce(algo::this_warp, ...) /
//             algo::reduce(algo::this_block, ...) (256 threads) / algo::reduce(algo::group(tile<8>))
//             for rows of 256
// Bytes: scans read and write each element once, sums read it once.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algo/cooperative.hpp>

#include "cooperative.cuh"
#include "harness.cuh"

namespace bench {
namespace coop_bench {

namespace cg = cooperative_groups;

struct affine_map {
  float a, b;
};
struct compose {
  __host__ __device__ affine_map operator()(const affine_map& f, const affine_map& g) const {
    return affine_map{f.a * g.a, g.a * f.b + g.b};
  }
};
struct plus_i {
  __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

__global__ void fill_affine(affine_map* d, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u;
    d[i] = affine_map{1.0f + float(x % 7u) * 1e-7f, float(x % 13u) * 1e-3f};
  }
}

/// Running total between the tiles of a row: CUB's and algo's prefix callbacks alike.
template <class T, class Op>
struct running_total {
  T total;
  Op op;
  __device__ T operator()(const T& aggregate) {
    const T before = total;
    total = op(total, aggregate);
    return before;
  }
};

// ---- row scans -----------------------------------------------------------------------------------------
template <class T, int Threads, int Items, class Op>
__global__ void __launch_bounds__(Threads) cub_row_scan(const T* in, T* out, std::int64_t L, Op op) {
  using load_t = cub::BlockLoad<T, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using scan_t = cub::BlockScan<T, Threads>;
  using store_t = cub::BlockStore<T, Threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename load_t::TempStorage load;
    typename scan_t::TempStorage scan;
    typename store_t::TempStorage store;
  } tmp;
  const T* row = in + blockIdx.x * L;
  T* o = out + blockIdx.x * L;
  running_total<T, Op> prefix{T{}, op};
  for (std::int64_t base = 0; base < L; base += Threads * Items) {  // L: a multiple of the tile
    T items[Items];
    load_t(tmp.load).Load(row + base, items);
    __syncthreads();
    if (base == 0) {
      T aggregate;
      scan_t(tmp.scan).InclusiveScan(items, items, op, aggregate);
      prefix.total = aggregate;
    } else {
      scan_t(tmp.scan).InclusiveScan(items, items, op, prefix);
    }
    __syncthreads();
    store_t(tmp.store).Store(o + base, items);
    __syncthreads();
  }
}

template <class T, class Op>
__global__ void __launch_bounds__(256) algo_row_scan(const T* in, T* out, std::int64_t L, Op op) {
  const T* row = in + blockIdx.x * L;
  algo::inclusive_scan(algo::this_block, row, row + L, out + blockIdx.x * L, op);
}

/// The public block scan with a block-scan choice, 256 x 16 ints: direct 16-byte loads and stores
/// (Transposed false) or algo::warp_transpose_io (coalesced, as CUB's WARP_TRANSPOSE).
template <class Choice, bool Transposed>
__global__ void __launch_bounds__(256) algo_block_scanner_rows(const int* in, int* out, std::int64_t L) {
  constexpr int items_n = 16;
  using scan_t = algo::block_scanner<int, 256, Choice>;
  using io_t = algo::warp_transpose_io<int, items_n>;
  __shared__ typename scan_t::temp_storage tmp;
  __shared__ typename io_t::temp_storage io[Transposed ? 8 : 1];
  const int* row = in + blockIdx.x * L;
  int* o = out + blockIdx.x * L;
  const int warp = threadIdx.x / 32;
  running_total<int, plus_i> prefix{0, plus_i{}};
  for (std::int64_t base = 0; base < L; base += 256 * items_n) {
    int items[items_n];
    if constexpr (Transposed) {
      io_t(io[warp]).load(row + base + warp * 32 * items_n, items);
    } else {
      const int4* src = reinterpret_cast<const int4*>(row + base) + threadIdx.x * (items_n / 4);
#pragma unroll
      for (int j = 0; j < items_n / 4; ++j) {
        const int4 v = __ldg(src + j);
        items[4 * j] = v.x, items[4 * j + 1] = v.y, items[4 * j + 2] = v.z, items[4 * j + 3] = v.w;
      }
    }
    if (base == 0) {
      int aggregate;
      scan_t(tmp).inclusive_scan(items, plus_i{}, aggregate);
      prefix.total = aggregate;
    } else {
      scan_t(tmp).inclusive_scan(items, plus_i{}, prefix);
    }
    if constexpr (Transposed) {
      io_t(io[warp]).store(o + base + warp * 32 * items_n, items);
    } else {
      int4* dst = reinterpret_cast<int4*>(o + base) + threadIdx.x * (items_n / 4);
#pragma unroll
      for (int j = 0; j < items_n / 4; ++j) dst[j] = make_int4(items[4 * j], items[4 * j + 1], items[4 * j + 2], items[4 * j + 3]);
    }
  }
}

// ---- row sums ----------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(256) cub_row_sum_warp(const float* in, float* out, std::int64_t L, std::int64_t rows) {
  using warp_t = cub::WarpReduce<float>;
  __shared__ typename warp_t::TempStorage tmp[8];
  const std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32;
  if (r >= rows) return;
  const int lane = threadIdx.x % 32;
  const float4* row = reinterpret_cast<const float4*>(in + r * L);
  float s = 0;
  for (std::int64_t i = lane; i < L / 4; i += 32) {
    const float4 v = __ldg(row + i);
    s += (v.x + v.y) + (v.z + v.w);
  }
  s = warp_t(tmp[threadIdx.x / 32]).Sum(s);
  if (lane == 0) out[r] = s;
}

__global__ void __launch_bounds__(256) cub_row_sum_block(const float* in, float* out, std::int64_t L) {
  using block_t = cub::BlockReduce<float, 256>;
  __shared__ typename block_t::TempStorage tmp;
  const float4* row = reinterpret_cast<const float4*>(in + blockIdx.x * L);
  float s = 0;
  for (std::int64_t i = threadIdx.x; i < L / 4; i += 256) {
    const float4 v = __ldg(row + i);
    s += (v.x + v.y) + (v.z + v.w);
  }
  s = block_t(tmp).Sum(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

__global__ void __launch_bounds__(256) algo_row_sum_warp(const float* in, float* out, std::int64_t L, std::int64_t rows) {
  const std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32;
  if (r >= rows) return;  // whole warps (rows is a multiple of 8)
  const float s = algo::reduce(algo::this_warp, in + r * L, in + r * L + L, 0.0f);
  if (threadIdx.x % 32 == 0) out[r] = s;
}

template <int Tile>
__global__ void __launch_bounds__(256) algo_row_sum_tile(const float* in, float* out, std::int64_t L, std::int64_t rows) {
  const std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / Tile;
  if (r >= rows) return;
  const auto tile = cg::tiled_partition<Tile>(cg::this_thread_block());
  const float s = algo::reduce(algo::group(tile), in + r * L, in + r * L + L, 0.0f);
  if (threadIdx.x % Tile == 0) out[r] = s;
}

__global__ void __launch_bounds__(256) algo_row_sum_block(const float* in, float* out, std::int64_t L) {
  const float* row = in + blockIdx.x * L;
  const float s = algo::reduce(algo::this_block, row, row + L, 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

}  // namespace coop_bench

void run_cooperative(const options& opt, report& rep) {
  using namespace coop_bench;
  const std::int64_t n = std::int64_t(1) << (opt.quick ? 24 : 26);

  // ---- row scans, i32 -------------------------------------------------------------------------------------
  {
    rotating_buffers<int> in(n, 1);
    rotating_buffers<int> out(n, 1, false);
    const double bytes = 8.0 * double(n);
    for (int lg : {12, 14, 16}) {
      const std::int64_t L = std::int64_t(1) << lg;
      const unsigned rows = static_cast<unsigned>(n / L);
      const std::string type = "i32 rows 2^" + std::to_string(lg);
      auto add = [&](const std::string& impl, double ms) { rep.add(row{"row_scan", type, n, impl, ms, bytes, "memcpy D2D"}); };
      add("memcpy D2D", median_ms(opt, [&](int) {
        check(cudaMemcpyAsync(out[0], in[0], sizeof(int) * n, cudaMemcpyDeviceToDevice), "memcpy");
      }));
      add("cub BlockLoad+BlockScan+BlockStore 256x16", median_ms(opt, [&](int) {
        cub_row_scan<int, 256, 16><<<rows, 256>>>(in[0], out[0], L, plus_i{});
      }));
      add("algo::inclusive_scan(this_block) 256", median_ms(opt, [&](int) {
        algo_row_scan<<<rows, 256>>>(in[0], out[0], L, plus_i{});
      }));
      add("algo::block_scanner warp_scans 256x16 direct", median_ms(opt, [&](int) {
        algo_block_scanner_rows<algo::block_scan::warp_scans_t, false><<<rows, 256>>>(in[0], out[0], L);
      }));
      add("algo::block_scanner warp_scans 256x16 transposed", median_ms(opt, [&](int) {
        algo_block_scanner_rows<algo::block_scan::warp_scans_t, true><<<rows, 256>>>(in[0], out[0], L);
      }));
      add("algo::block_scanner kogge_stone 256x16 transposed", median_ms(opt, [&](int) {
        algo_block_scanner_rows<algo::block_scan::kogge_stone_t, true><<<rows, 256>>>(in[0], out[0], L);
      }));
      add("algo::block_scanner brent_kung 256x16 transposed", median_ms(opt, [&](int) {
        algo_block_scanner_rows<algo::block_scan::brent_kung_t, true><<<rows, 256>>>(in[0], out[0], L);
      }));
    }
  }

  // ---- row scans, affine maps ---------------------------------------------------------------------------------
  {
    affine_map *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, sizeof(affine_map) * n), "cudaMalloc");
    check(cudaMalloc(&out, sizeof(affine_map) * n), "cudaMalloc");
    fill_affine<<<1024, 256>>>(in, n);
    check(cudaDeviceSynchronize(), "fill");
    const std::int64_t L = std::int64_t(1) << 14;
    const unsigned rows = static_cast<unsigned>(n / L);
    const std::string type = "affine rows 2^14";
    const double bytes = 16.0 * double(n);
    auto add = [&](const std::string& impl, double ms) { rep.add(row{"row_scan", type, n, impl, ms, bytes, "memcpy D2D"}); };
    add("memcpy D2D", median_ms(opt, [&](int) {
      check(cudaMemcpyAsync(out, in, sizeof(affine_map) * n, cudaMemcpyDeviceToDevice), "memcpy");
    }));
    add("cub BlockLoad+BlockScan+BlockStore 256x8", median_ms(opt, [&](int) {
      cub_row_scan<affine_map, 256, 8><<<rows, 256>>>(in, out, L, compose{});
    }));
    add("algo::inclusive_scan(this_block) 256", median_ms(opt, [&](int) {
      algo_row_scan<<<rows, 256>>>(in, out, L, compose{});
    }));
    cudaFree(in);
    cudaFree(out);
  }

  // ---- row sums, f32 -----------------------------------------------------------------------------------------
  {
    rotating_buffers<float> in(n, 1);
    rotating_buffers<float> out(n / 256, 1, false);
    float* total = nullptr;
    check(cudaMalloc(&total, sizeof(float)), "cudaMalloc");
    std::size_t temp_bytes = 0;
    check(cub::DeviceReduce::Sum(nullptr, temp_bytes, in[0], total, n), "cub (size)");
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    const double bytes = 4.0 * double(n);
    for (int lg : {8, 12, 16}) {
      const std::int64_t L = std::int64_t(1) << lg;
      const std::int64_t rows = n / L;
      const std::string type = "f32 rows 2^" + std::to_string(lg);
      auto add = [&](const std::string& impl, double ms) { rep.add(row{"row_sum", type, n, impl, ms, bytes, "cub DeviceReduce (whole array)"}); };
      add("cub DeviceReduce (whole array)", median_ms(opt, [&](int) {
        std::size_t b = temp_bytes;
        check(cub::DeviceReduce::Sum(temp, b, in[0], total, n), "cub reduce");
      }));
      const unsigned warp_blocks = static_cast<unsigned>((rows * 32 + 255) / 256);
      add("cub WarpReduce, warp per row", median_ms(opt, [&](int) {
        cub_row_sum_warp<<<warp_blocks, 256>>>(in[0], out[0], L, rows);
      }));
      add("cub BlockReduce, block per row 256", median_ms(opt, [&](int) {
        cub_row_sum_block<<<static_cast<unsigned>(rows), 256>>>(in[0], out[0], L);
      }));
      add("algo::reduce(this_warp)", median_ms(opt, [&](int) {
        algo_row_sum_warp<<<warp_blocks, 256>>>(in[0], out[0], L, rows);
      }));
      add("algo::reduce(this_block) 256", median_ms(opt, [&](int) {
        algo_row_sum_block<<<static_cast<unsigned>(rows), 256>>>(in[0], out[0], L);
      }));
      if (lg == 8) {
        add("algo::reduce(group(tile<8>))", median_ms(opt, [&](int) {
          algo_row_sum_tile<8><<<static_cast<unsigned>((rows * 8 + 255) / 256), 256>>>(in[0], out[0], L, rows);
        }));
      }
    }
    cudaFree(temp);
    cudaFree(total);
  }
}

}  // namespace bench
