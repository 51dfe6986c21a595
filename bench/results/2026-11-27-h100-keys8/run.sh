#!/usr/bin/env bash
# Keyed scans and reduce_by_key with the L2 prefetch ahead of the tiles (one H100), run from the
# tree's root on the GPU machine:
#   STEP=sweep   configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests and
#                bench, OpenACC off, cuCollections from .cuco) into /tmp/fb, build the programs below
#                (16 jobs), run the keyed and segmented tests and the group-by strategies' tests
#                (the [fancy] case's first run), then keys_sweep (2^26 f32, L = 4 .. 2^20: the
#                ordered look-back with and without the prefetch, initial delays, the classic one,
#                the look-back skipped) and bench_segmented's segmented section
#   STEP=group   build and run the group-by tests, bench_group (the group_reduce section: the batched
#                reads and their "one read at a time" rows), keys_sweep at L = 4, 256, 4096 (the
#                ordered look-back's initial delay)
#   STEP=group2  the group-by tests, bench_group, and ncu of the one-table build kernel at f32
#                uniform m = 2^20 (the default's and the one capped to 8 blocks an SM)
#   STEP=group3  the group-by tests (memcheck of the sample's), bench_group
#   STEP=final   the bench and the group-by tests built, run (memcheck of the group tests' new cases),
#                then the full bench and select_bench
#   STEP=check   the group strategies' tests alone (the final tree's [sample] case)
#   STEP=build   everything (all, bench, select_bench) into /tmp/fb
#   STEP=suite   the whole CTest suite (as the final runs of 2026-11-27 left out: -E _large, the
#                compile-only and /usr/bin/cmake docs checks, which run in CI) and compute-sanitizer
#                over the changed paths at small sizes
#   STEP=bench   the full bench and select_bench 2^10-2^28
# Output: r.tar.xz + summary.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
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
{
case "${STEP:-}" in
sweep)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/keys_sweep bench/bench_segmented test/test_cuda_group_strategies \
    test/test_cuda_scan_ordered test/test_cuda_scan_ordered_walks test/test_cuda_keyed_strategies test/test_cuda_segmented \
    test/test_cuda_segmented_strategies > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "[fancy]"
  for p in test_cuda_scan_ordered test_cuda_scan_ordered_walks test_cuda_keyed_strategies test_cuda_segmented test_cuda_segmented_strategies; do
    t $p "~[large]"
  done
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|scan_by_key) " "$R/keys_sweep.log" | cut -c1-130
  grep STATS "$R/keys_sweep.log" | cut -c1-160
  timeout 150 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|scan_by_key) " "$R/bench_segmented.log" | grep -E " cub |algo::cuda" | cut -c1-130
  ;;
group)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/bench_group bench/keys_sweep test/test_cuda_group_strategies \
    test/test_cuda_group_reduce > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "~[large]"
  t test_cuda_group_reduce "~[large]"
  timeout 240 /tmp/fb/bench/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "$C" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "thrust|algo::cuda \(open|one table|forced|one read|!!" "$R/bench_group.log" | grep -v locked | cut -c1-120
  timeout 100 /tmp/fb/bench/keys_sweep --L 4,256,4096 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | grep -E "cub|ordered|classic dflt" | cut -c1-110
  ;;
group2)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/bench_group test/test_cuda_group_strategies test/test_cuda_group_reduce > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "~[large]"
  t test_cuda_group_reduce "~[large]"
  timeout 200 /tmp/fb/bench/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "$C" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "thrust|algo::cuda \(open|one table|forced|8 blocks|!!" "$R/bench_group.log" | grep -v locked | cut -c1-120
  timeout 150 ncu --kernel-name regex:oa_build_kernel --launch-count 2 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    /tmp/fb/bench/bench_group --only group_reduce --case "f32 uniform m=2^20" --impl "oa tuning: 8 blocks" --reps 1 > "$R/ncu_2p20.txt" 2>&1
  echo "ncu rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "oa_build_kernel|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issued Warp|No Eligible|Stall|L2 Hit|Mem Busy|Max Bandwidth|Memory Throughput|Compute \(SM\)" "$R/ncu_2p20.txt" | cut -c1-150 | head -60
  ;;
group3)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/bench_group test/test_cuda_group_strategies test/test_cuda_group_reduce > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "~[large]"
  t test_cuda_group_reduce "~[large]"
  ALGO_TEST_SMALL=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_group_strategies "[sample]" > "$R/memcheck_sample.txt" 2>&1
  echo "memcheck [sample] rc $? $(grep -E 'ERROR SUMMARY|test cases' "$R/memcheck_sample.txt" | tr '\n' ' ')"
  timeout 200 /tmp/fb/bench/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "$C" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "thrust|algo::cuda \(open|one table|forced|first table|!!" "$R/bench_group.log" | grep -v locked | cut -c1-120
  ;;
final)
  configure
  timeout 400 ninja -C /tmp/fb -k 0 -j 16 bench/bench bench/select_bench test/test_cuda_group_strategies \
    test/test_cuda_group_reduce > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "~[large]"
  t test_cuda_group_reduce "~[large]"
  san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
  { san memcheck test_cuda_group_strategies "[sample],[fancy],[tuning]"; san memcheck test_cuda_group_reduce "[cuda]"; } 2>&1 | tee "$R/sanitizer.txt"
  timeout ${BENCH_LIMIT:-300} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  timeout 100 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *group_reduce " "$R/bench.log" | grep -E "thrust|\(open_addressing\)|no switch|forced" | cut -c1-120
  ;;
check)
  configure
  timeout 300 ninja -C /tmp/fb -k 0 -j 16 test/test_cuda_group_strategies > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_group_strategies "~[large]"
  ALGO_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_cuda_group_strategies "[sample]" > "$R/memcheck_sample.txt" 2>&1
  echo "memcheck [sample] rc $? $(grep -E 'ERROR SUMMARY|test cases' "$R/memcheck_sample.txt" | tr '\n' ' ')"
  ;;
build)
  configure
  timeout ${BUILD_LIMIT:-540} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/bench_group > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -2 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  ;;
suite)
  timeout ${TEST_LIMIT:-450} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
  { san memcheck test_cuda_group_strategies "[sample],[fancy],[tuning]"; san racecheck test_cuda_group_strategies "[sample]"
    san memcheck test_cuda_group_reduce "[cuda]"; san memcheck test_cuda_group_strategies "[partitioned]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
bench)
  configure  # (a fresh machine: what the bench needs only)
  timeout 400 ninja -C /tmp/fb -j 16 bench/bench bench/select_bench > "$R/build_bench.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"
  timeout ${BENCH_LIMIT:-420} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 150 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *group_reduce " "$R/bench.log" | grep -E "thrust|\(open_addressing\)|no switch|forced" | cut -c1-120
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
