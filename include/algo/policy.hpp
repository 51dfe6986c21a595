// Execution policies: small values whose *type* selects the backend (as thrust::host / thrust::device).
//
//   algo::seq   sequential host loops
//   algo::par   OpenMP threads on the host
//   algo::cuda  in-house CUDA kernels        (nvcc translation units only)
//   algo::cub   CUB / cuBLAS baseline        (nvcc translation units only)
//   algo::acc   OpenACC directives            (translation units compiled with -fopenacc)
//
// Device policies carry a stream and a memory resource: `algo::cuda.on(stream)`,
// `algo::cuda.with(resource)`. `algo::cuda` also carries its strategy choices as types:
// `algo::cuda.with(algo::scan_strategy::reduce_then_scan)` returns a policy of another type, so the
// backend picks the strategy by overload, never by a run-time switch.
#pragma once

#include <type_traits>

#include "detail/config.hpp"

#if ALGO_HAS_CUDA
#  include <cuda_runtime_api.h>
#endif
#if ALGO_HAS_OPENACC
#  include <openacc.h>
#endif

namespace algo {

/// The type of algo::seq: sequential loops on the calling host thread.
struct seq_policy {};
/// The type of algo::par: OpenMP threads on the host.
struct par_policy {
  /// Number of OpenMP threads; 0 means OpenMP's default.
  int threads = 0;
  /// The same policy on `n` OpenMP threads (0: OpenMP's default).
  constexpr par_policy with_threads(int n) const { return par_policy{n}; }
};

/// Sequential host loops.
/// Also in device code (one thread, as thrust::seq), with <algo/cooperative.hpp>.
ALGO_GLOBAL_CONSTANT seq_policy seq{};
/// OpenMP threads on the host; `algo::par.with_threads(n)` sets their number.
inline constexpr par_policy par{};

// ---- strategy tags (types, grouped by the algorithm they configure) -------------------------
namespace detail {
struct scan_strategy_tag {};
struct warp_phase_tag {};
struct block_scan_tag {};
struct reduce_strategy_tag {};
struct transpose_strategy_tag {};
struct group_strategy_tag {};
template <class Category, int Id>
struct strategy {
  using category = Category;
  static constexpr int id = Id;
};
}  // namespace detail

/// How algo::cuda runs a device-wide scan (`algo::cuda.with(algo::scan_strategy::reduce_then_scan)`).
/// Each tag type has a constant of the same name without `_t`.
namespace scan_strategy {
/// Scan-then-fan, recursive (CUDA Handbook 13.4.1): each block scans its tile and writes its
/// total, the totals are scanned by the same strategy, then each block adds its base to its
/// results. 4 passes over memory.
struct scan_then_fan_t : detail::strategy<detail::scan_strategy_tag, 0> {};
/// Reduce-then-scan, recursive (CUDA Handbook 13.4.2): each block reduces its tile, the partials
/// are scanned by the same strategy, then each block rescans its tile after its base. 3 passes.
struct reduce_then_scan_t : detail::strategy<detail::scan_strategy_tag, 1> {};
/// Merrill's two-level reduce-then-scan (CUDA Handbook 13.4.3): one partition per resident block,
/// one block scans the partials. 3 launches, 2 passes over memory, no recursion.
struct two_level_t : detail::strategy<detail::scan_strategy_tag, 2> {};
/// Single-pass scan with decoupled look-back (Merrill & Garland 2016): one launch, 2 passes over
/// memory. How a prefix is grouped depends on timing: floating-point results may differ in the
/// last bits from run to run.
struct decoupled_lookback_t : detail::strategy<detail::scan_strategy_tag, 3> {};
/// Single pass like decoupled_lookback, with a look-back whose grouping does not depend on timing:
/// results are bitwise identical from run to run (detail/cuda/scan/deterministic_lookback.cuh).
struct deterministic_lookback_t : detail::strategy<detail::scan_strategy_tag, 4> {};
/// Single pass like decoupled_lookback, whose folds across tiles are strict left folds in tile
/// order: every prefix is the same left fold of the tiles' aggregates whichever published prefix a
/// tile starts from, so results are bitwise identical from run to run with the classic look-back's
/// waiting (detail/cuda/scan/ordered_lookback.cuh).
struct ordered_lookback_t : detail::strategy<detail::scan_strategy_tag, 6> {};
/// The default: decoupled_lookback, except for floating-point accumulators of at most 4 bytes
/// (float), which take deterministic_lookback: bitwise reproducible there at 1-2 % of the time
/// at 2^26-2^28 (double would pay 5-6 %, over the 3 % allowed for a default; docs/determinism.md).
struct automatic_t : detail::strategy<detail::scan_strategy_tag, 5> {};
/// The default scan strategy (automatic_t).
inline constexpr automatic_t automatic{};
/// The scan-then-fan strategy (scan_then_fan_t).
inline constexpr scan_then_fan_t scan_then_fan{};
/// The reduce-then-scan strategy (reduce_then_scan_t).
inline constexpr reduce_then_scan_t reduce_then_scan{};
/// The two-level reduce-then-scan strategy (two_level_t).
inline constexpr two_level_t two_level{};
/// The decoupled look-back strategy (decoupled_lookback_t).
inline constexpr decoupled_lookback_t decoupled_lookback{};
/// The reproducible look-back strategy (deterministic_lookback_t).
inline constexpr deterministic_lookback_t deterministic_lookback{};
/// The ordered (left-fold) look-back strategy (ordered_lookback_t).
inline constexpr ordered_lookback_t ordered_lookback{};
}  // namespace scan_strategy

/// How the in-house scans of algo::cuda scan within a warp (`algo::cuda.with(algo::warp_phase::smem)`).
namespace warp_phase {
/// Kogge-Stone over volatile shared memory with __syncwarp() between steps (the classic code).
struct smem_t : detail::strategy<detail::warp_phase_tag, 0> {};
/// Register shuffles (__shfl_up_sync / __shfl_down_sync), any trivially copyable type.
struct shfl_t : detail::strategy<detail::warp_phase_tag, 1> {};
/// The shared-memory warp phase (smem_t).
inline constexpr smem_t smem{};
/// The shuffle warp phase (shfl_t), the default.
inline constexpr shfl_t shfl{};
}  // namespace warp_phase

/// The block layer of the in-house scans: how a block scans its threads' values (each thread has
/// first folded its own items in order). Every scan strategy runs with any of them.
namespace block_scan {
/// Warp scans (the policy's warp phase), then one warp scans the warp totals (the spine): two
/// barriers per tile. The default.
struct warp_scans_t : detail::strategy<detail::block_scan_tag, 0> {};
/// Kogge-Stone over the whole block in shared memory: log2(threads) steps, each thread combining
/// the value `stride` below it (work-inefficient: n log n operations; a barrier per step).
struct kogge_stone_t : detail::strategy<detail::block_scan_tag, 1> {};
/// Brent-Kung: an up-sweep (reduction tree) and a down-sweep in shared memory (work-efficient:
/// under 2 n operations; about 2 log2(threads) barriers).
struct brent_kung_t : detail::strategy<detail::block_scan_tag, 2> {};
/// Warp scans and a spine (warp_scans_t), the default.
inline constexpr warp_scans_t warp_scans{};
/// Kogge-Stone over the block (kogge_stone_t).
inline constexpr kogge_stone_t kogge_stone{};
/// Brent-Kung over the block (brent_kung_t).
inline constexpr brent_kung_t brent_kung{};
}  // namespace block_scan

/// How algo::cuda combines the blocks' partials of a reduction
/// (`algo::cuda.with(algo::reduce_strategy::two_pass)`). Every block first folds its contiguous
/// range of the input.
namespace reduce_strategy {
/// Two launches: every block writes its partial, then one block folds the partials in block order.
/// Deterministic.
struct two_pass_t : detail::strategy<detail::reduce_strategy_tag, 0> {};
/// One launch: each block combines its partial into the result with one hardware atomic. Only for
/// operator / type pairs with a hardware atomic (a compile-time error otherwise); float and double
/// sums are not reproducible from run to run (the blocks finish in any order).
struct atomic_t : detail::strategy<detail::reduce_strategy_tag, 1> {};
/// The default: one launch; every block writes its partial and takes a ticket, and the block that
/// draws the last ticket folds the partials in block order. Deterministic.
struct retirement_count_t : detail::strategy<detail::reduce_strategy_tag, 2> {};
/// One launch: the partials are merged under one global mutex (CUDA by Example's lock), in order,
/// for any type and associative operator. The slow reference point.
struct locked_t : detail::strategy<detail::reduce_strategy_tag, 3> {};
/// The two-pass reduction (two_pass_t).
inline constexpr two_pass_t two_pass{};
/// The atomic reduction (atomic_t).
inline constexpr atomic_t atomic{};
/// The retirement-count reduction (retirement_count_t), the default.
inline constexpr retirement_count_t retirement_count{};
/// The locked reduction (locked_t).
inline constexpr locked_t locked{};
}  // namespace reduce_strategy

/// Which kernel algo::cuda transposes with (`algo::cuda.with(algo::transpose_strategy::tiled)`).
namespace transpose_strategy {
/// No shared memory; threads walk the input: coalesced reads, writes strided by a column.
struct naive_row_t : detail::strategy<detail::transpose_strategy_tag, 0> {};
/// No shared memory; threads walk the output: coalesced writes, reads strided by a row.
struct naive_col_t : detail::strategy<detail::transpose_strategy_tag, 1> {};
/// naive_col with several elements per thread, all loads issued before the first store.
struct unrolled_t : detail::strategy<detail::transpose_strategy_tag, 2> {};
/// naive_col with the blocks taken in diagonal order (spreads concurrent blocks over DRAM partitions).
struct diagonal_t : detail::strategy<detail::transpose_strategy_tag, 3> {};
/// A 32 x 32 tile in shared memory, read and written coalesced (32-way bank conflicts on 4-byte
/// elements when a column of the tile is read).
struct tiled_t : detail::strategy<detail::transpose_strategy_tag, 4> {};
/// tiled with one element of padding per tile row (tile[32][33]): no bank conflicts.
struct tiled_padded_t : detail::strategy<detail::transpose_strategy_tag, 5> {};
/// The default: the fastest kernel we have for Hopper.
struct fast_t : detail::strategy<detail::transpose_strategy_tag, 6> {};
/// The naive_row transpose (naive_row_t).
inline constexpr naive_row_t naive_row{};
/// The naive_col transpose (naive_col_t).
inline constexpr naive_col_t naive_col{};
/// The unrolled transpose (unrolled_t).
inline constexpr unrolled_t unrolled{};
/// The diagonal-order transpose (diagonal_t).
inline constexpr diagonal_t diagonal{};
/// The shared-memory tile transpose (tiled_t).
inline constexpr tiled_t tiled{};
/// The padded shared-memory tile transpose (tiled_padded_t).
inline constexpr tiled_padded_t tiled_padded{};
/// The default transpose (fast_t).
inline constexpr fast_t fast{};
}  // namespace transpose_strategy

/// group_reduce / group_count on algo::cuda (<algo/group_reduce.hpp>): how the hash table is built.
namespace group_strategy {
/// The default: open addressing, a lock-free insert (atomicCAS on the slot's key word), aggregates
/// by atomics (native ones for plus / min / max / bit operators on integers and floating point, a
/// compare-and-swap loop for other operators on 4- and 8-byte accumulators, a per-slot lock for
/// the rest), and a per-block shared-memory table in front of the global one for hot keys. Float
/// sums depend on the order the atomics land in: not reproducible bit for bit.
struct open_addressing_t : detail::strategy<detail::group_strategy_tag, 0> {};
/// CUDA by Example's table: chained buckets, entries from a pool (one per record), one lock per
/// bucket (atomicCAS / atomicExch), the lanes of a warp taking their locks one at a time. The
/// classic reference; any operator, every update under a lock.
struct locked_chaining_t : detail::strategy<detail::group_strategy_tag, 1> {};
/// open_addressing with bit-identical results from run to run: floating-point sums are
/// accumulated exactly (fixed-point limbs wide enough for the whole exponent range, integer
/// atomics) and rounded once at the end (the correctly rounded sum of each group); integers,
/// minimum and maximum are exact anyway. Other operators on floating-point accumulators are
/// refused at compile time.
struct deterministic_t : detail::strategy<detail::group_strategy_tag, 2> {};
/// The open-addressing table (open_addressing_t), the default.
inline constexpr open_addressing_t open_addressing{};
/// The chained table with a lock per bucket (locked_chaining_t).
inline constexpr locked_chaining_t locked_chaining{};
/// The bit-reproducible open-addressing table (deterministic_t).
inline constexpr deterministic_t deterministic{};
}  // namespace group_strategy

#if ALGO_HAS_CUDA
class device_memory_resource;  // memory_resource.hpp

namespace detail {
/// What every device policy carries at run time: the stream and where temporaries come from
/// (nullptr: the library's caching resource of the current device).
struct device_policy_base {
  cudaStream_t stream = nullptr;
  device_memory_resource* resource = nullptr;
};
}  // namespace detail

/// The CUB/cuBLAS baseline.
struct cub_policy : detail::device_policy_base {
  /// The same policy on stream `s` (default: the null stream).
  cub_policy on(cudaStream_t s) const { cub_policy p = *this; p.stream = s; return p; }
  /// The same policy taking its temporaries from `r` (default: the library's caching resource).
  cub_policy with(device_memory_resource& r) const { cub_policy p = *this; p.resource = &r; return p; }
};

/// The in-house kernels; the template arguments are the strategy choices.
template <class Scan = scan_strategy::automatic_t, class Warp = warp_phase::shfl_t,
          class Reduce = reduce_strategy::retirement_count_t,
          class Transpose = transpose_strategy::fast_t, class Block = block_scan::warp_scans_t,
          class Group = group_strategy::open_addressing_t>
struct cuda_policy : detail::device_policy_base {
  /// The scan strategy (a scan_strategy tag type).
  using scan_strategy = Scan;
  /// The warp phase of the in-house scans (a warp_phase tag type).
  using warp_phase = Warp;
  /// The reduce strategy (a reduce_strategy tag type).
  using reduce_strategy = Reduce;
  /// The transpose strategy (a transpose_strategy tag type).
  using transpose_strategy = Transpose;
  /// The block layer of the in-house scans (a block_scan tag type).
  using block_scan = Block;
  /// The group-by hash table (a group_strategy tag type).
  using group_strategy = Group;

