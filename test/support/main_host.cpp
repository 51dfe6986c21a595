// Catch2 runner for the host tests.
#if !defined(ALGO_CATCH2_V3)
#  define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"
#if defined(ALGO_CATCH2_V3)
#  include <catch2/catch_session.hpp>
#endif

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
