// The nvcc translation unit an OpenACC program adds to use algo::cuda / algo::cub through
// <algo/openacc/interop.hpp>: the definitions and the standard instantiations. Shared here by
// examples/openacc_compaction.cpp, test/openacc/test_acc_interop.cpp and bench/bench_acc.cpp.
#include <algo/openacc/interop.cuh>
