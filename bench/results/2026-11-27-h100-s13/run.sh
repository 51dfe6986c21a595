#!/usr/bin/env bash
# The final runs of 2026-11-27 evening on one H100, from the tree's root on the GPU machine:
#   STEP=suite   configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests,
#                examples and bench, OpenACC off, cuCollections from .cuco/include) into /tmp/fb;
#                build everything (all and the bench programs; 16 jobs); the whole CTest suite
#                (-E _large and the checks that call /usr/bin/cmake or need no GPU, which run in CI);
#                seg_reduce_probe at L = 256, 4096, 2048 before it
#   STEP=final   compute-sanitizer over the changed paths (ALGO_TEST_SMALL=1), the full bench,
#                select_bench 2^10-2^28, seg_reduce_probe at L = 4096
# ALGO_COMMIT: the commit, passed as a literal. Output: r_STEP.tar.xz + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$R/env_${STEP:-x}.txt"
B=/tmp/fb/test
C=${ALGO_COMMIT:-unknown}
san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
{
case "${STEP:-}" in
suite)
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF \
    -DALGO_CUCO_DIR="$PWD/.cuco/include" > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  grep -E "compile checks" "$R/configure.log"
  timeout ${BUILD_LIMIT:-380} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/seg_reduce_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  for L in 256 4096 2048; do timeout 60 /tmp/fb/bench/seg_reduce_probe --L $L > "$R/probe_$L.log" 2>&1
    echo "probe L=$L rc $?"; grep -E "WRONG" "$R/probe_$L.log" | cut -c1-120 | head -3
    sed -n '/median of 3 rounds/,$p' "$R/probe_$L.log" | grep -E "row|cub::|offsets\)|fused kernel, 5|staged|no check"; done
  timeout ${TEST_LIMIT:-190} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  ;;
final)
  { san memcheck test_cuda_segmented "[long],[offsets],[errors]"; san racecheck test_cuda_segmented "[long],[offsets]"
    san synccheck test_cuda_segmented "[long],[offsets]"; SAN_LIMIT=60 san memcheck test_cuda_reduce_strategies "[locked]"
    SAN_LIMIT=60 san memcheck test_cuda_scan_strategies "[layers]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  timeout ${BENCH_LIMIT:-150} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 60 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  timeout 60 /tmp/fb/bench/seg_reduce_probe --L 4096 > "$R/probe_4096.log" 2>&1
  echo "probe rc $? t+$(( $(date +%s) - t0 ))"; sed -n '/median of 3 rounds/,$p' "$R/probe_4096.log" | head -8
  grep -E "^ *(reduce_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  " | cut -c1-120
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
