// group_reduce on algo::cuda: a hash table (detail/cuda/hash/) keyed by the input keys, then the
// groups written in the order of their keys' first appearance.
//
//   build    open_addressing / deterministic: persistent blocks take tiles of 256 x 16 records
//            from a counter; each record goes to the block's shared-memory table (hot keys: shared
//            atomics) or, when that is full or not worth it, straight to the global table. A block
//            flushes its shared table (one global insert per key) when it is half full and at
//            the end. The global table is sized from the input: 64 MB of slots (2^22 slots of 16
//            bytes), or what n records need if less, first (or, n >= 2^18, less where the sample
//            below estimates fewer keys: ~1 M uniform keys take 32 MB, which the L2 holds, and
//            a few keys the smallest table; never over 1/4 key a 128-byte line, whose atomics
//            would queue in the L2; the size chosen on the device, build_status::cap); when the
//            keys claimed pass 70 % of it (or a key finds no slot within 256 probes), the blocks
//            stop, the host estimates
//            the number of distinct keys from how many the processed prefix had, and builds
//            again in a larger table (a few % of the input was wasted). The largest size holds
//            every record distinct at 70 %.
//            locked_chaining: one record per thread, CUDA by Example's table (hash/chained.cuh).
//   switch   open_addressing, n >= 2^18: the first build starts with a sample of the first 4096
//            records (partitioned.cuh); when most of them have keys seen once and either at most 4
//            are on repeated keys (near-uniform keys over ~2^22: the table would outgrow the L2; the
//            partitioned build lost to one table at uniform 2^20, H100) or the repeats are skewed
//            (Zipf-like keys: their hot keys are aggregated by the partitioned build's histogram and
//            skip its scatter passes), that build does nothing and, after the call's
//            synchronization, the partitioned build runs instead: radix-style scatter passes by
//            the hash's top bits into partitions of ~2048 records, each aggregated in one block's
//            shared memory (groups to a list; partitions of several chunks, e.g. a hot key's, to
//            an overflow table, appended to the list after; each group in the list's region for
//            the 2048 input positions its first index lies in), then a block a region writes its
//            groups at their ranks (a bit map of the region's first appearances in shared memory).
//            If its overflow table fills up, one table is built as before. oa_tuning::
//            table_choice forces either build (tests, bench rows), or the partitioned build's
//            one-pass form (256 partitions, a block each however many records: off by default,
//            no faster than one table where its tables hold the keys; group_by.md, 2026-12-02).
//   rank     every group's first index sets a bit in an n-bit map; the bits are counted by a
//            three-kernel reduce-then-scan over the words (partials, spine, per word), so the
//            rank of a group = the number of first appearances before its own = its output position
//   emit     open addressing: the first appearances walked in input order (a thread a word of
//            the bit map), each one's key found again in the table and written with its aggregate
//            at the next rank (the outputs written in order); locked_chaining: every group
//            writes its key and aggregate at its rank
// The number of groups comes back to the host with the build's status (one synchronization per
// build: one for few distinct keys, two when the sample picks the partitioned build), so calls
// are refused under graph capture, as reduce_by_key's are.
//
// One file a pass: build.cuh (with partition.cuh, the open-addressing build's optional pre-pass),
// partitioned.cuh (the sample and the partitioned build), rank.cuh, emit.cuh; common.cuh holds what they share. This file is the driver: the table sizes
// and rebuilds, the passes in order, and the policy's group_strategy.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../cuda/hash/chained.cuh"
#include "../cuda/hash/combine.cuh"
#include "../cuda/hash/open_addressing.cuh"
#include "../cuda/hash/probe.cuh"
#include "../cuda/pointer.cuh"
#include "../cuda/runtime.cuh"
#include "../iterator.hpp"
#include "build.cuh"
#include "common.cuh"
#include "emit.cuh"
#include "ops.hpp"
#include "partition.cuh"
#include "partitioned.cuh"
#include "rank.cuh"

