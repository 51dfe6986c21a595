#!/usr/bin/env python3
"""Writes translation units with N reduce calls of the kinds Thrust's tests make, for four
variants, so nvcc's compile time and object size can be compared call count by call count:

  algo      algo::reduce / reduce_into / transform_reduce under algo::cuda (the default strategy)
  algo_mix  the same calls spread over algo::cuda's reduce strategies (retirement_count, two_pass,
            locked, atomic where the operator has a hardware atomic), its smem warp phase, and
            algo::cub
  thrust    thrust::reduce / thrust::transform_reduce (thrust::device)
  cub       cub::DeviceReduce::Reduce / TransformReduce (size query + call)

Up to 70 DISTINCT calls (no call repeats: every call has its own element type, operator or
iterator, so no two share a kernel in any variant), drawn round-robin from these kinds, so that
every prefix (1, 8, 32, 70 calls) mixes them:
  plus / maximum / minimum over a dozen arithmetic types (36)
  64-byte non-commutative structs (two 2x2 matrix products, double or long long; a distinct
    operator type per call), spread over every algo::cuda strategy in algo_mix (10)
  16-byte non-commutative affine maps (2)
  tuples: thrust::make_zip_iterator over 2 or 3 device vectors, a non-commutative operator on
    thrust::tuple (8)
  counting iterators (6)
  transform_reduce: unary transforms over pointers, counting and zip iterators (8)
A fifth variant, algo_all (LIBS="algo_all"), makes each call under every algo::cuda strategy its
operator allows (retirement_count, two_pass, locked, atomic, the smem warp phase) and algo::cub: about
six instantiations per call, a stress test of growth with the number of instantiations.
usage: [LIBS="algo algo_mix thrust cub"] gen.py OUTDIR [N ...]      (default 1 8 32 70)
"""
import os, sys

TYPES = ["int", "signed char", "unsigned char", "short", "unsigned short", "unsigned", "long", "unsigned long",
         "long long", "unsigned long long", "float", "double"]
ATOMIC_INT = {"int", "unsigned", "long", "unsigned long", "long long", "unsigned long long"}

# Policies of algo_mix.
P_DEF = "algo::cuda"
P_TWO = "algo::cuda.with(algo::reduce_strategy::two_pass)"
P_LOCK = "algo::cuda.with(algo::reduce_strategy::locked)"
P_ATOM = "algo::cuda.with(algo::reduce_strategy::atomic)"
P_SMEM = "algo::cuda.with(algo::warp_phase::smem)"
P_SMEM_TWO = "algo::cuda.with(algo::warp_phase::smem).with(algo::reduce_strategy::two_pass)"
P_SMEM_LOCK = "algo::cuda.with(algo::warp_phase::smem).with(algo::reduce_strategy::locked)"
P_CUB = "algo::cub"


class Call:
    """One call. kind: reduce | transform_reduce. t: the result / init type. it: ptr, counting,
    zip2 / zip3 (with vectors), or dvec. get: how to turn a result into a double."""

    def __init__(self, kind, t, init, op, it, val=None, tf=None, vecs=None, get="(double)({})", mix=P_DEF):
        self.kind, self.t, self.init, self.op, self.it = kind, t, init, op, it
        self.val = val or t  # element type of the input
        self.tf, self.vecs, self.get, self.mix = tf, vecs, get, mix


def atomic_ok(c):
    """reduce_strategy::atomic compiles only for operator / type pairs with a hardware atomic."""
    return c.t in ATOMIC_INT and c.op in ("plus", "maximum", "minimum") or (c.op == "plus" and c.t in ("float", "double"))


def arith():
    out = []
    cyc = [P_DEF, P_TWO, P_CUB, P_SMEM, P_ATOM, P_LOCK]
    i = 0
    for op in ("plus", "maximum", "minimum"):
        for t in TYPES:
            p = cyc[i % len(cyc)]
            c = Call("reduce", t, f"({t})0" if op != "minimum" else f"({t})100", op, "ptr", mix=p)
            if p == P_ATOM and not atomic_ok(c):
                c.mix = P_LOCK
            out.append(c)
            i += 1
    return out


