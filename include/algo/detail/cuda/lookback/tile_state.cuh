// Tile state of the single-pass (decoupled look-back) scan: for each tile, a status (empty,
// aggregate published, inclusive prefix published) and a value; plus the ticket counter that
// hands out tile indices. And the small pool this state lives in.
//
// Layouts, by the size of the accumulator:
//   <= 4 bytes   value and status in one 64-bit word, one relaxed 8-byte store / load;
//   <= 8 bytes   value and status in one 128-bit word (ld/st .b128: a single access);
//   larger       a 32-bit status flag plus separate aggregate and inclusive value slots: values
//                are written first (16-byte pieces when the size allows), then the flag with
//                release order; readers load the flag with acquire order, then the value.
//
// Status words carry an epoch: a status counts only when its epoch is the current call's, so a
// call never has to clear what earlier calls left. That is only sound if nothing but this scan
// ever writes the memory, which is why the state does not come from the caching resource (it
// recycles blocks between all algorithms, so they may hold any bytes, including a current-epoch
// look-alike): it comes from tile_state_pool, zeroed once when a block is created, written only
// by look-back kernels, with one epoch per use (2^30 - 1 of them, then one cudaMemsetAsync and
// the count starts again). The ticket counter goes back to zero in the kernel itself: the block
// that draws the last ticket resets it, since every other block has drawn its ticket by then.
// So a call is one kernel launch and nothing else on the stream (no init kernel, no memset).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../../../error.hpp"
#include "../../../memory_resource.hpp"
#include "../runtime.cuh"

namespace algo::detail::cuda {

enum tile_status : unsigned { tile_empty = 0, tile_aggregate = 1, tile_inclusive = 2, tile_before_first = 3 };

/// Epochs run 1 .. max_epoch (0 is what fresh, zeroed memory holds).
inline constexpr unsigned max_epoch = (1u << 30) - 1;

__device__ __forceinline__ unsigned status_tag(unsigned status, unsigned epoch) { return epoch << 2 | status; }
__device__ __forceinline__ unsigned status_in(unsigned tag, unsigned epoch) {
  return (tag >> 2) == epoch ? (tag & 3u) : static_cast<unsigned>(tile_empty);
}

// ---- strong (inter-block) memory accesses ------------------------------------------------------
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed_128(void* p, unsigned long long lo, unsigned long long hi) {
  asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}" ::"l"(p),
               "l"(lo), "l"(hi)
               : "memory");
}
__device__ __forceinline__ void load_relaxed_128(const void* p, unsigned long long& lo, unsigned long long& hi) {
  asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
               : "=l"(lo), "=l"(hi)
               : "l"(p)
               : "memory");
}
__device__ __forceinline__ void store_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// ---- the ticket counter (first 16 bytes of every layout) ---------------------------------------
struct tile_tickets {
  unsigned* counter;
  __device__ __forceinline__ int take() { return static_cast<int>(atomicAdd(counter, 1u)); }
  __device__ __forceinline__ void reset() { atomicExch(counter, 0u); }
};

inline constexpr std::size_t tile_state_header = 16;

// ---- layouts -------------------------------------------------------------------------------------
template <class T, int Spread = 1>
struct packed64_tile_state : tile_tickets {
  static_assert(sizeof(T) <= 4, "");
  static_assert(Spread >= 1, "");
  static constexpr bool parallel_loads = true;  // relaxed loads: a poll's loads are all in flight at once
  static constexpr bool side_word = false;
  unsigned long long* words;

  static std::size_t bytes(std::int64_t tiles) { return tile_state_header + static_cast<std::size_t>(tiles) * 8 * Spread; }
  /// Every 8-byte word this layout writes is (tag << 32 | value), whatever the spread or count.
  static std::uint64_t layout_key(std::int64_t) { return 1ull << 60; }
  static packed64_tile_state at(void* memory, std::int64_t) {
    auto* base = static_cast<unsigned char*>(memory);
    return {{reinterpret_cast<unsigned*>(base)}, reinterpret_cast<unsigned long long*>(base + tile_state_header)};
  }
  __device__ __forceinline__ void publish(int tile, unsigned status, const T& v, unsigned epoch) {
    unsigned lo = 0;
    memcpy(&lo, &v, sizeof(T));
    store_relaxed(words + static_cast<std::size_t>(tile) * Spread,
                  static_cast<unsigned long long>(status_tag(status, epoch)) << 32 | lo);
  }
  __device__ __forceinline__ unsigned load(int tile, unsigned epoch, T& v) const {
    const unsigned long long w = load_relaxed(words + static_cast<std::size_t>(tile) * Spread);
    const unsigned lo = static_cast<unsigned>(w);
    memcpy(&v, &lo, sizeof(T));
    return status_in(static_cast<unsigned>(w >> 32), epoch);
  }
};

