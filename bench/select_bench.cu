// The selection family's bench (issue 29), a program of its own until its rows join `bench`:
// algo::cuda against CUB (the baseline of each group), thrust::device, algo::cub and the read +
// write limit (a device-to-device copy moving as many bytes as the selection must: n read, k written).
//   select_bench [--quick] [--min-log2 K] [--max-log2 K] [--reps R] [--csv FILE] [--commit SHA] [--case SUBSTR]
// Cases: copy_if i32 at 1 / 50 / 99 % kept, copy_if of a 16-byte struct at 50 %, partition_copy i32
// at 50 % (CUB: DevicePartition::If, one output, the rejected part reversed at its end),
// unique i32 (runs of 4), unique_by_key i32 keys / f32 values (runs of 4), run_length_encode i32
// (runs of 4), count_if i32 (CUB: DeviceReduce::Sum over a transform iterator).
// Rows: "algo::cuda" is the call with its count left on the device (*_into: what CUB does),
// "algo::cuda (end to host)" the Thrust-style call returning its end (a synchronization).
// Built by name (not part of the default build): ninja select_bench.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/partition.h>
#include <thrust/unique.h>

#include <algo/algo.hpp>

#include "harness.cuh"

namespace {

using bench::check;

struct keep_pct {
  std::uint32_t pct;
  __host__ __device__ bool operator()(std::uint32_t v) const { return v % 100u < pct; }
};
struct s16 {
  std::uint32_t key, a, b, c;
};
struct s16_keep {
  __host__ __device__ bool operator()(const s16& s) const { return s.key % 100u < 50u; }
};
struct flag_of_keep {
  keep_pct keep;
  __host__ __device__ int operator()(std::uint32_t v) const { return keep(v) ? 1 : 0; }
};

__host__ __device__ inline std::uint32_t hash(std::uint64_t i) {
  std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(i >> 32);
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return x;
}
/// Uniform values (run = 1) or runs of `run` equal values.
template <class T>
__global__ void fill_kernel(T* d, std::int64_t n, int run, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t h = hash(static_cast<std::uint64_t>(i / run) * 7919u + seed);
    if constexpr (std::is_same<T, s16>::value) d[i] = s16{h, h + 1, h + 2, h + 3};
    else d[i] = static_cast<T>(h & 0x7fffffffu);
  }
}
template <class T>
T* make(std::int64_t n, int run, std::uint32_t seed) {
  T* p = nullptr;
  check(cudaMalloc(&p, sizeof(T) * static_cast<std::size_t>(n > 0 ? n : 1)), "cudaMalloc");
  fill_kernel<<<1024, 256>>>(p, n, run, seed);
  check(cudaGetLastError(), "fill");
  return p;
}

/// CUB's temporary storage, sized once per case (not timed).
struct cub_temp {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class Call>
  void prepare(Call&& call) {
    check(call(static_cast<void*>(nullptr), bytes), "cub size query");
    check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc");
  }
  ~cub_temp() { cudaFree(p); }
};

struct ctx {
  const bench::options& opt;
  bench::report& rep;
  bool wants(const std::string& name) const { return opt.wants_case(name); }
};

/// copy_if of T at `pct` % (T = s16: 50 %).
template <class T, class Pred>
void copy_if_case(ctx& c, const char* type, std::int64_t n, Pred pred, std::int64_t kept_estimate) {
  const std::string alg = "copy_if";
  const int copies = bench::rotation_count(static_cast<std::size_t>(n) * sizeof(T));
  std::vector<T*> in;
  for (int k = 0; k < copies; ++k) in.push_back(make<T>(n, 1, 11u + static_cast<std::uint32_t>(k)));
  T* out = make<T>(n, 1, 3);
  long long* count = nullptr;
  check(cudaMalloc(&count, sizeof(long long)), "cudaMalloc");
  const double bytes = static_cast<double>(n + kept_estimate) * sizeof(T);
  cub_temp tmp;
  tmp.prepare([&](void* t, std::size_t& b) { return cub::DeviceSelect::If(t, b, in[0], out, count, n, pred); });
  c.rep.add({alg, type, n, "cub", bench::median_ms(c.opt, [&](int r) {
               cub::DeviceSelect::If(tmp.p, tmp.bytes, in[r % copies], out, count, n, pred);
             }), bytes, "cub"});
  c.rep.add({alg, type, n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
               algo::copy_if_into(algo::cuda, in[r % copies], in[r % copies] + n, out, count, pred);
             }), bytes, "cub"});
  c.rep.add({alg, type, n, "algo::cuda (end to host)", bench::median_ms(c.opt, [&](int r) {
               algo::copy_if(algo::cuda, in[r % copies], in[r % copies] + n, out, pred);
             }), bytes, "cub"});
  c.rep.add({alg, type, n, "algo::cub", bench::median_ms(c.opt, [&](int r) {
               algo::copy_if_into(algo::cub, in[r % copies], in[r % copies] + n, out, count, pred);
             }), bytes, "cub"});
  c.rep.add({alg, type, n, "thrust", bench::median_ms(c.opt, [&](int r) {
               thrust::copy_if(thrust::device, in[r % copies], in[r % copies] + n, out, pred);
             }), bytes, "cub"});
  const std::int64_t half = (n + kept_estimate) / 2;  // as many bytes moved as the selection moves
  c.rep.add({alg, type, n, "copy limit", bench::median_ms(c.opt, [&](int r) {
               cudaMemcpyAsync(out, in[r % copies], static_cast<std::size_t>(half) * sizeof(T), cudaMemcpyDeviceToDevice);
             }), bytes, "cub"});
  for (T* p : in) cudaFree(p);
  cudaFree(out);
  cudaFree(count);
}

