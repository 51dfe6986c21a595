// `bench --only group_reduce` in its own translation unit (nvcc time: the sections compile side by side).
#include "group_reduce.cuh"
#include "sections.cuh"

namespace bench {
void section_group_reduce(const options& opt, report& rep) { run_group_reduce(opt, rep); }
}  // namespace bench
