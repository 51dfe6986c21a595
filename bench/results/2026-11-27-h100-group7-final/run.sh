#!/usr/bin/env bash
# Final tree of 2026-11-27 (group_reduce's partitioned build reworked), one H100, built there:
#   STEP=build   configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests,
#                examples and bench, OpenACC off, cuCollections from .cuco) into /tmp/fb and build
#                everything (16 jobs); the machine keeps /tmp/fb while it stays warm
#   STEP=suite   the whole CTest suite, but the >2^31 tests (-E _large), the compile-only checks that
#                rebuild from the build tree (docs_snippets_*, install_and_find_package) and the docs
#                checks that call /usr/bin/cmake (docs_links, docs_api_reference): they need no GPU
#                and run in CI; then compute-sanitizer over the group-by paths changed (and the
#                segmented offsets paths), at small sizes
#   STEP=bench   the full bench (bench/bench) and select_bench 2^10-2^28
# Output: r.tar.xz + summary.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$R/env_${STEP:-x}.txt"
B=/tmp/fb/test
{
case "${STEP:-}" in
build)
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON -DALGO_OPENACC=OFF \
    -DALGO_CUCO_DIR="$PWD/.cuco/include" > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  timeout ${BUILD_LIMIT:-540} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench > "$R/build.log" 2>&1
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
  { san memcheck test_cuda_group_strategies "[partitioned]"; san racecheck test_cuda_group_strategies "[partitioned]"
    san memcheck test_cuda_group_reduce "[cuda]"; san memcheck test_cuda_segmented "[offsets],[long],[errors]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
bench)
  timeout ${BENCH_LIMIT:-420} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 150 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^group_reduce " "$R/bench.log" | grep -E "thrust|open_addressing\)|forced" | grep -E "m=2\^24|m=2\^20" | cut -c1-120
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