def big64():
    pols = [P_DEF, P_TWO, P_LOCK, P_SMEM, P_CUB, P_SMEM_TWO, P_SMEM_LOCK, P_DEF, P_TWO, P_LOCK]
    out = []
    for k in range(10):
        e = "double" if k % 2 == 0 else "long long"
        t = f"m64<{e}>"
        out.append(Call("reduce", t, f"m64<{e}>::identity()", f"mat_op<{e}, {k}>", "ptr", get="(double)({}).a[0]",
                        mix=pols[k]))
    return out


def affine():
    return [Call("reduce", "aff", "aff{1.0, 0.0}", "compose<0>", "ptr", get="({}).a", mix=P_SMEM),
            Call("reduce", "aff", "aff{1.0, 0.0}", "compose<1>", "ptr", get="({}).a", mix=P_CUB)]


def tuples():
    g = "(double)thrust::get<0>({})"
    spec = [  # (tuple type, init, op, vectors)
        ("T_dd", "T_dd(1.0, 0.0)", "tup_affine", ("vd", "vd2"), P_DEF),
        ("T_if", "T_if(0, 0.0f)", "tup_keep_left", ("vi", "vf"), P_CUB),
        ("T_fdl", "T_fdl(0.0f, 0.0, 0LL)", "tup_keep_left3", ("vf", "vd", "vl"), P_TWO),
        ("T_iii", "T_iii(1, 0, 0)", "tup_affine_count", ("vi", "vi2", "vi3"), P_LOCK),
        ("T_ld", "T_ld(0LL, 0.0)", "tup_keep_right", ("vl", "vd"), P_SMEM),
        ("T_ddd", "T_ddd(1.0, 0.0, 0.0)", "tup_affine_sum", ("vd", "vd2", "vd3"), P_CUB),
        ("T_ff", "T_ff(1.0f, 0.0f)", "tup_affine", ("vf", "vf2"), P_SMEM_TWO),
        ("T_il", "T_il(0, 0LL)", "tup_keep_left", ("vi", "vl"), P_DEF),
    ]
    return [Call("reduce", t, init, f"{op}<{t}>{{}}", "zip", vecs=v, get=g, mix=p) for t, init, op, v, p in spec]


def counting():
    spec = [("long long", "plus", P_DEF), ("unsigned", "plus", P_TWO), ("unsigned long long", "plus", P_ATOM),
            ("int", "maximum", P_CUB), ("long", "minimum", P_SMEM), ("short", "plus", P_LOCK)]
    # counting<int> plus is a transform_reduce below; these are distinct (type, operator) pairs
    return [Call("reduce", t, f"({t})0" if op != "minimum" else f"({t})100", op, "counting", mix=p)
            for t, op, p in spec]


def transforms():
    g = "(double)({})"
    return [
        Call("transform_reduce", "float", "0.0f", "plus", "ptr", val="float", tf="square{}", mix=P_DEF),
        Call("transform_reduce", "double", "0.0", "plus", "ptr", val="double", tf="square{}", mix=P_TWO),
        Call("transform_reduce", "int", "0", "maximum", "ptr", val="int", tf="absolute{}", mix=P_CUB),
        Call("transform_reduce", "long long", "0LL", "minimum", "ptr", val="long long", tf="negate_it{}", mix=P_SMEM),
        Call("transform_reduce", "int", "0", "plus", "counting", val="int", tf="square{}", mix=P_ATOM),
        Call("transform_reduce", "float", "0.0f", "plus", "zip", val="T_ff", tf="dot2{}", vecs=("vf", "vf2"), mix=P_LOCK),
        Call("transform_reduce", "aff", "aff{1.0, 0.0}", "compose<2>", "ptr", val="int", tf="to_aff{}",
             get="({}).a", mix=P_DEF),
        Call("transform_reduce", "double", "0.0", "plus", "ptr", val="float", tf="widen{}", mix=P_SMEM_LOCK),
    ]


def calls():
    # spread every kind evenly over the list: call j of a kind of k calls sits at (j + 0.5) / k, so
    # each prefix holds its share of every kind
    groups = [arith(), big64(), tuples(), counting(), transforms(), affine()]
    keyed = [((j + 0.5) / len(g), gi, c) for gi, g in enumerate(groups) for j, c in enumerate(g)]
    return [c for _, _, c in sorted(keyed, key=lambda x: (x[0], x[1]))]


