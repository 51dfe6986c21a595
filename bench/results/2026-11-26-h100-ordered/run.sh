#!/usr/bin/env bash
# ordered look-back, run 1 (one H100): tests of the new strategy and the bench's segmented section.
set -u
t0=$(date +%s)
tar -xJf .binsB/b1.tar.xz -C /
B=/tmp/cfg/test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/env.txt
for t in test_cuda_scan_ordered test_cuda_segmented_strategies; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t rc $? $(tail -2 $OUT/$t.log | tr '\n' ' ') t+$(( $(date +%s) - t0 ))"
done
timeout 240 /tmp/cfg/bench/bench_segmented --only segmented --csv $OUT/bench_segmented.csv --commit ${ALGO_COMMIT:-ordered} > $OUT/bench_segmented.log 2>&1
echo "bench rc $? t+$(( $(date +%s) - t0 ))"
grep -E "^(scan_by_key|reduce_by_key) " $OUT/bench_segmented.log | grep -E " cub |algo::cuda" | cut -c1-120
