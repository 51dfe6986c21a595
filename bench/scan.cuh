// Bench section: scan (filled in by its owner).
#pragma once
#include "harness.cuh"
namespace bench {
inline void run_scan(const options&, report&) {}
}  // namespace bench
