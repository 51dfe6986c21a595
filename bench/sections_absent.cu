// The sections a development build of `bench` leaves out: `bench_segmented` (the segmented section
// alone) and `bench_group` (group_reduce alone) compile one section instead of all; the target
// defines ALGO_BENCH_HAS_<SECTION> for the one it keeps. Claims come from the full `bench`.
#include <cstdio>

#include "sections.cuh"

namespace bench {
#ifndef ALGO_BENCH_HAS_SCAN
void section_scan(const options&, report&) { std::printf("(scan: not in this build)\n"); }
#endif
#ifndef ALGO_BENCH_HAS_REDUCE
void section_reduce(const options&, report&) { std::printf("(reduce: not in this build)\n"); }
#endif
#ifndef ALGO_BENCH_HAS_TRANSPOSE
void section_transpose(const options&, report&) { std::printf("(transpose: not in this build)\n"); }
#endif
#ifndef ALGO_BENCH_HAS_SEGMENTED
void section_segmented(const options&, report&) { std::printf("(segmented: not in this build)\n"); }
#endif
#ifndef ALGO_BENCH_HAS_GROUP_REDUCE
void section_group_reduce(const options&, report&) { std::printf("(group_reduce: not in this build)\n"); }
#endif
}  // namespace bench
