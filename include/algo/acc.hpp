// algo::acc, the OpenACC policy: reduce / transform_reduce / inner_product, inclusive / exclusive /
// transform scans and transpose written in OpenACC directives (detail/acc/), for translation units
// compiled with -fopenacc. <algo/algo.hpp> offers it by itself in such a translation unit; this
// header says so explicitly, and refuses to compile without OpenACC.
//
//   algo::acc                 host addresses, present-or-copy (data a data construct made present
//                             is used in place; anything else is copied for the call)
//   algo::acc.present()       host addresses that must be present (algo::error otherwise)
//   algo::acc.deviceptr()     device addresses (host_data use_device, acc_malloc, cudaMalloc)
//   .async(q)                 on async queue q: scans and transpose return without waiting
//   .with(algo::acc_reduce::gang_partials)   no reduction clause, gang partials for every operator
//
// docs/openacc.md says what it is for and what it costs next to algo::cuda.
#pragma once

#if !defined(_OPENACC)
#  error "<algo/acc.hpp>: algo::acc needs an OpenACC compiler (g++ -fopenacc; docs/openacc.md)"
#endif

#include "algo.hpp"
