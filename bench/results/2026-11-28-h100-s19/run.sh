#!/usr/bin/env bash
# The runs of the nineteenth session (2026-11-28) on one H100, from the tree's root on the GPU
# machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release) and carried in
# build_x/x.tar.xz:
#   STEP=exp1    reduce_by_key's count-only tiles (ordered_count_walk): the keyed and segmented
#                tests, the forced deep walks, keys_sweep (the default against "no count walk" in
#                one binary, twice, and its look-back stats), bench_segmented, memcheck /
#                racecheck / synccheck of the walks' [by_key] and the keyed [strategies]
#   STEP=exp2    (e371ac3) keys_sweep twice: the default, "no count walk", "count walk outlined" and the
#                default again after them (what the path costs tiles that never take it)
#   STEP=exp3    version 3 (a head-less tile in 32 folds): the keyed, walks and segmented tests,
#                keys_sweep (with "count walk, no folding tiles") and its stats, bench_segmented,
#                memcheck / racecheck of the walks' [by_key]
#   STEP=final   the count-only path out of line (08fcdf0): the keyed, walks and segmented tests,
#                keys_sweep and its stats, the full bench (the README's figures), memcheck /
#                racecheck / synccheck of the walks' [by_key] and the keyed [strategies] / [kept]
#   STEP=suite   everything but the bench built on the GPU machine, the whole CTest suite; then
#                (BENCH=1) the carried full bench once more (the README's figures)
# Output: r/ + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
[ -f $X/x.tar.xz ] && tar -C $X -xJf $X/x.tar.xz
san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-120} compute-sanitizer --tool $tool --error-exitcode 9 $X/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
tt() { local t=$1 f=$2 lim=$3; timeout $lim $X/$t "$f" > "$R/$t.log" 2>&1; echo "$t $f rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/$t.log" | tail -1)"; grep -E "FAILED|failure|with expansion" -A3 "$R/$t.log" | head -12; }
{
case "${STEP:-}" in
exp1)
  tt test_cuda_keyed_strategies "~[large]" 150
  tt test_cuda_scan_ordered_walks "~[large]" 120
  tt test_cuda_segmented "~[large]" 150
  for i in 1 2; do
    timeout 150 $X/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep$i.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep$i.log" 2>&1
    echo "keys_sweep $i rc $? t+$(( $(date +%s) - t0 ))"
  done
  grep -E "reduce_by_key" "$R/keys_sweep1.log" | grep -E "cub|policy tuning|no count walk|classic|algo::cuda" | cut -c1-110 | head -40
  timeout 100 $X/keys_sweep --stats --L 4,256,1048576 > "$R/keys_stats.log" 2>&1; echo "stats rc $?"
  grep -iE "policy tuning|no count walk" "$R/keys_stats.log" | head -20
  timeout 150 $X/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "reduce_by_key" "$R/bench_segmented.log" | cut -c1-120 | head -30
  { SAN_LIMIT=150 san memcheck test_cuda_scan_ordered_walks "[by_key]"; SAN_LIMIT=150 san racecheck test_cuda_scan_ordered_walks "[by_key]";
    SAN_LIMIT=150 san synccheck test_cuda_scan_ordered_walks "[by_key]";
    SAN_LIMIT=150 san memcheck test_cuda_keyed_strategies "[strategies]"; SAN_LIMIT=150 san racecheck test_cuda_keyed_strategies "[kept]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
exp2)
  for i in 1 2; do
    timeout 150 $X/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep$i.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep$i.log" 2>&1
    echo "keys_sweep $i rc $? t+$(( $(date +%s) - t0 ))"
  done
  grep -E "^  reduce_by_key" "$R/keys_sweep1.log" "$R/keys_sweep2.log" | grep -E " cub |policy tuning|no count walk|outlined" | cut -c1-120
  ;;
exp3)
  tt test_cuda_keyed_strategies "~[large]" 150
  tt test_cuda_scan_ordered_walks "~[large]" 120
  tt test_cuda_segmented "~[large]" 150
  timeout 150 $X/keys_sweep --L 4,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^  reduce_by_key" "$R/keys_sweep.log" | grep -E " cub |policy tuning|no count walk|no folding" | cut -c1-110
  timeout 100 $X/keys_sweep --stats --L 1048576 > "$R/keys_stats.log" 2>&1; echo "stats rc $?"
  grep -E "STATS reduce_by_key" "$R/keys_stats.log" | cut -c1-160
  for i in 1 2; do
    timeout 150 $X/bench_segmented --only segmented --csv "$R/bench_segmented$i.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench_segmented$i.log" 2>&1
    echo "bench_segmented $i rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "^  reduce_by_key" "$R/bench_segmented$i.log" | grep -E " cub  | algo::cuda  " | cut -c1-110
  done
  { SAN_LIMIT=150 san memcheck test_cuda_scan_ordered_walks "[by_key]"; SAN_LIMIT=150 san racecheck test_cuda_scan_ordered_walks "[by_key]"; } 2>&1 | tee "$R/sanitizer.txt"
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log sanitizer.txt && rm -f *.log)
  ;;
final)
  tt test_cuda_keyed_strategies "~[large]" 150
  tt test_cuda_scan_ordered_walks "~[large]" 120
  tt test_cuda_segmented "~[large]" 150
  timeout 150 $X/keys_sweep --L 4,32,256,4096,1048576 --csv "$R/keys_sweep.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/keys_sweep.log" 2>&1
  echo "keys_sweep rc $? t+$(( $(date +%s) - t0 ))"
  timeout 100 $X/keys_sweep --stats --L 4,256,1048576 > "$R/keys_stats.log" 2>&1; echo "stats rc $?"
  grep -E "STATS reduce_by_key" "$R/keys_stats.log" | cut -c1-160
  timeout 330 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^reduce_by_key" "$R/bench.log" | cut -c1-120 | head -60
  { SAN_LIMIT=150 san memcheck test_cuda_scan_ordered_walks "[by_key]"; SAN_LIMIT=150 san racecheck test_cuda_scan_ordered_walks "[by_key]";
    SAN_LIMIT=150 san synccheck test_cuda_scan_ordered_walks "[by_key]";
    SAN_LIMIT=150 san memcheck test_cuda_keyed_strategies "[strategies]"; SAN_LIMIT=150 san racecheck test_cuda_keyed_strategies "[kept]"; } 2>&1 | tee "$R/sanitizer.txt"
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log sanitizer.txt && rm -f *.log)
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
  if [ "${BENCH:-0}" = 1 ]; then
    timeout 150 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
    echo "bench rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "^reduce_by_key" "$R/bench.log" | grep -E " algo::cuda  | cub " | cut -c1-110
  fi
  (cd "$R" && tar -czf "$OUT/logs.tar.gz" *.log && rm -f *.log)
  ;;
esac
echo "total t+$(( $(date +%s) - t0 ))"
} 2>&1 | tee "$S"