namespace algo::detail::group {

template <bool Deterministic, class Tuning = oa_tuning, class Policy, class KeyIt, class ValIt, class KeyOut,
          class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce_open_addressing(const Policy& p, KeyIt keys_it, ValIt values_it, std::int64_t n,
                                          KeyOut keys_out, ValOut values_out, Op op, Hash hash, Eq eq) {
  const char* name = "group_reduce";
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  constexpr combine_kind kind = combine_kind_of<Op, Acc, Deterministic>();
  using Comb = hc::combiner<kind, Op, Acc>;
  if (kind == combine_kind::exact && n > (std::int64_t(1) << 30))
    fail(name, "group_strategy::deterministic sums at most 2^30 records per call (its exact accumulators "
               "would overflow past that); got " + std::to_string(n));
  auto keys = device_view(keys_it);
  auto values = device_view(values_it);
  auto ko = device_view(keys_out);
  auto vo = device_view(values_out);

  const auto run = [&](auto packed_tag) -> std::int64_t {
    constexpr bool packed = decltype(packed_tag)::value;
    using Table = hc::oa_table<K, Acc, Comb, packed, Eq>;
    using Slot = typename Table::slot;
    constexpr int front_n =
        packed ? front_slots_for<hc::oa_slot<K, typename Comb::storage, true>, Tuning::front_bytes>() : 0;
    using Front = hc::oa_split_table<K, Acc, Comb, Eq>;
    constexpr int pbits = packed ? Tuning::partition_bits : 0;
    static_assert(Tuning::partition_bits >= 0 && Tuning::partition_bits <= 10, "oa_tuning::partition_bits: 0 to 10");
    const cuda::device_info& dev = cuda::current_device_info();
    const long long tiles = (n + tile - 1) / tile;

    const unsigned long long cap_max =
        hc::pow2_ceil(static_cast<unsigned long long>(std::max(64.0, std::ceil(static_cast<double>(n) / size_load))));
    // the first size: 64 MB of slots (2^22 slots of 16 bytes), or what n records need if less
    unsigned long long first_cap = 1024;
    while (first_cap * 2 * sizeof(Slot) <= Tuning::first_table_bytes) first_cap *= 2;
    unsigned long long cap = std::min<unsigned long long>(cap_max, std::max<unsigned long long>(first_cap, 1ull << pbits));
    // (a partitioned build needs at least one slot per partition: `partitioned` raises cap to that)
    rank_buffers rb(p, n);
    cuda::temporary_buffer status_buf(p, sizeof(build_status));
    auto* status = status_buf.as<build_status>();

    // Builds tables of growing sizes from the records (bk, bv, index: the input, or its copy
    // grouped into partitions) until one holds every key.
    // (bits: the partition bits of the records' order, 0 for input order; give_up: return -1 when
    // the table overflows, cap then set from the estimate, instead of growing it)
    // (sample: the first build starts with the sample of partitioned.cuh and returns -2, having
    // built nothing, when it chose the partitioned build, -3 when its one-pass form)
    const auto build = [&](auto bk, auto bv, auto index, int bits, bool give_up, bool sample = false) -> std::int64_t {
      const auto kernel = [] {
        if constexpr (Tuning::build_min_blocks > 0)
          return oa_build_kernel_capped<Tuning::build_min_blocks, front_n, Tuning::report_every, Table, Front,
                                        decltype(bk), decltype(bv), Hash, decltype(index)>;
        else
          return oa_build_kernel<front_n, Tuning::report_every, Table, Front, decltype(bk), decltype(bv), Hash,
                                 decltype(index)>;
      }();
      int per_sm = 0;
      check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), name,
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      const unsigned grid = static_cast<unsigned>(std::max<long long>(
          1, std::min<long long>(tiles, std::max(1, per_sm) * static_cast<long long>(dev.sm_count))));
      // the gated kernels (after the sample): a few blocks an SM that loop
      const unsigned gated_blocks = 8u * static_cast<unsigned>(std::max(1, dev.sm_count));
      // the smallest table the sample may choose (Tuning::sample_sizes_table)
      const unsigned long long floor_cap =
          Tuning::sample_sizes_table
              ? std::max<unsigned long long>(1024, Tuning::sized_table_min_bytes / sizeof(Slot))
              : 0;
      for (;;) {
        const bool last = cap >= cap_max;
        const unsigned long long limit =
            last ? ~0ull : static_cast<unsigned long long>(static_cast<double>(cap) * limit_load);
        cuda::temporary_buffer slots(p, static_cast<std::size_t>(cap) * sizeof(Slot));
        const Table table{slots.as<Slot>(), cap - 1, Comb{accumulate_with<Op, Acc>{op}}, eq};
        int shift = 0;  // with partitions: the home slot is the top log2(cap) bits of the hash
        if (bits > 0)
          while ((1ull << (64 - shift - 1)) >= cap && shift < 63) ++shift;
        clear_status_kernel<><<<1, 1, 0, p.stream>>>(status);
        cuda::check_launch(name, "clear_status_kernel");
        if (sample) {
          // the partitioned build's sample: when it chooses that build, it stops this one before
          // it starts (the kernels below return at once)
          // (and when it keeps one table, it may choose a smaller one than `cap`: status->cap,
          // which the build, clear and mark kernels read)
          const auto sk = sample_kernel<decltype(keys), Hash>;
          check_cuda(
              cudaFuncSetAttribute(sk, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sample_smem)),
              name, "cudaFuncSetAttribute");
          // (not the last size, which probes on: a sized table must give up as a growing one does)
          // (the one-pass range: Tuning::onepass_min_keys to what 256 partitions' tables hold)
          const double onepass_max = Tuning::onepass_min_keys > 0.0
                                         ? static_cast<double>(1 << onepass_bits) * onepass_slots * onepass_load
                                         : 0.0;
          sk<<<1, sample_threads, sample_smem, p.stream>>>(keys, static_cast<long long>(n), hash, status,
                                                           Tuning::partition_singletons, Tuning::partition_repeated,
                                                           Tuning::partition_skew, cap, last ? 0ull : floor_cap,
                                                           Tuning::onepass_min_keys, onepass_max,
                                                           Tuning::sized_table_l2_share * static_cast<double>(dev.l2_bytes),
                                                           static_cast<unsigned>(sizeof(Slot)),
                                                           Tuning::sized_table_line_keys);
          cuda::check_launch(name, "sample_kernel");
          clear_table_gated_kernel<<<std::min(grid_for(static_cast<long long>(cap)), gated_blocks), threads, 0,
                                     p.stream>>>(table, cap, status);
          cuda::check_launch(name, "clear_table_gated_kernel");
        } else {
          hc::clear_table_kernel<<<grid_for(static_cast<long long>(cap)), threads, 0, p.stream>>>(table, cap);
          cuda::check_launch(name, "clear_table_kernel");
        }
        kernel<<<grid, threads, 0, p.stream>>>(table, bk, bv, static_cast<long long>(n), hash, status, limit,
                                               last ? ~0ull : max_probes_growing, index, shift);
        cuda::check_launch(name, "oa_build_kernel");
        rank_count(name, p, table, cap, rb, status, sample, gated_blocks);
        const build_status st = cuda::copy_to_host(name, status, p.stream);
        if (sample && st.abort && st.pad == mode_partitioned) return -2;
        if (sample && st.abort && st.pad == mode_onepass) return -3;
        sample = false;
        if (!st.abort) {
          // (the home slots of a table the sample sized: the hash's top bits, sized_shift)
          rank_emit_in_order(name, p, table, rb, keys, hash, st.cap ? sized_shift(st.cap) : shift, ko, vo);
          return static_cast<std::int64_t>(st.total);
        }
        if (last && !st.cap)
          fail(name, "the hash table of " + std::to_string(cap) + " slots is full with " + std::to_string(st.claimed) +
                         " keys (it is sized for every record being distinct; a key_equal that is not consistent "
                         "with the hash?)");
        // the prefix the claimed keys came from: the records the blocks reported with them (the
        // tiles taken also count up to a grid's worth in flight at the stop, 3 M records on an H100:
        // at m = 2^24 that halved the estimate and cost a second build that stopped too)
        const double r = std::min(static_cast<double>(st.records), static_cast<double>(n));
        double m = estimate_distinct(static_cast<double>(st.claimed), r, static_cast<double>(n));
        if (bits > 0) {
          // the records seen were those of the first partitions only: their keys, about
          // m x (partitions seen) / (all partitions) of them
          const double parts = static_cast<double>(1ull << bits);
          const double seen = std::max(1.0, std::min(parts, std::ceil(r * parts / static_cast<double>(n))));
          m = std::min(static_cast<double>(n), m * parts / seen);
        }
        const unsigned long long want = hc::pow2_ceil(static_cast<unsigned long long>(std::ceil(m / size_load)) + 1);
        // (a table the sample chose too small: at least the size the host would have used)
        cap = st.cap ? std::min(cap_max, std::max({cap, st.cap * 4, want}))
                     : std::min(cap_max, std::max(cap * 4, want));
        if (give_up) return -1;
      }
    };

