#!/usr/bin/env bash
# 2026-11-27, run 7 (one H100): where the offsets check kernel's time goes (ncu sections of its
# first two launches in bench_segmented: the L = 4 shape, 2^24 + 1 offsets). Output: ncu.txt.
set -u
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
timeout 200 ncu --clock-control none -k regex:check_offsets_kernel -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats \
  /tmp/cfg/bench/bench_segmented --only segmented --csv /tmp/x.csv > "$OUT/ncu_full.txt" 2>&1
echo "ncu rc $?"
grep -v "^  segmented_reduce\|^  scan_by_key\|^  reduce_by_key\|^algorithm\|^segmented\|^scan_by\|^reduce_by" "$OUT/ncu_full.txt" | grep -A200 "check_offsets_kernel" | head -150 > "$OUT/ncu.txt"
rm -f "$OUT/ncu_full.txt"
cat "$OUT/ncu.txt" | grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles|Issued|Eligible|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Block Limit|Waves|Grid Size|Active Warps|No Eligible|One or More" | head -60
