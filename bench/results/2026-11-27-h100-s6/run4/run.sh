#!/usr/bin/env bash
# 2026-11-27, run 4 on one H100: binaries built on the CPU machine (nvcc 13.0, sm_90), carried
# as .bins6/a.tar.xz. Everything under $OUT/r comes back as r.tar.xz, plus summary.txt.
#   1. test_cuda_segmented, test_cuda_segmented_strategies (the check's integer spread)
#   2. seg_reduce_probe, the tree's fused kernel ("lean": no segment read before the verdict) against
#      the same probe built with the version that folds its first segment while the checkers check
#      ("spec", /tmp/inc_spec), both built by hand with the same nvcc line; alternated, L = 4096,
#      2048, 16384
#   3. ncu of the offsets check kernel inside bench_segmented (its first 24 launches)
#   4. bench_segmented --only segmented
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$R/env.txt"
B=/tmp/cfg/test; BB=/tmp/cfg/bench; P=/tmp/regs
{
for t in test_cuda_segmented test_cuda_segmented_strategies; do
  (timeout 250 $B/$t "~[large]" > "$R/$t.log" 2>&1; echo "$t rc $? $(grep -h 'test cases' "$R/$t.log" | tail -1)" >> "$R/tests.txt") &
done
wait
echo "tests t+$(( $(date +%s) - t0 ))"; sort "$R/tests.txt"
for L in 4096 2048 16384; do
  for v in lean spec lean spec; do $P/seg_reduce_probe_$v --L $L --reps 40 > "$R/probe_${v}_L$L.log" 2>&1; grep -E "^algo::segmented_reduce \(offsets\)|^cub::" "$R/probe_${v}_L$L.log" | sed "s/^/$v L=$L: /"; done
done
echo "probes t+$(( $(date +%s) - t0 ))"
timeout 150 ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size -k regex:check_offsets_kernel -c 24 $BB/bench_segmented --only segmented --csv /tmp/ncu_bench.csv > "$R/ncu_check.csv" 2> "$R/ncu_check.err"
echo "ncu rc $?"; python3 - "$R/ncu_check.csv" <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>5]
h=rows[0]
for r in rows[2:]:
    d=dict(zip(h,r)); print('check_offsets_kernel', d.get('gpu__time_duration.sum'), d.get('launch__grid_size'), d.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))
PY
timeout 200 $BB/bench_segmented --only segmented --csv "$R/seg.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/seg.log" 2>&1
echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
grep -E "^(scan_by_key|segmented_reduce|reduce_by_key) " "$R/seg.log" | grep -E " cub  | algo::cuda  |offsets \(seg|uniform_offsets  " | cut -c1-112
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
