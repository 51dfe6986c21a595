#!/bin/bash
# GPU call 2 (run from the worktree copy's root): build, bench --only segmented, the segmented tests,
# compute-sanitizer memcheck and racecheck over test_cuda_segmented (ALGO_TEST_SMALL=1), side by side.
B=${B:-/tmp/b_keys8k}
O=${OUT:-/tmp/out}
C=$(cat COMMIT 2>/dev/null || echo unknown)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; } > $O/env.txt 2>&1
t0=$(date +%s)
cmake --preset cuda -B $B -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_BUILD_EXAMPLES=OFF > $O/cfg.log 2>&1 || { tail -20 $O/cfg.log; exit 1; }
ninja -C $B -j16 bench test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented > $O/build.log 2>&1 \
  || { grep -m5 -B2 -A10 "error" $O/build.log | head -60; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
$B/bench/bench --only segmented --csv $O/bench_segmented.csv --commit $C > $O/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - t0 )) s"
for t in test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented; do
  ( timeout 120 $B/test/$t "~[large]" > $O/$t.log 2>&1; echo "$t rc=$? $(tail -2 $O/$t.log | tr '\n' ' ')" > $O/$t.rc ) &
done
wait; cat $O/*.rc; echo "tests $(( $(date +%s) - t0 )) s"
for tool in memcheck racecheck; do
  ( ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-130} compute-sanitizer --tool $tool --error-exitcode 9 $B/test/test_cuda_segmented "~[large]" > $O/san_$tool.log 2>&1
    echo "$tool test_cuda_segmented ~[large] (rc $?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|All tests passed|test cases|FAILED' $O/san_$tool.log | tr '\n' ' ')" > $O/san_$tool.rc ) &
done
wait; cat $O/san_*.rc; echo "sanitizers $(( $(date +%s) - t0 )) s"