template <class T, int Spread = 1>
struct packed128_tile_state : tile_tickets {
  static_assert(sizeof(T) <= 8, "");
  static_assert(Spread >= 1, "");
  static constexpr bool parallel_loads = true;
  unsigned long long* words;  // pairs: (value, tag)

  static std::size_t bytes(std::int64_t tiles) { return tile_state_header + static_cast<std::size_t>(tiles) * 16 * Spread; }
  /// Every 16-byte pair this layout writes is (value, tag), whatever the spread or count.
  static std::uint64_t layout_key(std::int64_t) { return 2ull << 60; }
  static packed128_tile_state at(void* memory, std::int64_t) {
    auto* base = static_cast<unsigned char*>(memory);
    return {{reinterpret_cast<unsigned*>(base)}, reinterpret_cast<unsigned long long*>(base + tile_state_header)};
  }
  __device__ __forceinline__ void publish(int tile, unsigned status, const T& v, unsigned epoch) {
    unsigned long long lo = 0;
    memcpy(&lo, &v, sizeof(T));
    store_relaxed_128(words + 2 * static_cast<std::size_t>(tile) * Spread, lo, status_tag(status, epoch));
  }
  __device__ __forceinline__ unsigned load(int tile, unsigned epoch, T& v) const {
    unsigned long long lo, hi;
    load_relaxed_128(words + 2 * static_cast<std::size_t>(tile) * Spread, lo, hi);
    memcpy(&v, &lo, sizeof(T));
    return status_in(static_cast<unsigned>(hi), epoch);
  }
  /// The tag takes the low half of the second word; the high half is a side word, 0 unless
  /// publish_side wrote one (reduce_by_key's count-only tiles: their inclusive count beside their
  /// aggregate, ordered_lookback.cuh). load() ignores it, so a reader of statuses sees an aggregate.
  static constexpr bool side_word = true;
  __device__ __forceinline__ void publish_side(int tile, unsigned status, const T& v, unsigned epoch, unsigned side) {
    unsigned long long lo = 0;
    memcpy(&lo, &v, sizeof(T));
    store_relaxed_128(words + 2 * static_cast<std::size_t>(tile) * Spread, lo,
                      static_cast<unsigned long long>(side) << 32 | status_tag(status, epoch));
  }
  __device__ __forceinline__ unsigned load_side(int tile, unsigned epoch, T& v, unsigned& side) const {
    unsigned long long lo, hi;
    load_relaxed_128(words + 2 * static_cast<std::size_t>(tile) * Spread, lo, hi);
    memcpy(&v, &lo, sizeof(T));
    side = static_cast<unsigned>(hi >> 32);
    return status_in(static_cast<unsigned>(hi), epoch);
  }
};

template <class T>
struct split_tile_state : tile_tickets {
  static constexpr int value_words = (sizeof(T) + 3) / 4;
  static constexpr bool parallel_loads = false;  // acquire loads order everything after them
  static constexpr bool side_word = false;
  unsigned* flags;       // [tiles]
  unsigned* aggregates;  // [tiles][value_words]
  unsigned* inclusives;  // [tiles][value_words]

