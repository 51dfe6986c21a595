#!/usr/bin/env bash
# group_reduce's development probe (bench/notes/group_by.md), in one call on a GPU machine from the
# tree's root; builds there (16 cores: ~1.5 min). Carry ".cuco" (cuCollections' headers) for the
# bench's cuco row.
#   OUT=... M=10,12,14 [NCU=0] [SAN_SAMPLE=1] ALGO_COMMIT=<the tree sent> bash bench/group_probe.sh
#   (ALGO_COMMIT: the device copy's .git may be stale)
# Writes $OUT/ab/: group_m_sweep over M (the default and the forced builds side by side), the
# bench's group section, ncu of the build's kernels (m = 2^20, 2^24), nsys of the default's
# kernels at m = 2^17 where nsys is installed (first 40: start, duration), the group tests and
# their sanitizers (8 files: what a device call brings back; the build logs stay in /tmp).
set -u
t0=$(date +%s)
R=${OUT:-/tmp/out}/ab; mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; echo "ALGO_COMMIT=${ALGO_COMMIT:-}"; } > "$R/env.txt"
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/ab
source scripts/common.sh
cuco=(); [ -d .cuco/include ] && cuco=(-DALGO_CUCO_DIR=$PWD/.cuco/include)
algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF "${cuco[@]}" > /tmp/ab_configure.log 2>&1 || tail -20 /tmp/ab_configure.log
timeout 330 ninja -C /tmp/ab -j 16 group_m_sweep bench_group test_cuda_group_strategies test_cuda_group_reduce > /tmp/ab_build.log 2>&1
echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" /tmp/ab_build.log | head
B=/tmp/ab
timeout 150 $B/bench/group_m_sweep --m ${M:-14,16,17,18,19,20,21,22,24} > "$R/m_sweep.txt" 2>&1; echo "m_sweep rc $?"; cat "$R/m_sweep.txt"
timeout 200 $B/bench/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "${ALGO_COMMIT:-$(git rev-parse --short HEAD)}" > "$R/bench_group.log" 2>&1
echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
  timeout 200 ncu --kernel-name regex:'scatter_kernel|aggregate_kernel|place_kernel|histogram|sample_kernel' --section SpeedOfLight \
    --section WarpStateStats --section Occupancy $B/bench/group_m_sweep --profile --m 20,24 > "$R/ncu.txt" 2>&1
  echo "ncu rc $?"; grep -E '^  [a-z].*\(|Duration|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy' "$R/ncu.txt" | sed -E 's/\(T[0-9].*//' | head -80
fi
if command -v nsys >/dev/null; then  # the default's kernels and the gaps between them (m = 2^17: one pass)
  timeout 120 nsys profile -o /tmp/ab_nsys --force-overwrite true $B/bench/group_m_sweep --profile --m 17 > /dev/null 2>&1
  timeout 60 nsys stats -q -r cuda_gpu_trace -f csv /tmp/ab_nsys.nsys-rep 2>/dev/null |
    awk -F'","' 'NR > 1 && n < 40 { gsub(/"/, ""); s = $1; if (!t0) t0 = s; name = $NF; sub(/[<(].*/, "", name);
      printf "%9.1f us  %8.1f us  %s\n", (s - t0) / 1000, $2 / 1000, name; ++n }'
fi
timeout 150 $B/test/test_cuda_group_strategies > "$R/tests.log" 2>&1
echo "tests rc $?: $(grep -E 'test cases|assertions' "$R/tests.log" | tail -2 | tr '\n' ' ')"
timeout 150 $B/test/test_cuda_group_reduce > /tmp/ab_tests2.log 2>&1
echo "group_reduce tests rc $?: $(grep -E 'test cases|assertions' /tmp/ab_tests2.log | tail -2 | tr '\n' ' ')"
cat /tmp/ab_tests2.log >> "$R/tests.log"
for tool in memcheck racecheck; do
  ALGO_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/test/test_cuda_group_strategies "[partitioned],[onepass]" > "$R/san_$tool.log" 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
done
if [ "${SAN_SAMPLE:-0}" = 1 ]; then  # the sample kernel under memcheck (its test: 2^20 records)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test/test_cuda_group_strategies "[sample]" > /tmp/ab_san_sample.log 2>&1
  echo "memcheck [sample] rc $?: $(grep -E 'ERROR SUMMARY|test cases' /tmp/ab_san_sample.log | tr '\n' ' ')"
  cat /tmp/ab_san_sample.log >> "$R/san_memcheck.log"
fi
echo "total t+$(( $(date +%s) - t0 ))"
