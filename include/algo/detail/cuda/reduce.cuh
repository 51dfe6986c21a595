// algo::cuda reductions: the in-house kernels (no CUB or Thrust call on this path).
//
// The policy's types pick everything at compile time, by overload:
//   reduce_strategy   two_pass | atomic | retirement_count (default) | locked   (reduce/reduce_*.cuh)
//   warp_phase        smem (volatile shared memory) | shfl (shuffles, default)  (warp/warp_reduce.cuh)
// and the input picks the loads: 16-byte vectors for pointers to fundamental types (thrust device
// pointers and vector iterators included, and our transform / zip adaptors over them), element-wise
// loads for any other iterator (thread/load.cuh).
//
//   reduce       -> the kernel writes the result, then a flag, into a pinned, device-mapped host
//                   slot (one per thread); the host polls the flag and reads the value as soon as it
//                   lands: no copy after the kernel, no wait for the stream to drain (see
//                   wait_for_result). Devices that cannot write host memory get it through a device
//                   slot and copy_to_host instead.
//   reduce_into  -> the result is written to a device iterator; nothing synchronizes the host
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../iterator.hpp"
#include "reduce/reduce_atomic.cuh"
#include "reduce/reduce_locked.cuh"
#include "reduce/reduce_range.cuh"
#include "reduce/reduce_retirement.cuh"
#include "reduce/reduce_tuning.cuh"
#include "reduce/reduce_two_pass.cuh"
#include "pointer.cuh"
#include "runtime.cuh"
#include "thread/load.cuh"

