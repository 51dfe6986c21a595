// algo::acc's host side: tuning, where the data is (mapping host ranges, or taking device
// addresses as they are), and the device scratch of the scans and reductions.
//
// Every compute construct of algo::acc receives device addresses only: the iterators it is given
// are rebuilt around the device address of their memory (device_view), and passed by value
// (firstprivate). So the same kernels serve all three data contracts of the policy:
//   acc_data::map_t        host addresses, present-or-copy: acc_copyin / acc_create before the
//                          call and acc_delete / acc_copyout after it. OpenACC counts references:
//                          data a data construct made present is used in place with no transfer
//                          (and is copied back by that construct, not by us); anything else is
//                          copied in and out for the call.
//   acc_data::present_t    host addresses that must be present (acc_is_present, else algo::error).
//   acc_data::deviceptr_t  device addresses, used as they are.
// On OpenACC's host fallback (no device, or ACC_DEVICE_TYPE=host) device addresses are the host
// addresses and the calls above do nothing: the same code runs on the host.
#pragma once

#include <openacc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../iterator.hpp"

namespace algo::detail::acc {

// ---- tuning -------------------------------------------------------------------------------------
/// Every tuning constant of algo::acc (bench/notes/openacc.md says what they cost).
struct tuning {
  /// vector_length of every compute construct: one warp per gang on NVIDIA GPUs, so the vector
  /// loops of a gang synchronize within a warp.
  static constexpr int vector = 32;
  /// Gangs (thread blocks) of the reductions and scans at most; each takes a contiguous range.
  static constexpr int max_gangs = 2048;
  /// Gangs of a reduce through the reduction clause at most: its lanes have one load in flight
  /// each, so it takes as many one-warp gangs as an SM holds (32) on a large GPU.
  static constexpr int clause_gangs = 8192;
  /// Elements a vector lane folds per tile (a tile is vector * items elements): contiguous, so
  /// the order of the range is kept; fewer for wider types.
  template <class T>
  static constexpr int items = sizeof(T) <= 4 ? 8 : sizeof(T) <= 8 ? 4 : sizeof(T) <= 16 ? 2 : 1;
  /// transpose: the sides of a gang's tile (vector lane j takes row j of it).
  static constexpr int transpose_tile = 32;
};

// ---- iterators as device addresses --------------------------------------------------------------
/// The iterators algo::acc takes: pointers, std::vector iterators (as pointers), and the library's
/// own transform adaptors over these (transform_reduce, inner products, transform scans).
template <class It, class = void>
struct view_traits {
  static constexpr bool supported = false;
};
template <class T>
struct view_traits<T*> {
  static constexpr bool supported = true;
  using type = T*;
};
template <class It>
struct view_traits<It, std::enable_if_t<!std::is_pointer<It>::value &&
                                        (std::is_same<It, typename std::vector<iter_value_t<It>>::iterator>::value ||
                                         std::is_same<It, typename std::vector<iter_value_t<It>>::const_iterator>::value) &&
                                        !std::is_same<iter_value_t<It>, bool>::value>> {
  static constexpr bool supported = true;
  using type = std::remove_reference_t<decltype(*std::declval<It>())>*;
};
template <class It, class F>
struct view_traits<transform_iterator<It, F>> {
  static constexpr bool supported = view_traits<It>::supported;
  using type = transform_iterator<typename view_traits<It>::type, F>;
};
template <class It1, class It2, class F>
struct view_traits<zip_transform_iterator<It1, It2, F>> {
  static constexpr bool supported = view_traits<It1>::supported && view_traits<It2>::supported;
  using type = zip_transform_iterator<typename view_traits<It1>::type, typename view_traits<It2>::type, F>;
};

template <class It>
inline constexpr bool is_supported_iterator_v = view_traits<It>::supported;

template <class It>
constexpr void require_supported_iterator() {
  static_assert(is_supported_iterator_v<It>,
                "algo::acc takes pointers and std::vector iterators (and transform_reduce / transform scans over "
                "them): their memory is what OpenACC maps or finds present");
}

/// Calls f(pointer, count) for each contiguous memory range an iterator over n elements reads.
template <class T, class F>
void for_each_range(T* p, std::int64_t n, F&& f) { f(p, n); }
template <class It, class F, std::enable_if_t<!std::is_pointer<It>::value && view_traits<It>::supported &&
                                                  std::is_pointer<typename view_traits<It>::type>::value, int> = 0>
void for_each_range(It it, std::int64_t n, F&& f) { f(&*it, n); }
template <class It, class G, class F>
void for_each_range(const transform_iterator<It, G>& it, std::int64_t n, F&& f) { for_each_range(it.base(), n, f); }
template <class It1, class It2, class G, class F>
void for_each_range(const zip_transform_iterator<It1, It2, G>& it, std::int64_t n, F&& f) {
  for_each_range(it.first_base(), n, f);
  for_each_range(it.second_base(), n, f);
}

/// The iterator rebuilt around device addresses: translate(p) gives the device address of p.
template <class T, class Tr>
T* rebuild(T* p, Tr& translate) { return translate(p); }
template <class It, class Tr, std::enable_if_t<!std::is_pointer<It>::value && view_traits<It>::supported &&
                                                   std::is_pointer<typename view_traits<It>::type>::value, int> = 0>
typename view_traits<It>::type rebuild(It it, Tr& translate) { return translate(&*it); }
template <class It, class G, class Tr>
auto rebuild(const transform_iterator<It, G>& it, Tr& translate) {
  using V = typename view_traits<transform_iterator<It, G>>::type;
  return V(rebuild(it.base(), translate), it.functor());
}
template <class It1, class It2, class G, class Tr>
auto rebuild(const zip_transform_iterator<It1, It2, G>& it, Tr& translate) {
  using V = typename view_traits<zip_transform_iterator<It1, It2, G>>::type;
  return V(rebuild(it.first_base(), translate), rebuild(it.second_base(), translate), it.functor());
}

template <class T>
void* host_void(T* p) { return const_cast<void*>(static_cast<const void*>(p)); }

/// Checks of algo::acc's input, before anything is mapped or written (public entry points).
template <class Data, class It>
void check_iterator(const char* algorithm, const char* what, It it, std::int64_t n) {
  require_supported_iterator<It>();
  if (n <= 0) return;
  for_each_range(it, n, [&](auto* p, std::int64_t count) {
    if (p == nullptr) fail(algorithm, std::string(what) + " is a null pointer with " + std::to_string(count) + " elements");
    if constexpr (std::is_same<Data, acc_data::present_t>::value) {
      const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(*p);
      if (!acc_is_present(host_void(p), bytes))
        fail(algorithm, std::string(what) + " is not present on the device (" + std::to_string(count) +
                            " elements; algo::acc.present() needs a data construct or enter data around it; "
                            "algo::acc maps host ranges for the call)");
    }
  });
}

/// The host ranges a call mapped: inputs are released (acc_delete) before outputs are copied out
/// (acc_copyout), so an in-place call, whose range was mapped twice, copies its result back when
/// the last reference goes. Data a data construct had made present only loses the references
/// taken here.
template <class Data>
class mapping {
 public:
  explicit mapping(int queue) : queue_(queue) {}
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping() {
    if constexpr (std::is_same<Data, acc_data::map_t>::value) {
      for (const auto& r : inputs_) acc_delete_async(r.first, r.second, queue_);
      for (const auto& r : outputs_) acc_copyout_async(r.first, r.second, queue_);
    }
  }

