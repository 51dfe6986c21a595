#!/usr/bin/env python3
"""Writes translation units with N reduce calls of the kinds Thrust's tests make, for three
libraries, so nvcc's compile time and object size can be compared call count by call count:

  algo      algo::reduce / algo::reduce_into under algo::cuda (the default strategy)
  algo_mix  the same calls spread over algo::cuda, two of its other strategies and algo::cub
  thrust thrust::reduce(thrust::device, ...)
  cub    cub::DeviceReduce::Reduce (size query + call)

Each call differs in element type, operator or iterator (a dozen element types, a non-commutative
operator on a 16-byte struct, a 64-byte struct, counting iterators), so no two calls share a kernel.
usage: gen.py OUTDIR [N ...]
"""
import os, sys

TYPES = ["signed char", "unsigned char", "short", "unsigned short", "int", "unsigned", "long long",
         "unsigned long long", "float", "double"]
# (element type, init expression, operator expression, input expression template)
def calls():
    out = []
    for t in TYPES:
        out.append((t, f"({t})1", "plus", "ptr"))
    for t in TYPES:
        out.append((t, f"({t})0", "maximum", "ptr"))
    out.append(("aff", "aff{1.0, 0.0}", "compose", "ptr"))
    out.append(("big64", "big64{}", "big64_add", "ptr"))
    out.append(("long long", "0LL", "plus", "counting"))
    out.append(("int", "0", "plus", "counting"))
    for t in TYPES:
        out.append((t, f"({t})0", "minimum", "ptr"))
    return out

PRELUDE = r'''#include <cstdint>
struct aff { double a, b; };
struct compose { __host__ __device__ aff operator()(const aff& f, const aff& g) const { return {g.a * f.a, g.a * f.b + g.b}; } };
struct big64 { long long v[8]; };
struct big64_add { __host__ __device__ big64 operator()(const big64& x, const big64& y) const { big64 r; for (int i = 0; i < 8; ++i) r.v[i] = x.v[i] + y.v[i]; return r; } };
'''

def op_expr(lib, op, t):
    if op in ("compose", "big64_add"):
        return op + "{}"
    if lib in ("algo", "algo_mix"):
        return f"algo::{op}<>{{}}"
    if lib == "thrust":
        return f"thrust::{op}<{t}>{{}}"
    return f"::cuda::{op}<{t}>{{}}" if op in ("maximum", "minimum") else f"::cuda::std::plus<{t}>{{}}"

def unit(lib, n):
    cs = calls()
    body = []
    for i in range(n):
        t, init, op, it = cs[i % len(cs)]
        variant = i // len(cs)  # repeats use another policy / form, so they are new instantiations
        src = f"reinterpret_cast<const {t}*>(in)" if it == "ptr" else f"thrust::counting_iterator<{t}>(0)"
        res = f"reinterpret_cast<{t}*>(out)"
        o = op_expr(lib, op, t)
        if lib in ("algo", "algo_mix"):
            pol = "algo::cuda" if lib == "algo" else ["algo::cuda", "algo::cuda.with(algo::reduce_strategy::two_pass)", "algo::cub",
                   "algo::cuda.with(algo::warp_phase::smem)"][(i + variant) % 4]
            if i % 2 == 0:
                expr = f"algo::reduce({pol}, {src}, {src} + n, {init}, {o})"
                if t == "aff": expr += ".a"
                elif t == "big64": expr += ".v[0]"
                body.append(f"  sink = sink + (double){expr};")
            else:
                body.append(f"  algo::reduce_into({pol}, {src}, {src} + n, {res}, {init}, {o});")
        elif lib == "thrust":
            pol = "thrust::device" if variant % 2 == 0 else "thrust::cuda::par"
            expr = f"thrust::reduce({pol}, {src}, {src} + n, {init}, {o})"
            if t == "aff": expr += ".a"
            elif t == "big64": expr += ".v[0]"
            body.append(f"  sink = sink + (double){expr};")
        else:
            body.append(f"  {{ std::size_t b = 0; cub::DeviceReduce::Reduce(nullptr, b, {src}, {res}, n, {o}, {init}); "
                        f"void* tmp = nullptr; cudaMalloc(&tmp, b); cub::DeviceReduce::Reduce(tmp, b, {src}, {res}, n, {o}, {init}); cudaFree(tmp); }}")
    inc = {"algo": "#include <algo/algo.hpp>\n#include <thrust/iterator/counting_iterator.h>\n",
           "algo_mix": "#include <algo/algo.hpp>\n#include <thrust/iterator/counting_iterator.h>\n",
           "thrust": "#include <thrust/reduce.h>\n#include <thrust/functional.h>\n#include <thrust/execution_policy.h>\n#include <thrust/iterator/counting_iterator.h>\n",
           "cub": "#include <cub/device/device_reduce.cuh>\n#include <cuda/functional>\n#include <cuda/std/functional>\n#include <thrust/iterator/counting_iterator.h>\n"}[lib]
    return (inc + PRELUDE + "double run(const void* in, void* out, int n) {\n  double sink = 0;\n" + "\n".join(body) +
            "\n  return sink;\n}\n")

if __name__ == "__main__":
    outdir = sys.argv[1]
    counts = [int(x) for x in sys.argv[2:]] or [1, 8, 32, 70]
    os.makedirs(outdir, exist_ok=True)
    for lib in ("algo", "algo_mix", "thrust", "cub"):
        for n in counts:
            with open(os.path.join(outdir, f"{lib}_{n}.cu"), "w") as f:
                f.write(unit(lib, n))
