// Included first by the generated translation units of the CUDA snippets of README.md and docs/*.md
// (test/docs/snippets.cmake): what a reader of a snippet takes as given.
#pragma once

#include <algo/algo.hpp>
#include <algo/cooperative.hpp>

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#if defined(ALGO_DOCS_NCCL)
#  include <algo/nccl.hpp>
#  include <unistd.h>  // fork, pipe, read, write, _exit (the launching snippets)
#endif
