#!/usr/bin/env bash
# reduce_by_key's ordered look-back: tiles whose stores read no prefix value walk for the run count
# alone (issue 27: reduce_by_key at long runs, the reproducible look-back's cost over the classic
# one), on one H100, run from the tree's root on the GPU machine:
#   STEP=exp     configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests,
#                examples and bench, OpenACC off) into /tmp/fb; build everything (all, the bench
#                programs, keys_sweep, seg_reduce_probe; 16 jobs); run the look-back's and the keyed
#                tests (~[large]) and bench_segmented's segmented section
#   STEP=sweep   keys_sweep (reduce_by_key's ordered kernel with and without the prefix-value test,
#                L = 4, 256, 4096, 2^20) and its look-back stats (L = 256, 2^20)
#   STEP=suite   the whole CTest suite (-E _large, the compile-only and /usr/bin/cmake docs checks,
#                which run in CI), then compute-sanitizer over the changed paths at small sizes
#   STEP=check   the tree with the look-back change taken out: build and run the segmented, keyed
#                and ordered tests (~[large])
#   STEP=final   suite, compute-sanitizer over the changed paths, the full bench and select_bench
#   STEP=bench   the full bench and select_bench 2^10-2^28; ncu over seg_reduce_probe (L = 4096)
# ALGO_COMMIT: the commit, passed as a literal (the machine's copy of the repository reports a stale
# HEAD). Output: r_STEP.tar.xz + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$R/env_${STEP:-x}.txt"
B=/tmp/fb/test
C=${ALGO_COMMIT:-unknown}
configure() {
  [ -f /tmp/fb/build.ninja ] && return 0
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF \
    -DALGO_CUCO_DIR="$PWD/.cuco/include" > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
}
t() { local prog=$1; shift; timeout ${T_LIMIT:-200} $B/$prog "$@" > "$R/$prog.log" 2>&1; echo "$prog $* rc=$? $(grep -E 'test cases|assertions' "$R/$prog.log" | tail -1) t+$(( $(date +%s) - t0 ))"; }
san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
profile() {
  timeout 150 ncu --kernel-name regex:"fused|blocks|Segmented" --launch-skip 0 --launch-count 12 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis /tmp/fb/bench/seg_reduce_probe --L 4096 --ncu > "$R/ncu_seg_reduce.txt" 2>&1
  echo "ncu rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall" "$R/ncu_seg_reduce.txt" | cut -c1-150 | head -90
}
{
case "${STEP:-}" in
exp)
  configure
  timeout ${BUILD_LIMIT:-440} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/bench_segmented \
    bench/keys_sweep bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  T_LIMIT=90 t test_cuda_scan_ordered_walks "~[large]"
  T_LIMIT=90 t test_cuda_scan_ordered "~[large]"
  T_LIMIT=90 t test_cuda_keyed_strategies "~[large]"
  timeout 100 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key) " "$R/bench_segmented.log" | grep -E " cub |algo::cuda  |algo::cuda decoupled|algo::cuda ordered" | cut -c1-130
  ;;
sweep)
  configure
  timeout 300 ninja -C /tmp/fb -k 0 -j 16 bench/keys_sweep test/CMakeFiles/algo_warnings_as_errors.dir/warnings/sample_calls.cu.o \
    > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  timeout 150 /tmp/fb/bench/keys_sweep --L 4,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key .*(cub|algo::cuda reduce_by_key_into|decoupled|policy tuning|prefix-value|classic dflt)" "$R/keys_sweep.log" | cut -c1-130
  timeout 60 /tmp/fb/bench/keys_sweep --stats --L 256,1048576 > "$R/keys_sweep_stats.log" 2>&1
  echo "keys_sweep --stats rc $? t+$(( $(date +%s) - t0 ))"; grep -E "STATS reduce_by_key" "$R/keys_sweep_stats.log" | cut -c1-200
  ;;
suite)
  timeout ${TEST_LIMIT:-330} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  { san memcheck test_cuda_scan_ordered_walks "[by_key]"; san racecheck test_cuda_scan_ordered_walks "[by_key]"
    san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[kept]"
    san memcheck test_cuda_scan_ordered "[by_key]"; san synccheck test_cuda_scan_ordered_walks "[by_key]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
check)
  configure
  timeout 330 ninja -C /tmp/fb -k 0 -j 16 test/test_cuda_segmented test/test_cuda_keyed_strategies test/test_cuda_scan_ordered_walks \
    test/test_cuda_scan_ordered test/test_cub_segmented > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  for p in test_cuda_segmented test_cuda_keyed_strategies test_cuda_scan_ordered_walks test_cuda_scan_ordered test_cub_segmented; do
    T_LIMIT=90 t $p "~[large]"; done
  ;;
final)
  timeout ${TEST_LIMIT:-300} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  { SAN_LIMIT=60 san memcheck test_cuda_scan_ordered_walks "[by_key]"; SAN_LIMIT=60 san racecheck test_cuda_scan_ordered_walks "[by_key]"
    san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; SAN_LIMIT=60 san racecheck test_cuda_keyed_strategies "[kept]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  timeout ${BENCH_LIMIT:-150} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 60 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  " | cut -c1-120
  ;;
bench)
  timeout ${BENCH_LIMIT:-300} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 150 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  " | cut -c1-120
  profile
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
