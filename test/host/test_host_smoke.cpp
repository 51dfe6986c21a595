#include <algo/algo.hpp>
#include <vector>
#include "catch.hpp"
TEST_CASE("smoke") { std::vector<int> v{1,2,3}; REQUIRE(algo::reduce(algo::par, v.begin(), v.end()) == 6); }