PRELUDE = r'''#include <cstdint>
#include <cstddef>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
struct aff { double a, b; };
template <int K> struct compose { __host__ __device__ aff operator()(const aff& f, const aff& g) const { return {g.a * f.a, g.a * f.b + g.b}; } };
// 64 bytes: two 2x2 matrices; the operator multiplies each pair (associative, not commutative)
template <class E> struct m64 { E a[4], b[4]; static m64 identity() { return m64{{1, 0, 0, 1}, {1, 0, 0, 1}}; } };
template <class E, int K> struct mat_op {
  __host__ __device__ static void mul(const E* x, const E* y, E* r) {
    r[0] = x[0] * y[0] + x[1] * y[2]; r[1] = x[0] * y[1] + x[1] * y[3];
    r[2] = x[2] * y[0] + x[3] * y[2]; r[3] = x[2] * y[1] + x[3] * y[3];
  }
  __host__ __device__ m64<E> operator()(const m64<E>& x, const m64<E>& y) const { m64<E> r; mul(x.a, y.a, r.a); mul(x.b, y.b, r.b); return r; }
};
using T_dd = thrust::tuple<double, double>;
using T_ff = thrust::tuple<float, float>;
using T_if = thrust::tuple<int, float>;
using T_il = thrust::tuple<int, long long>;
using T_ld = thrust::tuple<long long, double>;
using T_fdl = thrust::tuple<float, double, long long>;
using T_iii = thrust::tuple<int, int, int>;
using T_ddd = thrust::tuple<double, double, double>;
// non-commutative tuple operators (all associative)
template <class T> struct tup_affine { __host__ __device__ T operator()(const T& f, const T& g) const {
  return T(thrust::get<0>(g) * thrust::get<0>(f), thrust::get<0>(g) * thrust::get<1>(f) + thrust::get<1>(g)); } };
template <class T> struct tup_keep_left { __host__ __device__ T operator()(const T& x, const T& y) const {
  return T(thrust::get<0>(x), thrust::get<1>(x) + thrust::get<1>(y)); } };
template <class T> struct tup_keep_right { __host__ __device__ T operator()(const T& x, const T& y) const {
  return T(thrust::get<0>(y), thrust::get<1>(x) + thrust::get<1>(y)); } };
template <class T> struct tup_keep_left3 { __host__ __device__ T operator()(const T& x, const T& y) const {
  return T(thrust::get<0>(x), thrust::get<1>(x) + thrust::get<1>(y), thrust::get<2>(x) + thrust::get<2>(y)); } };
template <class T> struct tup_affine_count { __host__ __device__ T operator()(const T& f, const T& g) const {
  return T(thrust::get<0>(g) * thrust::get<0>(f), thrust::get<0>(g) * thrust::get<1>(f) + thrust::get<1>(g), thrust::get<2>(f) + thrust::get<2>(g)); } };
template <class T> struct tup_affine_sum { __host__ __device__ T operator()(const T& f, const T& g) const {
  return T(thrust::get<0>(g) * thrust::get<0>(f), thrust::get<0>(g) * thrust::get<1>(f) + thrust::get<1>(g), thrust::get<2>(f) + thrust::get<2>(g)); } };
// unary transforms
struct square { template <class T> __host__ __device__ T operator()(T x) const { return x * x; } };
struct absolute { __host__ __device__ int operator()(int x) const { return x < 0 ? -x : x; } };
struct negate_it { __host__ __device__ long long operator()(long long x) const { return -x; } };
struct dot2 { __host__ __device__ float operator()(const T_ff& t) const { return thrust::get<0>(t) * thrust::get<1>(t); } };
struct to_aff { __host__ __device__ aff operator()(int x) const { return aff{1.0 + x * 1e-9, (double)x}; } };
struct widen { __host__ __device__ double operator()(float x) const { return (double)x; } };
using dvf = thrust::device_vector<float>;
using dvd = thrust::device_vector<double>;
using dvi = thrust::device_vector<int>;
using dvl = thrust::device_vector<long long>;
'''

SIGNATURE = ("double run(const void* in, void* out, int n, const dvf& vf, const dvf& vf2, const dvd& vd, const dvd& vd2, "
             "const dvd& vd3, const dvi& vi, const dvi& vi2, const dvi& vi3, const dvl& vl) {\n")

