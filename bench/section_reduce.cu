// `bench --only reduce` in its own translation unit (nvcc time: the sections compile side by side).
#include "reduce.cuh"
#include "sections.cuh"

namespace bench {
void section_reduce(const options& opt, report& rep) { run_reduce(opt, rep); }
}  // namespace bench
