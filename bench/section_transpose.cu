// `bench --only transpose` in its own translation unit (nvcc time: the sections compile side by side).
#include "transpose.cuh"
#include "sections.cuh"

namespace bench {
void section_transpose(const options& opt, report& rep) { run_transpose(opt, rep); }
}  // namespace bench