  static std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }
  static std::size_t value_bytes(std::int64_t tiles) { return round16(static_cast<std::size_t>(tiles) * value_words * 4); }
  static std::size_t bytes(std::int64_t tiles) {
    return tile_state_header + round16(static_cast<std::size_t>(tiles) * 4) + 2 * value_bytes(tiles);
  }
  /// The flags sit before value slots whose place depends on the tile count: a call with more
  /// tiles would read an earlier call's values as flags, so the count is part of the key.
  static std::uint64_t layout_key(std::int64_t tiles) {
    return 3ull << 60 | static_cast<std::uint64_t>(value_words) << 40 | static_cast<std::uint64_t>(tiles);
  }
  static split_tile_state at(void* memory, std::int64_t tiles) {
    auto* base = static_cast<unsigned char*>(memory);
    auto* flags = base + tile_state_header;
    auto* aggregates = flags + round16(static_cast<std::size_t>(tiles) * 4);
    auto* inclusives = aggregates + value_bytes(tiles);
    return {{reinterpret_cast<unsigned*>(base)}, reinterpret_cast<unsigned*>(flags),
            reinterpret_cast<unsigned*>(aggregates), reinterpret_cast<unsigned*>(inclusives)};
  }
  __device__ __forceinline__ void publish(int tile, unsigned status, const T& v, unsigned epoch) {
    unsigned w[value_words] = {};
    memcpy(w, &v, sizeof(T));
    unsigned* slot = (status == tile_aggregate ? aggregates : inclusives) + static_cast<std::size_t>(tile) * value_words;
    if constexpr (value_words % 4 == 0) {  // 16-byte pieces (slots are 16-byte aligned then)
#pragma unroll
      for (int k = 0; k < value_words; k += 4)
        store_relaxed_128(slot + k, static_cast<unsigned long long>(w[k + 1]) << 32 | w[k],
                          static_cast<unsigned long long>(w[k + 3]) << 32 | w[k + 2]);
    } else {
#pragma unroll
      for (int k = 0; k < value_words; ++k) store_relaxed(slot + k, w[k]);
    }
    store_release(flags + tile, status_tag(status, epoch));  // the value is visible before the flag
  }
  __device__ __forceinline__ unsigned load(int tile, unsigned epoch, T& v) const {
    const unsigned status = status_in(load_acquire(flags + tile), epoch);
    if (status == tile_empty) return status;
    const unsigned* slot = (status == tile_aggregate ? aggregates : inclusives) + static_cast<std::size_t>(tile) * value_words;
    unsigned w[value_words];
    if constexpr (value_words % 4 == 0) {
#pragma unroll
      for (int k = 0; k < value_words; k += 4) {
        unsigned long long lo, hi;
        load_relaxed_128(slot + k, lo, hi);
        w[k] = static_cast<unsigned>(lo);
        w[k + 1] = static_cast<unsigned>(lo >> 32);
        w[k + 2] = static_cast<unsigned>(hi);
        w[k + 3] = static_cast<unsigned>(hi >> 32);
      }
    } else {
#pragma unroll
      for (int k = 0; k < value_words; ++k) w[k] = load_relaxed(slot + k);
    }
    memcpy(&v, w, sizeof(T));
    return status;
  }
};

/// Spread: packed words sit Spread words apart (1: adjacent), so that one look-back window's
/// polls fall on more L2 lines.
template <class T, int Spread = 1>
using tile_state_for =
    std::conditional_t<sizeof(T) <= 4, packed64_tile_state<T, Spread>,
                       std::conditional_t<sizeof(T) <= 8, packed128_tile_state<T, Spread>, split_tile_state<T>>>;

// ---- the pool the state lives in (host) -----------------------------------------------------------
/// Blocks of device memory that only look-back kernels write, each with its epoch count. A block is
/// handed to one call at a time; after the call it goes back with an event recorded on the call's
/// stream, and is handed out again to the same stream at once or to another once that event has
/// completed (as the caching resource does). Thread-safe; one pool per device; blocks are kept for
/// the life of the process (a few MB at most: 16 bytes per tile of several thousand elements).
class tile_state_pool {
 public:
  class lease {
   public:
    lease(tile_state_pool* pool, std::size_t index, void* memory, unsigned epoch, cudaStream_t stream)
        : pool_(pool), index_(index), memory_(memory), epoch_(epoch), stream_(stream) {}
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() { pool_->give_back(index_, stream_); }
    void* memory() const { return memory_; }
    unsigned epoch() const { return epoch_; }

   private:
    tile_state_pool* pool_;
    std::size_t index_;
    void* memory_;
    unsigned epoch_;
    cudaStream_t stream_;
  };

  /// The pool of the current device.
  static tile_state_pool& current(const char* algorithm) {
    static std::mutex mutex;
    static auto& pools = *new std::map<int, std::unique_ptr<tile_state_pool>>();  // never destroyed
    int device = 0;
    check_cuda(cudaGetDevice(&device), algorithm, "cudaGetDevice");
    std::lock_guard<std::mutex> lock(mutex);
    auto& p = pools[device];
    if (!p) p.reset(new tile_state_pool());
    return *p;
  }

