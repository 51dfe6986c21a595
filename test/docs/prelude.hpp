// Included first by the generated translation unit of the host snippets of README.md and docs/*.md
// (test/docs/snippets.cmake): what a reader of a snippet takes as given.
#pragma once

#include <algo/algo.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>
