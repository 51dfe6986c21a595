// Bad input, reachable host memory and empty ranges for algo::cub (checks in device_errors_checks.cuh).
#include "device_errors_checks.cuh"

TEST_CASE("cub: last < first throws and writes nothing", "[cub][errors]") { check_reversed_ranges(algo::cub); }
TEST_CASE("cub: null pointers with n > 0 throw and write nothing", "[cub][errors]") { check_null_pointers(algo::cub); }
TEST_CASE("cub: bad transpose shapes and overlapping output throw", "[cub][errors]") { check_transpose_shapes(algo::cub); }
TEST_CASE("cub: pageable host memory throws", "[cub][errors]") { check_pageable_host_memory(algo::cub); }
TEST_CASE("cub: pinned and managed host memory work", "[cub][errors]") { check_reachable_host_memory(algo::cub); }
TEST_CASE("cub: empty ranges", "[cub][errors]") { check_empty_ranges(algo::cub); }
