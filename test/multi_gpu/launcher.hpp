// The multi-GPU test launcher: no MPI. Each test program's main() is mg::main(argc, argv, body):
//
//   <test> --ranks N [--form fork|threads] [--timeout S] [--case NAME]
//
//   fork     one process per rank (fork()); rank 0 makes the ncclUniqueId and hands it to the others
//            through a pipe; each child selects GPU `rank`, joins with ncclCommInitRank, runs body.
//   threads  one process, one thread per GPU, communicators from ncclCommInitAll.
//
// The parent never touches CUDA (a CUDA context does not survive fork()): it asks a probe child how
// many GPUs there are. Fewer GPUs than ranks, or none (a count of 0, cudaErrorNoDevice, no NVIDIA
// driver on the machine): prints "SKIP: ..." and exits 77 (CTest: SKIP); any other CUDA error, or a
// probe child that does not exit 0, is a failure (exit 1). Children die with the launcher (PR_SET_PDEATHSIG).
// Every child is killed after --timeout seconds (default 120): a hang fails the test, it never passes.
// --case NAME (the fault-injection tests): the body reads it from rank_context::fault; a rank may then
// end its process on purpose with exit code 42 (planned_exit: a rank that dies in the middle of a
// call), which counts as success, and every communicator is aborted (ncclCommAbort) at the end
// rather than destroyed (its peers may have given up on it).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mg {

/// What a rank's body gets.
struct rank_context {
  ncclComm_t comm;
  int rank;
  int nranks;
  int device;
  std::string fault;       // --case (empty: none)
  bool* aborted = nullptr;  // the body set it: it aborted comm (the launcher must not touch it again)
};

/// The exit code of a rank that ends its process on purpose (fault tests).
inline constexpr int planned_exit = 42;
inline std::string& fault_case() {
  static std::string c;
  return c;
}

/// A rank's failures (printed with the rank; the rank exits 1 when any).
struct checker {
  int rank = 0;
  int failures = 0;
  void fail(const std::string& what) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAIL: %s\n", rank, what.c_str());
  }
  void expect(bool ok, const std::string& what) {
    if (!ok) fail(what);
  }
};

using body_fn = std::function<void(const rank_context&, checker&)>;

inline void die_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::_Exit(1);
  }
}
inline void die_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(r));
    std::_Exit(1);
  }
}

/// In a child: dies with the launcher (SIGKILL when the parent goes), so no rank outlives a killed test.
inline void die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) std::_Exit(1);  // the parent went before prctl took effect
}

/// What a probe child found: the device count and cudaGetDeviceCount's error (cudaSuccess when it
/// answered), or that the probe itself failed (it did not exit 0, or said nothing).
struct probe_result {
  bool probe_ok = false;
  int count = 0;
  int error = 0;  // a cudaError_t
  std::string why;
};

/// How many GPUs a fresh process sees, asked in a child.
inline probe_result probe_gpus() {
  probe_result pr;
  int fds[2];
  if (pipe(fds) != 0) {
    pr.why = "pipe() failed";
    return pr;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    pr.why = "fork() failed";
    return pr;
  }
  if (pid == 0) {
    die_with_parent(parent);
    close(fds[0]);
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    char msg[256];
    std::snprintf(msg, sizeof msg, "%d %d %s", e == cudaSuccess ? count : 0, static_cast<int>(e),
                  e == cudaSuccess ? "-" : cudaGetErrorString(e));
    const bool wrote = write(fds[1], msg, std::strlen(msg) + 1) == static_cast<ssize_t>(std::strlen(msg) + 1);
    close(fds[1]);
    std::_Exit(wrote ? 0 : 1);
  }
  close(fds[1]);
  char buf[256] = {};
  std::size_t got = 0;
  for (ssize_t r; got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0;) got += r;
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    pr.why = WIFSIGNALED(status) ? "the probe process was killed by signal " + std::to_string(WTERMSIG(status))
                                 : "the probe process did not exit 0";
    return pr;
  }
  char rest[256] = {};
  if (std::sscanf(buf, "%d %d %255[^\n]", &pr.count, &pr.error, rest) < 2) {
    pr.why = "the probe process said nothing readable";
    return pr;
  }
  pr.probe_ok = true;
  pr.why = rest;
  return pr;
}

