#!/usr/bin/env bash
# 2026-11-27, run 2 on one H100: binaries built on the CPU machine (nvcc 13.0, sm_90, /tmp/cfg,
# ALGO_OPENACC=OFF), carried as .bins6/a.tar.xz. Everything is written under $OUT/r and comes back
# as one archive (r.tar.xz) plus summary.txt.
#   1. reduce_small --verify and the reduce tests (the one-block kernel, version 2)
#   2. test_cuda_segmented, test_cuda_segmented_strategies, test_cub_segmented; memcheck of the
#      offsets-in-tiles and long-segment cases (small sizes)
#   3. seg_reduce_probe at L = 4096, 2048, 16384; ncu of its kernels at 4096
#   4. reduce_small's probe, 2 rounds
#   5. bench_segmented --only segmented
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; } > "$R/env.txt"
B=/tmp/cfg/test; BB=/tmp/cfg/bench
{
[ -x $BB/reduce_small ] && { $BB/reduce_small --verify > "$R/verify.log" 2>&1; echo "verify rc $?"; tail -4 "$R/verify.log"; }
for t in ${TESTS:-test_cuda_reduce_retirement test_cuda_reduce_two_pass test_cuda_reduce_default test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented}; do
  [ -x $B/$t ] || continue
  (timeout 250 $B/$t "~[large]" > "$R/$t.log" 2>&1; echo "$t rc $? $(grep -h 'test cases' "$R/$t.log" | tail -1)" >> "$R/tests.txt") &
done
wait
echo "tests t+$(( $(date +%s) - t0 ))"; sort "$R/tests.txt"
for f in "[offsets]" "[long]"; do
  ALGO_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_segmented "$f" > "$R/memcheck_$f.log" 2>&1
  echo "memcheck $f rc $? $(grep -E 'ERROR SUMMARY|test cases' "$R/memcheck_$f.log" | tr '\n' ' ')"
done
if [ -x $BB/seg_reduce_probe ]; then
  for L in 4096 2048 16384; do $BB/seg_reduce_probe --L $L --reps 40 > "$R/probe_L$L.log" 2>&1; done
  echo "probes t+$(( $(date +%s) - t0 ))"; tail -9 "$R/probe_L4096.log"; tail -8 "$R/probe_L2048.log"; tail -8 "$R/probe_L16384.log"
  M=gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
  timeout 120 ncu --clock-control none --csv --page raw --metrics "$M" $BB/seg_reduce_probe --L 4096 --ncu > "$R/ncu_probe.csv" 2> "$R/ncu_probe.err"
  echo "ncu rc $?"; python3 - "$R/ncu_probe.csv" <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]
for r in rows[2:]:
    d=dict(zip(h,r)); print(d.get('Kernel Name','')[:40].ljust(40), d.get('gpu__time_duration.sum'), d.get('launch__registers_per_thread'), d.get('launch__grid_size'), d.get('sm__warps_active.avg.pct_of_peak_sustained_active'), d.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'))
PY
fi
if [ -x $BB/reduce_small ]; then
  for r in 1 2; do $BB/reduce_small --reps 200 > "$R/reduce_small_$r.log" 2>&1; done
  echo "reduce_small t+$(( $(date +%s) - t0 ))"; grep -E "^(i32|f32) +2\^1[02] (cub|algo::cuda) " "$R/reduce_small_2.log" | cut -c1-120
fi
if [ -x $BB/bench_segmented ]; then
  timeout 200 $BB/bench_segmented --only segmented --csv "$R/seg.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/seg.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^(scan_by_key|segmented_reduce|reduce_by_key) " "$R/seg.log" | grep -E " cub  | algo::cuda  |offsets \(seg|uniform_offsets  " | cut -c1-112
fi
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
