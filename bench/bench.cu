// The bench program: one run on the GPU times every algorithm side by side with its baselines
// (CUB / cuBLAS, thrust::device, a device-to-device copy of the same bytes) and writes a CSV.
//   bench [--quick] [--only scan|reduce|transpose|segmented|group_reduce|cooperative|host] [--min-log2 K] [--max-log2 K] [--reps R]
//         [--csv FILE] [--commit SHA] [--case SUBSTR] [--impl SUBSTR]
// --case / --impl (group_reduce): only the cases / implementations whose names contain SUBSTR (to
// put one call under a profiler: scripts/gpu_check.sh profile-group).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cooperative.cuh"
#include "harness.cuh"
#include "host_cost.cuh"
#include "sections.cuh"

int main(int argc, char** argv) {
  bench::options opt;
  std::string commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick") opt.quick = true;
    else if (a == "--only") opt.only = next();
    else if (a == "--min-log2") opt.min_log2 = std::stoi(next());
    else if (a == "--max-log2") opt.max_log2 = std::stoi(next());
    else if (a == "--reps") opt.reps = std::stoi(next());
    else if (a == "--csv") opt.csv = next();
    else if (a == "--commit") commit = next();
    else if (a == "--case") opt.case_filter = next();
    else if (a == "--impl") opt.impl_filter = next();
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--only scan|reduce|transpose|segmented|group_reduce|cooperative|host] [--min-log2 K] [--max-log2 K] "
                           "[--reps R] [--csv FILE] [--commit SHA] [--case SUBSTR] [--impl SUBSTR]\n", argv[0]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("bench: no CUDA device here; run it on the GPU machine\n");
    return 0;
  }
  cudaDeviceProp prop{};
  bench::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

  bench::report rep(opt);
  if (opt.wants("scan")) bench::section_scan(opt, rep);
  if (opt.wants("reduce")) bench::section_reduce(opt, rep);
  if (opt.wants("transpose")) bench::section_transpose(opt, rep);
  if (opt.wants("segmented")) bench::section_segmented(opt, rep);
  if (opt.wants("group_reduce")) bench::section_group_reduce(opt, rep);
  if (opt.wants("cooperative")) bench::run_cooperative(opt, rep);
  if (opt.wants("host")) bench::run_host_cost(opt, rep);
  rep.finish(prop.name, commit);
  return 0;
}
