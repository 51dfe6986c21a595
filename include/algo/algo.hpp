// The umbrella header. In a plain C++ translation unit it offers the host policies (algo::seq,
// algo::par); compiled by nvcc it adds the device policies (algo::cuda, algo::cub).
#pragma once

#include "error.hpp"
#include "functional.hpp"
#include "group_reduce.hpp"
#include "policy.hpp"
#include "memory_resource.hpp"
#include "numeric.hpp"
#include "segmented.hpp"
#include "select.hpp"
#include "transform_scan.hpp"
#include "transpose.hpp"