  /// The iterator over device memory for reading n elements.
  template <class It>
  auto in(It it, std::int64_t n) {
    auto tr = [&](auto* p) { return translate(p, n, dir::in); };
    return rebuild(it, tr);
  }
  /// The iterator over device memory for writing n elements, every one of them (mapped host
  /// ranges: created on the device, not copied in).
  template <class It>
  auto out(It it, std::int64_t n) {
    auto tr = [&](auto* p) { return translate(p, n, dir::out); };
    return rebuild(it, tr);
  }
  /// The iterator over device memory for writing some of n elements (a pitched transpose's output:
  /// the gaps between its rows or matrices are not written). A mapped host range is copied in as
  /// well as out, so the copy-out at the end returns the gaps as they were, not the uninitialized
  /// device memory a create would leave there.
  template <class It>
  auto out_partial(It it, std::int64_t n) {
    auto tr = [&](auto* p) { return translate(p, n, dir::inout); };
    return rebuild(it, tr);
  }

 private:
  enum class dir { in, out, inout };
  template <class T>
  T* translate(T* p, std::int64_t n, dir d) {
    if constexpr (std::is_same<Data, acc_data::deviceptr_t>::value) {
      return p;
    } else {
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
      void* h = host_void(p);
      if constexpr (std::is_same<Data, acc_data::map_t>::value) {
        if (d == dir::in) {
          acc_copyin_async(h, bytes, queue_);
          inputs_.emplace_back(h, bytes);
        } else {
          if (d == dir::inout) acc_copyin_async(h, bytes, queue_);
          else acc_create_async(h, bytes, queue_);
          outputs_.emplace_back(h, bytes);
        }
      }
      return static_cast<T*>(acc_deviceptr(h));
    }
  }

  int queue_;
  std::vector<std::pair<void*, std::size_t>> inputs_, outputs_;
};

// ---- scratch --------------------------------------------------------------------------------------
/// Device memory for gang partials, one block per (thread, device, queue), grown when a call needs
/// more and kept: steady-state calls allocate nothing. Calls on one queue run in order, so they
/// may share the block; a block that grows first waits for its queue (once: blocks only grow).
inline void* scratch(std::size_t bytes, int queue) {
  struct block {
    int device, queue;
    void* p;
    std::size_t size;
  };
  struct cache {
    std::vector<block> blocks;
    ~cache() {
      for (auto& b : blocks) acc_free(b.p);
    }
  };
  thread_local cache c;
  const int device = acc_get_device_num(acc_get_device_type());
  for (auto& b : c.blocks) {
    if (b.device != device || b.queue != queue) continue;
    if (b.size >= bytes) return b.p;
    acc_wait(queue);
    acc_free(b.p);
    b.size = bytes * 2;
    b.p = acc_malloc(b.size);
    if (b.p == nullptr) fail("acc", "acc_malloc of " + std::to_string(b.size) + " bytes of scratch failed");
    return b.p;
  }
  block b{device, queue, acc_malloc(bytes), bytes};
  if (b.p == nullptr) fail("acc", "acc_malloc of " + std::to_string(bytes) + " bytes of scratch failed");
  c.blocks.push_back(b);
  return b.p;
}

}  // namespace algo::detail::acc
