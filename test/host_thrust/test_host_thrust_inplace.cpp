// Scans whose input reads their own output through Thrust's fancy iterators (issue 16): Thrust's
// TestTransformScan (inclusive_scan of transform_iterator(v) into v), the other forms, permutation
// and zip iterators over the output, on every host policy, at sizes of several of algo::par's
// tiles, repeated. See ../host/inplace_checks.hpp for what is expected of whom.
//
// Thrust's headers come first, so that algo (detail/alias.hpp) knows Thrust's iterators: the
// transform and zip cases take algo::par's in-place path (threads, with claims), the permutation
// cases and stateful functors its sequential one.
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include "../host/inplace_checks.hpp"

using namespace host_test;

namespace {

std::vector<std::int64_t> int64_start(std::int64_t n, std::uint64_t seed) {
  return random_vector<std::int64_t>(static_cast<std::size_t>(n), seed);
}
std::vector<affine_i> affine_start(std::int64_t n, std::uint64_t seed) {
  return random_vector<affine_i>(static_cast<std::size_t>(n), seed);
}

/// A tuple (int64, int64) folded into one int64, stateless: reads element i of both ranges.
struct weigh_pair {
  template <class Tuple>
  std::int64_t operator()(const Tuple& t) const {
    return 3 * thrust::get<0>(t) - thrust::get<1>(t);
  }
};

/// Componentwise (affine_i composed, int64 added): a non-commutative operator on zipped values.
using pair_t = thrust::tuple<affine_i, std::int64_t>;
struct pair_op {
  template <class A, class B>
  pair_t operator()(const A& a, const B& b) const {
    return pair_t(compose_affine_i{}(thrust::get<0>(a), thrust::get<0>(b)), thrust::get<1>(a) + thrust::get<1>(b));
  }
};

using algo::detail::alias_kind;
using algo::detail::alias_between;

}  // namespace

TEST_CASE("Thrust's iterators as algo::par sees them", "[thrust][scan][alias]") {
  std::vector<std::int64_t> v(100), w(100);
  std::vector<std::int64_t> idx(100, 0);
  const auto n = std::int64_t(100);
  auto t = thrust::make_transform_iterator(v.begin(), thrust::negate<std::int64_t>());
  CHECK(alias_between(t, n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(t, n, w.begin(), n) == alias_kind::none);
  CHECK(alias_between(t + 1, n - 1, v.begin(), n - 1) == alias_kind::other);
  auto stateful = thrust::make_transform_iterator(v.begin(), add_offset{3});
  CHECK(alias_between(stateful, n, w.begin(), n) == alias_kind::other);
  auto count = thrust::counting_iterator<std::int64_t>(0);
  CHECK(alias_between(count, n, v.begin(), n) == alias_kind::none);
  CHECK(alias_between(thrust::make_transform_iterator(count, twice_plus_one{}), n, v.begin(), n) == alias_kind::none);
  CHECK(alias_between(thrust::constant_iterator<std::int64_t>(7), n, v.data(), n) == alias_kind::none);
  auto zip = thrust::make_zip_iterator(v.begin(), w.begin());
  CHECK(alias_between(thrust::make_transform_iterator(zip, weigh_pair{}), n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(zip, n, zip, n) == alias_kind::same_position);
  CHECK(alias_between(thrust::make_zip_iterator(v.begin(), v.begin() + 1), n - 1, v.begin(), n - 1) == alias_kind::other);
  thrust::host_vector<std::int64_t> hv(100);
  CHECK(alias_between(hv.begin(), n, hv.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(thrust::make_transform_iterator(hv.cbegin(), thrust::negate<std::int64_t>()), n, v.begin(), n) ==
        alias_kind::none);
  CHECK(alias_between(v.begin(), n, thrust::make_discard_iterator(), n) == alias_kind::none);
  auto perm = thrust::make_permutation_iterator(v.begin(), idx.begin());
  CHECK(alias_between(perm, n, w.begin(), n) == alias_kind::other);
  CHECK(alias_between(v.begin(), n, perm, n) == alias_kind::other);
  CHECK(alias_between(count, n, perm, n) == alias_kind::none);
}

TEST_CASE("Thrust's TestTransformScan: in place through a transform_iterator, every host policy",
          "[thrust][scan][inplace][transform]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    check_inplace_forms("transform_iterator(v, negate) into v", int64_start(n, 1601), n, int64_spec(),
                        [](std::vector<std::int64_t>& v) {
                          return thrust::make_transform_iterator(v.begin(), thrust::negate<std::int64_t>());
                        });
    check_inplace_forms("transform_iterator(v, shift_affine) into v", affine_start(n, 1602), n, affine_spec(),
                        [](std::vector<affine_i>& v) { return thrust::make_transform_iterator(v.begin(), shift_affine{}); });
    // a stateful functor: algo cannot see through it (par runs algo::seq)
    check_inplace_forms("transform_iterator(v, add_offset) into v", int64_start(n, 1603), n, int64_spec(),
                        [](std::vector<std::int64_t>& v) { return thrust::make_transform_iterator(v.begin(), add_offset{-9}); });
  }
}

TEST_CASE("in place through a permutation_iterator over the output, every host policy",
          "[thrust][scan][inplace][permutation]") {
  const std::int64_t T = algo::detail::host::scan_block_elements;
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    // identity: exactly in place
    std::vector<std::int64_t> identity(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) identity[i] = i;
    // ahead: element i reads position i + T/2 + 3 (the next tile for the second half of a tile)
    std::vector<std::int64_t> ahead(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) ahead[i] = std::min(n - 1, i + T / 2 + 3);
    // mirror: the first half reads the second half backwards (far tiles), the second half itself
    std::vector<std::int64_t> mirror(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) mirror[i] = i < n / 2 ? n - 1 - i : i;
    for (const auto* map : {&identity, &ahead, &mirror}) {
      const char* name = map == &identity ? "identity" : map == &ahead ? "ahead by T/2 + 3" : "mirror";
      INFO("index map: " << name);
      check_inplace_forms(std::string("permutation_iterator(v, ") + name + ") into v", int64_start(n, 1611), n,
                          int64_spec(), [&](std::vector<std::int64_t>& v) {
                            return thrust::make_permutation_iterator(v.begin(), map->begin());
                          });
      check_inplace_forms(std::string("permutation_iterator(v, ") + name + ") into v", affine_start(n, 1612), n,
                          affine_spec(), [&](std::vector<affine_i>& v) {
                            return thrust::make_permutation_iterator(v.begin(), map->begin());
                          });
    }
  }
}

