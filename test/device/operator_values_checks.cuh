// "The operator sees only real values" (Thrust's TestInclusiveScanForInvalidValues, for every
// strategy): the input is n copies of a sentinel, the operator returns the sentinel and counts, on
// the device, every call whose arguments are not both the sentinel. Since inputs, init and every
// operator result are the sentinel, a count above 0 means a kernel passed padding, a
// default-constructed value or uninitialized memory to the operator (partial tiles, idle lanes,
// empty look-back slots).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"

namespace algo_test::opvals {

struct pair8 {
  std::int32_t a, b;
};
ALGO_HD inline bool operator==(const pair8& l, const pair8& r) { return l.a == r.a && l.b == r.b; }

template <class T>
ALGO_HD T sentinel();
template <>
ALGO_HD inline std::int32_t sentinel<std::int32_t>() { return 0x5a5a1234; }
template <>
ALGO_HD inline pair8 sentinel<pair8>() { return pair8{0x5a5a1234, -77}; }
template <>
ALGO_HD inline big32 sentinel<big32>() { return big32{0x5a5a1234ull, 3ull, 0x77ull << 40, 5ull}; }

/// Returns the sentinel; counts calls with any other argument.
struct sentinel_op {
  unsigned* bad;
  template <class T>
  ALGO_HD T operator()(const T& a, const T& b) const {
#ifdef __CUDA_ARCH__
    if (!(a == sentinel<T>()) || !(b == sentinel<T>())) atomicAdd(bad, 1u);
#endif
    return sentinel<T>();
  }
};

inline std::vector<std::int64_t> sizes() { return {1, 2, 31, 1000, 10000, 65537, (std::int64_t(1) << 20) + 3}; }

/// Scans (inclusive without and with init, exclusive) of sentinels under `policy`.
template <class T, class Policy>
void check_scans(const Policy& policy) {
  device_buffer<unsigned> bad(1);
  for (std::int64_t n : sizes()) {
    if (small_run() && n > 70000) continue;
    device_buffer<T> in(std::vector<T>(static_cast<std::size_t>(n), sentinel<T>()));
    device_buffer<T> out(static_cast<std::size_t>(n));
    const std::vector<T> want(static_cast<std::size_t>(n), sentinel<T>());
    for (int form = 0; form < 3; ++form) {
      require_cuda(cudaMemset(bad.begin(), 0, sizeof(unsigned)), "cudaMemset");
      out.fill_sentinel();
      const sentinel_op op{bad.begin()};
      if (form == 0) algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), op);
      if (form == 1) algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), op, sentinel<T>());
      if (form == 2) algo::exclusive_scan(policy, in.begin(), in.end(), out.begin(), sentinel<T>(), op);
      require_device_ok("scan");
      INFO(policy_name<Policy>() << ", " << sizeof(T) << "-byte values, n = " << n << ", form " << form
                                 << " (0 inclusive, 1 inclusive with init, 2 exclusive)");
      CHECK(bad.download()[0] == 0u);
      CHECK(out.download() == want);
    }
  }
}

/// reduce (to the host) and reduce_into of sentinels under `policy`.
template <class T, class Policy>
void check_reduces(const Policy& policy) {
  device_buffer<unsigned> bad(1);
  device_buffer<T> result(1);
  for (std::int64_t n : sizes()) {
    if (small_run() && n > 70000) continue;
    device_buffer<T> in(std::vector<T>(static_cast<std::size_t>(n), sentinel<T>()));
    const sentinel_op op{bad.begin()};
    require_cuda(cudaMemset(bad.begin(), 0, sizeof(unsigned)), "cudaMemset");
    const T got = algo::reduce(policy, in.begin(), in.end(), sentinel<T>(), op);
    algo::reduce_into(policy, in.begin(), in.end(), result.begin(), sentinel<T>(), op);
    require_device_ok("reduce");
    INFO(policy_name<Policy>() << ", " << sizeof(T) << "-byte values, n = " << n);
    CHECK(bad.download()[0] == 0u);
    CHECK(got == sentinel<T>());
    CHECK(result.download()[0] == sentinel<T>());
  }
}

}  // namespace algo_test::opvals
