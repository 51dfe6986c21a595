#!/usr/bin/env bash
# The runs of the twenty-first session (2026-12-01) on one H200 (the only kind lent), from the
# tree's root on the GPU machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release) and
# carried in build_x/x.tar.xz:
#   STEP=ab     the scan and segmented sections of the bench built against three header trees
#               (old = 5e0d2df; A = the block scan's spine over the warps' totals only; B = A and
#               the last tile's items past the end never folded), in the order old A B B A old, then
#               the spans cases (test_cuda_scan_ordered_walks "[spans]") and the block-scan tests
#               built from B
#   STEP=suite  everything but the bench built on the GPU machine from the tree carried, the whole
#               CTest suite, [spans] and [count_walk] under memcheck / racecheck / synccheck
# Output: r/ + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
[ -f $X/x.tar.xz ] && tar -C $X -xJf $X/x.tar.xz
{
case "${STEP:-}" in
ab)
  for v in ${ORDER:-old A B B A old}; do
    for sec in scan segmented; do
      timeout 120 $X/$v/bench --only $sec --csv "$R/bench_${sec}_$v.$(date +%s).csv" --commit "$v" > "$R/bench_${sec}_$v.log" 2>&1
      echo "$v $sec rc $? t+$(( $(date +%s) - t0 ))"
    done
  done
  for v in ${TESTED:-B}; do
    $X/$v/test_cuda_scan_ordered_walks "[spans]" > "$R/spans_$v.log" 2>&1
    echo "spans $v rc $?: $(grep -E 'test cases|assertions' "$R/spans_$v.log" | tail -1)"
    grep -E "with expansion|FAILED:|not adjacent" -A1 "$R/spans_$v.log" | grep -vE '^--' | head -12
  done
  $X/${TESTED:-B}/test_cuda_scan_block_scans > "$R/block_scans_B.log" 2>&1
  echo "block_scans B rc $?: $(grep -E 'test cases|assertions' "$R/block_scans_B.log" | tail -1)"
  for tool in memcheck racecheck synccheck; do
    [ $(( $(date +%s) - t0 )) -gt 480 ] && { echo "$tool: no time left"; continue; }
    ALGO_TEST_SMALL=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $X/${TESTED:-B}/test_cuda_scan_ordered_walks "[spans]" > "$R/san_$tool.log" 2>&1
    echo "$tool [spans] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
  done
  ;;
suite)
  export ALGO_NO_INSTALL=1 ALGO_CCCL_NEXT_VERSION=none ALGO_BUILD_DIR=/tmp/fb
  source scripts/common.sh
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=OFF -DALGO_OPENACC=OFF > "$R/configure.log" 2>&1 || tail -20 "$R/configure.log"
  timeout ${BUILD_LIMIT:-340} ninja -C /tmp/fb -k 0 -j 16 all > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head; tail -1 "$R/build.log"
  echo "$(ls /tmp/fb/test | grep -c '^test_') test programs"
  timeout ${TEST_LIMIT:-180} ctest --test-dir /tmp/fb --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "passed: $(grep -cE ' Passed ' "$R/ctest.log"), skipped: $(grep -cE '\*\*\*Skipped' "$R/ctest.log")"
  /tmp/fb/test/test_cuda_scan_ordered_walks "[spans]" -s 2>&1 | grep -E "not adjacent|test cases" | sort | uniq -c | sort -rn | head -8
  for tool in memcheck racecheck synccheck; do
    [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "$tool: no time left"; continue; }
    ALGO_TEST_SMALL=1 timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/fb/test/test_cuda_scan_ordered_walks "[spans]" > "$R/san_$tool.log" 2>&1
    echo "$tool [spans],[count_walk] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
  done
  ;;
esac
} 2>&1 | tee "$S"
(cd "$R" && ls *.log >/dev/null 2>&1 && tar -czf "$OUT/logs_${STEP:-x}.tar.gz" *.log && rm -f *.log)
echo "total t+$(( $(date +%s) - t0 ))" | tee -a "$S"
