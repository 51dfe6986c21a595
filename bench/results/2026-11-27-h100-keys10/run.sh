#!/usr/bin/env bash
# reduce_by_key's in-place run store and segmented_reduce's fused kernel on one H100, run from the
# tree's root on the GPU machine:
#   STEP=pipe    configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests and
#                bench, OpenACC off, cuCollections from .cuco) into /tmp/fb, build the keyed and
#                segmented tests, keys_sweep, seg_reduce_probe and bench_segmented (16 jobs); run
#                the tests (~[large]) and compute-sanitizer over the changed paths at small sizes
#   STEP=sweep   keys_sweep (2^26 f32, L = 4 .. 2^20), seg_reduce_probe at L = 4096 / 2048 / 16384,
#                bench_segmented's segmented section (the build of STEP=pipe)
#   STEP=exp     build keys_sweep and seg_reduce_probe alone and run them
#   STEP=exp2    build test_cuda_segmented and seg_reduce_probe alone and run them
#   STEP=build   everything (all, bench, select_bench, bench_group, keys_sweep) into /tmp/fb
#   STEP=suite   the whole CTest suite (-E _large, the compile-only and /usr/bin/cmake docs checks,
#                which run in CI)
#   STEP=san     compute-sanitizer over the changed paths at small sizes
#   STEP=bench   the full bench and select_bench 2^10-2^28, then keys_sweep and seg_reduce_probe when
#                they are built
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
sweep() {
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | cut -c1-130
  for L in 4096 2048 16384; do
    timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/seg_reduce_probe_$L.log" 2>&1
    echo "seg_reduce_probe L=$L rc $? t+$(( $(date +%s) - t0 ))"; grep -vE "^check" "$R/seg_reduce_probe_$L.log" | tail -12 | cut -c1-150
  done
  timeout 150 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench_segmented.log" | grep -E " cub |algo::cuda" | cut -c1-130
}
{
case "${STEP:-}" in
pipe)
  configure
  timeout 420 ninja -C /tmp/fb -k 0 -j 16 bench/keys_sweep bench/bench_segmented bench/seg_reduce_probe \
    test/test_cuda_keyed_strategies test/test_cuda_segmented test/test_cuda_segmented_strategies test/test_cub_segmented \
    > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  for p in test_cuda_keyed_strategies test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented; do
    t $p "~[large]"
  done
  { san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[kept]"
    san memcheck test_cuda_segmented "[long],[offsets],[errors]"; san racecheck test_cuda_segmented "[long]"
    san synccheck test_cuda_segmented "[long]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
sweep) sweep ;;
exp)   # keys_sweep and seg_reduce_probe alone
  configure
  timeout 300 ninja -C /tmp/fb -j 16 bench/keys_sweep bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | grep -E "cub|policy|unstaged|5 blocks|128 threads|classic dflt  " | cut -c1-120
  for L in 4096 2048 16384; do
    timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/seg_reduce_probe_$L.log" 2>&1
    echo "seg_reduce_probe L=$L rc $? t+$(( $(date +%s) - t0 ))"; grep -vE "^check" "$R/seg_reduce_probe_$L.log" | tail -9 | cut -c1-150
  done
  ;;
exp2)  # the segmented tests and seg_reduce_probe alone
  configure
  timeout 300 ninja -C /tmp/fb -j 16 bench/seg_reduce_probe test/test_cuda_segmented > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_segmented "~[large]"
  san memcheck test_cuda_segmented "[long],[offsets],[errors]"
  for L in 4096 2048 16384; do
    timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/seg_reduce_probe_$L.log" 2>&1
    echo "seg_reduce_probe L=$L rc $? t+$(( $(date +%s) - t0 ))"; grep -vE "^check" "$R/seg_reduce_probe_$L.log" | tail -11 | cut -c1-150
  done
  ;;
build)
  configure
  timeout ${BUILD_LIMIT:-540} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/bench_group bench/keys_sweep bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -2 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  ;;
suite)
  timeout ${TEST_LIMIT:-450} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  ;;
san)
  { san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[kept]"
    san memcheck test_cuda_segmented "~[large]"; san racecheck test_cuda_segmented "[long]"
    san synccheck test_cuda_segmented "[long]"; san memcheck test_cuda_scan_ordered_walks "~[large]"; } 2>&1 | tee "$R/sanitizer.txt"
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
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda  " | cut -c1-120
  [ -x /tmp/fb/bench/keys_sweep ] && { timeout 200 /tmp/fb/bench/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "$C" > "$R/keys_sweep.log" 2>&1
    echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^ *reduce_by_key " "$R/keys_sweep.log" | grep -E "cub|policy|unstaged|popc|count" | cut -c1-120; }
  [ -x /tmp/fb/bench/seg_reduce_probe ] && for L in 4096 2048; do
    timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/seg_reduce_probe_$L.log" 2>&1
    echo "seg_reduce_probe L=$L rc $? t+$(( $(date +%s) - t0 ))"; grep -vE "^check" "$R/seg_reduce_probe_$L.log" | tail -9 | cut -c1-150
  done
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
