// One include for Catch2 v2 (Debian 12: catch2/catch.hpp) and v3 (Ubuntu 24.04: catch2/catch_all.hpp).
#pragma once

#if defined(ALGO_CATCH2_V3)
#  include <catch2/catch_all.hpp>
#else
#  include <catch2/catch.hpp>
#endif
