#!/usr/bin/env bash
# 2026-11-27, run 1 on one H100: binaries built on the CPU machine (nvcc 13.0, sm_90, /tmp/cfg,
# ALGO_OPENACC=OFF; tree 5a76f7c + the working changes of this run), carried as .bins6/a.tar.xz.
#   1. reduce_small --verify (bitwise: the one-block kernel, version 2) and the reduce tests
#   2. test_cuda_segmented (the offsets walk's first probe; new far-from-even layouts) and
#      test_cuda_segmented_strategies, in parallel; memcheck of the offsets-in-tiles case (small)
#   3. seg_reduce_probe at L = 4096 (and 2048, 16384), and ncu of its kernels
#   4. reduce_small's probe (b2b / event / gpu / host), 2 rounds
#   5. bench_segmented --only segmented (the segmented rows, CUB in the same run)
set -u
t0=$(date +%s)
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; } > "$OUT/env.txt"
B=/tmp/cfg/test; BB=/tmp/cfg/bench
$BB/reduce_small --verify > "$OUT/verify.log" 2>&1; echo "verify rc $?" >> "$OUT/tests.txt"
for t in test_cuda_reduce_retirement test_cuda_reduce_two_pass test_cuda_reduce_default test_cuda_segmented test_cuda_segmented_strategies; do
  (timeout 200 $B/$t "~[large]" > "$OUT/$t.log" 2>&1; echo "$t rc $?" >> "$OUT/tests.txt") &
done
wait
echo "tests t+$(( $(date +%s) - t0 ))"; sort "$OUT/tests.txt"; grep -h "test cases\|All tests passed" "$OUT"/test_*.log; tail -3 "$OUT/verify.log"
ALGO_TEST_SMALL=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_segmented "[offsets]" > "$OUT/memcheck_offsets.log" 2>&1
echo "memcheck [offsets] rc $? $(grep -E 'ERROR SUMMARY|test cases' "$OUT/memcheck_offsets.log" | tr '\n' ' ')"
for L in 4096 2048 16384; do $BB/seg_reduce_probe --L $L --reps 40 > "$OUT/probe_L$L.log" 2>&1; done
echo "probes t+$(( $(date +%s) - t0 ))"; tail -9 "$OUT/probe_L4096.log"; tail -8 "$OUT/probe_L2048.log" | head -3
M=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 120 ncu --clock-control none --csv --page raw --metrics "$M" $BB/seg_reduce_probe --L 4096 --ncu > "$OUT/ncu_probe.csv" 2> "$OUT/ncu_probe.err"
echo "ncu rc $?"; python3 - "$OUT/ncu_probe.csv" <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; 
for r in rows[2:]:
    d=dict(zip(h,r)); print(d.get('Kernel Name','')[:60].ljust(60), d.get('gpu__time_duration.sum'), d.get('launch__registers_per_thread'), d.get('launch__grid_size'), d.get('sm__warps_active.avg.pct_of_peak_sustained_active'), d.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))
PY
$BB/reduce_small --reps 200 > "$OUT/reduce_small_1.log" 2>&1; $BB/reduce_small --reps 200 > "$OUT/reduce_small_2.log" 2>&1
echo "reduce_small t+$(( $(date +%s) - t0 ))"; grep -A12 -i "b2b" "$OUT/reduce_small_2.log" | head -30
timeout 200 $BB/bench_segmented --only segmented --csv "$OUT/seg.csv" --commit "${ALGO_COMMIT:-unknown}" > "$OUT/seg.log" 2>&1
echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
grep -E "^(scan_by_key|segmented_reduce|reduce_by_key) " "$OUT/seg.log" | grep -E " cub | algo::cuda +[0-9]|offsets \(seg|uniform_offsets +[0-9]" | cut -c1-120 | head -60
