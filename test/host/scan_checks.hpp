// Scan checks shared by the host scan tests: every inclusive_scan / exclusive_scan overload of one
// policy over one input, against a sequential left-to-right scan computed once per input.
#pragma once

#include "host_checks.hpp"

namespace host_test {

/// The input and the expected result of every scan form over it.
template <class T>
struct scan_case {
  using S = spec<T>;
  using Acc = typename S::acc;
  using Op = typename S::op;

  std::vector<T> in;
  Acc init;
  std::vector<T> incl_plus;       // inclusive_scan(first, last, out): plus, in T
  std::vector<T> incl_op;         // inclusive_scan(first, last, out, op): in T
  std::vector<Acc> incl_op_init;  // inclusive_scan(first, last, out, op, init): in Acc
  std::vector<Acc> excl_plus;     // exclusive_scan(first, last, out, init): plus, in Acc
  std::vector<Acc> excl_op;       // exclusive_scan(first, last, out, init, op): in Acc
  std::vector<double> scale;      // running sum of |x| (float tolerances)
  std::vector<double> scale_init; // the same, plus |init|

  scan_case(std::int64_t n, std::uint64_t seed)
      : in(random_vector<T>(static_cast<std::size_t>(n), seed)), init(random_scalar<Acc>(seed ^ 0x5eed)) {
    using RT = ref_t<T>;
    using RA = ref_t<Acc>;
    const Op op{};
    if constexpr (S::plus) {
      incl_plus = narrow<T>(ref_inclusive_scan<RT>(in, algo::plus<>{}));
      excl_plus = narrow<Acc>(ref_exclusive_scan<RA>(in, static_cast<RA>(init), algo::plus<>{}));
    }
    incl_op = narrow<T>(ref_inclusive_scan<RT>(in, op));
    incl_op_init = narrow<Acc>(ref_inclusive_scan<RA>(in, op, static_cast<RA>(init)));
    excl_op = narrow<Acc>(ref_exclusive_scan<RA>(in, static_cast<RA>(init), op));
    double init_abs = 0;
    if constexpr (std::is_arithmetic<Acc>::value) init_abs = init < 0 ? -double(init) : double(init);
    scale = scan_scale(in, 0.0);
    scale_init = scan_scale(in, init_abs);
  }
};

/// A value outputs are pre-filled with (unwritten outputs show up as mismatches).
template <class T>
T sentinel() {
  return random_scalar<T>(0xdead);
}

/// Every scan overload of `policy` over c.in, through vector iterators and raw pointers, out of
/// place and in place.
template <class T, class Policy>
void check_scans(const Policy& policy, const scan_case<T>& c) {
  using Acc = typename scan_case<T>::Acc;
  using Op = typename scan_case<T>::Op;
  const Op op{};
  const auto n = static_cast<std::int64_t>(c.in.size());
  const std::vector<double>* scale = &c.scale;
  const std::vector<double>* scale_init = &c.scale_init;

  if constexpr (spec<T>::plus) {
    std::vector<T> out(c.in.size(), sentinel<T>());
    auto end = algo::inclusive_scan(policy, c.in.begin(), c.in.end(), out.begin());
    REQUIRE(end - out.begin() == n);
    require_equal(out, c.incl_plus, scale, "inclusive_scan(first, last, out)");

    std::vector<Acc> out_acc(c.in.size(), sentinel<Acc>());
    Acc* pend = algo::exclusive_scan(policy, c.in.data(), c.in.data() + n, out_acc.data(), c.init);
    REQUIRE(pend - out_acc.data() == n);
    require_equal(out_acc, c.excl_plus, scale_init, "exclusive_scan(first, last, out, init) [pointers]");
  }
  {
    std::vector<T> out(c.in.size(), sentinel<T>());
    T* pend = algo::inclusive_scan(policy, c.in.data(), c.in.data() + n, out.data(), op);
    REQUIRE(pend - out.data() == n);
    require_equal(out, c.incl_op, scale, "inclusive_scan(first, last, out, op) [pointers]");
  }
  {
    std::vector<Acc> out(c.in.size(), sentinel<Acc>());
    auto end = algo::inclusive_scan(policy, c.in.begin(), c.in.end(), out.begin(), op, c.init);
    REQUIRE(end - out.begin() == n);
    require_equal(out, c.incl_op_init, scale_init, "inclusive_scan(first, last, out, op, init)");
  }
  {
    std::vector<Acc> out(c.in.size(), sentinel<Acc>());
    auto end = algo::exclusive_scan(policy, c.in.begin(), c.in.end(), out.begin(), c.init, op);
    REQUIRE(end - out.begin() == n);
    require_equal(out, c.excl_op, scale_init, "exclusive_scan(first, last, out, init, op)");
  }
  if constexpr (std::is_same<Acc, T>::value) {  // in place: d_first == first
    std::vector<T> buf = c.in;
    auto end = algo::inclusive_scan(policy, buf.begin(), buf.end(), buf.begin(), op, c.init);
    REQUIRE(end - buf.begin() == n);
    require_equal(buf, c.incl_op_init, scale_init, "inclusive_scan(first, last, first, op, init) [in place]");

    buf = c.in;
    T* pend = algo::exclusive_scan(policy, buf.data(), buf.data() + n, buf.data(), c.init, op);
    REQUIRE(pend - buf.data() == n);
    require_equal(buf, c.excl_op, scale_init, "exclusive_scan(first, last, first, init, op) [in place, pointers]");

    buf = c.in;
    end = algo::inclusive_scan(policy, buf.begin(), buf.end(), buf.begin(), op);
    REQUIRE(end - buf.begin() == n);
    require_equal(buf, c.incl_op, scale, "inclusive_scan(first, last, first, op) [in place]");
  }
}

/// check_scans for T over `sizes` on every policy, then over `large` on a few.
template <class T>
void check_scans_over(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& large,
                      std::uint64_t seed) {
  for (std::int64_t n : sizes) {
    INFO("type " << type_name_v<T> << ", n = " << n);
    const scan_case<T> c(n, seed + static_cast<std::uint64_t>(n));
    for_each_policy([&](const auto& policy) { check_scans<T>(policy, c); });
  }
  for (std::int64_t n : large) {
    INFO("type " << type_name_v<T> << ", n = " << n);
    const scan_case<T> c(n, seed + static_cast<std::uint64_t>(n));
    for_each_policy_few([&](const auto& policy) { check_scans<T>(policy, c); });
  }
}

}  // namespace host_test
