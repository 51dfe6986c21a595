#!/usr/bin/env bash
# The A/B of the partitioned build's scatter ranks (branch scatter-atomic-rank; bench/notes/group_by.md,
# "Branch scatter-atomic-rank"), in one call on a GPU machine from the tree's root; builds there
# (16 cores: ~3-4 min). Carry ".cuco" (cuCollections' headers) for the bench's cuco row.
#   OUT=... bash bench/group_scatter_ab.sh
# Writes $OUT/ab/: group_m_sweep (atomic and serial ranks side by side), the bench's group section,
# ncu of the scatter kernel with each ranking, the group tests and their sanitizers.
set -u
t0=$(date +%s)
R=${OUT:-/tmp/out}/ab; mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; } > "$R/env.txt"
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/ab
source scripts/common.sh
cuco=(); [ -d .cuco/include ] && cuco=(-DALGO_CUCO_DIR=$PWD/.cuco/include)
algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF "${cuco[@]}" > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
timeout 330 ninja -C /tmp/ab -j 16 group_m_sweep bench_group test_cuda_group_strategies > "$R/build.log" 2>&1
echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
B=/tmp/ab
timeout 60 $B/bench/group_m_sweep --m 17,20,22 > "$R/m_sweep.txt" 2>&1; echo "m_sweep rc $?"; cat "$R/m_sweep.txt"
timeout 200 $B/bench/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "$(git rev-parse --short HEAD)" > "$R/bench_group.log" 2>&1
echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
if command -v ncu >/dev/null; then
  timeout 120 ncu --kernel-name regex:scatter_kernel --launch-count 2 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy $B/bench/group_m_sweep --profile --m 20 > "$R/ncu_scatter.txt" 2>&1
  echo "ncu rc $?"; grep -E 'scatter_kernel<|Duration|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy' "$R/ncu_scatter.txt" | head -12
fi
timeout 150 $B/test/test_cuda_group_strategies > "$R/tests.log" 2>&1
echo "tests rc $?: $(grep -E 'test cases|assertions' "$R/tests.log" | tail -2 | tr '\n' ' ')"
for tool in memcheck racecheck; do
  ALGO_TEST_SMALL=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/test/test_cuda_group_strategies "[partitioned],[onepass]" > "$R/san_$tool.log" 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
done
echo "total t+$(( $(date +%s) - t0 ))"
