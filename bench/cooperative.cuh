// `bench --only cooperative` (cooperative.cu, its own translation unit: nvcc time): row scans and
// row sums inside a kernel, algo's group policies and collectives beside CUB's collectives.
#pragma once

#include "harness.cuh"

namespace bench {
void run_cooperative(const options& opt, report& rep);
}  // namespace bench
