// Shared by the tests of scans whose input reads their own output (test/host/test_host_scan_alias.cpp,
// test/host_thrust/test_host_thrust_inplace.cpp): in place through fancy iterators, at sizes of
// several of algo::par's tiles, repeated (a race shows only now and then), on seq, par and par
// with 2, 4 and 8 threads (8 oversubscribes a small machine: a tile's owner loses its core in the
// middle of a tile, which is when a look-back reads a tile that is being overwritten).
//
// The expected result is a sequential scan of the values the input yields before anything is
// written (its snapshot). For an exact in-place scan (the input's element i reads the output's
// element i only) that is what std::inclusive_scan with d_first == first gives; so it is for inputs
// whose element i reads output positions >= i only (a sequential scan has not written them yet
// when it reads them): the tests use only such maps. For maps that read positions before i the
// standard gives no result and nothing here promises one (algo::seq itself reads eight elements
// before writing them, so what it sees there depends on the chunking).
#pragma once

#include "host_checks.hpp"

#include <optional>
#include <string>
#include <vector>

namespace host_test {

/// Sizes past several of par's tiles (T = 32768): 4T + 1, 3T + 5, 2^20 + 3.
inline std::vector<std::int64_t> inplace_sizes() {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  return {4 * T + 1, 3 * T + 5, (std::int64_t(1) << 20) + 3};
}

/// How often each scan is repeated per policy.
inline constexpr int inplace_repeats = 4;

/// Calls f(policy) for seq, par, and par with 2, 4 and 8 threads.
template <class F>
void for_each_inplace_policy(F&& f) {
  for_seq_par_and_threads({2, 4, 8}, f);
}

/// The n values `first` yields, read before anything is written.
template <class It>
std::vector<algo::detail::iter_value_t<It>> snapshot(It first, std::int64_t n) {
  std::vector<algo::detail::iter_value_t<It>> v;
  v.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i, ++first) v.push_back(*first);
  return v;
}

/// Sequential inclusive scan in Acc (from init when there is one), left to right (test_types.hpp's
/// ref_inclusive_scan).
template <class Acc, class V, class Op>
std::vector<Acc> seq_inclusive(const std::vector<V>& x, Op op, std::optional<Acc> init = std::nullopt) {
  return init ? ref_inclusive_scan<Acc>(x, op, *init) : ref_inclusive_scan<Acc>(x, op);
}

/// Sequential exclusive scan in Acc from init (test_types.hpp's ref_exclusive_scan).
template <class Acc, class V, class Op>
std::vector<Acc> seq_exclusive(const std::vector<V>& x, Acc init, Op op) {
  return ref_exclusive_scan<Acc>(x, init, op);
}

/// `start` with its first values replaced by `head`.
template <class T, class U>
std::vector<T> overlay(std::vector<T> start, const std::vector<U>& head) {
  for (std::size_t i = 0; i < head.size(); ++i) start[i] = static_cast<T>(head[i]);
  return start;
}

/// Runs scan(policy, buf) on buf = start, inplace_repeats times per policy, and requires buf to
/// equal want each time.
template <class T, class Scan>
void check_repeated(const std::string& what, const std::vector<T>& start, const std::vector<T>& want,
                    Scan scan) {
  for_each_inplace_policy([&](const auto& policy) {
    for (int r = 0; r < inplace_repeats; ++r) {
      INFO("repeat " << r);
      std::vector<T> buf = start;
      scan(policy, buf);
      require_equal(buf, want, nullptr, what);
    }
  });
}

/// What the scans are run with: the operator and init (the forms without an operator, plus, run
/// too when T is arithmetic).
template <class T, class Op>
struct inplace_spec {
  Op op;
  T init;
};

/// Every scan form, in place: the input is make_in(buf) (an iterator that reads buf, the output)
/// over its first n elements, the output buf.begin(). Checked against sequential scans of the
/// input's snapshot; the elements of buf past n must stay as they were.
template <class T, class Op, class MakeIn>
void check_inplace_forms(const std::string& what, const std::vector<T>& start, std::int64_t n,
                         const inplace_spec<T, Op>& s, MakeIn make_in) {
  std::vector<T> copy = start;
  const auto x = snapshot(make_in(copy), n);
  const Op op = s.op;
  const T init = s.init;
  if constexpr (std::is_arithmetic<T>::value) {
    const auto want = overlay(start, seq_inclusive<T>(x, algo::plus<>{}));
    check_repeated(what + ": inclusive_scan(first, last, out) [in place]", start, want,
                   [&](const auto& policy, std::vector<T>& buf) {
                     auto first = make_in(buf);
                     auto end = algo::inclusive_scan(policy, first, first + n, buf.begin());
                     REQUIRE(end - buf.begin() == n);
                   });
    const auto want_e = overlay(start, seq_exclusive<T>(x, init, algo::plus<>{}));
    check_repeated(what + ": exclusive_scan(first, last, out, init) [in place]", start, want_e,
                   [&](const auto& policy, std::vector<T>& buf) {
                     auto first = make_in(buf);
                     algo::exclusive_scan(policy, first, first + n, buf.begin(), init);
                   });
  }
  const auto want_op = overlay(start, seq_inclusive<T>(x, op));
  check_repeated(what + ": inclusive_scan(first, last, out, op) [in place]", start, want_op,
                 [&](const auto& policy, std::vector<T>& buf) {
                   auto first = make_in(buf);
                   algo::inclusive_scan(policy, first, first + n, buf.begin(), op);
                 });
  const auto want_init = overlay(start, seq_inclusive<T>(x, op, std::optional<T>(init)));
  check_repeated(what + ": inclusive_scan(first, last, out, op, init) [in place]", start, want_init,
                 [&](const auto& policy, std::vector<T>& buf) {
                   auto first = make_in(buf);
                   algo::inclusive_scan(policy, first, first + n, buf.begin(), op, init);
                 });
  const auto want_excl = overlay(start, seq_exclusive<T>(x, init, op));
  check_repeated(what + ": exclusive_scan(first, last, out, init, op) [in place]", start, want_excl,
                 [&](const auto& policy, std::vector<T>& buf) {
                   auto first = make_in(buf);
                   algo::exclusive_scan(policy, first, first + n, buf.begin(), init, op);
                 });
}

// ---- what the tests run with ---------------------------------------------------------------------
/// int64 with plus (the forms without an operator too), and affine_i maps composed (not commutative).
inline inplace_spec<std::int64_t, algo::plus<>> int64_spec() { return {algo::plus<>{}, std::int64_t(-12345)}; }
inline inplace_spec<affine_i, compose_affine_i> affine_spec() { return {compose_affine_i{}, affine_i{3, -7}}; }

/// Stateless transforms (int64 -> int64, affine_i -> affine_i).
struct twice_plus_one {
  std::int64_t operator()(std::int64_t x) const { return 2 * x + 1; }
};
struct shift_affine {
  affine_i operator()(const affine_i& f) const { return affine_i{f.a, wrap_add(f.b, 5)}; }
};
/// A stateful transform: the library cannot tell what it reads.
struct add_offset {
  std::int64_t offset;
  std::int64_t operator()(std::int64_t x) const { return x + offset; }
};

}  // namespace host_test
