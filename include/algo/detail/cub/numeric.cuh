// algo::cub: scans and reductions delegated to cub::DeviceScan / cub::DeviceReduce. This is the
// baseline the in-house kernels are measured against. CUB's DeviceReduce may reorder operands, so
// operators not known to be commutative (algo::is_commutative) take an order-preserving path built
// from CUB's scan: an inclusive scan seeded with init whose output iterator keeps only the last value.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cub/device/device_scan.cuh>

#include "../../error.hpp"
#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"
#include "../scan_kind.hpp"

namespace algo::detail::cub_backend {

/// The input as CUB should see it: unchanged when it already yields Acc (so CUB keeps its
/// vectorized loads), else converted to Acc element by element.
template <class Acc, class It>
auto as_accumulator(It it) {
  if constexpr (std::is_same<iter_value_t<It>, Acc>::value) {
    return it;
  } else {
    return transform_iterator<It, cast_to<Acc>>(it, cast_to<Acc>{});
  }
}

/// The operator as CUB should see it. A plus (algo's, std's, libcu++'s, Thrust's; transparent or
/// on Acc) on an arithmetic accumulator becomes ::cuda::std::plus<Acc>, which CUB recognizes as a
/// primitive operator (its tuned policies, the ones a user calling cub::DeviceScan::InclusiveSum or
/// thrust gets: same speed and same float rounding); anything else returns Acc through accumulate_with.
template <class Acc, class Op>
auto cub_operator(Op op) {
  if constexpr (std::is_arithmetic<Acc>::value && is_plus_on_v<Op, Acc>) {
    return ::cuda::std::plus<Acc>{};
  } else {
    return accumulate_with<Op, Acc>{op};
  }
}

/// Calls f(count) with n as an int when it fits (CUB's 32-bit offset kernels, as a user passing an
/// int gets), as std::int64_t otherwise.
template <class F>
cudaError_t with_count(std::int64_t n, F&& f) {
  if (n <= INT_MAX) return f(static_cast<int>(n));
  return f(n);
}

/// An output iterator that drops every write except the one to position `keep`, which goes to *dst.
template <class T, class OutIt = T*>
class keep_one_output_iterator {
 public:
  struct proxy {
    OutIt dst;
    bool keep;
    ALGO_HD const proxy& operator=(const T& v) const {
      if (keep) *dst = v;
      return *this;
    }
  };
  using value_type = T;
  using reference = proxy;
  using pointer = void;
  using difference_type = std::int64_t;
  using iterator_category = std::random_access_iterator_tag;

  ALGO_HD keep_one_output_iterator(OutIt dst, std::int64_t keep, std::int64_t pos = 0) : dst_(dst), keep_(keep), pos_(pos) {}
  ALGO_HD proxy operator*() const { return proxy{dst_, pos_ == keep_}; }
  ALGO_HD proxy operator[](difference_type i) const { return proxy{dst_, pos_ + i == keep_}; }
  ALGO_HD keep_one_output_iterator operator+(difference_type i) const { return {dst_, keep_, pos_ + i}; }
  ALGO_HD keep_one_output_iterator& operator+=(difference_type i) { pos_ += i; return *this; }
  ALGO_HD keep_one_output_iterator& operator++() { ++pos_; return *this; }
  ALGO_HD difference_type operator-(const keep_one_output_iterator& o) const { return pos_ - o.pos_; }

