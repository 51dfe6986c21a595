#!/usr/bin/env bash
# 2026-11-27, run 6 on one H100: where the scatter passes stall (ncu WarpStateStats, SchedulerStats,
# SourceCounters of pass 1 and pass 2, f32 uniform m = 2^24, forced partitioned; bench_group of
# f2cb26f, whose scatter is d8f5617's). Output: r.tar.xz + summary.txt.
set -u
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
for tb in .bins7/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
NEW=/tmp/cfg/bench/bench_group
{
timeout 300 ncu --clock-control none -k regex:scatter_kernel -c 2 --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section MemoryWorkloadAnalysis_Tables --print-details all \
  $NEW --only group_reduce --case "f32 uniform m=2^24" --impl "partitioned (forced)" --reps 1 --csv /dev/null > "$R/ncu_scatter.txt" 2>&1
echo "ncu rc $?"
grep -E "scatter_kernel<|Stall|stall|Warp Cycles|Eligible|Issued Warp|No Eligible|Active Warps|Uncoalesced|Shared .*Bank|Excessive|Est\." "$R/ncu_scatter.txt" | cut -c1-180 | head -120
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
