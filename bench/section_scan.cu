// `bench --only scan` in its own translation unit (nvcc time: the sections compile side by side).
#include "scan.cuh"
#include "sections.cuh"

namespace bench {
void section_scan(const options& opt, report& rep) { run_scan(opt, rep); }
}  // namespace bench
