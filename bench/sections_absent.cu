// The sections `bench_segmented` leaves out (a development build of `bench` with the segmented
// section alone: `bench_segmented --only segmented` without compiling the other sections; claims
// come from the full `bench`).
#include <cstdio>

#include "sections.cuh"

namespace bench {
void section_scan(const options&, report&) { std::printf("(scan: not in this build)\n"); }
void section_reduce(const options&, report&) { std::printf("(reduce: not in this build)\n"); }
void section_transpose(const options&, report&) { std::printf("(transpose: not in this build)\n"); }
void section_group_reduce(const options&, report&) { std::printf("(group_reduce: not in this build)\n"); }
}  // namespace bench
