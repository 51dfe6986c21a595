// algo::is_commutative recognizes Thrust's and libcu++'s function objects (typed and transparent)
// over arithmetic types, as it does algo's own; the host policies reduce with them as
// thrust::reduce(thrust::host) does. <algo/algo.hpp> comes first (host_checks.hpp), Thrust after:
// recognition must not depend on the order.
#include "../host/host_checks.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cuda/std/functional>

#include "commutative_checks.hpp"

ALGO_TEST_COMMUTATIVE_STD()
ALGO_TEST_COMMUTATIVE_CCCL()
ALGO_TEST_COMMUTATIVE_THRUST()
static_assert(ALGO_HAS_CCCL, "the CCCL include path is seen");

using namespace host_test;

TEST_CASE("host: reductions with thrust:: and cuda::std:: function objects match thrust::host", "[thrust][commutative][reduce]") {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), 5 * algo::detail::host::scan_block_elements + 7}) {
    INFO("n = " << n);
    const auto i = random_vector<std::int32_t>(static_cast<std::size_t>(n), 311);
    const auto f = random_vector<float>(static_cast<std::size_t>(n), 312);
    for_each_policy_few([&](const auto& p) {
      CHECK(algo::reduce(p, i.begin(), i.end(), 7, thrust::plus<int>{}) ==
            thrust::reduce(thrust::host, i.begin(), i.end(), 7, thrust::plus<int>{}));
      CHECK(algo::reduce(p, i.begin(), i.end(), 7, ::cuda::std::bit_or<>{}) ==
            thrust::reduce(thrust::host, i.begin(), i.end(), 7, ::cuda::std::bit_or<>{}));
      CHECK(algo::reduce(p, f.begin(), f.end(), -2.0f, thrust::maximum<float>{}) ==
            thrust::reduce(thrust::host, f.begin(), f.end(), -2.0f, thrust::maximum<float>{}));
      CHECK(algo::reduce(p, f.begin(), f.end(), 2.0f, thrust::minimum<>{}) ==
            thrust::reduce(thrust::host, f.begin(), f.end(), 2.0f, thrust::minimum<>{}));
    });
  }
}