    // the pre-pass (count each block's records per partition, place the blocks' slices, copy),
    // then the build over the copy
    const auto partitioned = [&](auto bits_tag) -> std::int64_t {
      constexpr int B = decltype(bits_tag)::value;
      const long long blocks = (static_cast<long long>(n) + partition_chunk - 1) / partition_chunk;
      const long long count = blocks << B;
      cuda::temporary_buffer counts(p, static_cast<std::size_t>(count) * sizeof(unsigned));
      cuda::temporary_buffer offsets(p, static_cast<std::size_t>(count) * sizeof(unsigned long long));
      cuda::temporary_buffer part_keys(p, static_cast<std::size_t>(n) * sizeof(K));
      cuda::temporary_buffer part_values(p, static_cast<std::size_t>(n) * sizeof(Acc));
      cuda::temporary_buffer part_index(p, static_cast<std::size_t>(n) * sizeof(unsigned));
      partition_count_kernel<B><<<static_cast<unsigned>(blocks), threads, 0, p.stream>>>(
          keys, static_cast<long long>(n), hash, counts.as<unsigned>());
      cuda::check_launch(name, "partition_count_kernel");
      partition_offsets_kernel<><<<1, threads, 0, p.stream>>>(counts.as<unsigned>(), count,
                                                               offsets.as<unsigned long long>());
      cuda::check_launch(name, "partition_offsets_kernel");
      partition_scatter_kernel<B><<<static_cast<unsigned>(blocks), threads, 0, p.stream>>>(
          keys, values, static_cast<long long>(n), hash, offsets.as<unsigned long long>(), part_keys.as<K>(),
          part_values.as<Acc>(), part_index.as<unsigned>());
      cuda::check_launch(name, "partition_scatter_kernel");
      cap = std::max<unsigned long long>(cap, std::min<unsigned long long>(cap_max, 1ull << B));
      return build(static_cast<const K*>(part_keys.as<K>()), static_cast<const Acc*>(part_values.as<Acc>()),
                   stored_index{part_index.as<unsigned>()}, B, false);
    };

