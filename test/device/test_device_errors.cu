// Bad input, reachable host memory and empty ranges for the device policies, algo::cub and the
// default algo::cuda (checks in device_errors_checks.cuh; one unit for both policies).
#include "device_errors_checks.cuh"

TEST_CASE("cub: last < first throws and writes nothing", "[cub][errors]") { check_reversed_ranges(algo::cub); }
TEST_CASE("cub: null pointers with n > 0 throw and write nothing", "[cub][errors]") { check_null_pointers(algo::cub); }
TEST_CASE("cub: bad transpose shapes and overlapping output throw", "[cub][errors]") { check_transpose_shapes(algo::cub); }
TEST_CASE("cub: pageable host memory throws", "[cub][errors]") { check_pageable_host_memory(algo::cub); }
TEST_CASE("cub: pinned and managed host memory work", "[cub][errors]") { check_reachable_host_memory(algo::cub); }
TEST_CASE("cub: empty ranges", "[cub][errors]") { check_empty_ranges(algo::cub); }

TEST_CASE("cuda: last < first throws and writes nothing", "[cuda][errors]") { check_reversed_ranges(algo::cuda); }
TEST_CASE("cuda: null pointers with n > 0 throw and write nothing", "[cuda][errors]") { check_null_pointers(algo::cuda); }
TEST_CASE("cuda: bad transpose shapes and overlapping output throw", "[cuda][errors]") { check_transpose_shapes(algo::cuda); }
TEST_CASE("cuda: pageable host memory throws", "[cuda][errors]") { check_pageable_host_memory(algo::cuda); }
TEST_CASE("cuda: pinned and managed host memory work", "[cuda][errors]") { check_reachable_host_memory(algo::cuda); }
TEST_CASE("cuda: empty ranges", "[cuda][errors]") { check_empty_ranges(algo::cuda); }