TEST_CASE("in place through zip iterators over the output, every host policy", "[thrust][scan][inplace][zip]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    const auto other = int64_start(n, 1631);
    // transform(zip(v, other)) into v: element i reads v[i] and other[i]
    check_inplace_forms("transform_iterator(zip_iterator(v, other), weigh_pair) into v", int64_start(n, 1632), n,
                        int64_spec(), [&](std::vector<std::int64_t>& v) {
                          return thrust::make_transform_iterator(thrust::make_zip_iterator(v.begin(), other.begin()),
                                                                 weigh_pair{});
                        });
    // transform(zip(v, v + 1)) into v, n - 1 elements: element i reads v[i] and v[i + 1]
    check_inplace_forms("transform_iterator(zip_iterator(v, v + 1), weigh_pair) into v", int64_start(n, 1633), n - 1,
                        int64_spec(), [&](std::vector<std::int64_t>& v) {
                          return thrust::make_transform_iterator(thrust::make_zip_iterator(v.begin(), v.begin() + 1),
                                                                 weigh_pair{});
                        });
  }
}

TEST_CASE("in place with zip iterators on both sides: zip(a, b) scanned into zip(a, b)", "[thrust][scan][inplace][zip]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    const auto a0 = affine_start(n, 1641);
    const auto b0 = int64_start(n, 1642);
    std::vector<pair_t> x;
    for (std::int64_t i = 0; i < n; ++i) x.emplace_back(a0[i], b0[i]);
    const pair_t init(affine_i{5, 1}, std::int64_t(-3));
    const auto incl = seq_inclusive<pair_t>(x, pair_op{});
    const auto incl_init = seq_inclusive<pair_t>(x, pair_op{}, std::optional<pair_t>(init));
    const auto excl = seq_exclusive<pair_t>(x, init, pair_op{});
    for_each_inplace_policy([&](const auto& policy) {
      for (int r = 0; r < inplace_repeats; ++r) {
        INFO("repeat " << r);
        for (int form = 0; form < 3; ++form) {
          std::vector<affine_i> a = a0;
          std::vector<std::int64_t> b = b0;
          auto z = thrust::make_zip_iterator(a.begin(), b.begin());
          const std::vector<pair_t>* want = nullptr;
          if (form == 0) {
            algo::inclusive_scan(policy, z, z + n, z, pair_op{});
            want = &incl;
          } else if (form == 1) {
            algo::inclusive_scan(policy, z, z + n, z, pair_op{}, init);
            want = &incl_init;
          } else {
            algo::exclusive_scan(policy, z, z + n, z, init, pair_op{});
            want = &excl;
          }
          INFO("form " << (form == 0 ? "inclusive_scan(z, z + n, z, op)"
                                     : form == 1 ? "inclusive_scan(z, z + n, z, op, init)"
                                                 : "exclusive_scan(z, z + n, z, init, op)"));
          std::vector<affine_i> wa;
          std::vector<std::int64_t> wb;
          for (const pair_t& p : *want) {
            wa.push_back(thrust::get<0>(p));
            wb.push_back(thrust::get<1>(p));
          }
          require_equal(a, wa, nullptr, "zip in place: first component");
          require_equal(b, wb, nullptr, "zip in place: second component");
        }
      }
    });
  }
}

TEST_CASE("counting and constant iterators into the output (nothing aliased)", "[thrust][scan][fancy]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    const auto start = int64_start(n, 1651);
    auto count = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(-5), twice_plus_one{});
    check_inplace_forms("transform_iterator(counting_iterator) into v", start, n, int64_spec(),
                        [&](std::vector<std::int64_t>&) { return count; });
    check_inplace_forms("constant_iterator into v", start, n, int64_spec(),
                        [&](std::vector<std::int64_t>&) { return thrust::constant_iterator<std::int64_t>(11); });
  }
}