 private:
  OutIt dst_;
  std::int64_t keep_;
  std::int64_t pos_;
};

/// CUB caches, per device and for the life of the process, the result of its first PTX-version
/// query, failures included (cub::PerDeviceAttributeCache stores the error code). That query loads
/// a module (cudaFuncGetAttributes; lazily loaded modules need device memory), so a first CUB call
/// made while the GPU is out of memory would make every later CUB call in the process fail with
/// cudaErrorMemoryAllocation. Work-around: ask uncached first, and let CUB fill its cache only
/// once that succeeded; a transient failure is then reported for this call alone.
inline void prime_cub_device_cache(const char* algorithm) {
  constexpr int max_devices = 128;
  static std::atomic<bool> primed[max_devices];
  int device = 0;
  check_cuda(cudaGetDevice(&device), algorithm, "cudaGetDevice");
  if (device < 0 || device >= max_devices || primed[device].load(std::memory_order_acquire)) return;
  int version = 0;
  check_cuda(::cub::PtxVersionUncached(version), algorithm, "cub::PtxVersionUncached");
  check_cuda(::cub::PtxVersion(version), algorithm, "cub::PtxVersion");
  primed[device].store(true, std::memory_order_release);
}

/// CUB's two-call protocol: size the temporaries, take them from the policy's resource, run.
template <class Call>
void run_with_temporaries(const char* algorithm, const char* what, const cub_policy& p, Call&& call) {
  prime_cub_device_cache(algorithm);
  std::size_t bytes = 0;
  check_cuda(call(nullptr, bytes), algorithm, what);
  cuda::temporary_buffer tmp(p, bytes);
  check_cuda(call(tmp.get(), bytes), algorithm, what);
}

/// Whether reduce_to_device hands op on accumulator T to cub::DeviceReduce (which reorders
/// operands), rather than to the order-preserving path built from cub::DeviceScan.
template <class Op, class T>
inline constexpr bool uses_device_reduce_v = is_commutative_v<Op, T>;

/// Writes init op in[0] op ... op in[n-1] to *d_result (a device iterator), asynchronously. n may be 0
/// (CUB's DeviceReduce then writes init).
template <class It, class T, class Op, class OutIt>
void reduce_to_device(const char* algorithm, const cub_policy& p, It first, std::int64_t n, T init, Op op, OutIt d_result) {
  auto in = as_accumulator<T>(first);
  const auto aop = cub_operator<T>(op);
  constexpr bool reorder = uses_device_reduce_v<Op, T>;
  // (CUB's DeviceReduce with 0 items writes init; the order-preserving scan writes nothing)
  constexpr bool out_is_pointer = std::is_same<OutIt, T*>::value;
  if constexpr (reorder || !out_is_pointer) {
    if (reorder || n == 0) {
      run_with_temporaries(algorithm, "cub::DeviceReduce::Reduce", p, [&](void* tmp, std::size_t& bytes) {
        return with_count(n, [&](auto count) {
          return ::cub::DeviceReduce::Reduce(tmp, bytes, in, d_result, count, aop, init, p.stream);
        });
      });
      return;
    }
  } else if (n == 0) {
    // a kernel, not a copy from &init: a captured copy would read this stack slot at every replay
    cuda::write_value_kernel<<<1, 1, 0, p.stream>>>(d_result, init);
    cuda::check_launch(algorithm, "write_value_kernel");
    return;
  }
  if constexpr (!reorder) {
    keep_one_output_iterator<T, OutIt> out(d_result, n - 1);
    run_with_temporaries(algorithm, "cub::DeviceScan::InclusiveScanInit", p, [&](void* tmp, std::size_t& bytes) {
      return with_count(n, [&](auto count) {
        return ::cub::DeviceScan::InclusiveScanInit(tmp, bytes, in, out, aop, init, count, p.stream);
      });
    });
  }
}

}  // namespace algo::detail::cub_backend

namespace algo::detail {

template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const cub_policy& p, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op, Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  auto in = cub_backend::as_accumulator<Acc>(first);
  const auto aop = cub_backend::cub_operator<Acc>(op);
  const char* name = Inclusive ? "inclusive_scan" : "exclusive_scan";
  cub_backend::run_with_temporaries(name, "cub::DeviceScan", p, [&](void* tmp, std::size_t& bytes) {
    return cub_backend::with_count(n, [&](auto count) {
      if constexpr (!Inclusive) {
        return ::cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, aop, static_cast<Acc>(init), count, p.stream);
      } else if constexpr (std::is_same<Init, no_init_t>::value) {
        return ::cub::DeviceScan::InclusiveScan(tmp, bytes, in, out, aop, count, p.stream);
      } else {
        return ::cub::DeviceScan::InclusiveScanInit(tmp, bytes, in, out, aop, static_cast<Acc>(init), count, p.stream);
      }
    });
  });
  return out + n;
}

template <class It, class T, class Op>
T reduce(const cub_policy& p, It first, std::int64_t n, T init, Op op) {
  cuda::refuse_host_result_under_capture("reduce", p.stream);
  cuda::temporary_buffer result(p, sizeof(T));
  cub_backend::reduce_to_device("reduce", p, first, n, init, op, result.as<T>());
  return cuda::copy_to_host("reduce", result.as<T>(), p.stream);
}

/// n >= 0 elements folded onto init, written to *out on p.stream without synchronizing the host.
template <class It, class OutIt, class T, class Op>
void reduce_into(const cub_policy& p, It first, std::int64_t n, OutIt out, T init, Op op) {
  cub_backend::reduce_to_device("reduce_into", p, first, n, init, op, out);
}

}  // namespace algo::detail