  /// A block of at least `bytes`, with a fresh epoch, usable on `stream` in stream order.
  /// `layout` names how the caller reads the block (State::layout_key): epochs keep stale statuses
  /// out only while every use puts its status words in the same places, so a block last used
  /// with another layout is cleared (one memset on the stream) and its epochs start over.
  std::unique_ptr<lease> acquire(std::size_t bytes, cudaStream_t stream, const char* algorithm, std::uint64_t layout) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t pick = blocks_.size();
    bool not_ready = false;
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      block& b = blocks_[i];
      if (b.busy || b.bytes < bytes) continue;
      if (pick < blocks_.size() && blocks_[pick].bytes <= b.bytes) continue;  // smallest that fits
      if (b.stream == stream && (!per_thread_stream(stream) || b.thread == std::this_thread::get_id())) {
        pick = i;
      } else if (cudaEventQuery(b.ready) == cudaSuccess) {
        pick = i;
      } else {
        not_ready = true;
      }
    }
    if (not_ready) (void)cudaGetLastError();  // cudaErrorNotReady from cudaEventQuery is no error
    if (pick == blocks_.size()) {
      block b;
      b.bytes = 4096;
      while (b.bytes < bytes) b.bytes *= 2;
      cudaError_t e = cudaMalloc(&b.memory, b.bytes);
      if (e == cudaErrorMemoryAllocation) {  // the idle blocks of the caching resource go back first
        (void)cudaGetLastError();
        default_caching_resource().release();
        e = cudaMalloc(&b.memory, b.bytes);
      }
      check_cuda(e, algorithm, "cudaMalloc (look-back tile state)");
      check_cuda(cudaEventCreateWithFlags(&b.ready, cudaEventDisableTiming), algorithm, "cudaEventCreate");
      check_cuda(cudaMemsetAsync(b.memory, 0, b.bytes, stream), algorithm, "cudaMemsetAsync (new tile state)");
      b.stream = stream;
      blocks_.push_back(b);
    }
    block& b = blocks_[pick];
    b.busy = true;
    if (b.layout != layout) {
      if (b.epoch != 0)  // written before, in another layout (a new block was zeroed above)
        check_cuda(cudaMemsetAsync(b.memory, 0, b.bytes, stream), algorithm, "cudaMemsetAsync (tile state, new layout)");
      b.layout = layout;
      b.epoch = 0;
    }
    if (++b.epoch > max_epoch) {  // once in 2^30 uses: start over from clean memory
      check_cuda(cudaMemsetAsync(b.memory, 0, b.bytes, stream), algorithm, "cudaMemsetAsync (tile state epoch wrap)");
      b.epoch = 1;
    }
    return std::make_unique<lease>(this, pick, b.memory, b.epoch, stream);
  }

 private:
  struct block {
    void* memory = nullptr;
    std::size_t bytes = 0;
    unsigned epoch = 0;
    std::uint64_t layout = 0;  // layout_key of the last use
    cudaStream_t stream = nullptr;
    cudaEvent_t ready = nullptr;  // recorded after the last use
    std::thread::id thread;       // the host thread of the last use (per-thread default streams)
    bool busy = false;
  };

  void give_back(std::size_t index, cudaStream_t stream) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    block& b = blocks_[index];
    if (cudaEventRecord(b.ready, stream) != cudaSuccess) {
      // The block cannot be tracked (a broken stream): never hand it out again.
      (void)cudaGetLastError();
      b.bytes = 0;
    }
    b.stream = stream;
    b.thread = std::this_thread::get_id();
    b.busy = false;
  }

  std::mutex mutex_;
  std::vector<block> blocks_;
};

/// Calls launch(memory, epoch) with `bytes` of tile state read as `layout` (State::layout_key), for
/// one launch on `stream`. Outside graph capture: a tile_state_pool block with a fresh epoch (one
/// launch, nothing else on the stream). Under capture an epoch would be baked into the graph and
/// every replay would find the previous replay's statuses under it, so there the state is a
/// temporary of the graph (a stream-ordered allocation: a graph memory node) cleared by a memset
/// node, with epoch 1: every replay starts from zeroed state.
template <class Launch>
void with_tile_state(const char* name, std::size_t bytes, std::uint64_t layout, cudaStream_t stream,
                     device_memory_resource* resource, Launch&& launch) {
  if (stream_is_capturing(stream, name)) {
    device_policy_base policy;
    policy.stream = stream;
    policy.resource = resource;
    temporary_buffer state(policy, bytes);
    check_cuda(cudaMemsetAsync(state.get(), 0, bytes, stream), name, "cudaMemsetAsync (tile state, graph capture)");
    launch(state.get(), 1u);
    return;
  }
  auto lease = tile_state_pool::current(name).acquire(bytes, stream, name, layout);
  launch(lease->memory(), lease->epoch());
}

}  // namespace algo::detail::cuda
