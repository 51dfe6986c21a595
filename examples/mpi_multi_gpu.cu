// Several GPUs launched the way clusters launch them: one MPI process per GPU.
//
//   mpirun -np 4 ./example_mpi_multi_gpu [n] [seed]
//
// Each rank takes the GPU of its node-local rank, rank 0 makes the NCCL id and MPI_Bcast hands it to
// the others, every rank joins the communicator with ncclCommInitRank (README, "Several GPUs", the
// MPI form). Then, over a global sequence of n random elements split unevenly across the ranks
// (rank r holds a share proportional to r + 1):
//   - an inclusive scan with a non-commutative operator (composition of affine maps modulo 2^32,
//     exact, so every element can be compared): each rank gets its part of the global scan;
//   - a reduce with the same operator (the composition of all n maps, on every rank);
//   - a float reduce: the same bits on every rank (checked with MPI_Allgather) and from call to call,
//     close to a double reference.
// Every rank generates the whole global sequence from the same seed and computes the references on
// the host. One line per rank, then PASSED or FAILED from rank 0; the exit status is non-zero on any
// mismatch (on every rank).
// Needs one GPU per rank: without a GPU, or when ranks of a node would share one, every rank exits 77
// (CTest: SKIP) and rank 0 prints why.
#include <algo/nccl.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace {

int world_rank = 0;

