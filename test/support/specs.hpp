// What each value type is tested with: the parts of the spec<T> tables that the host tests
// (host_test::spec, test/host/host_checks.hpp) and the device tests (algo_test::spec,
// test/support/device_checks.cuh) share. Each table is its own template (the two pick different
// operators for the arithmetic types); both are built from the rows below:
//
//   template <class T> struct spec : user_spec<T> {};                       // the user types
//   template <> struct spec<float> : spec_row<float, algo::plus<>, true> {}; // one row per other type
//
// Plain C++ (usable from test/host/*.cpp without CUDA, and under nvcc).
#pragma once

#include "test_types.hpp"

namespace algo_test {

/// One row of a spec table. acc: the accumulator (the forms with init, reductions); op: the custom
/// operator; plus (also spelled arithmetic): whether the forms without an operator (plus) apply.
template <class Acc, class Op, bool Plus>
struct spec_row {
  using acc = Acc;
  using op = Op;
  static constexpr bool plus = Plus;
  static constexpr bool arithmetic = Plus;
};

/// The non-commutative user types, alike in every table: each is its own accumulator, with its own
/// product (test_types.hpp) as the operator; plus does not apply.
template <class T>
struct user_spec;
template <> struct user_spec<affine> : spec_row<affine, compose_affine, false> {};
template <> struct user_spec<affine_i> : spec_row<affine_i, compose_affine_i, false> {};
template <> struct user_spec<mat2i> : spec_row<mat2i, mat2_mul, false> {};
template <> struct user_spec<big32> : spec_row<big32, big32_mul, false> {};

}  // namespace algo_test