    // the partitioned build (partitioned.cuh): sample, histogram, plan, scatter passes,
    // aggregate (groups appended to their spans' regions of the list), count, place; -1 when the
    // overflow table overflowed (the caller builds one table instead)
    // (onepass: 2^onepass_bits partitions, one scatter pass, a block a partition)
    // (generic: instantiated only where can_partition below holds)
    const auto partitioned_build = [&](auto, bool onepass) -> std::int64_t {
      int lg = 0;
      while ((std::int64_t(1) << lg) < n) ++lg;
      // partitions of 1024-2048 records, or onepass_bits of them
      const int P = onepass ? onepass_bits : std::min(max_partition_bits, std::max(1, lg - 11));
      const int passes = P <= 8 ? 1 : 2;
      const digit_pass p0{64 - (P <= 8 ? P : 8), P <= 8 ? P : 8}, p1{64 - P, P - 8};
      const long long parts = 1ll << P;
      const long long stiles = (static_cast<long long>(n) + scatter_tile - 1) / scatter_tile;
      const std::size_t un = static_cast<std::size_t>(n);
      cuda::temporary_buffer counts(p, static_cast<std::size_t>(parts) * sizeof(unsigned));
      cuda::temporary_buffer cursor(p, static_cast<std::size_t>(std::max<long long>(parts, max_radix)) * sizeof(unsigned));
      cuda::temporary_buffer bucket(p, (max_radix + 1) * sizeof(unsigned)), ptiles(p, (max_radix + 1) * sizeof(unsigned));
      cuda::temporary_buffer words_a(p, un * sizeof(unsigned long long)), values_a(p, un * sizeof(Acc));
      cuda::temporary_buffer words_b(p, un * sizeof(unsigned long long)), values_b(p, un * sizeof(Acc));
      cuda::temporary_buffer bounds(p, static_cast<std::size_t>(parts + 1) * sizeof(unsigned));
      cuda::temporary_buffer prefix(p, static_cast<std::size_t>(parts + 1) * sizeof(unsigned));
      // (the aggregate pass's chunks: a partition of c records takes ceil(c / aggregate_chunk))
      const long long units_max = std::max<long long>(
          1, std::min<long long>(parts, n) + (static_cast<long long>(n) + aggregate_chunk - 1) / aggregate_chunk);
      cuda::temporary_buffer unit_part(p, static_cast<std::size_t>(units_max) * sizeof(unsigned));
      cuda::temporary_buffer multi(p, sizeof(unsigned));
      check_cuda(cudaMemsetAsync(counts.get(), 0, counts.size(), p.stream), name, "cudaMemsetAsync");
      // hot keys (seen repeatedly in the first records): aggregated by the histogram into the hot
      // table, skipped by the scatter passes (hot_map: a bit a record)
      constexpr bool hot_keys = Tuning::hot_keys;
      cuda::temporary_buffer hot_list(p, hot_keys ? (1 + hot_max) * sizeof(unsigned) : 1);
      cuda::temporary_buffer hot_slots_t(p, hot_keys ? hot_table_slots * sizeof(Slot) : 1);
      cuda::temporary_buffer hot_map(p, hot_keys ? ((un + 31) / 32) * sizeof(unsigned) : 1);
      const Table hot_t{hot_slots_t.as<Slot>(), static_cast<unsigned long long>(hot_table_slots - 1),
                        Comb{accumulate_with<Op, Acc>{op}}, eq};
      if constexpr (hot_keys) {
        const auto pk = hot_pick_kernel<K, Table, decltype(keys), Hash>;
        constexpr int psmem = hot_pick_slots * static_cast<int>(sizeof(unsigned long long));
        check_cuda(cudaFuncSetAttribute(pk, cudaFuncAttributeMaxDynamicSharedMemorySize, psmem), name,
                   "cudaFuncSetAttribute");
        pk<<<1, hist_threads, psmem, p.stream>>>(keys, static_cast<long long>(n), hash, hot_t, hot_list.as<unsigned>());
        cuda::check_launch(name, "hot_pick_kernel");
      }
      // histogram
      {
        const auto hk = partition_histogram_kernel<Front, Table, decltype(keys), decltype(values), Hash>;
        const int hsmem = static_cast<int>(hot_front_smem<Front>() + (sizeof(unsigned) << P));
        if (hsmem > 48 * 1024)
          check_cuda(cudaFuncSetAttribute(hk, cudaFuncAttributeMaxDynamicSharedMemorySize, hsmem), name,
                     "cudaFuncSetAttribute");
        int per_sm = 0;
        check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hk, hist_threads, hsmem), name,
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        const long long hgrid = std::max<long long>(
            1, std::min<long long>((static_cast<long long>(n) + hist_threads * 4 - 1) / (hist_threads * 4),
                                   std::max(1, per_sm) * static_cast<long long>(dev.sm_count)));
        hk<<<static_cast<unsigned>(hgrid), hist_threads, hsmem, p.stream>>>(
            keys, values, static_cast<long long>(n), hash, P, counts.as<unsigned>(),
            hot_keys ? hot_list.as<unsigned>() : nullptr, hot_t, hot_keys ? hot_map.as<unsigned>() : nullptr);
        cuda::check_launch(name, "partition_histogram_kernel");
      }
      // plan
      partition_plan_kernel<><<<1, plan_threads, 0, p.stream>>>(counts.as<unsigned>(), P, bounds.as<unsigned>(),
                                                            cursor.as<unsigned>(), prefix.as<unsigned>(),
                                                            unit_part.as<unsigned>(), multi.as<unsigned>(),
                                                            bucket.as<unsigned>(), ptiles.as<unsigned>());
      cuda::check_launch(name, "partition_plan_kernel");
      // scatter
      unsigned long long* fw = words_a.as<unsigned long long>();
      Acc* fv = values_a.as<Acc>();
      unsigned long long* lw = words_b.as<unsigned long long>();
      Acc* lv = values_b.as<Acc>();
      // (the largest shared-memory carveout: 4 blocks of ~36-44 KB an SM)
      constexpr int smb = scatter_min_blocks<Tuning::scatter_blocks>;
      constexpr int smb_input = scatter_min_blocks<Tuning::scatter_blocks_input, Acc>;
      const auto sk0 =
          scatter_kernel<K, Acc, false, smb_input, input_records<K, Acc, decltype(keys), decltype(values)>, Hash>;
      const auto sk1 = scatter_kernel<K, Acc, true, smb, stored_records<K, Acc>, Hash>;
      check_cuda(cudaFuncSetAttribute(sk0, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
                 name, "cudaFuncSetAttribute");
      if (passes == 2)
        check_cuda(cudaFuncSetAttribute(sk1, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared),
                   name, "cudaFuncSetAttribute");
      sk0<<<static_cast<unsigned>(stiles), threads, 0, p.stream>>>(
          input_records<K, Acc, decltype(keys), decltype(values)>{keys, values}, static_cast<long long>(n), hash, p0,
          passes == 1 ? cursor.as<unsigned>() : bucket.as<unsigned>(), nullptr, nullptr,
          hot_keys ? hot_list.as<unsigned>() : nullptr, hot_keys ? hot_map.as<unsigned>() : nullptr, fw, fv);
      cuda::check_launch(name, "scatter_kernel");
      if (passes == 2) {
        sk1<<<static_cast<unsigned>(stiles + max_radix), threads, 0, p.stream>>>(
            stored_records<K, Acc>{fw, fv}, static_cast<long long>(n), hash, p1, cursor.as<unsigned>(),
            ptiles.as<unsigned>(), bounds.as<unsigned>(), nullptr, nullptr, lw, lv);
        cuda::check_launch(name, "scatter_kernel");
        std::swap(fw, lw);
        std::swap(fv, lv);
      }
      // aggregate (the overflow table: the keys of partitions of several chunks; none in one pass,
      // whose blocks hold whole partitions: a token table, neither cleared nor read)
      const unsigned long long cap_o =
          onepass ? 64ull
                  : hc::pow2_ceil(static_cast<unsigned long long>(std::ceil(
                        static_cast<double>(std::min<std::int64_t>(std::max<std::int64_t>(n / 32, 4096), 1 << 21)) /
                        size_load)));
      cuda::temporary_buffer slots_o(p, static_cast<std::size_t>(cap_o) * sizeof(Slot));
      const Table overflow{slots_o.as<Slot>(), cap_o - 1, Comb{accumulate_with<Op, Acc>{op}}, eq};
      // (gated: a grid of 8 blocks an SM that loops, so that a skipped clear or scan costs little)
      const unsigned gated_grid =
          std::min<unsigned>(grid_for(static_cast<long long>(cap_o)), 8u * static_cast<unsigned>(dev.sm_count));
      if (!onepass) {
        clear_overflow_kernel<<<gated_grid, threads, 0, p.stream>>>(overflow, cap_o, multi.as<unsigned>());
        cuda::check_launch(name, "clear_overflow_kernel");
      }
      clear_status_kernel<><<<1, 1, 0, p.stream>>>(status);
      cuda::check_launch(name, "clear_status_kernel");
      // the groups by where they first appear (spans of place_span input positions)
      const long long spans = (static_cast<long long>(n) + place_span - 1) >> place_span_bits;
      cuda::temporary_buffer span_count(p, static_cast<std::size_t>(spans) * sizeof(unsigned));
      cuda::temporary_buffer span_base(p, static_cast<std::size_t>(spans) * sizeof(unsigned));
      check_cuda(cudaMemsetAsync(span_count.get(), 0, span_count.size(), p.stream), name, "cudaMemsetAsync");
      const span_list<Acc> list{lw, lv, span_count.as<unsigned>()};
      const aggregate_out<Table, Acc> out{list, overflow, status,
                                          static_cast<unsigned long long>(static_cast<double>(cap_o) * limit_load)};
      const auto set_smem = [&](auto kernel, std::size_t bytes) {
        check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
                   name, "cudaFuncSetAttribute");
        check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared),
                   name, "cudaFuncSetAttribute");
      };
      if (onepass) {
        const auto agg = onepass_aggregate_kernel<Front, Table, Acc, Hash>;
        constexpr std::size_t smem = onepass_smem<Front>();
        set_smem(agg, smem);
        agg<<<static_cast<unsigned>(parts), onepass_threads, smem, p.stream>>>(fw, fv, hash, bounds.as<unsigned>(), out);
        cuda::check_launch(name, "onepass_aggregate_kernel");
      } else {
        const auto agg = aggregate_kernel<Front, Table, Acc, Hash>;
        constexpr std::size_t smem = aggregate_smem<Front>();
        set_smem(agg, smem);
        agg<<<static_cast<unsigned>(units_max), threads, smem, p.stream>>>(fw, fv, hash, bounds.as<unsigned>(),
                                                                           prefix.as<unsigned>(),
                                                                           unit_part.as<unsigned>(), parts, out);
        cuda::check_launch(name, "aggregate_kernel");
        // the overflow table's groups appended to the list
        append_table_kernel<<<gated_grid, threads, 0, p.stream>>>(overflow, cap_o, list, multi.as<unsigned>());
        cuda::check_launch(name, "append_table_kernel");
      }
      // the hot table's groups appended to the list; the spans' groups counted; each group
      // written at its rank (no synchronization before: the host reads the count at the end)
      if constexpr (hot_keys) {
        append_table_kernel<<<grid_for(hot_table_slots), threads, 0, p.stream>>>(hot_t, hot_table_slots, list, nullptr);
        cuda::check_launch(name, "append_table_kernel");
      }
      span_scan_kernel<><<<1, plan_threads, 0, p.stream>>>(span_count.as<unsigned>(), spans, span_base.as<unsigned>(),
                                                            status);
      cuda::check_launch(name, "span_scan_kernel");
      place_kernel<bitwise_equal_v<Eq, K>, K, Acc><<<static_cast<unsigned>(spans), threads, 0, p.stream>>>(
          lw, lv, span_count.as<unsigned>(), span_base.as<unsigned>(), status, keys, ko, vo);
      cuda::check_launch(name, "place_kernel");
      const build_status st = cuda::copy_to_host(name, status, p.stream);
      if (st.abort) return -1;
      return static_cast<std::int64_t>(st.total);
    };

    constexpr int growth_bits = packed ? Tuning::partition_bits_on_growth : 0;
    static_assert(Tuning::partition_bits_on_growth >= 0 && Tuning::partition_bits_on_growth <= 10,
                  "oa_tuning::partition_bits_on_growth: 0 to 10");
    // the partitioned build: packed tables with a native or compare-and-swap aggregate of an
    // arithmetic type (not the exact sums of group_strategy::deterministic), n < 2^30
    constexpr bool can_partition = packed && pbits == 0 && growth_bits == 0 && kind != combine_kind::exact &&
                                   kind != combine_kind::locked && std::is_arithmetic<Acc>::value &&
                                   Tuning::table_choice != table_choice_one;
    if constexpr (pbits > 0) {
      return partitioned(std::integral_constant<int, pbits>{});
    } else if constexpr (growth_bits > 0) {
      const std::int64_t groups = build(keys, values, identity_index{}, 0, true);
      if (groups >= 0) return groups;
      return partitioned(std::integral_constant<int, growth_bits>{});
    } else {
      if constexpr (can_partition) {
        if (n < (std::int64_t(1) << 30)) {
          std::int64_t groups = Tuning::table_choice == table_choice_onepass ? -3 : -2;
          if (Tuning::table_choice == table_choice_sample && n >= min_sampled_records)
            groups = build(keys, values, identity_index{}, 0, false, true);
          if (groups == -3) {
            groups = partitioned_build(0, true);
          } else if (groups == -2 && (Tuning::table_choice == table_choice_partitioned || n >= min_sampled_records)) {
            groups = partitioned_build(0, false);
          }
          if (groups >= 0) return groups;
          // the overflow table overflowed: one table, grown as it needs
        }
      }
      return build(keys, values, identity_index{}, 0, false);
    }
  };
  if constexpr (Comb::has_identity && hc::packable_key_v<K>) {
    if (n < (std::int64_t(1) << 31)) return run(std::true_type{});
  }
  return run(std::false_type{});
}

