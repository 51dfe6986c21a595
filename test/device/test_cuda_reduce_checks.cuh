// Checks for the algo::cuda reduce strategies (included by test_cuda_reduce_*.cu; one executable per
// strategy keeps each nvcc run short). The full overload / iterator / stream battery of
// test/support/device_checks.cuh runs on the default policy (test_cuda_reduce_retirement.cu, with the
// default's strategy); every strategy x warp phase gets check_strategy<T...>() below, at sizes around
// the kernels' own units (block size, warp tile, one block's step) and up to 2^24 + 3:
//
//   reduce(first, last) and reduce(first, last, init)     plus, vs the host fold (and thrust)
//   reduce(first, last, init, op)                          the type's operator (xor / max / matrix product)
//   minimum, maximum                                       arithmetic types
//   take_right (a, b) -> b                                 non-commutative, every type
//   reduce from first + 1 and first + 3                    the unaligned head of the vector path
//   transform_reduce (unary), transform_reduce (binary)    sum of squares, dot product, also with the
//                                                          second range misaligned (no vector loads)
//   reduce_into / transform_reduce_into                    on a non-blocking stream, into a guarded buffer
//
// The atomic strategy runs only the operator/type pairs it supports (hardware atomics).
//
// Value types: with the shuffle warp phase (the default) every one: int32, uint8 -> int64 (mixed
// input and accumulator), float, double, mat2i (16-byte non-commutative struct); with the
// shared-memory warp phase those whose accumulators differ in size (int32, uint8 -> int64, mat2i:
// 4, 8 and 16 bytes, commutative and not): float and double go through it as int32 and the int64
// accumulator do, their own vector loads (and atomics) being checked with shuffles.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "device_checks.cuh"
#include "test_types.hpp"