void run(ctx& c) {
  for (int k : c.opt.log2_sizes()) {
    const std::int64_t n = std::int64_t(1) << k;
    for (std::uint32_t pct : {1u, 50u, 99u}) {
      const std::string type = "i32 " + std::to_string(pct) + "%";
      if (c.wants("copy_if " + type)) copy_if_case<std::uint32_t>(c, type.c_str(), n, keep_pct{pct}, n * pct / 100);
    }
    if (c.wants("copy_if s16")) copy_if_case<s16>(c, "s16 50%", n, s16_keep{}, n / 2);

    const int copies = bench::rotation_count(static_cast<std::size_t>(n) * 4);
    std::vector<std::uint32_t*> u, r4;
    std::vector<float*> vals;
    for (int i = 0; i < copies; ++i) {
      u.push_back(make<std::uint32_t>(n, 1, 101u + static_cast<std::uint32_t>(i)));
      r4.push_back(make<std::uint32_t>(n, 4, 201u + static_cast<std::uint32_t>(i)));
      vals.push_back(make<float>(n, 1, 301u + static_cast<std::uint32_t>(i)));
    }
    std::uint32_t* o1 = make<std::uint32_t>(n, 1, 5);
    std::uint32_t* o2 = make<std::uint32_t>(n, 1, 6);
    float* of = make<float>(n, 1, 7);
    int* counts = nullptr;
    long long* cnt = nullptr;
    check(cudaMalloc(&counts, sizeof(int) * static_cast<std::size_t>(n)), "cudaMalloc");
    check(cudaMalloc(&cnt, 2 * sizeof(long long)), "cudaMalloc");
    const keep_pct half{50};

    if (c.wants("partition_copy")) {
      const std::string a = "partition_copy";
      const double bytes = 2.0 * n * 4;
      cub_temp t;
      t.prepare([&](void* p, std::size_t& b) { return cub::DevicePartition::If(p, b, u[0], o1, cnt, n, half); });
      c.rep.add({a, "i32 50%", n, "cub", bench::median_ms(c.opt, [&](int r) {
                   cub::DevicePartition::If(t.p, t.bytes, u[r % copies], o1, cnt, n, half);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 50%", n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
                   algo::partition_copy_into(algo::cuda, u[r % copies], u[r % copies] + n, o1, o2, cnt, half);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 50%", n, "algo::cuda (end to host)", bench::median_ms(c.opt, [&](int r) {
                   algo::partition_copy(algo::cuda, u[r % copies], u[r % copies] + n, o1, o2, half);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 50%", n, "thrust", bench::median_ms(c.opt, [&](int r) {
                   thrust::partition_copy(thrust::device, u[r % copies], u[r % copies] + n, o1, o2, half);
                 }), bytes, "cub"});
    }
    if (c.wants("unique")) {
      const std::string a = "unique_copy";
      const double bytes = 1.25 * n * 4;
      cub_temp t;
      t.prepare([&](void* p, std::size_t& b) { return cub::DeviceSelect::Unique(p, b, r4[0], o1, cnt, n); });
      c.rep.add({a, "i32 runs of 4", n, "cub", bench::median_ms(c.opt, [&](int r) {
                   cub::DeviceSelect::Unique(t.p, t.bytes, r4[r % copies], o1, cnt, n);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
                   algo::unique_copy_into(algo::cuda, r4[r % copies], r4[r % copies] + n, o1, cnt);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "algo::cuda (end to host)", bench::median_ms(c.opt, [&](int r) {
                   algo::unique_copy(algo::cuda, r4[r % copies], r4[r % copies] + n, o1);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "thrust", bench::median_ms(c.opt, [&](int r) {
                   thrust::unique_copy(thrust::device, r4[r % copies], r4[r % copies] + n, o1);
                 }), bytes, "cub"});
    }
    if (c.wants("unique_by_key")) {
      const std::string a = "unique_by_key_copy";
      const double bytes = 2.5 * n * 4;
      cub_temp t;
      t.prepare([&](void* p, std::size_t& b) {
        return cub::DeviceSelect::UniqueByKey(p, b, r4[0], vals[0], o1, of, cnt, n);
      });
      c.rep.add({a, "i32/f32 runs of 4", n, "cub", bench::median_ms(c.opt, [&](int r) {
                   cub::DeviceSelect::UniqueByKey(t.p, t.bytes, r4[r % copies], vals[r % copies], o1, of, cnt, n);
                 }), bytes, "cub"});
      c.rep.add({a, "i32/f32 runs of 4", n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
                   algo::unique_by_key_copy_into(algo::cuda, r4[r % copies], r4[r % copies] + n, vals[r % copies], o1, of,
                                                 cnt);
                 }), bytes, "cub"});
      c.rep.add({a, "i32/f32 runs of 4", n, "algo::cuda (end to host)", bench::median_ms(c.opt, [&](int r) {
                   algo::unique_by_key_copy(algo::cuda, r4[r % copies], r4[r % copies] + n, vals[r % copies], o1, of);
                 }), bytes, "cub"});
    }
    if (c.wants("run_length_encode") && n <= 0x7fffffff) {
      const std::string a = "run_length_encode";
      const double bytes = 1.5 * n * 4;
      cub_temp t;
      t.prepare([&](void* p, std::size_t& b) {
        return cub::DeviceRunLengthEncode::Encode(p, b, r4[0], o1, counts, cnt, static_cast<int>(n));
      });
      c.rep.add({a, "i32 runs of 4", n, "cub", bench::median_ms(c.opt, [&](int r) {
                   cub::DeviceRunLengthEncode::Encode(t.p, t.bytes, r4[r % copies], o1, counts, cnt, static_cast<int>(n));
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
                   algo::run_length_encode_into(algo::cuda, r4[r % copies], r4[r % copies] + n, o1, counts, cnt);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "algo::cuda (end to host)", bench::median_ms(c.opt, [&](int r) {
                   algo::run_length_encode(algo::cuda, r4[r % copies], r4[r % copies] + n, o1, counts);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 runs of 4", n, "algo::cub", bench::median_ms(c.opt, [&](int r) {
                   algo::run_length_encode_into(algo::cub, r4[r % copies], r4[r % copies] + n, o1, counts, cnt);
                 }), bytes, "cub"});
    }
    if (c.wants("count_if")) {
      const std::string a = "count_if";
      const double bytes = 1.0 * n * 4;
      cub_temp t;
      const auto flags = [&](int r) { return thrust::make_transform_iterator(u[r % copies], flag_of_keep{half}); };
      t.prepare([&](void* p, std::size_t& b) { return cub::DeviceReduce::Sum(p, b, flags(0), cnt, n); });
      c.rep.add({a, "i32 50%", n, "cub", bench::median_ms(c.opt, [&](int r) {
                   cub::DeviceReduce::Sum(t.p, t.bytes, flags(r), cnt, n);
                 }), bytes, "cub"});
      c.rep.add({a, "i32 50%", n, "algo::cuda", bench::median_ms(c.opt, [&](int r) {
                   algo::count_if_into(algo::cuda, u[r % copies], u[r % copies] + n, cnt, half);
                 }), bytes, "cub"});
    }
    for (int i = 0; i < copies; ++i) {
      cudaFree(u[i]);
      cudaFree(r4[i]);
      cudaFree(vals[i]);
    }
    cudaFree(o1);
    cudaFree(o2);
    cudaFree(of);
    cudaFree(counts);
    cudaFree(cnt);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::options opt;
  opt.csv = "select_bench.csv";
  std::string commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick") opt.quick = true;
    else if (a == "--min-log2") opt.min_log2 = std::stoi(next());
    else if (a == "--max-log2") opt.max_log2 = std::stoi(next());
    else if (a == "--reps") opt.reps = std::stoi(next());
    else if (a == "--csv") opt.csv = next();
    else if (a == "--commit") commit = next();
    else if (a == "--case") opt.case_filter = next();
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--min-log2 K] [--max-log2 K] [--reps R] [--csv FILE] [--commit SHA] [--case SUBSTR]\n",
                   argv[0]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("select_bench: no CUDA device here; run it on the GPU machine\n");
    return 0;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int pageable = 0;
  cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
  std::printf("device: %s, %d SMs, L2 %d MB, pageable memory access %d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, pageable);
  bench::report rep(opt);
  ctx c{opt, rep};
  run(c);
  rep.finish(prop.name, commit);
  return 0;
}
