#include <algo/algo.hpp>
#include <thrust/device_vector.h>
#include "catch.hpp"
TEST_CASE("smoke") { thrust::device_vector<int> v(3, 2); REQUIRE(algo::reduce(algo::cub, v.begin(), v.end()) == 6); }
