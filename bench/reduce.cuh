// Bench section: reduce (filled in by its owner).
#pragma once
#include "harness.cuh"
namespace bench {
inline void run_reduce(const options&, report&) {}
}  // namespace bench