  /// The same policy on stream `s` (default: the null stream).
  cuda_policy on(cudaStream_t s) const { cuda_policy p = *this; p.stream = s; return p; }
  /// The same policy taking its temporaries from `r` (default: the library's caching resource).
  cuda_policy with(device_memory_resource& r) const { cuda_policy p = *this; p.resource = &r; return p; }

  /// Replace one strategy choice, e.g. `algo::cuda.with(algo::reduce_strategy::two_pass)`,
  /// `algo::cuda.with(algo::block_scan::brent_kung)`, `algo::cuda.with(algo::group_strategy::deterministic)`.
  template <class S, class Cat = typename S::category>
  auto with(S) const {
    using namespace detail;
    using P = cuda_policy<std::conditional_t<std::is_same<Cat, scan_strategy_tag>::value, S, Scan>,
                          std::conditional_t<std::is_same<Cat, warp_phase_tag>::value, S, Warp>,
                          std::conditional_t<std::is_same<Cat, reduce_strategy_tag>::value, S, Reduce>,
                          std::conditional_t<std::is_same<Cat, transpose_strategy_tag>::value, S, Transpose>,
                          std::conditional_t<std::is_same<Cat, block_scan_tag>::value, S, Block>,
                          std::conditional_t<std::is_same<Cat, group_strategy_tag>::value, S, Group>>;
    P p;
    p.stream = stream;
    p.resource = resource;
    return p;
  }
};

/// The CUB / cuBLAS baseline on the GPU (nvcc translation units only).
inline constexpr cub_policy cub{};
/// The in-house CUDA kernels with the default strategies (nvcc translation units only).
inline constexpr cuda_policy<> cuda{};
#endif

#if ALGO_HAS_OPENACC
/// Where algo::acc finds the data it is given (docs/openacc.md).
namespace acc_data {
/// Host addresses. Data a data construct (or enter data) has made present is used where it is on
/// the device, with no transfer; anything else is copied in for the call (inputs) and out at its
/// end (outputs): OpenACC's present-or-copy rule, the default.
struct map_t {};
/// Host addresses of data that must already be present: algo::error when it is not (no transfer
/// ever happens, so a missing data clause cannot go unnoticed as slow copies).
struct present_t {};
/// Device addresses (`host_data use_device`, acc_malloc, cudaMalloc): used as they are.
struct deviceptr_t {};
}  // namespace acc_data

/// How algo::acc reduces.
namespace acc_reduce {
/// The `reduction` clause (at vector level, inside each gang) for the built-in operators on
/// arithmetic types (+ * min max & | ^ && || as algo::, std:: function objects); a tree over the
/// vector lanes that keeps their order for every other operator. Gang partials are combined in
/// order either way.
struct automatic_t {};
/// Always gang partials combined in order (what non-commutative operators get).
struct gang_partials_t {};
/// The default reduction strategy of algo::acc (automatic_t).
inline constexpr automatic_t automatic{};
/// Gang partials for every operator (gang_partials_t).
inline constexpr gang_partials_t gang_partials{};
}  // namespace acc_reduce

/// The OpenACC policy: algorithms written in directives (`parallel`, `loop gang/vector`,
/// `reduction`, `tile`), compiled by the OpenACC compiler for its device, or run on the host
/// through OpenACC's host fallback when there is none. `queue` is the async queue its compute
/// constructs and transfers go to: acc_async_sync (the default) waits for each; `.async(q)` queues
/// them on q, and scans and transpose return without waiting (reduce waits for its value).
template <class Data = acc_data::map_t, class Reduce = acc_reduce::automatic_t>
struct acc_policy {
  /// Where the data is (an acc_data tag type).
  using data = Data;
  /// How it reduces (an acc_reduce tag type).
  using reduce_strategy = Reduce;
  /// The OpenACC async queue (acc_async_sync: every call waits).
  int queue = acc_async_sync;

