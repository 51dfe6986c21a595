// reduce_strategy::locked: one pass, one launch; the partials are combined under ONE global mutex
// (atomicCAS to take it, atomicExch to give it back: CUDA by Example's lock, in reduce_sync.cuh),
// for any type and any associative operator. Kept as the slow reference point: the blocks queue for
// the lock one after another.
//
// Blocks finish in any order, yet the result must be the left-to-right fold. Under the lock each
// block merges its partial with the finished neighbouring runs of blocks (interval merging):
//   run table   for every run of finished blocks [s, e]: value[s] = their fold, run_end[s] = e,
//               run_start[e] = s; done[b] = this call's tag once block b has merged
//   merge       block b: [s, e] = [b, b]; if b-1 is done, its run [s', b-1] joins on the left
//               (value[s'] op mine); if b+1 is done, its run [b+1, e'] joins on the right
//   finish      the block whose merge covers [0, B-1] writes init op value[0]; it then clears the
//               done flags and disarms the mutex (nobody else touches them any more)
//
//   arm      block 0 arms the mutex with this call's epoch (before that no CAS can succeed)
//   reduce   every block folds its contiguous range (reduce_range.cuh)
//   merge    thread 0 runs the merge in the mutex's critical section
// The merge tree depends on arrival order, so float results may differ in the last bits from run to
// run; the operand order, and so any associative operator's result, does not.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../runtime.cuh"
#include "reduce_range.cuh"
#include "reduce_sync.cuh"

namespace algo::detail::cuda {

template <class T>
struct locked_temp {
  static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  static std::size_t bytes(int blocks) {
    const std::size_t B = static_cast<std::size_t>(blocks);
    return 256 + align16(B * sizeof(T)) + align16(2 * B * sizeof(int)) + B * sizeof(unsigned long long);
  }
  unsigned long long* mutex;
  T* value;
  int* run_start;
  int* run_end;
  unsigned long long* done;
  static locked_temp carve(void* p, int blocks) {
    const std::size_t B = static_cast<std::size_t>(blocks);
    auto* base = static_cast<unsigned char*>(p);
    locked_temp t;
    t.mutex = reinterpret_cast<unsigned long long*>(base);
    t.value = reinterpret_cast<T*>(base + 256);
    t.run_start = reinterpret_cast<int*>(base + 256 + align16(B * sizeof(T)));
    t.run_end = t.run_start + B;
    t.done = reinterpret_cast<unsigned long long*>(base + 256 + align16(B * sizeof(T)) + align16(2 * B * sizeof(int)));
    return t;
  }
};

template <class Agent, class It, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::threads)
    reduce_locked_kernel(It first, reduce_layout L, OutIt out, T init, Op op, locked_temp<T> temp,
                         unsigned long long tag) {
  __shared__ typename Agent::storage smem;
  __shared__ bool finished;
  const epoch_mutex mutex{temp.mutex, tag};
  const bool single = gridDim.x == 1;

  // ---- arm --------------------------------------------------------------------------------------------
  if (!single && blockIdx.x == 0 && threadIdx.x == 0) mutex.arm();

  // ---- reduce this block's range ------------------------------------------------------------------
  const maybe_value<T> part = Agent{smem, first, L}.reduce_block(op);
  if (single) {
    if (threadIdx.x == 0) *out = part.has ? static_cast<T>(op(init, part.value)) : init;
    return;
  }

  // ---- merge under the lock ------------------------------------------------------------------------
  if (threadIdx.x == 0) {
    const int b = static_cast<int>(blockIdx.x), B = static_cast<int>(gridDim.x);
    bool whole = false;
    mutex.critical_section([&] {
      int s = b, e = b;
      T v = part.value;
      if (b > 0 && load_coherent(temp.done + b - 1) == tag) {
        s = load_coherent(temp.run_start + b - 1);
        v = static_cast<T>(op(load_coherent(temp.value + s), v));
      }
      if (b + 1 < B && load_coherent(temp.done + b + 1) == tag) {
        e = load_coherent(temp.run_end + b + 1);
        v = static_cast<T>(op(v, load_coherent(temp.value + b + 1)));
      }
      store_coherent(temp.value + s, v);
      store_coherent(temp.run_end + s, e);
      store_coherent(temp.run_start + e, s);
      store_coherent(temp.done + b, static_cast<unsigned long long>(tag));
      whole = s == 0 && e == B - 1;
      if (whole) *out = static_cast<T>(op(init, v));
    });
    finished = whole;
  }
  __syncthreads();

  // ---- finish: clean up for the next call ------------------------------------------------------------
  if (finished) {
    for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(gridDim.x); i += Agent::threads)
      store_coherent(temp.done + i, 0ull);
    if (threadIdx.x == 0) mutex.disarm();
  }
}

template <class Agent, class It, class OutIt, class T, class Op>
struct reduce_locked {
  static auto kernel() { return reduce_locked_kernel<Agent, It, OutIt, T, Op>; }
  static std::size_t temp_bytes(const reduce_layout& L) { return L.blocks > 1 ? locked_temp<T>::bytes(L.blocks) : 0; }
  static void run(const char* algorithm, cudaStream_t stream, It first, const reduce_layout& L, OutIt out, T init,
                  Op op, void* temp) {
    const auto tmp = L.blocks > 1 ? locked_temp<T>::carve(temp, L.blocks) : locked_temp<T>{};
    kernel()<<<L.blocks, Agent::threads, 0, stream>>>(first, L, out, init, op, tmp, next_epoch_tag());
    check_launch(algorithm, "reduce_locked_kernel");
  }
};

}  // namespace algo::detail::cuda
