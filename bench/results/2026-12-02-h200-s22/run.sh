#!/usr/bin/env bash
# The runs of the twenty-second session (2026-12-02) on one H200 (the only kind lent), from the
# tree's root on the GPU machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release)
# and carried in build_x/x.tar.xz:
#   STEP=probe  (1) group_m_sweep: the default, one table, the one-pass partitioned build and the
#               two-pass one against Thrust's sort over m = 2^14 .. 2^22 (f32 uniform, 2^26 records);
#               (2) test_cuda_group_strategies (the one-pass cases among them) and memcheck /
#               racecheck / synccheck over its [onepass] and [sample] cases; (3) the scan section of
#               the bench from main (m) and from the branch rts-whole-tiles (r), in the order
#               ORDER (default m r r m)
#   STEP=probe2 group_m_sweep (m = 2^10 .. 2^22, the new sizing rule's columns), the bench's
#               group_reduce section (bench_group, with cuCollections), ncu's kernel times of one
#               one-pass call and one one-table call at m = 2^17 and 2^20, the group and scan
#               strategy tests, memcheck / synccheck / racecheck over the one-pass cases
#   STEP=suite  everything but the bench built on the GPU machine from the tree carried, the whole
#               CTest suite, the group cases and [spans] under compute-sanitizer
# Output: r/ + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
[ -f $X/x.tar.xz ] && tar -C $X -xJf $X/x.tar.xz
{
case "${STEP:-}" in
probe)
  timeout 150 $X/group_m_sweep ${SWEEP_ARGS:-} > "$R/m_sweep.txt" 2>&1; echo "m_sweep rc $? t+$(( $(date +%s) - t0 ))"
  cat "$R/m_sweep.txt"
  timeout 120 $X/test_cuda_group_strategies > "$R/group_strategies.log" 2>&1
  echo "group_strategies rc $?: $(grep -E 'test cases|assertions' "$R/group_strategies.log" | tail -2 | tr '\n' ' ')"
  grep -E "FAILED|with expansion" -A3 "$R/group_strategies.log" | head -30
  for tool in memcheck racecheck synccheck; do
    [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "$tool: no time left"; continue; }
    ALGO_TEST_SMALL=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $X/test_cuda_group_strategies "[onepass],[sample],[partitioned]" > "$R/san_$tool.log" 2>&1
    echo "$tool [onepass],[sample],[partitioned] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_$tool.log" | tr '\n' ' ')"
  done
  for v in ${ORDER:-m r r m}; do
    [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "$v: no time left"; continue; }
    timeout 100 $X/$v/bench --only scan --csv "$R/bench_scan_$v.$(date +%s).csv" --commit "$v" > "$R/bench_scan_$v.$(date +%s).log" 2>&1
    echo "$v scan rc $? t+$(( $(date +%s) - t0 ))"
  done
  ;;
probe2)
  timeout 100 $X/group_m_sweep --m ${SWEEP_M:-10,12,14,16,17,18,19,20,21,22} > "$R/m_sweep2.txt" 2>&1; echo "m_sweep rc $? t+$(( $(date +%s) - t0 ))"
  cat "$R/m_sweep2.txt"
  timeout 200 $X/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "${COMMIT:-x}" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  if command -v ncu >/dev/null; then
    timeout 150 ncu --metrics gpu__time_duration.sum --csv $X/group_m_sweep --profile --m 17,20 > "$R/ncu_profile.csv" 2> "$R/ncu_profile.err"
    echo "ncu rc $? t+$(( $(date +%s) - t0 ))"
    python3 - "$R/ncu_profile.csv" <<'PY'
import csv, sys, re
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ki = hdr.index("Kernel Name"); vi = hdr.index("Metric Value"); ui = hdr.index("Metric Unit")
for r in rows[1:]:
    name = re.sub(r"<.*", "", r[ki].split("(")[0])[-40:]
    print(f"{name:40s} {r[vi]:>12s} {r[ui]}")
PY
  else echo "no ncu"; fi
  for t in test_cuda_group_strategies test_cuda_scan_strategies; do
    timeout 150 $X/$t > "$R/$t.log" 2>&1
    echo "$t rc $?: $(grep -E 'test cases|assertions' "$R/$t.log" | tail -2 | tr '\n' ' ') t+$(( $(date +%s) - t0 ))"
    grep -E "FAILED|with expansion" -A3 "$R/$t.log" | head -30
  done
  for tool in memcheck synccheck; do
    ALGO_TEST_SMALL=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $X/test_cuda_group_strategies "[onepass],[partitioned]" > "$R/san2_$tool.log" 2>&1
    echo "$tool [onepass],[partitioned] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san2_$tool.log" | tr '\n' ' ')"
  done
  ALGO_TEST_SMALL=1 timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $X/test_cuda_group_strategies "[onepass]" > "$R/san2_racecheck.log" 2>&1
  echo "racecheck [onepass] rc $?: $(grep -E 'RACECHECK SUMMARY|test cases' "$R/san2_racecheck.log" | tr '\n' ' ')"
  ;;
suite)
  # first, ncu's sections of the scatter pass and the one-pass aggregate (one call, m = 2^20)
  if command -v ncu >/dev/null && [ -x $X/group_m_sweep ]; then
    timeout 120 ncu --kernel-name regex:'scatter_kernel|onepass_aggregate_kernel' --launch-count 2 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section SchedulerStats --section LaunchStats $X/group_m_sweep --profile --m 20 > "$R/ncu_scatter.txt" 2>&1
    echo "ncu scatter rc $? t+$(( $(date +%s) - t0 ))"
    grep -E 'scatter_kernel|onepass_aggregate|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L2 Hit|Mem Busy|Max Bandwidth|L1/TEX Hit' "$R/ncu_scatter.txt" | head -60
  fi
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
  for tool in memcheck racecheck synccheck; do
    [ $(( $(date +%s) - t0 )) -gt 540 ] && { echo "$tool: no time left"; continue; }
    ALGO_TEST_SMALL=1 timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/fb/test/test_cuda_scan_ordered_walks "[spans]" > "$R/san_spans_$tool.log" 2>&1
    echo "$tool [spans] rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/san_spans_$tool.log" | tr '\n' ' ')"
  done
  ;;
esac
} 2>&1 | tee "$S"
(cd "$R" && ls *.log >/dev/null 2>&1 && tar -czf "$OUT/logs_${STEP:-x}.tar.gz" *.log && rm -f *.log)
echo "total t+$(( $(date +%s) - t0 ))" | tee -a "$S"