// CUDA and NCCL calls of the example itself (algo reports its own failures as algo::error).
#define CUDA_CHECK(call)                                                                                      \
  do {                                                                                                        \
    const cudaError_t e_ = (call);                                                                            \
    if (e_ != cudaSuccess) {                                                                                  \
      std::fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", world_rank, __FILE__, __LINE__, #call,          \
                   cudaGetErrorString(e_));                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                           \
    }                                                                                                         \
  } while (0)
#define NCCL_CHECK(call)                                                                                      \
  do {                                                                                                        \
    const ncclResult_t r_ = (call);                                                                           \
    if (r_ != ncclSuccess) {                                                                                  \
      std::fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", world_rank, __FILE__, __LINE__, #call,          \
                   ncclGetErrorString(r_));                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                           \
    }                                                                                                         \
  } while (0)

/// The map x -> a * x + b (mod 2^32).
struct affine {
  std::uint32_t a, b;
};
bool operator==(const affine& f, const affine& g) { return f.a == g.a && f.b == g.b; }

/// then(f, g) = g o f: apply f first, then g. Associative, not commutative: the ranks' parts are
/// folded in rank order. Unsigned arithmetic wraps, so the results are exact and can be compared.
struct then {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

/// Each rank's text, gathered to rank 0 in rank order (so the lines come out in order under mpirun).
std::vector<std::string> gather_lines(const std::string& line, MPI_Comm comm) {
  constexpr int width = 512;
  char mine[width] = {};
  std::snprintf(mine, width, "%s", line.c_str());
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> all(rank == 0 ? static_cast<size_t>(width) * size : 0);
  MPI_Gather(mine, width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, comm);
  std::vector<std::string> lines;
  for (int r = 0; rank == 0 && r < size; ++r) lines.emplace_back(all.data() + static_cast<size_t>(r) * width);
  return lines;
}

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// The global sequence: element i is (steps[i], xs[i]). The same on every rank (same seed).
struct global_data {
  std::vector<affine> steps;
  std::vector<float> xs;
};
global_data generate(long long n, unsigned long long seed) {
  global_data g{std::vector<affine>(n), std::vector<float>(n)};
  std::mt19937_64 rng(seed);
  for (long long i = 0; i < n; ++i) {
    const std::uint64_t u = rng(), v = rng();
    g.steps[i] = {static_cast<std::uint32_t>(u) | 1u, static_cast<std::uint32_t>(u >> 32)};  // odd a: invertible
    g.xs[i] = static_cast<float>(v >> 40) * 0x1p-23f - 1.0f;  // [-1, 1), exact in float
  }
  return g;
}

/// Runs the computation on this rank's GPU; returns this rank's number of mismatches.
int run(ncclComm_t comm, long long n, unsigned long long seed, int rank, int size, const std::string& where) {
  // rank r holds [begin, end): shares proportional to r + 1 (uneven, in rank order)
  const long long weights = static_cast<long long>(size) * (size + 1) / 2;
  const long long begin = n * (static_cast<long long>(rank) * (rank + 1) / 2) / weights;
  const long long end = n * (static_cast<long long>(rank + 1) * (rank + 2) / 2) / weights;
  const long long n_local = end - begin;

  const global_data g = generate(n, seed);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const auto policy = algo::nccl(comm).on(stream);  // the same calls on every rank, each on its own part

  affine *d_steps = nullptr, *d_prefix = nullptr;
  float* d_xs = nullptr;
  CUDA_CHECK(cudaMalloc(&d_steps, n_local * sizeof(affine)));
  CUDA_CHECK(cudaMalloc(&d_prefix, n_local * sizeof(affine)));
  CUDA_CHECK(cudaMalloc(&d_xs, n_local * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_steps, g.steps.data() + begin, n_local * sizeof(affine), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_xs, g.xs.data() + begin, n_local * sizeof(float), cudaMemcpyHostToDevice));

  // ---- the collectives ---------------------------------------------------------------------------
  algo::inclusive_scan(policy, d_steps, d_steps + n_local, d_prefix, then{});  // this rank's part
  const affine composed = algo::reduce(policy, d_steps, d_steps + n_local, affine{1u, 0u}, then{});
  const float sum = algo::reduce(policy, d_xs, d_xs + n_local, 0.0f);
  const float sum_again = algo::reduce(policy, d_xs, d_xs + n_local, 0.0f);
  std::vector<affine> prefix(n_local);
  CUDA_CHECK(cudaMemcpyAsync(prefix.data(), d_prefix, n_local * sizeof(affine), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // ---- the references, from the whole global sequence ---------------------------------------------
  int failures = 0;
  std::string notes;
  affine acc{1u, 0u};  // the identity map
  long long scan_bad = 0, first_bad = -1;
  for (long long i = 0; i < n; ++i) {
    acc = then{}(acc, g.steps[i]);
    if (i >= begin && i < end && !(prefix[i - begin] == acc)) {
      if (first_bad < 0) first_bad = i;
      ++scan_bad;
    }
  }
  if (scan_bad != 0) {
    ++failures;
    notes += " scan: " + std::to_string(scan_bad) + " wrong elements, the first at global index " +
             std::to_string(first_bad) + ";";
  }
  if (!(composed == acc)) {
    ++failures;
    notes += " reduce(then) differs from the host's composition;";
  }
  double ref = 0, ref_abs = 0;
  for (long long i = 0; i < n; ++i) {
    ref += g.xs[i];
    ref_abs += std::fabs(g.xs[i]);
  }
  // A float sum's rounding error is bounded by (the depth of its grouping) * 2^-24 * sum |x|;
  // 1e-5 * sum |x| allows a depth of about 170, and sums of random signs stay far below their bound.
  const double tol = 1e-5 * ref_abs, diff = std::fabs(static_cast<double>(sum) - ref);
  if (!(diff <= tol)) {
    ++failures;
    notes += " reduce(float) is off the double reference by more than the tolerance;";
  }
  if (bits_of(sum) != bits_of(sum_again)) {
    ++failures;
    notes += " reduce(float) gave different bits on its second call;";
  }
  std::vector<std::uint32_t> all_bits(size);
  const std::uint32_t my_bits = bits_of(sum);
  MPI_Allgather(&my_bits, 1, MPI_UINT32_T, all_bits.data(), 1, MPI_UINT32_T, MPI_COMM_WORLD);
  bool same_bits = true;
  for (const std::uint32_t b : all_bits) same_bits = same_bits && b == my_bits;
  if (!same_bits) {
    ++failures;
    notes += " reduce(float) differs in its bits between ranks;";
  }

  char line[512];
  std::snprintf(line, sizeof line,
                "rank %d of %d (%s): elements [%lld, %lld) of %lld: scan %s; reduce(then) %s; reduce(float) %.6f "
                "(bits 0x%08x, %s on every rank), double reference %.6f (|diff| %.2e, tolerance %.2e)%s%s",
                rank, size, where.c_str(), begin, end, n, scan_bad == 0 ? "ok" : "WRONG",
                composed == acc ? "ok" : "WRONG", sum, my_bits, same_bits ? "the same" : "NOT the same", ref, diff,
                tol, failures ? ": WRONG:" : ": ok", notes.c_str());
  for (const std::string& l : gather_lines(line, MPI_COMM_WORLD)) std::printf("%s\n", l.c_str());
  std::fflush(stdout);

  // ---- clean-up: wait for everything, free algo's per-communicator state, then the communicator ----
  algo::synchronize(policy);
  CUDA_CHECK(cudaFree(d_steps));
  CUDA_CHECK(cudaFree(d_prefix));
  CUDA_CHECK(cudaFree(d_xs));
  algo::nccl_release(comm);
  NCCL_CHECK(ncclCommDestroy(comm));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // keep NVLink multicast off (unless the environment says otherwise)
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  world_rank = rank;
  const long long n = argc > 1 ? std::atoll(argv[1]) : 4'000'037;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2026;

  // ---- this rank's GPU: its rank among the ranks of its node (any MPI; Open MPI also sets
  //      OMPI_COMM_WORLD_LOCAL_RANK), modulo the GPUs it sees (a launcher may show each rank one) ----
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_len = 0;
  MPI_Get_processor_name(host, &host_len);

  std::string skip;  // why this rank cannot run (empty: it can)
  int gpus = 0, device = -1;
  char bus[64] = {};
  const cudaError_t e = cudaGetDeviceCount(&gpus);
  if (e != cudaSuccess || gpus == 0) {
    skip = std::string("no usable CUDA device on ") + host + " (" +
           (e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0") + ")";
  } else {
    device = local_rank % gpus;
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  }
  // NCCL needs a GPU of its own for every rank: ranks of one node that would share one SKIP.
  std::vector<char> buses(static_cast<size_t>(local_size) * sizeof bus);
  MPI_Allgather(bus, sizeof bus, MPI_CHAR, buses.data(), sizeof bus, MPI_CHAR, node);
  for (int r = 0; skip.empty() && r < local_size; ++r)
    if (r != local_rank && std::strcmp(buses.data() + r * sizeof bus, bus) == 0)
      skip = "this example needs one GPU per rank: " + std::to_string(local_size) + " ranks on " + host + " see " +
             std::to_string(gpus) + " GPU(s)";
  MPI_Comm_free(&node);
  int any_skip = 0, my_skip = skip.empty() ? 0 : 1;
  MPI_Allreduce(&my_skip, &any_skip, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_skip) {  // every rank exits 77, so mpirun's status is 77 whichever rank it reports
    const std::vector<std::string> reasons = gather_lines(skip, MPI_COMM_WORLD);
    for (int r = 0; r < static_cast<int>(reasons.size()); ++r)
      if (!reasons[r].empty()) {
        std::printf("SKIP: %s (rank %d of %d)\n", reasons[r].c_str(), r, size);
        break;
      }
    std::fflush(stdout);
    MPI_Finalize();
    return 77;
  }

  int failures = 0;
  try {
    // ---- the communicator: rank 0 makes the id, MPI_Bcast hands it to every rank ----
    ncclUniqueId id;
    if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, size, id, rank));

    const std::string where = std::string(host) + ", GPU " + std::to_string(device) + " " + bus;
    failures = run(comm, n, seed, rank, size, where);
  } catch (const algo::error& err) {  // the same error on every rank when some rank's input is bad
    std::fprintf(stderr, "rank %d: %s\n", rank, err.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  } catch (const std::exception& err) {
    std::fprintf(stderr, "rank %d: %s\n", rank, err.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s (%d rank%s)\n", total == 0 ? "PASSED" : "FAILED", size, size == 1 ? "" : "s");
  std::fflush(stdout);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