namespace cuda_reduce_test {

using namespace algo_test;

template <class P>
struct is_atomic_policy : std::false_type {};
template <class... S>
struct is_atomic_policy<algo::cuda_policy<S...>>
    : std::is_same<typename algo::cuda_policy<S...>::reduce_strategy, algo::reduce_strategy::atomic_t> {};

/// Whether `Policy` can run Op on accumulator Acc (the atomic strategy needs a hardware atomic).
template <class Policy, class Op, class Acc>
constexpr bool runs() {
  if constexpr (is_atomic_policy<Policy>::value) return algo::detail::cuda::has_hardware_atomic_v<Op, Acc>;
  else return true;
}

/// Elements per lane chunk the kernels use for raw pointers to T (16-byte vectors where possible).
template <class T>
constexpr std::int64_t chunk_items() {
  using tr = algo::detail::cuda::load_traits<T*>;
  using tuning = algo::detail::cuda::reduce_tuning<T, T>;
  return tr::vectorizable ? tr::vector_items : tuning::scalar_items;
}

/// True when ALGO_TEST_SMALL is set (scripts/gpu_check.sh sets it under compute-sanitizer, which
/// slows kernels 10-100x): the suites then keep to small sizes. (device_checks.cuh's.)
using algo_test::small_run;

/// The issue's sizes for one value type: 0, 1, block size +- 1, warp tile +- 1, one block's step
/// (threads x unroll x chunk) +- 1, 1000, a few random ones, 2^20 + 7, 2^24 + 3 (small run: up to
/// a few steps).
template <class T>
std::vector<std::int64_t> strategy_sizes() {
  using tuning = algo::detail::cuda::reduce_tuning<T, T>;
  const std::int64_t b = tuning::threads, w = 32 * chunk_items<T>(), s = b * tuning::unroll * chunk_items<T>();
  std::vector<std::int64_t> v{0, 1, 2, 31, 33, b - 1, b, b + 1, w - 1, w, w + 1, s - 1, s, s + 1, 1000};
  if (small_run()) {
    v.push_back(3 * s + w + 5);
    return v;
  }
  for (std::int64_t r : random_sizes(3, 2, 3000000, 99)) v.push_back(r);
  v.push_back((std::int64_t(1) << 20) + 7);
  v.push_back((std::int64_t(1) << 24) + 3);
  return v;
}

/// reduce_into(policy.on(stream), ..., out, init, op) into a guarded one-element buffer: the value,
/// and nothing written past it.
template <class Acc, class Policy, class Call>
void check_into(const std::string& what, const Policy& policy, const Acc& want, double scale, std::int64_t n, Call&& call) {
  INFO("variant: " << what << " on a non-blocking stream");
  device_buffer<Acc> out(1);
  test_stream s;
  require_device_ok("before reduce_into");
  call(policy.on(s.get()), out.begin());
  s.sync();
  expect_value("vs host", out.download()[0], want, scale, n);
  CHECK(out.guard_intact());
}

/// One strategy x warp phase on n random values of T.
template <class T, class Policy>
void check_strategy_one(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  const spec_case<T> c(n, seed);
  INFO(case_info<Policy>(c));
  using Acc = acc_t<T>;
  using Op = typename spec_case<T>::Op;
  using Ref = ref_t<Acc>;
  const auto un = static_cast<std::size_t>(n);
  device_buffer<T> in(c.h_in);
  double init_abs = 0.0;
  if constexpr (std::is_arithmetic<Acc>::value) init_abs = std::fabs(static_cast<double>(c.init));
  const double sum_abs = abs_sum(c.h_in);

  if constexpr (spec<T>::arithmetic) {
    // ---- plus, without and with init ----------------------------------------------------------
    if constexpr (runs<Policy, algo::plus<>, T>()) {
      INFO("variant: reduce(policy, first, last)");
      const T got = algo::reduce(policy, in.begin(), in.end());
      expect_value("vs host", got, static_cast<T>(ref_fold(c.h_in, ref_t<T>{}, algo::plus<>{})), sum_abs, n);
    }
    if constexpr (runs<Policy, algo::plus<>, Acc>()) {
      INFO("variant: reduce(policy, first, last, init)");
      const Acc want = static_cast<Acc>(ref_fold(c.h_in, static_cast<Ref>(c.init), algo::plus<>{}));
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init);
      expect_value("vs host", got, want, sum_abs + init_abs, n);
      if (n > 0) expect_value("vs thrust::reduce", got, thrust_ref::reduce(in.begin(), n, c.init),
                              sum_abs + init_abs, n);
      check_into<Acc>("reduce_into(policy, first, last, out, init, plus)", policy, want, sum_abs + init_abs, n,
                      [&](const auto& p, Acc* out) { algo::reduce_into(p, in.begin(), in.end(), out, c.init, algo::plus<>{}); });
      // the unaligned head of the vector path: start 1 and 3 elements past an aligned address
      for (std::int64_t k : {std::int64_t(1), std::int64_t(3)}) {
        if (n <= k) continue;
        INFO("variant: reduce(policy, first + " << k << ", last, init)");
        const std::vector<T> tail(c.h_in.begin() + k, c.h_in.end());
        const Acc got_k = algo::reduce(policy, in.begin() + k, in.end(), c.init);
        expect_value("vs host", got_k, static_cast<Acc>(ref_fold(tail, static_cast<Ref>(c.init), algo::plus<>{})),
                     abs_sum(tail) + init_abs, n - k);
      }
    }
    // ---- the type's operator, minimum, maximum -----------------------------------------------
    if constexpr (runs<Policy, Op, Acc>()) {
      INFO("variant: reduce(policy, first, last, init, op)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init, c.op);
      expect_value("vs host", got, static_cast<Acc>(ref_fold(c.h_in, static_cast<Ref>(c.init), c.op)), 1.0, n);
    }
    if constexpr (runs<Policy, algo::minimum<>, Acc>()) {
      INFO("variant: reduce(policy, first, last, init, minimum)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init, algo::minimum<>{});
      expect_value("vs host", got, ref_fold(c.h_in, c.init, algo::minimum<>{}), 1.0, n);
    }
    if constexpr (runs<Policy, algo::maximum<>, Acc>()) {
      INFO("variant: reduce(policy, first, last, init, maximum)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init, algo::maximum<>{});
      expect_value("vs host", got, ref_fold(c.h_in, c.init, algo::maximum<>{}), 1.0, n);
    }
    // ---- transform_reduce: sum of squares, dot product ------------------------------------------
    using W = wide_t<T>;
    if constexpr (runs<Policy, algo::plus<>, W>()) {
      const W winit = static_cast<W>(c.init);
      {
        INFO("variant: transform_reduce(policy, first, last, init, plus, square)");
        ref_t<W> host = winit;
        double scale = init_abs;
        for (const T& x : c.h_in) {
          host += square_wide{}(static_cast<ref_t<T>>(x));
          scale += static_cast<double>(x) * static_cast<double>(x);
        }
        const W got = algo::transform_reduce(policy, in.begin(), in.end(), winit, algo::plus<>{}, square_wide{});
        expect_value("vs host", got, static_cast<W>(host), scale, n);
        check_into<W>("transform_reduce_into(policy, first, last, out, init, plus, square)", policy,
                      static_cast<W>(host), scale, n, [&](const auto& p, W* out) {
                        algo::transform_reduce_into(p, in.begin(), in.end(), out, winit, algo::plus<>{}, square_wide{});
                      });
      }
      const std::vector<T> h_in2 = random_vector<T>(un + 1, seed + 3);
      device_buffer<T> in2(h_in2);
      for (std::int64_t k : {std::int64_t(0), std::int64_t(1)}) {  // k = 1: the ranges are misaligned to each other
        INFO("variant: transform_reduce(policy, first1, last1, first2 + " << k << ", init) (dot product)");
        ref_t<W> host = winit;
        double scale = init_abs;
        for (std::size_t i = 0; i < un; ++i) {
          host += static_cast<ref_t<W>>(c.h_in[i]) * static_cast<ref_t<W>>(h_in2[i + k]);
          scale += std::fabs(static_cast<double>(c.h_in[i]) * static_cast<double>(h_in2[i + k]));
        }
        const W got = algo::transform_reduce(policy, in.begin(), in.end(), in2.begin() + k, winit);
        expect_value("vs host", got, static_cast<W>(host), scale, n);
        check_into<W>("transform_reduce_into(policy, first1, last1, first2, out, init)", policy, static_cast<W>(host),
                      scale, n, [&](const auto& p, W* out) {
                        algo::transform_reduce_into(p, in.begin(), in.end(), in2.begin() + k, out, winit);
                      });
      }
    }
  } else {
    // ---- user types, non-commutative operators: the host fold is the only reference ------------
    if constexpr (runs<Policy, Op, Acc>()) {
      const Acc want = ref_fold(c.h_in, c.init, c.op);
      {
        INFO("variant: reduce(policy, first, last, init, op) (non-commutative)");
        expect_value("vs host fold", algo::reduce(policy, in.begin(), in.end(), c.init, c.op), want, 1.0, n);
      }
      check_into<Acc>("reduce_into(policy, first, last, out, init, op) (non-commutative)", policy, want, 1.0, n,
                      [&](const auto& p, Acc* out) { algo::reduce_into(p, in.begin(), in.end(), out, c.init, c.op); });
      check_hashed_fold(policy, c, "(fancy input)");
      check_pairwise_fold(policy, c, in);
    }
  }

  // ---- (a, b) -> b: the last element, on every type --------------------------------------------
  if constexpr (runs<Policy, take_right, T>()) check_take_right(policy, in, c.h_in, random_scalar<T>(seed + 4));
  require_device_ok("end of check_strategy_one");
}

/// check_strategy_one for each type in Ts, at its strategy_sizes.
template <class... Ts, class Policy>
void check_strategy(const Policy& policy, std::uint64_t seed = 11) {
  auto one_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t n : strategy_sizes<T>()) check_strategy_one<T>(policy, n, case_seed<T>(seed, n));
  };
  (one_type(type_tag<Ts>{}), ...);
}

/// take_right over 1..n from a counting iterator gives n: the non-commutative path on a fancy input
/// (thrust::reduce returns 768 for n = 1000 on the H100).
template <class Policy>
void check_take_right_counting(const Policy& policy) {
  if (small_run()) algo_test::check_take_right_counting(policy, {1, 2, 255, 256, 257, 1000, 1023, 1024, 1025, 20000});
  else algo_test::check_take_right_counting(policy, {1, 2, 255, 256, 257, 1000, 1023, 1024, 1025, 16777219});
}

}  // namespace cuda_reduce_test
