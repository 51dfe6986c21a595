#!/usr/bin/env bash
# reduce_by_key on one H100 (run 1: the pipelined look-back kernel, 69cfa67; run 2: the staged run
# store), run from the tree's root on the GPU machine:
#   STEP=pipe    configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests and
#                bench, OpenACC off, cuCollections from .cuco) into /tmp/fb, build the keyed and
#                segmented tests, the group strategies' tests, keys_sweep and bench_segmented
#                (16 jobs); run the tests (~[large]; the group strategies' [sample] case against the
#                first-4096 sample: its first run on that tree), compute-sanitizer memcheck, racecheck
#                and synccheck over the keyed strategies' tests at small sizes, then keys_sweep (2^26
#                f32, L = 4 .. 2^20: run 1 the pipelined kernel ("policy tuning") against one block a
#                tile; run 2 the staged run store against the unstaged one and bounded to 4 blocks;
#                run 5 the keys kept in the staging against "keys reloaded")
#                and bench_segmented's segmented section
#   STEP=sweep   keys_sweep and bench_segmented again (the build of STEP=pipe)
#   STEP=shape   build keys_sweep alone and run it (run 3: the ordered look-back in bigger tiles,
#                512 x 16, 1024 x 8, 512 x 8, against the default shapes; run 4: the walk's next
#                window read in the same round, "window ahead")
#   STEP=build   everything (all, bench, select_bench, bench_group, keys_sweep) into /tmp/fb
#   STEP=suite   the whole CTest suite (-E _large, the compile-only and /usr/bin/cmake docs checks,
#                which run in CI) and compute-sanitizer over the changed paths at small sizes
#   STEP=bench   the full bench and select_bench 2^10-2^28, then keys_sweep when it is built
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
pipe)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/keys_sweep bench/bench_segmented test/test_cuda_group_strategies \
    test/test_cuda_scan_ordered test/test_cuda_scan_ordered_walks test/test_cuda_keyed_strategies test/test_cuda_segmented \
    test/test_cuda_segmented_strategies > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  for p in test_cuda_keyed_strategies test_cuda_segmented test_cuda_scan_ordered_walks test_cuda_scan_ordered test_cuda_segmented_strategies test_cuda_group_strategies; do
    t $p "~[large]"
  done
  san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-120} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
  { san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[ordered],[kept]"
    san synccheck test_cuda_keyed_strategies "[ordered]"; san memcheck test_cuda_segmented "[graph]"
    san memcheck test_cuda_group_strategies "[sample]"; san memcheck test_cuda_segmented "~[large]"; } 2>&1 | tee "$R/sanitizer.txt"
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | cut -c1-130
  timeout 150 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/bench_segmented.log" | grep -E " cub |algo::cuda" | cut -c1-130
  ;;
shape)
  configure
  timeout 300 ninja -C /tmp/fb -j 16 bench/keys_sweep > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|scan_by_key) " "$R/keys_sweep.log" | grep -E "cub|policy|x [0-9]|ahead|classic dflt" | cut -c1-120
  grep STATS "$R/keys_sweep.log" | cut -c1-200
  ;;
sweep)
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | cut -c1-130
  timeout 150 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/bench_segmented.log" | grep -E " cub |algo::cuda" | cut -c1-130
  ;;
build)
  configure
  timeout ${BUILD_LIMIT:-540} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/bench_group bench/keys_sweep > "$R/build.log" 2>&1
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
  { san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[kept]"
    san memcheck test_cuda_segmented "~[large]"; san memcheck test_cuda_scan_ordered_walks "~[large]"
    san memcheck test_cuda_group_strategies "[sample]"; } 2>&1 | tee "$R/sanitizer.txt"
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
  grep -E "^ *reduce_by_key " "$R/bench.log" | grep -E " cub |algo::cuda  " | cut -c1-120
  [ -x /tmp/fb/bench/keys_sweep ] && { timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
    echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | grep -E "cub|policy|128 threads|classic dflt  " | cut -c1-120; }
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
