#!/bin/bash
# GPU call 1 (run from the worktree copy's root): build, bench --only segmented, keys_sweep, tests.
B=${B:-/tmp/b_keys8k}
O=${OUT:-/tmp/out}
C=$(cat COMMIT 2>/dev/null || echo unknown)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; } > $O/env.txt 2>&1
t0=$(date +%s)
cmake --preset cuda -B $B -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_BUILD_EXAMPLES=OFF > $O/cfg.log 2>&1 || { tail -20 $O/cfg.log; exit 1; }
ninja -C $B -j16 bench keys_sweep test_cuda_segmented test_cuda_segmented_strategies \
  test_cuda_scan_deterministic test_cuda_scan_lookback test_cub_segmented test_host_segmented > $O/build.log 2>&1 \
  || { grep -m5 -B2 -A10 "error" $O/build.log | head -60; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
$B/bench/bench --only segmented --csv $O/bench_segmented.csv --commit $C > $O/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - t0 )) s"
$B/bench/keys_sweep --csv $O/keys_sweep.csv --commit $C > $O/sweep.log 2>&1; echo "sweep rc=$? $(( $(date +%s) - t0 )) s"
grep -E "reproducible|STATS" $O/sweep.log
for t in test_cuda_segmented test_cuda_segmented_strategies test_cuda_scan_deterministic test_cuda_scan_lookback test_cub_segmented test_host_segmented; do
  timeout 300 $B/test/$t "~[large]" > $O/$t.log 2>&1; echo "$t rc=$? $(tail -2 $O/$t.log | tr '\n' ' ') $(( $(date +%s) - t0 )) s"
done
