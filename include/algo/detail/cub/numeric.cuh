// algo::cub: scans and reductions delegated to cub::DeviceScan / cub::DeviceReduce. This is the
// baseline the in-house kernels are measured against. CUB's DeviceReduce may reorder operands, so
// operators not known to be commutative (algo::is_commutative) take an order-preserving path built
// from CUB's scan: an inclusive scan seeded with init whose output iterator keeps only the last value.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include <cub/device/device_reduce.cuh>
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

/// An output iterator that drops every write except the one to position `keep`.
template <class T>
class keep_one_output_iterator {
 public:
  struct proxy {
    T* dst;
    ALGO_HD const proxy& operator=(const T& v) const {
      if (dst) *dst = v;
      return *this;
    }
  };
  using value_type = T;
  using reference = proxy;
  using pointer = void;
  using difference_type = std::int64_t;
  using iterator_category = std::random_access_iterator_tag;

  ALGO_HD keep_one_output_iterator(T* dst, std::int64_t keep, std::int64_t pos = 0) : dst_(dst), keep_(keep), pos_(pos) {}
  ALGO_HD proxy operator*() const { return proxy{pos_ == keep_ ? dst_ : nullptr}; }
  ALGO_HD proxy operator[](difference_type i) const { return proxy{pos_ + i == keep_ ? dst_ : nullptr}; }
  ALGO_HD keep_one_output_iterator operator+(difference_type i) const { return {dst_, keep_, pos_ + i}; }
  ALGO_HD keep_one_output_iterator& operator+=(difference_type i) { pos_ += i; return *this; }
  ALGO_HD keep_one_output_iterator& operator++() { ++pos_; return *this; }
  ALGO_HD difference_type operator-(const keep_one_output_iterator& o) const { return pos_ - o.pos_; }

 private:
  T* dst_;
  std::int64_t keep_;
  std::int64_t pos_;
};

/// CUB's two-call protocol: size the temporaries, take them from the policy's resource, run.
template <class Call>
void run_with_temporaries(const char* algorithm, const char* what, const cub_policy& p, Call&& call) {
  std::size_t bytes = 0;
  check_cuda(call(nullptr, bytes), algorithm, what);
  cuda::temporary_buffer tmp(p, bytes);
  check_cuda(call(tmp.get(), bytes), algorithm, what);
}

/// Writes init op in[0] op ... op in[n-1] to d_result (device memory), asynchronously.
template <class It, class T, class Op>
void reduce_to_device(const char* algorithm, const cub_policy& p, It first, std::int64_t n, T init, Op op, T* d_result) {
  auto in = as_accumulator<T>(first);
  accumulate_with<Op, T> aop{op};
  if constexpr (is_commutative_v<Op, T>) {
    run_with_temporaries(algorithm, "cub::DeviceReduce::Reduce", p, [&](void* tmp, std::size_t& bytes) {
      return ::cub::DeviceReduce::Reduce(tmp, bytes, in, d_result, n, aop, init, p.stream);
    });
  } else {
    keep_one_output_iterator<T> out(d_result, n - 1);
    run_with_temporaries(algorithm, "cub::DeviceScan::InclusiveScanInit", p, [&](void* tmp, std::size_t& bytes) {
      return ::cub::DeviceScan::InclusiveScanInit(tmp, bytes, in, out, aop, init, n, p.stream);
    });
  }
}

}  // namespace algo::detail::cub_backend

namespace algo::detail {

template <bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const cub_policy& p, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt out, Op op, Init init) {
  using Acc = scan_accumulator_t<InIt, Init>;
  auto in = cub_backend::as_accumulator<Acc>(first);
  accumulate_with<Op, Acc> aop{op};
  const char* name = Inclusive ? "inclusive_scan" : "exclusive_scan";
  cub_backend::run_with_temporaries(name, "cub::DeviceScan", p, [&](void* tmp, std::size_t& bytes) {
    if constexpr (!Inclusive) {
      return ::cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, aop, static_cast<Acc>(init), n, p.stream);
    } else if constexpr (std::is_same<Init, no_init_t>::value) {
      return ::cub::DeviceScan::InclusiveScan(tmp, bytes, in, out, aop, n, p.stream);
    } else {
      return ::cub::DeviceScan::InclusiveScanInit(tmp, bytes, in, out, aop, static_cast<Acc>(init), n, p.stream);
    }
  });
  return out + n;
}

template <class It, class T, class Op>
T reduce(const cub_policy& p, It first, std::int64_t n, T init, Op op) {
  cuda::temporary_buffer result(p, sizeof(T));
  cub_backend::reduce_to_device("reduce", p, first, n, init, op, result.as<T>());
  return cuda::copy_to_host("reduce", result.as<T>(), p.stream);
}

}  // namespace algo::detail
