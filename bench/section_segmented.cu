// `bench --only segmented` in its own translation unit (nvcc time: the sections compile side by side).
#include "segmented.cuh"
#include "sections.cuh"

namespace bench {
void section_segmented(const options& opt, report& rep) { run_segmented(opt, rep); }
}  // namespace bench
