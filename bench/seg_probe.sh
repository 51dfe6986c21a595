#!/usr/bin/env bash
# segmented_reduce's development probe (bench/notes/keys_segments.md, 2026-12-02, twenty-fifth
# session): one call on a GPU machine from the tree's root, building there (16 cores: ~2-3 min):
#   OUT=... [L=4096,2048,16384] ALGO_COMMIT=<the tree sent> bash bench/seg_probe.sh
# Writes $OUT/sp/: seg_reduce_probe at each L (CUB, the default, the deferred kernel at 8 and 6
# blocks an SM, the fused kernel, a block a segment without a check), the bench's segmented
# section, test_cuda_segmented, test_families_threads (calls from several threads) and memcheck /
# racecheck / synccheck of test_cuda_segmented's [long], [errors] and [offsets] cases (at most 8
# files: what a device call brings back; the build logs stay in /tmp).
set -u
t0=$(date +%s)
R=${OUT:-/tmp/out}/sp; mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "ALGO_COMMIT=${ALGO_COMMIT:-}"; } > "$R/env.txt"
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/sp
source scripts/common.sh
algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF > /tmp/sp_configure.log 2>&1 || tail -20 /tmp/sp_configure.log
timeout 330 ninja -C /tmp/sp -j 16 seg_reduce_probe bench_segmented test_cuda_segmented test_families_threads > /tmp/sp_build.log 2>&1
echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" /tmp/sp_build.log | head
B=/tmp/sp
for len in $(echo "${L:-4096 2048 16384}" | tr ',' ' '); do
  timeout 100 $B/bench/seg_reduce_probe --L "$len" > "$R/seg_L$len.txt" 2>&1
  grep -E "WRONG|refused" "$R/seg_L$len.txt"; sed -n '/^row/,$p' "$R/seg_L$len.txt"
done
timeout 100 $B/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "${ALGO_COMMIT:-unknown}" > /tmp/sp_bench.log 2>&1
echo "bench rc $?"; grep -E "^segmented_reduce .*L=(4096|1048576)" /tmp/sp_bench.log
timeout 150 $B/test/test_cuda_segmented "~[large]" > /tmp/sp_tests.log 2>&1
echo "tests rc $?: $(tail -2 /tmp/sp_tests.log | tr '\n' ' ')"
timeout 120 $B/test/test_families_threads > /tmp/sp_threads.log 2>&1
echo "threads rc $?: $(tail -2 /tmp/sp_threads.log | tr '\n' ' ')"
grep -B5 -A15 FAILED /tmp/sp_tests.log /tmp/sp_threads.log | head -60
for t in memcheck racecheck synccheck; do
  ALGO_TEST_SMALL=1 timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/test/test_cuda_segmented "[long],[errors],[offsets]" > /tmp/sp_$t.log 2>&1
  echo "$t rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/sp_$t.log | tr '\n' ' ')"
  cat /tmp/sp_$t.log >> "$R/san.log"
done
echo "total t+$(( $(date +%s) - t0 ))"