namespace algo::detail::cuda {

// ---- inputs: see through thrust's contiguous iterators to raw pointers ---------------------------
template <class It>
auto unwrap_input(const It& it) {
  using P = decltype(raw_address(it));
  if constexpr (std::is_same<P, std::nullptr_t>::value) {
    return it;
  } else {
    return raw_address(it);
  }
}
template <class It, class F>
auto unwrap_input(const transform_iterator<It, F>& it) {
  auto b = unwrap_input(it.base());
  return transform_iterator<decltype(b), F>(b, it.functor());
}
template <class It1, class It2, class F>
auto unwrap_input(const zip_transform_iterator<It1, It2, F>& it) {
  auto a = unwrap_input(it.first_base());
  auto b = unwrap_input(it.second_base());
  return zip_transform_iterator<decltype(a), decltype(b), F>(a, b, it.functor());
}

template <class It>
struct is_zip_input : std::false_type {};
template <class It1, class It2, class F>
struct is_zip_input<zip_transform_iterator<It1, It2, F>> : std::true_type {};

// ---- strategies, picked by overload on the policy's reduce_strategy type -------------------------
template <class Agent, class RawOp, class It, class OutIt, class T, class Op>
struct reduce_strategies {
  static reduce_two_pass<Agent, It, OutIt, T, Op> pick(reduce_strategy::two_pass_t);
  static reduce_atomic<Agent, RawOp, It, OutIt, T, Op> pick(reduce_strategy::atomic_t);
  static reduce_retirement<Agent, It, OutIt, T, Op> pick(reduce_strategy::retirement_count_t);
  static reduce_locked<Agent, It, OutIt, T, Op> pick(reduce_strategy::locked_t);
};

/// Marks "return the result to the host" in place of an output iterator.
struct to_host_t {};

/// Where a reduce to the host puts its result, as the strategies' output iterator (they assign
/// through *out once, from one thread): the value, then, after a system-wide fence, the call's
/// ticket in a flag word. The host takes the value as soon as the flag shows the ticket, without
/// waiting for the kernel to drain and the stream to signal completion.
template <class T>
struct result_slot {
  T* value;
  unsigned* flag;
  unsigned ticket;
  struct proxy {
    T* value;
    unsigned* flag;
    unsigned ticket;
    __device__ void operator=(const T& v) const {
      *value = v;
      __threadfence_system();  // the value is visible to the host before the flag
      *static_cast<volatile unsigned*>(flag) = ticket;
    }
  };
  __device__ proxy operator*() const { return proxy{value, flag, ticket}; }
};

/// Layout of a result slot: the flag word, then the value at a 16-byte (or stricter) boundary.
template <class T>
inline constexpr std::size_t result_value_offset = alignof(T) > 16 ? alignof(T) : 16;

/// Waits until the kernel behind `slot` has published its ticket, and returns the value. Polls the
/// flag (host memory the GPU writes); every 64 polls asks the stream whether it failed (then
/// throws) or finished; after 100 us of polling, blocks in cudaStreamSynchronize instead (a long
/// reduction should not keep a core spinning).
/// `before` (optional): an event recorded on the stream just before the kernel, for kernels that
/// publish early in their run (segmented_reduce's offsets verdict) rather than at their end. After
/// 100 us the host then waits for that event (the work queued ahead of the kernel), and polls again
/// for up to 100 us before it blocks on the stream: waiting for the whole stream there would leave
/// the GPU idle between back-to-back calls (the host's wake-up and the next launch, ~10 us).
template <class T>
T wait_for_result(const char* algorithm, cudaStream_t stream, const result_slot<T>& slot, cudaEvent_t before = nullptr) {
  const volatile unsigned* flag = slot.flag;
  auto start = std::chrono::steady_clock::now();
  for (unsigned polls = 1; *flag != slot.ticket; ++polls) {
    if (polls % 64 != 0) continue;
    const cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) break;  // everything on the stream is done: the value is there
    if (e != cudaErrorNotReady) throw cuda_error(algorithm, "the reduce kernel", e);
    (void)cudaGetLastError();  // cudaErrorNotReady is no error for anyone else
    if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(100)) {
      if (before) {  // the kernel runs from here on: its early result follows shortly
        check_cuda(cudaEventSynchronize(before), algorithm, "cudaEventSynchronize");
        before = nullptr;
        start = std::chrono::steady_clock::now();
        continue;
      }
      check_cuda(cudaStreamSynchronize(stream), algorithm, "cudaStreamSynchronize");
      break;
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  T result;
  std::memcpy(static_cast<void*>(&result), slot.value, sizeof(T));
  return result;
}

/// A ticket per call on this thread (never 0, which a fresh slot's flag holds).
inline unsigned next_result_ticket() {
  thread_local unsigned last = 0;
  if (++last == 0) last = 1;
  return last;
}

/// Runs the policy's strategy over n elements of `first` (already unwrapped), with 16-byte vector
/// loads or not. Writes init op fold to `out`, or returns it to the host (Out = to_host_t).
template <bool Vector, class Policy, class It, class Out, class T, class RawOp>
T reduce_run_loads(const char* name, const Policy& p, It first, std::int64_t n, Out out, T init, RawOp raw_op) {
  constexpr bool to_host = std::is_same<Out, to_host_t>::value;
  using OutIt = std::conditional_t<to_host, result_slot<T>, Out>;
  using V = typename load_traits<It>::value_type;
  using Tuning = reduce_tuning<V, T>;
  constexpr bool ordered = !is_commutative_v<RawOp, T>;
  using Agent = reduce_range<Tuning, typename Policy::warp_phase, Vector, ordered, It, T>;
  using Op = accumulate_with<RawOp, T>;
  using Strategy =
      decltype(reduce_strategies<Agent, RawOp, It, OutIt, T, Op>::pick(typename Policy::reduce_strategy{}));

  // ---- layout: contiguous ranges over a grid that fits on the device ----------------------------------
  // (an input that one block covers needs no occupancy query: the layout is the same for any grid)
  const int misalignment = vector_misalignment(first);
  reduce_layout L = Agent::layout(n, misalignment, 1);
  if (L.tiles > static_cast<std::int64_t>(Agent::warps) * Tuning::min_tiles_per_warp) {
    int max_blocks = resident_blocks<Strategy>(name, Strategy::kernel(), Agent::threads, Tuning::max_blocks_per_sm);
    if (max_blocks > Tuning::max_blocks) max_blocks = Tuning::max_blocks;
    L = Agent::layout(n, misalignment, max_blocks);
  }

  // ---- to the host: the kernel writes the result and a flag into mapped pinned memory ----------------
  if constexpr (to_host) {
    constexpr std::size_t slot_bytes = result_value_offset<T> + sizeof(T);
    const unsigned ticket = next_result_ticket();
    if (void* mapped = mapped_result_slot(name, slot_bytes)) {
      auto* base = static_cast<unsigned char*>(mapped);
      const result_slot<T> slot{reinterpret_cast<T*>(base + result_value_offset<T>), reinterpret_cast<unsigned*>(base),
                                ticket};
      {
        temporary_buffer tmp(p, Strategy::temp_bytes(L));  // handed back right after the launch
        Strategy::run(name, p.stream, first, L, slot, init, Op{raw_op}, static_cast<unsigned char*>(tmp.get()));
      }
      return wait_for_result(name, p.stream, slot);
    }
    // A device that cannot write host memory: the slot sits in the temporaries, then is copied.
    constexpr std::size_t temp_offset = (slot_bytes + 255) / 256 * 256;  // the strategy's part stays aligned
    temporary_buffer tmp(p, temp_offset + Strategy::temp_bytes(L));
    auto* base = static_cast<unsigned char*>(tmp.get());
    const result_slot<T> slot{reinterpret_cast<T*>(base + result_value_offset<T>), reinterpret_cast<unsigned*>(base),
                              ticket};
    Strategy::run(name, p.stream, first, L, slot, init, Op{raw_op}, base + temp_offset);
    return copy_to_host(name, slot.value, p.stream);
  } else {
    temporary_buffer tmp(p, Strategy::temp_bytes(L));
    Strategy::run(name, p.stream, first, L, out, init, Op{raw_op}, static_cast<unsigned char*>(tmp.get()));
    return init;
  }
}

template <class Policy, class It, class Out, class T, class Op>
T reduce_run(const char* name, const Policy& p, It first_in, std::int64_t n, Out out, T init, Op op) {
  static_assert(std::is_trivially_copyable<T>::value, "algo::cuda reductions need a trivially copyable accumulator");
  auto first = unwrap_input(first_in);
  using Src = decltype(first);
  if constexpr (!load_traits<Src>::vectorizable) {
    return reduce_run_loads<false>(name, p, first, n, out, init, op);
  } else if constexpr (is_zip_input<Src>::value) {
    // two pointers: vectors only when both sit at the same offset from a 16-byte boundary
    if (load_traits<Src>::aligned_alike(first)) return reduce_run_loads<true>(name, p, first, n, out, init, op);
    return reduce_run_loads<false>(name, p, first, n, out, init, op);
  } else {
    return reduce_run_loads<true>(name, p, first, n, out, init, op);
  }
}

}  // namespace algo::detail::cuda

namespace algo::detail {

/// n >= 1 elements folded onto init; the value comes back to the host (only p.stream is synchronized).
template <class... S, class It, class T, class Op>
T reduce(const cuda_policy<S...>& p, It first, std::int64_t n, T init, Op op) {
  cuda::refuse_host_result_under_capture("reduce", p.stream);
  return cuda::reduce_run("reduce", p, first, n, cuda::to_host_t{}, init, op);
}

/// n >= 0 elements folded onto init, written to *out on p.stream (n == 0 writes init).
template <class... S, class It, class OutIt, class T, class Op>
void reduce_into(const cuda_policy<S...>& p, It first, std::int64_t n, OutIt out, T init, Op op) {
  cuda::reduce_run("reduce_into", p, first, n, out, init, op);
}

}  // namespace algo::detail
