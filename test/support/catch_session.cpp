// Catch2's runner, compiled once for every test program (host, device and OpenACC): the session
// behind algo_test_run(), which main_host.cpp and main_device.cpp call. (Catch2 v2's implementation
// is a single header that takes 12 s of g++ a translation unit; each main compiled it before.)
#if !defined(ALGO_CATCH2_V3)
#  define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"
#if defined(ALGO_CATCH2_V3)
#  include <catch2/catch_session.hpp>
#endif

int algo_test_run(int argc, char** argv) { return Catch::Session().run(argc, argv); }
