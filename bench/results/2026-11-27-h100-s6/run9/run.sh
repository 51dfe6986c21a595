#!/usr/bin/env bash
# 2026-11-27, run 9 on one H100 (the per-segment kernels' load trait and the check's step body
# written once; behaviour unchanged): the segmented and keyed tests, memcheck of the offsets,
# bad-input and long-segment cases (small sizes). Output: summary.txt.
set -u
t0=$(date +%s)
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
B=/tmp/cfg/test
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented test_cuda_keyed_strategies; do
  (timeout 280 $B/$t "~[large]" > /tmp/$t.log 2>&1; echo "$t rc $? $(grep -h 'test case' /tmp/$t.log | tail -1)" >> /tmp/tests.txt) &
done
wait; echo "tests t+$(( $(date +%s) - t0 ))"; sort /tmp/tests.txt
ALGO_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_segmented "[offsets],[errors],[long]" > /tmp/memcheck.log 2>&1
echo "memcheck test_cuda_segmented [offsets],[errors],[long] rc $? $(grep -E 'ERROR SUMMARY|test case' /tmp/memcheck.log | tr '\n' ' ')"
} > "$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
