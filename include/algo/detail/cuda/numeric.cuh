// algo::cuda scans and reductions (one file per family).
#pragma once

#include "reduce.cuh"
#include "scan.cuh"
