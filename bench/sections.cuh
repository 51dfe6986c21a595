// The bench's sections, each defined in its own translation unit (section_*.cu; cooperative.cu):
// nvcc compiles them side by side instead of one long translation unit.
#pragma once

#include "harness.cuh"

namespace bench {
void section_scan(const options& opt, report& rep);
void section_reduce(const options& opt, report& rep);
void section_transpose(const options& opt, report& rep);
void section_segmented(const options& opt, report& rep);
void section_group_reduce(const options& opt, report& rep);
}  // namespace bench
