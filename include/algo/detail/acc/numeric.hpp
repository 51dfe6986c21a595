// algo::acc: scans and reductions in OpenACC directives (kernels.hpp), behind the same entry points
// as every policy (numeric.hpp: validation and accumulator types first).
//
//   reduce    gang partials, copied to the host and combined there in order with init: for the
//             built-in operators on arithmetic accumulators (acc_reduce::automatic) each gang's
//             through the reduction clause at vector level (reduce_clause), otherwise gang_fold.
//   scans     pass 1 gang_fold (one partial per gang), pass 2 an exclusive gang_scan of the partials
//             in one gang (the seeds), pass 3 gang_scan of the input from the seeds: three compute
//             constructs on the policy's queue, nothing waits for them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../../error.hpp"
#include "../../functional.hpp"
#include "../../policy.hpp"
#include "../alias.hpp"
#include "../iterator.hpp"
#include "../scan_kind.hpp"
#include "kernels.hpp"
#include "runtime.hpp"

namespace algo::detail {

template <class D, class R, class It>
void check_iterator(const char* algorithm, const char* what, const acc_policy<D, R>&, It it, std::int64_t n) {
  acc::check_iterator<D>(algorithm, what, it, n);
}

namespace acc {

template <class T>
constexpr void require_device_value() {
  static_assert(std::is_trivially_copyable<T>::value && std::is_default_constructible<T>::value,
                "algo::acc: accumulator values go through device memory: they must be trivially copyable and "
                "default constructible");
}

/// Host ranges that a mapped call would map partially over each other (OpenACC cannot map a range
/// that overlaps a mapped one without containing it; inside data that is present already they
/// are fine): algo::error before anything is mapped.
template <class D, class... Its>
void check_ranges(const char* algorithm, std::int64_t n, const Its&... its) {
  if constexpr (!std::is_same<D, acc_data::map_t>::value) {
    (void)algorithm, (void)n, ((void)its, ...);
  } else {
    struct range {
      const char *b, *e;
    };
    std::vector<range> rs;
    auto add = [&](const auto& it) {
      for_each_range(it, n, [&](auto* p, std::int64_t count) {
        const char* b = reinterpret_cast<const char*>(p);
        rs.push_back({b, b + count * static_cast<std::int64_t>(sizeof(*p))});
      });
    };
    (add(its), ...);
    for (std::size_t i = 0; i < rs.size(); ++i)
      for (std::size_t j = i + 1; j < rs.size(); ++j) {
        const bool same = rs[i].b == rs[j].b && rs[i].e == rs[j].e;
        const bool disjoint = rs[i].e <= rs[j].b || rs[j].e <= rs[i].b;
        auto present = [](const range& r) { return acc_is_present(const_cast<char*>(r.b), std::size_t(r.e - r.b)) != 0; };
        if (!same && !disjoint && !(present(rs[i]) && present(rs[j])))
          fail(algorithm, "ranges overlap partially (algo::acc maps each range to the device; ranges must be "
                          "the same or disjoint)");
      }
  }
}

}  // namespace acc

// ---- reduce -------------------------------------------------------------------------------------
template <class D, class R, class It, class T, class Op>
T reduce(const acc_policy<D, R>& policy, It first, std::int64_t n, T init, Op op) {
  acc::require_device_value<T>();
  acc::check_ranges<D>("reduce", n, first);
  acc::mapping<D> map(policy.queue);
  auto in = map.in(first, n);
  constexpr bool clause =
      std::is_same<R, acc_reduce::automatic_t>::value && acc::clause_of<Op, T>::value != acc::clause_op::none;
  const auto s = clause ? acc::gang_split::make(n, acc::tuning::vector, acc::tuning::clause_gangs)
                        : acc::gang_split::make(n, acc::tuning::vector * acc::tuning::items<T>, acc::tuning::max_gangs);
  T* partials = static_cast<T*>(acc::scratch(sizeof(T) * s.gangs, policy.queue));
  if constexpr (clause) acc::reduce_clause(in, n, op, s, partials, policy.queue);
  else acc::gang_fold(in, n, op, s, partials, policy.queue);
  std::vector<T> host(s.gangs);
  acc_memcpy_from_device_async(host.data(), partials, sizeof(T) * s.gangs, policy.queue);
  acc_wait(policy.queue);
  T acc = init;
  for (const T& p : host) acc = static_cast<T>(op(acc, p));
  return acc;
}

/// reduce_into is not offered by algo::acc (reduce returns the value; scans stay on the queue).
template <class D, class R, class It, class OutIt, class T, class Op>
void reduce_into(const acc_policy<D, R>&, It, std::int64_t, OutIt, T, Op) {
  static_assert(sizeof(It) == 0, "algo::acc has no reduce_into / transform_reduce_into: use algo::reduce");
}

// ---- scans ----------------------------------------------------------------------------------------
template <class D, class R, bool Inclusive, class InIt, class OutIt, class Op, class Init>
OutIt scan(const acc_policy<D, R>& policy, scan_kind<Inclusive>, InIt first, std::int64_t n, OutIt d_first, Op op,
           Init init) {
  constexpr bool has_init = !std::is_same<Init, no_init_t>::value;
  using Acc = scan_accumulator_t<InIt, Init>;
  acc::require_device_value<Acc>();
  const char* name = Inclusive ? "inclusive_scan" : "exclusive_scan";
  if (alias_between(first, n, d_first, n) == alias_kind::other)
    fail(name, "output overlaps input other than in place (d_first == first)");
  acc::check_ranges<D>(name, n, first, d_first);
  const int q = policy.queue;
  acc::mapping<D> map(q);
  auto in = map.in(first, n);
  auto out = map.out(d_first, n);
  Acc init_acc{};
  if constexpr (has_init) init_acc = init;

  const auto s = acc::gang_split::make(n, acc::tuning::vector * acc::tuning::items<Acc>, acc::tuning::max_gangs);
  if (s.gangs == 1) {
    acc::gang_scan<!Inclusive>(in, n, out, op, s, static_cast<const Acc*>(nullptr), has_init, init_acc, q);
    return d_first + n;
  }
  Acc* partials = static_cast<Acc*>(acc::scratch(sizeof(Acc) * s.gangs, q));
  acc::gang_fold(in, n, op, s, partials, q);  // pass 1: partials[g] = gang g's fold
  // pass 2: partials[g] = init op partials[0] op ... op partials[g-1] (the seeds), in one gang
  const auto s2 = acc::gang_split::make(s.gangs, acc::tuning::vector * acc::tuning::items<Acc>, 1);
  acc::gang_scan<true>(static_cast<const Acc*>(partials), s.gangs, partials, op, s2, static_cast<const Acc*>(nullptr),
                       has_init, init_acc, q);
  acc::gang_scan<!Inclusive>(in, n, out, op, s, static_cast<const Acc*>(partials), has_init, init_acc, q);  // pass 3
  return d_first + n;
}

}  // namespace algo::detail
