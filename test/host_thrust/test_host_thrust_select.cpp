// The selection family (<algo/select.hpp>, issue 29) on algo::seq and algo::par against thrust::host,
// bit for bit (Thrust keeps the input order in copy_if, remove_if, stable_partition, unique): sizes
// around algo::par's block, selectivity 0 / 1 / 50 / 99 / 100 %, Thrust's fancy iterators in
// (counting, transform, zip) and out (discard, transform output), and Thrust's names in the same
// argument order.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include "../host/host_checks.hpp"

using namespace host_test;

namespace {

constexpr std::int64_t B = algo::detail::select::par_block;

struct keep_pct {
  std::uint32_t pct;
  bool operator()(std::uint32_t v) const { return v % 100 < pct; }
};
struct twice {
  std::uint32_t operator()(std::uint32_t v) const { return 2 * v + 1; }
};
struct pair_keep {
  template <class T>
  bool operator()(const T& t) const { return (thrust::get<0>(t) + thrust::get<1>(t)) % 3 == 0; }
};

thrust::host_vector<std::uint32_t> random_u32(std::int64_t n, std::uint64_t seed, std::uint32_t range) {
  rng_t g(seed);
  thrust::host_vector<std::uint32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint32_t>(g() % range);
  return v;
}

template <class T>
void require_same(const thrust::host_vector<T>& a, const thrust::host_vector<T>& b, const char* what) {
  INFO(what);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      INFO("first mismatch at " << i);
      REQUIRE(a[i] == b[i]);
    }
  }
}

}  // namespace

TEST_CASE("selection against thrust::host", "[host_thrust][select]") {
  for_seq_par_and_threads({3}, [](const auto& policy) {
    for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(77), B - 1, B + 1, 3 * B + 5}) {
      const auto in = random_u32(n, 5 + static_cast<std::uint64_t>(n), 1u << 30);
      const auto runs = random_u32(n, 9 + static_cast<std::uint64_t>(n), 3);  // many equal neighbours
      for (std::uint32_t pct : {0u, 1u, 50u, 99u, 100u}) {
        INFO("n = " << n << ", " << pct << " %");
        const keep_pct keep{pct};
        thrust::host_vector<std::uint32_t> a(in.size()), b(in.size()), c(in.size()), d(in.size());
        const auto ea = algo::copy_if(policy, in.begin(), in.end(), a.begin(), keep);
        const auto eb = thrust::copy_if(thrust::host, in.begin(), in.end(), b.begin(), keep);
        REQUIRE(ea - a.begin() == eb - b.begin());
        require_same(a, b, "copy_if");
        const auto pa = algo::stable_partition_copy(policy, in.begin(), in.end(), a.begin(), c.begin(), keep);
        const auto pb = thrust::stable_partition_copy(thrust::host, in.begin(), in.end(), b.begin(), d.begin(), keep);
        REQUIRE(pa.first - a.begin() == pb.first - b.begin());
        require_same(a, b, "stable_partition_copy: true part");
        require_same(c, d, "stable_partition_copy: false part");
        auto x = in, y = in;
        const auto ex = algo::remove_if(policy, x.begin(), x.end(), keep);
        const auto ey = thrust::remove_if(thrust::host, y.begin(), y.end(), keep);
        REQUIRE(ex - x.begin() == ey - y.begin());
        x.resize(static_cast<std::size_t>(ex - x.begin()));
        y.resize(static_cast<std::size_t>(ey - y.begin()));
        require_same(x, y, "remove_if");
        auto s = in, t = in;
        algo::stable_partition(policy, s.begin(), s.end(), keep);
        thrust::stable_partition(thrust::host, t.begin(), t.end(), keep);
        require_same(s, t, "stable_partition");
        REQUIRE(algo::count_if(policy, in.begin(), in.end(), keep) == thrust::count_if(thrust::host, in.begin(), in.end(), keep));
      }
      // unique family
      thrust::host_vector<std::uint32_t> ua(runs.size()), ub(runs.size()), va(runs.size()), vb(runs.size());
      const auto e1 = algo::unique_copy(policy, runs.begin(), runs.end(), ua.begin());
      const auto e2 = thrust::unique_copy(thrust::host, runs.begin(), runs.end(), ub.begin());
      REQUIRE(e1 - ua.begin() == e2 - ub.begin());
      require_same(ua, ub, "unique_copy");
      REQUIRE(algo::unique_count(policy, runs.begin(), runs.end()) == thrust::unique_count(thrust::host, runs.begin(), runs.end()));
      const auto k1 = algo::unique_by_key_copy(policy, runs.begin(), runs.end(), in.begin(), ua.begin(), va.begin());
      const auto k2 = thrust::unique_by_key_copy(thrust::host, runs.begin(), runs.end(), in.begin(), ub.begin(), vb.begin());
      REQUIRE(k1.first - ua.begin() == k2.first - ub.begin());
      require_same(ua, ub, "unique_by_key_copy: keys");
      require_same(va, vb, "unique_by_key_copy: values");
      // fancy iterators: counting and transform in, zip in, discard and transform output out
      const auto cnt = thrust::counting_iterator<std::uint32_t>(0);
      const auto tr = thrust::make_transform_iterator(in.begin(), twice{});
      const auto ed = algo::copy_if(policy, cnt, cnt + n, thrust::make_discard_iterator(), keep_pct{50});
      REQUIRE(ed - thrust::make_discard_iterator() == thrust::count_if(thrust::host, cnt, cnt + n, keep_pct{50}));
      thrust::host_vector<std::uint32_t> to(in.size()), tr_ref(in.size());
      algo::copy_if(policy, tr, tr + n, thrust::make_transform_output_iterator(to.begin(), twice{}), keep_pct{50});
      thrust::copy_if(thrust::host, tr, tr + n, thrust::make_transform_output_iterator(tr_ref.begin(), twice{}), keep_pct{50});
      require_same(to, tr_ref, "copy_if: transform in, transform output out");
      const auto z = thrust::make_zip_iterator(thrust::make_tuple(in.begin(), runs.begin()));
      thrust::host_vector<std::uint32_t> z1(in.size()), z2(in.size()), z3(in.size()), z4(in.size());
      const auto zo1 = thrust::make_zip_iterator(thrust::make_tuple(z1.begin(), z2.begin()));
      const auto zo2 = thrust::make_zip_iterator(thrust::make_tuple(z3.begin(), z4.begin()));
      const auto ez1 = algo::copy_if(policy, z, z + n, zo1, pair_keep{});
      const auto ez2 = thrust::copy_if(thrust::host, z, z + n, zo2, pair_keep{});
      REQUIRE(ez1 - zo1 == ez2 - zo2);
      require_same(z1, z3, "copy_if over a zip: first");
      require_same(z2, z4, "copy_if over a zip: second");
      // a permutation input (the input reversed): the library cannot see through it (algo::par then
      // writes on one thread), the result is the same
      thrust::host_vector<std::int64_t> rev(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) rev[i] = n - 1 - i;
      const auto pin = thrust::make_permutation_iterator(in.begin(), rev.begin());
      thrust::host_vector<std::uint32_t> p1(in.size()), p2(in.size());
      const auto ep1 = algo::copy_if(policy, pin, pin + n, p1.begin(), keep_pct{50});
      const auto ep2 = thrust::copy_if(thrust::host, pin, pin + n, p2.begin(), keep_pct{50});
      REQUIRE(ep1 - p1.begin() == ep2 - p2.begin());
      require_same(p1, p2, "copy_if from a permutation iterator");
    }
  });
}
