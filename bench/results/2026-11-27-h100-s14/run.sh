#!/usr/bin/env bash
# The runs of 2026-11-27 (night) on one H100, from the tree's root on the GPU machine:
#   STEP=exp     configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests and bench,
#                OpenACC off) into /tmp/fb; build the changed tests and seg_reduce_probe; run
#                test_families_threads, test_cuda_keyed_strategies, test_cuda_segmented,
#                test_cuda_segmented_strategies, test_cub_segmented; seg_reduce_probe at L = 4096, 2048,
#                16384, 256; compute-sanitizer (ALGO_TEST_SMALL=1) over the segmented tests' long,
#                offsets and errors cases and the threads test
#   STEP=suite   build everything (all and the bench programs; cuCollections from .cuco/include) and
#                run the whole CTest suite (-E _large and the checks that need no GPU, which run in CI)
#   STEP=final   compute-sanitizer over the changed paths, the full bench, select_bench 2^10-2^28,
#                seg_reduce_probe at L = 4096
# ALGO_COMMIT: the commit, passed as a literal. Output: r_STEP.tar.xz + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$R/env_${STEP:-x}.txt"
B=/tmp/fb/test
C=${ALGO_COMMIT:-unknown}
san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
configure() {
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF \
    -DALGO_CUCO_DIR="$PWD/.cuco/include" > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  grep -E "compile checks" "$R/configure.log"
}
probe() {
  for L in "$@"; do timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/probe_$L.log" 2>&1
    echo "probe L=$L rc $?"; grep -E "WRONG|refused" "$R/probe_$L.log" | cut -c1-120 | head -3
    sed -n '/median of 3 rounds/,$p' "$R/probe_$L.log" | grep -E "row|cub::|offsets\)|fused kernel, [56]|pdl|no check"; done
}
{
case "${STEP:-}" in
exp)
  configure
  T="test_families_threads test_cuda_keyed_strategies test_cuda_segmented test_cuda_segmented_strategies test_cub_segmented"
  timeout ${BUILD_LIMIT:-300} ninja -C /tmp/fb -k 0 -j 16 $(for t in $T; do echo test/$t; done) bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  probe 4096 2048 16384 256
  for t in $T; do timeout 240 $B/$t "~[large]" > "$R/$t.log" 2>&1; echo "$t rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/$t.log" | tail -1)"
    grep -E "FAILED|failure|REQUIRE|with expansion" "$R/$t.log" | head -8; done
  { san memcheck test_cuda_segmented "[long],[offsets],[errors]"; san racecheck test_cuda_segmented "[long],[offsets]"
    SAN_LIMIT=150 san memcheck test_families_threads "[threads]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
suite)
  configure
  timeout ${BUILD_LIMIT:-380} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  timeout ${TEST_LIMIT:-200} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  ;;
final)
  { san memcheck test_cuda_segmented "[long],[offsets],[errors]"; san racecheck test_cuda_segmented "[long],[offsets]"
    san synccheck test_cuda_segmented "[long],[offsets]"; SAN_LIMIT=150 san memcheck test_families_threads "[threads]"
    SAN_LIMIT=60 san memcheck test_cuda_keyed_strategies "[strategies]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  timeout ${BENCH_LIMIT:-150} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 60 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  probe 4096
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  " | cut -c1-120
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