/// Waits for the children; kills them all after `timeout` seconds. 0 when every child exited 0.
/// Once one child has failed, the others get 15 s more (a rank that died leaves its peers waiting in
/// NCCL forever).
inline int wait_all(std::vector<pid_t>& pids, int timeout) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  int result = 0;
  std::size_t left = pids.size();
  std::vector<bool> done(pids.size(), false);
  while (left > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      const pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i]) {
        done[i] = true;
        --left;
        const bool planned = !fault_case().empty() && WIFEXITED(status) && WEXITSTATUS(status) == planned_exit;
        if (planned) std::printf("process %zu ended on purpose (exit %d)\n", i, planned_exit);
        if (!planned && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
          std::fprintf(stderr, "process %zu %s %d\n", i, WIFEXITED(status) ? "exited with" : "was killed by signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
          result = 1;
          const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(15);
          if (grace < deadline) deadline = grace;
        }
      }
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      if (result == 0) std::fprintf(stderr, "FAIL: timed out after %d s (a rank hung); killing the ranks\n", timeout);
      else std::fprintf(stderr, "FAIL: a rank failed and the others did not finish within 15 s; killing them\n");
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (!done[i]) kill(pids[i], SIGKILL);
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (!done[i]) waitpid(pids[i], nullptr, 0);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return result;
}

inline int run_rank(const body_fn& body, ncclComm_t comm, int rank, int nranks, bool* aborted) {
  die_cuda(cudaSetDevice(rank), "cudaSetDevice");
  checker ck;
  ck.rank = rank;
  try {
    body(rank_context{comm, rank, nranks, rank, fault_case(), aborted}, ck);
  } catch (const std::exception& e) {
    ck.fail(std::string("unexpected exception: ") + e.what());
  }
  if (ck.failures == 0) std::printf("rank %d of %d: all checks passed\n", rank, nranks);
  std::fflush(stdout);
  return ck.failures == 0 ? 0 : 1;
}

/// One process per rank; the id goes from rank 0 to the others through a pipe.
inline int run_forked(int nranks, int timeout, const body_fn& body) {
  int fds[2];
  if (pipe(fds) != 0) return 1;
  std::fflush(stdout);
  std::vector<pid_t> pids;
  const pid_t parent = getpid();
  for (int r = 0; r < nranks; ++r) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "FAIL: fork() failed for rank %d\n", r);
      for (pid_t p : pids) kill(p, SIGKILL);
      for (pid_t p : pids) waitpid(p, nullptr, 0);
      close(fds[0]);
      close(fds[1]);
      return 1;
    }
    if (pid == 0) {
      die_with_parent(parent);
      ncclUniqueId id;
      if (r == 0) {
        close(fds[0]);
        die_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
        for (int k = 1; k < nranks; ++k)
          if (write(fds[1], &id, sizeof id) != static_cast<ssize_t>(sizeof id)) std::_Exit(1);
        close(fds[1]);
      } else {
        close(fds[1]);
        std::size_t got = 0;
        char* p = reinterpret_cast<char*>(&id);
        for (ssize_t n; got < sizeof id && (n = read(fds[0], p + got, sizeof id - got)) > 0;) got += n;
        close(fds[0]);
        if (got != sizeof id) std::_Exit(1);
      }
      die_cuda(cudaSetDevice(r), "cudaSetDevice");
      ncclComm_t comm;
      die_nccl(ncclCommInitRank(&comm, nranks, id, r), "ncclCommInitRank");
      bool aborted = false;
      const int rc = run_rank(body, comm, r, nranks, &aborted);
      if (!aborted) {
        if (fault_case().empty()) ncclCommDestroy(comm);
        else ncclCommAbort(comm);
      }
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(rc);
    }
    pids.push_back(pid);
  }
  close(fds[0]);
  close(fds[1]);
  return wait_all(pids, timeout);
}

