#!/usr/bin/env bash
# 2026-11-27, run 6 on one H100 (main with the kept-windows change b78dc75 and the deep-walk tests 367cb79): the new tests (forced deep
# walks, keyed results across strategies, double in the 20-run test, kept windows), the ordered
# and deterministic scan tests, the segmented tests; compute-sanitizer over the new tests (small);
# ncu of the offsets check (version 5: one conditional atomic a block); bench_segmented.
# Output: r.tar.xz + summary.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; } > "$R/env.txt"
B=/tmp/cfg/test; BB=/tmp/cfg/bench
{
for t in test_cuda_segmented test_cuda_segmented_strategies test_cuda_scan_ordered test_cuda_scan_ordered_walks test_cuda_keyed_strategies test_cuda_scan_deterministic; do
  (timeout 280 $B/$t "~[large]" > "$R/$t.log" 2>&1; echo "$t rc $? $(grep -h 'test cases' "$R/$t.log" | tail -1)" >> "$R/tests.txt") &
done
wait; echo "tests t+$(( $(date +%s) - t0 ))"; sort "$R/tests.txt"; grep -h -A3 "WARN\|warning" "$R/test_cuda_scan_ordered_walks.log" | head -20
for t in test_cuda_scan_ordered_walks test_cuda_keyed_strategies; do
  for tool in memcheck racecheck; do
    ALGO_TEST_SMALL=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/$t > "$R/${tool}_$t.log" 2>&1
    echo "$tool $t rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/${tool}_$t.log" | tr '\n' ' ')"
  done
done
echo "sanitizers t+$(( $(date +%s) - t0 ))"
timeout 150 ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size -k regex:check_offsets_kernel -c 12 $BB/bench_segmented --only segmented --csv /tmp/ncu_bench.csv > "$R/ncu_check.csv" 2> "$R/ncu_check.err"
echo "ncu rc $?"; python3 - "$R/ncu_check.csv" <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>5]
h=rows[0]
for r in rows[2:]:
    d=dict(zip(h,r)); print('check_offsets_kernel', d.get('gpu__time_duration.sum'), d.get('launch__grid_size'), d.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))
PY
timeout 200 $BB/bench_segmented --only segmented --csv "$R/seg.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/seg.log" 2>&1
echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
grep -E "^(scan_by_key|segmented_reduce|reduce_by_key) " "$R/seg.log" | grep -E " cub  | algo::cuda  |offsets \(seg|uniform_offsets  |ordered_lookback|decoupled" | cut -c1-112
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