template <class Policy, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce_locked_chaining(const Policy& p, KeyIt keys_it, ValIt values_it, std::int64_t n,
                                          KeyOut keys_out, ValOut values_out, Op op, Hash hash, Eq eq) {
  const char* name = "group_reduce";
  using K = iter_value_t<KeyIt>;
  using V = iter_value_t<ValIt>;
  using Acc = accumulator_t<Op, V, V>;
  using AOp = accumulate_with<Op, Acc>;
  using Table = hc::chained_table<K, Acc, AOp, Eq>;
  auto keys = device_view(keys_it);
  auto values = device_view(values_it);
  const unsigned long long buckets =
      hc::pow2_ceil(static_cast<unsigned long long>(std::min<std::int64_t>(std::max<std::int64_t>(n / 4, 1024), 1 << 24)));
  const long long words = (n + 31) / 32;
  cuda::temporary_buffer heads(p, buckets * sizeof(long long)), locks(p, buckets * sizeof(unsigned));
  cuda::temporary_buffer pool(p, static_cast<std::size_t>(n) * sizeof(hc::chain_entry<K, Acc>));
  cuda::temporary_buffer created(p, static_cast<std::size_t>(words) * sizeof(unsigned));
  check_cuda(cudaMemsetAsync(heads.get(), 0xff, heads.size(), p.stream), name, "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(locks.get(), 0, locks.size(), p.stream), name, "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(created.get(), 0, created.size(), p.stream), name, "cudaMemsetAsync");
  const Table table{heads.as<long long>(), locks.as<unsigned>(), pool.as<hc::chain_entry<K, Acc>>(),
                    created.as<unsigned>(), buckets - 1, AOp{op}, eq};
  const cuda::device_info& dev = cuda::current_device_info();
  const unsigned grid = static_cast<unsigned>(
      std::max<long long>(1, std::min<long long>((n + threads - 1) / threads, 8LL * dev.sm_count)));
  chain_build_kernel<<<grid, threads, 0, p.stream>>>(table, keys, values, static_cast<long long>(n), hash);
  cuda::check_launch(name, "chain_build_kernel");
  rank_buffers rb(p, n);
  cuda::temporary_buffer status_buf(p, sizeof(build_status));
  auto* status = status_buf.as<build_status>();
  rank_count(name, p, table, static_cast<unsigned long long>(n), rb, status);
  const build_status st = cuda::copy_to_host(name, status, p.stream);
  rank_emit(name, p, table, static_cast<unsigned long long>(n), rb, keys, device_view(keys_out),
            device_view(values_out));
  return static_cast<std::int64_t>(st.total);
}

}  // namespace algo::detail::group

namespace algo::detail {

/// algo::cuda: the policy's group_strategy.
template <class... S, class KeyIt, class ValIt, class KeyOut, class ValOut, class Op, class Hash, class Eq>
std::int64_t group_reduce(const cuda_policy<S...>& p, KeyIt keys, ValIt values, std::int64_t n, KeyOut keys_out,
                          ValOut values_out, Op op, Hash hash, Eq eq) {
  using G = typename cuda_policy<S...>::group_strategy;
  if constexpr (std::is_same<G, group_strategy::locked_chaining_t>::value) {
    return group::group_reduce_locked_chaining(p, keys, values, n, keys_out, values_out, op, hash, eq);
  } else {
    using V = iter_value_t<ValIt>;
    using Acc = accumulator_t<Op, V, V>;
    constexpr bool det = std::is_same<G, group_strategy::deterministic_t>::value;
    static_assert(!det || group::deterministic_supported_v<Op, Acc>,
                  "algo::group_reduce with group_strategy::deterministic: bit-identical results need exact "
                  "combinations: an integer accumulator, or plus / minimum / maximum on float or double");
    return group::group_reduce_open_addressing<det>(p, keys, values, n, keys_out, values_out, op, hash, eq);
  }
}

}  // namespace algo::detail
