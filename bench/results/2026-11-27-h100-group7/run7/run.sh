#!/usr/bin/env bash
# 2026-11-27, run 7 on one H100: after the final run (e6af8f7), the offsets check's fold was
# rewritten to silence nvcc's warning #549-D (59fe494; the PTX the same but one address add):
# build test_cuda_segmented there, run it whole and memcheck its offsets and bad-input cases.
# Output: summary.txt.
set -u
t0=$(date +%s)
S=$OUT/summary.txt
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb7
{
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
source scripts/common.sh
algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=OFF -DALGO_BUILD_BENCH=OFF -DALGO_OPENACC=OFF > /tmp/cfg7.log 2>&1 || tail -20 /tmp/cfg7.log
timeout 400 ninja -C /tmp/fb7 test/test_cuda_segmented > /tmp/b7.log 2>&1
echo "build rc $? t+$(( $(date +%s) - t0 )); warnings #549: $(grep -c '549-D' /tmp/b7.log)"; grep -E "error" /tmp/b7.log | head -5
timeout 150 /tmp/fb7/test/test_cuda_segmented "~[large]" > /tmp/t7.log 2>&1
echo "test_cuda_segmented rc $? $(grep -E 'test cases' /tmp/t7.log | tail -1) t+$(( $(date +%s) - t0 ))"
ALGO_TEST_SMALL=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb7/test/test_cuda_segmented "[offsets],[errors]" > /tmp/m7.log 2>&1
echo "memcheck [offsets],[errors] rc $? $(grep -E 'ERROR SUMMARY|test cases' /tmp/m7.log | tr '\n' ' ') t+$(( $(date +%s) - t0 ))"
} > "$S" 2>&1
cat "$S"
