#!/bin/bash
# One GPU call (run from the worktree copy's root, e.g. `cd .wt_rbk6 && bash bench/results/2026-11-27-h100-rbk6/run.sh`):
# build, the ordered look-back's tests, then the bench's segmented section (scan_by_key and
# reduce_by_key rows: CUB, the default = ordered, ordered, classic decoupled, all in the same run).
B=${B:-/tmp/b_rbk6}
O=${OUT:-/tmp/out}
C=$(git rev-parse --short HEAD 2>/dev/null || cat COMMIT 2>/dev/null || echo rbk6)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; } > $O/env.txt 2>&1
t0=$(date +%s)
cmake --preset cuda -B $B -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_BUILD_EXAMPLES=OFF > $O/cfg.log 2>&1 || { tail -20 $O/cfg.log; exit 1; }
ninja -C $B -j16 bench_segmented test_cuda_scan_ordered test_cuda_segmented_strategies test_cuda_segmented > $O/build.log 2>&1 \
  || { grep -m5 -B2 -A10 "error" $O/build.log | head -60; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for t in test_cuda_scan_ordered test_cuda_segmented_strategies test_cuda_segmented; do
  timeout 240 $B/test/$t "~[large]" > $O/$t.log 2>&1; echo "$t rc=$? $(tail -2 $O/$t.log | tr '\n' ' ') $(( $(date +%s) - t0 )) s"
done
timeout 240 $B/bench/bench_segmented --only segmented --csv $O/bench_segmented.csv --commit $C > $O/bench_segmented.log 2>&1
echo "bench rc=$? $(( $(date +%s) - t0 )) s"
grep -E "^(scan_by_key|reduce_by_key|inclusive_scan_by_key) " $O/bench_segmented.log | grep -E " cub |algo::cuda" | cut -c1-140
