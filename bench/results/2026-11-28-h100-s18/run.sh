#!/usr/bin/env bash
# The runs of the eighteenth session (2026-11-28) on one H100, from the tree's root on the GPU
# machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release) and carried in
# build_x/x.tar.xz:
#   STEP=exp1    the one table sized by the sample: test_cuda_group_strategies ([sample] with the
#                new case, [partitioned], the tunings), test_cuda_group_reduce, memcheck / racecheck
#                of [sample]; test_cuda_segmented [uniform] (the in-memory case's fixed check, owed
#                from the seventeenth session); bench_group --only group_reduce (the sized default
#                against "first table not sized by the sample" in the same run)
#   STEP=final   version 2 (the sample's second part in one round of loads, skipped for skewed
#                keys it cannot size): test_cuda_group_strategies [sample], the full bench (the
#                README's figures), memcheck / racecheck of [sample]
#   STEP=ncu     each of the default's first kernels timed (ncu) at f32 uniform 2^20 / 2^24, Zipf
#                2^24 / 2^20, uniform 1024: what the sample and the gated kernels cost
#   STEP=final3  version 3 (the sample's insert not inlined, the size tried power by power):
#                test_cuda_group_strategies [sample], the full bench (the README's figures), the
#                sample kernel's time and instructions (ncu), memcheck / racecheck of [sample]
#   STEP=suite   everything but the bench built on the GPU machine, the whole CTest suite
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
  tt test_cuda_group_strategies "[sample]" 120
  timeout 300 $X/bench_group --only group_reduce --csv "$R/bench_group.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "uniform|zipf" "$R/bench_group.log" | grep -E "sort\+|open_addressing|not sized|one table \(no|partitioned \(forced" | cut -c1-120
  grep -E "!!" "$R/bench_group.log" | head
  tt test_cuda_group_strategies "~[large]" 240
  cp "$R/test_cuda_group_strategies.log" "$R/tgs_all.log"
  tt test_cuda_group_reduce "~[large]" 200
  tt test_cuda_segmented "[uniform]" 60
  { SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[sample]"; SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[sample]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
final)
  tt test_cuda_group_strategies "[sample]" 120
  timeout 240 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^group_reduce" "$R/bench.log" | grep -E "sort\+|open_addressing|not sized" | cut -c1-120
  { SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[sample]"; SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[sample]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
ncu)
  # the default's first kernels, each timed: the sample, the gated one-table kernels, the status
  # (f32 uniform 2^20: the sized one table; 2^24 and Zipf 2^24: the partitioned build after them)
  for c in "f32 uniform m=2^20" "f32 uniform m=2^24" "f32 zipf m=2^24" "f32 zipf m=2^20" "f32 uniform m=1024"; do
    f=$R/ncu_$(echo "$c" | tr ' =^' '___').csv
    timeout 150 ncu -k "regex:sample_kernel|clear_table|oa_build|mark_first|rank_|clear_status|emit_in_order|hot_pick|histogram" \
      -c 30 --metrics gpu__time_duration.sum --csv $X/bench --only group_reduce --case "$c" \
      --impl "algo::cuda (open_addressing)" --reps 1 > "$f" 2>&1
    echo "ncu $c rc $? t+$(( $(date +%s) - t0 ))"
    python3 - "$f" <<'PY'
import csv, sys, re
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ki = hdr.index("Kernel Name"); vi = hdr.index("Metric Value"); ii = hdr.index("ID")
for r in rows[1:31]:
    name = re.sub(r"<.*", "", r[ki]).replace("void ", "").replace("algo::detail::group::", "")
    print(f"  {r[ii]:>4} {name[:40]:40} {r[vi]:>12} ns")
PY
  done
  ;;
final3)
  tt test_cuda_group_strategies "[sample]" 120
  timeout 240 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^group_reduce" "$R/bench.log" | grep -E "sort\+|open_addressing|not sized" | cut -c1-120
  for c in "f32 uniform m=2^20" "f32 uniform m=1024" "f32 zipf m=2^24"; do
    timeout 100 ncu -k "regex:sample_kernel" -c 3 --metrics gpu__time_duration.sum,inst_executed --csv $X/bench --only group_reduce \
      --case "$c" --impl "algo::cuda (open_addressing)" --reps 1 > /tmp/ncu.csv 2>&1
    echo "ncu sample_kernel, $c: $(grep -E 'gpu__time_duration|inst_executed' /tmp/ncu.csv | awk -F'","' '{print $(NF-2)"="$NF}' | tr -d '"' | tr '\n' ' ')"
  done
  { SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[sample]"; SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[sample]"; } 2>&1 | tee "$R/sanitizer.txt"
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
  ;;
esac
echo "total t+$(( $(date +%s) - t0 ))"
} 2>&1 | tee "$S"