  /// Queue everything on async queue q (default: acc_async_noval, OpenACC's default queue).
  constexpr acc_policy async(int q = acc_async_noval) const { acc_policy p = *this; p.queue = q; return p; }
  /// The data must already be present (host addresses): algo::error otherwise.
  constexpr acc_policy<acc_data::present_t, Reduce> present() const { return {queue}; }
  /// The addresses are device addresses (host_data use_device, acc_malloc, cudaMalloc).
  constexpr acc_policy<acc_data::deviceptr_t, Reduce> deviceptr() const { return {queue}; }
  /// Host addresses, present-or-copy (the default).
  constexpr acc_policy<acc_data::map_t, Reduce> map() const { return {queue}; }
  /// The reduction strategy: acc_reduce::automatic or acc_reduce::gang_partials.
  template <class R, class = std::enable_if_t<std::is_same<R, acc_reduce::automatic_t>::value ||
                                              std::is_same<R, acc_reduce::gang_partials_t>::value>>
  constexpr acc_policy<Data, R> with(R) const { return {queue}; }
};

/// The OpenACC policy: host addresses, present-or-copy, synchronous (translation units compiled
/// with -fopenacc).
inline constexpr acc_policy<> acc{};
#endif

// ---- traits ---------------------------------------------------------------------------------
/// P is a policy the host-side entry points accept (seq, par, cub, cuda, acc and the policies
/// their members return); the group policies of <algo/cooperative.hpp> are not.
template <class P>
struct is_execution_policy : std::false_type {};
/// algo::seq is an execution policy.
template <>
struct is_execution_policy<seq_policy> : std::true_type {};
/// algo::par is an execution policy.
template <>
struct is_execution_policy<par_policy> : std::true_type {};
/// P is a host policy (seq_policy or par_policy).
template <class P>
struct is_host_policy : std::bool_constant<std::is_same<P, seq_policy>::value || std::is_same<P, par_policy>::value> {};
/// P is a device policy (cub_policy or a cuda_policy).
template <class P>
struct is_device_policy : std::false_type {};
#if ALGO_HAS_CUDA
/// algo::cub is an execution policy.
template <>
struct is_execution_policy<cub_policy> : std::true_type {};
/// Every cuda_policy is an execution policy.
template <class... S>
struct is_execution_policy<cuda_policy<S...>> : std::true_type {};
/// algo::cub is a device policy.
template <>
struct is_device_policy<cub_policy> : std::true_type {};
/// Every cuda_policy is a device policy.
template <class... S>
struct is_device_policy<cuda_policy<S...>> : std::true_type {};
#endif
#if ALGO_HAS_OPENACC
/// Every acc_policy is an execution policy.
template <class D, class R>
struct is_execution_policy<acc_policy<D, R>> : std::true_type {};
/// The OpenACC policies (algo::acc and the policies its members return).
template <class P>
struct is_acc_policy : std::false_type {};
/// Every acc_policy is an OpenACC policy.
template <class D, class R>
struct is_acc_policy<acc_policy<D, R>> : std::true_type {};
#endif

/// is_execution_policy of P with references and cv-qualifiers removed.
template <class P>
inline constexpr bool is_execution_policy_v = is_execution_policy<std::decay_t<P>>::value;

}  // namespace algo
