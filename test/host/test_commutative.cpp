// algo::is_commutative recognizes the standard function objects (typed and transparent) over
// arithmetic types as it does algo's own, in a plain C++ translation unit (no CCCL needed; where
// the include path has CCCL, libcu++'s too), and the host policies reduce with them as with algo's.
#include "host_checks.hpp"

#include "commutative_checks.hpp"

ALGO_TEST_COMMUTATIVE_STD()
#if ALGO_HAS_CCCL
ALGO_TEST_COMMUTATIVE_CCCL()
#endif

using namespace host_test;

TEST_CASE("host: reductions with std:: function objects match algo's", "[commutative][reduce]") {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), 5 * algo::detail::host::scan_block_elements + 7}) {
    INFO("n = " << n);
    const auto i = random_vector<std::int32_t>(static_cast<std::size_t>(n), 301);
    const auto f = random_vector<double>(static_cast<std::size_t>(n), 302);
    for_each_policy_few([&](const auto& p) {
      CHECK(algo::reduce(p, i.begin(), i.end(), 7, std::plus<int>{}) == algo::reduce(p, i.begin(), i.end(), 7, algo::plus<int>{}));
      CHECK(algo::reduce(p, i.begin(), i.end(), 7, std::bit_xor<>{}) == algo::reduce(p, i.begin(), i.end(), 7, algo::bit_xor<>{}));
      CHECK(algo::reduce(p, f.begin(), f.end(), 0.5, std::plus<>{}) == algo::reduce(p, f.begin(), f.end(), 0.5, algo::plus<>{}));
      CHECK(algo::reduce(p, f.begin(), f.end(), 1.0, std::multiplies<double>{}) ==
            algo::reduce(p, f.begin(), f.end(), 1.0, algo::multiplies<double>{}));
    });
  }
}