INCLUDES = {
    "algo": "#include <algo/algo.hpp>\n",
    "algo_mix": "#include <algo/algo.hpp>\n",
    "algo_all": "#include <algo/algo.hpp>\n",
    "thrust": "#include <thrust/reduce.h>\n#include <thrust/transform_reduce.h>\n#include <thrust/functional.h>\n"
              "#include <thrust/execution_policy.h>\n",
    "cub": "#include <cub/device/device_reduce.cuh>\n#include <cuda/functional>\n#include <cuda/std/functional>\n",
}


def op_expr(lib, op, t):
    if op not in ("plus", "maximum", "minimum"):
        return op if op.endswith("{}") else op + "{}"
    if lib.startswith("algo"):
        return f"algo::{op}<>{{}}"
    if lib == "thrust":
        return f"thrust::{op}<{t}>{{}}"
    return f"::cuda::{op}<{t}>{{}}" if op in ("maximum", "minimum") else f"::cuda::std::plus<{t}>{{}}"


def input_expr(c):
    if c.it == "ptr":
        return f"reinterpret_cast<const {c.val}*>(in)"
    if c.it == "counting":
        return f"thrust::counting_iterator<{c.val}>(0)"
    return "thrust::make_zip_iterator(thrust::make_tuple(" + ", ".join(f"{v}.begin()" for v in c.vecs) + "))"


def unit(lib, n):
    cs = calls()
    assert n <= len(cs), f"only {len(cs)} distinct calls"
    body = []
    for i, c in enumerate(cs[:n]):
        src = input_expr(c)
        o = op_expr(lib, c.op, c.t)
        res = f"reinterpret_cast<{c.t}*>(out)"
        body.append(f"  {{  // {i}: {c.kind} {c.t} {c.op} over {c.it}")
        body.append(f"    auto first = {src};")
        if lib.startswith("algo"):
            if lib == "algo":
                pols = ["algo::cuda"]
            elif lib == "algo_mix":
                pols = [c.mix]
            else:  # algo_all: every strategy the call's operator allows, and algo::cub
                pols = [p for p in (P_DEF, P_TWO, P_LOCK, P_ATOM, P_SMEM, P_CUB) if p != P_ATOM or atomic_ok(c)]
            for pol in pols:
                if c.kind == "transform_reduce":
                    expr = f"algo::transform_reduce({pol}, first, first + n, {c.init}, {o}, {c.tf})"
                    body.append(f"    sink = sink + {c.get.format(expr)};")
                elif i % 2 == 0:
                    expr = f"algo::reduce({pol}, first, first + n, {c.init}, {o})"
                    body.append(f"    sink = sink + {c.get.format(expr)};")
                else:
                    body.append(f"    algo::reduce_into({pol}, first, first + n, {res}, {c.init}, {o});")
        elif lib == "thrust":
            if c.kind == "transform_reduce":
                expr = f"thrust::transform_reduce(thrust::device, first, first + n, {c.tf}, {c.init}, {o})"
            else:
                expr = f"thrust::reduce(thrust::device, first, first + n, {c.init}, {o})"
            body.append(f"    sink = sink + {c.get.format(expr)};")
        else:
            if c.kind == "transform_reduce":
                call = f"cub::DeviceReduce::TransformReduce(tmp, b, first, {res}, n, {o}, {c.tf}, {c.init})"
            else:
                call = f"cub::DeviceReduce::Reduce(tmp, b, first, {res}, n, {o}, {c.init})"
            body.append(f"    std::size_t b = 0; void* tmp = nullptr; {call}; cudaMalloc(&tmp, b); {call}; cudaFree(tmp);")
        body.append("  }")
    return (INCLUDES[lib] + PRELUDE + SIGNATURE + "  double sink = 0;\n" + "\n".join(body) + "\n  return sink;\n}\n")


if __name__ == "__main__":
    outdir = sys.argv[1]
    counts = [int(x) for x in sys.argv[2:]] or [1, 8, 32, 70]
    os.makedirs(outdir, exist_ok=True)
    libs = os.environ.get("LIBS", "algo algo_mix thrust cub").split()
    for lib in libs:
        for n in counts:
            with open(os.path.join(outdir, f"{lib}_{n}.cu"), "w") as f:
                f.write(unit(lib, n))