/// One process (a child, so that the timeout can end it), one thread per rank.
inline int run_threads(int nranks, int timeout, const body_fn& body) {
  std::fflush(stdout);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "FAIL: fork() failed\n");
    return 1;
  }
  if (pid == 0) {
    die_with_parent(parent);
    std::vector<ncclComm_t> comms(nranks);
    std::vector<int> devs(nranks);
    for (int r = 0; r < nranks; ++r) devs[r] = r;
    die_nccl(ncclCommInitAll(comms.data(), nranks, devs.data()), "ncclCommInitAll");
    std::vector<int> rcs(nranks, 1);
    std::unique_ptr<bool[]> aborted(new bool[nranks]());
    std::vector<std::thread> threads;
    for (int r = 0; r < nranks; ++r)
      threads.emplace_back([&, r] { rcs[r] = run_rank(body, comms[r], r, nranks, &aborted[r]); });
    for (auto& t : threads) t.join();
    int rc = 0;
    for (int r = 0; r < nranks; ++r) {
      rc |= rcs[r];
      if (aborted[r]) continue;
      if (fault_case().empty()) ncclCommDestroy(comms[r]);
      else ncclCommAbort(comms[r]);
    }
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
  }
  std::vector<pid_t> pids{pid};
  return wait_all(pids, timeout);
}

inline int main(int argc, char** argv, const body_fn& body) {
  int nranks = 1, timeout = 120;
  std::string form = "fork";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ranks" && i + 1 < argc) nranks = std::atoi(argv[++i]);
    else if (a == "--form" && i + 1 < argc) form = argv[++i];
    else if (a == "--timeout" && i + 1 < argc) timeout = std::atoi(argv[++i]);
    else if (a == "--case" && i + 1 < argc) fault_case() = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--ranks N] [--form fork|threads] [--timeout S] [--case NAME]\n", argv[0]);
      return 2;
    }
  }
  // NVLink multicast stays off (it can take a shared machine's GPUs out of service); a value the
  // environment already has is kept
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  if (nranks < 1) {
    std::fprintf(stderr, "FAIL: --ranks must be at least 1 (got %d)\n", nranks);
    return 2;
  }
  if (form != "fork" && form != "threads") {
    std::fprintf(stderr, "FAIL: --form must be fork or threads (got %s)\n", form.c_str());
    return 2;
  }
  // SKIP only when there is no GPU; any other CUDA failure, or a probe that failed, is a failure
  const probe_result pr = probe_gpus();
  if (!pr.probe_ok) {
    std::printf("FAIL: could not ask CUDA for the device count (%s)\n", pr.why.c_str());
    return 1;
  }
  // no GPU: a count of 0, cudaErrorNoDevice, or a machine without the NVIDIA driver at all (no
  // /dev/nvidiactl: the runtime then says cudaErrorInsufficientDriver, as on the CI machines); with the
  // driver present, cudaErrorInsufficientDriver is a real failure
  const bool no_driver = pr.error == static_cast<int>(cudaErrorInsufficientDriver) && access("/dev/nvidiactl", F_OK) != 0;
  if (pr.error == static_cast<int>(cudaErrorNoDevice) || no_driver ||
      (pr.error == static_cast<int>(cudaSuccess) && pr.count == 0)) {
    std::printf("SKIP: no CUDA device on this machine (%s); multi-GPU tests need a GPU\n",
                pr.error == static_cast<int>(cudaSuccess) ? "device count is 0" : pr.why.c_str());
    return 77;
  }
  if (pr.error != static_cast<int>(cudaSuccess)) {
    std::printf("FAIL: cudaGetDeviceCount failed: %s (cudaError_t %d)\n", pr.why.c_str(), pr.error);
    return 1;
  }
  const int gpus = pr.count;
  if (gpus < nranks) {
    std::printf("SKIP: needs %d GPUs (one per rank), this machine has %d\n", nranks, gpus);
    return 77;
  }
  std::printf("%d rank(s), %s form, %d GPU(s) present\n", nranks, form.c_str(), gpus);
  const int rc = form == "threads" ? run_threads(nranks, timeout, body) : run_forked(nranks, timeout, body);
  std::printf(rc == 0 ? "PASSED\n" : "FAILED\n");
  return rc;
}

}  // namespace mg
