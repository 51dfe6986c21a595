#!/usr/bin/env bash
# The runs of the twentieth session (2026-12-01) on one H200 (the only kind lent that day), from the
# tree's root on the GPU machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release) and
# carried in build_x/x.tar.xz:
#   STEP=probe1  group_onepass_probe at 2^26 records, m = 2^24 / 2^22 / 2^20 uniform keys
#   STEP=suite   everything but the bench built on the GPU machine, the whole CTest suite, the
#                new count-only test under memcheck / racecheck, then (BENCH=1) the carried full
#                bench and keys_sweep
#   STEP=final   the tree that lands: everything but the bench built there, the whole CTest suite,
#                [count_walk] and [spans] (and memcheck / racecheck of them), the carried
#                old_walks (test_cuda_scan_ordered_walks built against 3a5e7fe's headers: made-up
#                prefixes for the count-only tiles) on [spans], which must fail, then keys_sweep
#                while time is left
#   STEP=large   the seven test programs with [large] cases (past 2^31 elements) built there and run
#                on their [large] cases (the suite leaves them out: *_large), and [count_walk] again
# Output: r/ + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
[ -f $X/x.tar.xz ] && tar -C $X -xJf $X/x.tar.xz
{
case "${STEP:-}" in
probe1)
  for lm in 24 22 20; do
    timeout 150 $X/group_onepass_probe --log2m $lm > "$R/probe_m$lm.log" 2>&1
    echo "probe m=2^$lm rc $? t+$(( $(date +%s) - t0 ))"
    grep -vE "^  check" "$R/probe_m$lm.log"
    grep -E "CHECK" "$R/probe_m$lm.log" | head -5
  done
  ;;
suite)
  export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=OFF -DALGO_OPENACC=OFF > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  timeout ${BUILD_LIMIT:-330} ninja -C /tmp/fb -k 0 -j 16 all > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  timeout ${TEST_LIMIT:-200} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  /tmp/fb/test/test_cuda_scan_ordered_walks "[count_walk]" > "$R/count_walk.log" 2>&1; echo "count_walk rc $?: $(grep -E 'test cases|assertions' "$R/count_walk.log" | tail -1)"
  grep -E "FAILED|with expansion|count only|differs" -A3 "$R/count_walk.log" | head -20
  for tool in memcheck racecheck; do
    ALGO_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/fb/test/test_cuda_scan_ordered_walks "[count_walk]" > "$R/san_$tool.log" 2>&1
    echo "$tool [count_walk] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
  done
  if [ "${BENCH:-0}" = 1 ]; then
    timeout 200 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
    echo "bench rc $? t+$(( $(date +%s) - t0 ))"
    timeout 100 $X/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep.log" 2>&1
    echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  fi
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log && rm -f *.log)
  ;;
final)
  export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=OFF -DALGO_OPENACC=OFF > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  timeout ${BUILD_LIMIT:-340} ninja -C /tmp/fb -k 0 -j 16 all > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  timeout ${TEST_LIMIT:-200} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "passed: $(grep -cE ' Passed ' "$R/ctest.log"), skipped: $(grep -cE '\*\*\*Skipped' "$R/ctest.log")"
  /tmp/fb/test/test_cuda_scan_ordered_walks "[count_walk]" > "$R/walks_new.log" 2>&1; echo "new [count_walk] (with [spans]) rc $?: $(grep -E 'test cases|assertions' "$R/walks_new.log" | tail -1)"
  grep -E "FAILED|with expansion" -A3 "$R/walks_new.log" | head -12
  $X/old_walks "[spans]" > "$R/walks_old.log" 2>&1; echo "old_walks [spans] rc $? (must fail): $(grep -E 'test cases|assertions' "$R/walks_old.log" | tail -1)"
  grep -E "with expansion|FAILED:" -A2 "$R/walks_old.log" | grep -vE "^--" | head -8
  for tool in memcheck racecheck; do
    ALGO_TEST_SMALL=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/fb/test/test_cuda_scan_ordered_walks "[count_walk]" > "$R/san_$tool.log" 2>&1
    echo "$tool [count_walk],[spans] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
  done
  if [ $(( $(date +%s) - t0 )) -lt 500 ]; then
    timeout 60 $X/keys_sweep --L 4,256,1048576 --csv "$R/keys_sweep.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep.log" 2>&1
    echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "^  reduce_by_key" "$R/keys_sweep.log" | grep -E " cub |policy tuning|no count walk|no folding" | cut -c1-110
  fi
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log && rm -f *.log)
  ;;
large)
  export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fl
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=OFF -DALGO_BUILD_BENCH=OFF -DALGO_OPENACC=OFF > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  L="test_cub_segmented test_cub_select test_cuda_reduce_default test_cuda_scan_lookback test_cuda_segmented test_cuda_select test_cuda_transpose_strategies"
  timeout ${BUILD_LIMIT:-240} ninja -C /tmp/fl -k 0 -j 16 $L test_cuda_scan_ordered_walks > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  for t in $L; do
    timeout ${LARGE_LIMIT:-120} /tmp/fl/test/$t "[large]" > "$R/$t.large.log" 2>&1
    echo "$t [large] rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions|No test cases' "$R/$t.large.log" | tail -1)"
    grep -E "FAILED|with expansion|SKIP" -A3 "$R/$t.large.log" | head -10
  done
  /tmp/fl/test/test_cuda_scan_ordered_walks "[count_walk]" > "$R/count_walk.log" 2>&1; echo "count_walk rc $?: $(grep -E 'test cases|assertions' "$R/count_walk.log" | tail -1)"
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log && rm -f *.log)
  ;;
esac
echo "total t+$(( $(date +%s) - t0 ))"
} > "$S" 2>&1
cat "$S"
