// Several GPUs over NCCL: one process, one thread per GPU (ncclCommInitAll). Each GPU holds its
// part of a sequence; together they compute
//   - the running balance of a ledger (an inclusive scan across GPUs: each GPU gets its part),
//   - the total (a reduce: the same bits on every GPU),
//   - the transpose of a matrix split by rows (each GPU gets row blocks of the result).
// The same calls work with one process per GPU (MPI or the test launcher, README "Several GPUs").
// Needs two GPUs: with fewer it says so and exits 77 (CTest: SKIP).
#include <algo/nccl.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK(x)                                                        \
  do {                                                                  \
    if (!(x)) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

int main() {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // keep NVLink multicast off (unless the environment says otherwise)
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 2) {
    std::printf("SKIP: this example needs two GPUs (found %d)\n", gpus);
    return 77;
  }
  const int P = 2;
  ncclComm_t comms[P];
  int devs[P] = {0, 1};
  CHECK(ncclCommInitAll(comms, P, devs) == ncclSuccess);

  // the global ledger: 1, 2, 3, ..., 1000; GPU 0 holds the first 300 entries, GPU 1 the other 700
  const long long split[P + 1] = {0, 300, 1000};
  const long long rows = 6, cols = 4;  // the matrix: GPU 0 holds rows 0-1, GPU 1 rows 2-5
  const long long row_split[P + 1] = {0, 2, 6}, col_split[P + 1] = {0, 1, 4};
  int failures[P] = {};

  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r) {
    threads.emplace_back([&, r] {
      CHECK(cudaSetDevice(r) == cudaSuccess);
      cudaStream_t stream;
      CHECK(cudaStreamCreate(&stream) == cudaSuccess);
      const auto policy = algo::nccl(comms[r]).on(stream);

      // ---- scan and reduce: each GPU passes its own part ---------------------------------------------
      const long long n = split[r + 1] - split[r];
      std::vector<long long> h(n);
      for (long long i = 0; i < n; ++i) h[i] = split[r] + i + 1;
      long long *in, *out;
      CHECK(cudaMalloc(&in, n * sizeof(long long)) == cudaSuccess);
      CHECK(cudaMalloc(&out, n * sizeof(long long)) == cudaSuccess);
      CHECK(cudaMemcpy(in, h.data(), n * sizeof(long long), cudaMemcpyHostToDevice) == cudaSuccess);
      algo::inclusive_scan(policy, in, in + n, out);                 // this GPU's part of the global scan
      const long long total = algo::reduce(policy, in, in + n, 0LL);  // the same on both GPUs
      std::vector<long long> running(n);
      CHECK(cudaMemcpyAsync(running.data(), out, n * sizeof(long long), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
      CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
      const long long last = split[r + 1];
      if (total != 1000LL * 1001 / 2 || running[n - 1] != last * (last + 1) / 2) ++failures[r];
      std::printf("GPU %d: entries %lld-%lld, running balance at its end %lld, total %lld\n", r, split[r] + 1, last,
                  running[n - 1], total);

      // ---- transpose: input rows [row_split[r], row_split[r+1]), result rows [col_split[r], col_split[r+1]) ----
      const long long lr = row_split[r + 1] - row_split[r], lc = col_split[r + 1] - col_split[r];
      std::vector<float> a(lr * cols);
      for (long long i = 0; i < lr; ++i)
        for (long long j = 0; j < cols; ++j) a[i * cols + j] = static_cast<float>(10 * (row_split[r] + i) + j);
      float *da, *dt;
      CHECK(cudaMalloc(&da, a.size() * sizeof(float)) == cudaSuccess);
      CHECK(cudaMalloc(&dt, lc * rows * sizeof(float)) == cudaSuccess);
      CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
      algo::transpose(policy, da, rows, cols, algo::row_range{row_split[r], row_split[r + 1]}, dt,
                      algo::row_range{col_split[r], col_split[r + 1]});
      std::vector<float> t(lc * rows);
      CHECK(cudaMemcpyAsync(t.data(), dt, t.size() * sizeof(float), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
      CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
      for (long long j = 0; j < lc; ++j)
        for (long long i = 0; i < rows; ++i)
          if (t[j * rows + i] != static_cast<float>(10 * i + col_split[r] + j)) ++failures[r];

      cudaFree(in);
      cudaFree(out);
      cudaFree(da);
      cudaFree(dt);
      cudaStreamDestroy(stream);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < P; ++r) ncclCommDestroy(comms[r]);
  if (failures[0] + failures[1] != 0) {
    std::printf("FAILED\n");
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
