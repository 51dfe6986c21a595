#!/usr/bin/env bash
# The runs of the sixteenth session (2026-11-27/28) on one H100, from the tree's root on the GPU
# machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release, device tests not
# compile-only) and carried in build_x/x.tar.xz:
#   STEP=exp1    the group-by tests (test_cuda_group_strategies, test_cuda_group_reduce), bench_group
#                (group_reduce: the sort, the default, one table, partitioned with and without the
#                hot keys), test_cuda_segmented [long] (with the smem warp phase) and its racecheck,
#                test_families_threads, compute-sanitizer memcheck / racecheck of the partitioned
#                build's tests (ALGO_TEST_SMALL=1)
#   STEP=exp2    the group-by tests, bench_group, ncu per kernel of the forced partitioned build (f32
#                Zipf 2^24, uniform 2^24, uniform 1024)
#   STEP=final   the full bench (the README's figures); the group-by tests' partitioned and sample
#                cases and their compute-sanitizer memcheck / racecheck
#   STEP=check   the group strategies' tests (the kept kernels with the lumpy-hash case) and the
#                memcheck / racecheck of their partitioned cases
#   STEP=check2  the group strategies' tests after their checks share one helper, memcheck of the
#                partitioned and tuning cases; seg_reduce_probe --L 4 four times (is the offsets
#                row's time at L = 4 bimodal on the GPU's side or the host's?)
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
  tt test_cuda_group_strategies "~[large]" 150
  tt test_cuda_group_reduce "~[large]" 100
  timeout 200 $X/bench_group --only group_reduce --impl "thrust|open_addressing|one table|partitioned" \
    --csv "$R/bench_group.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "group_reduce|groups\)" "$R/bench_group.log" | cut -c1-130
  tt test_cuda_segmented "[long]" 150
  tt test_families_threads "" 60
  { san racecheck test_cuda_segmented "[long]"; SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[partitioned],[sample]";
    SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[partitioned]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
exp2)
  tt test_cuda_group_strategies "~[large]" 150
  timeout 200 $X/bench_group --only group_reduce --impl "thrust|open_addressing|one table|partitioned" \
    --csv "$R/bench_group.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench_group.log" 2>&1
  echo "bench_group rc $? t+$(( $(date +%s) - t0 ))"
  sed -n '/^group_reduce /p' "$R/bench_group.log" | cut -c1-130
  for c in "f32 zipf m=2^24" "f32 uniform m=2^24" "f32 uniform m=1024"; do
    tag=$(echo "$c" | tr ' =^' '__p')
    timeout 100 ncu --clock-control none --csv --metrics gpu__time_duration.sum $X/bench_group --only group_reduce --case "$c" \
      --impl "partitioned (forced)" --reps 1 --csv /dev/null > "$R/ncu_$tag.csv" 2>/dev/null
  done
  python3 - "$R" <<'PY'
import csv, glob, os, re, sys, collections
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.csv"))):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows: print(os.path.basename(path), ": no rows"); continue
    h, body = rows[0], rows[1:]
    ki, vi, ui = h.index("Kernel Name"), h.index("Metric Value"), h.index("Metric Unit")
    tot, cnt = collections.OrderedDict(), collections.Counter()
    for r in body:
        name = re.match(r"(?:void )?(?:[\w:]*::)?(\w+)", r[ki]).group(1)
        v = float(r[vi].replace(",", "")) * {"ns": 1e-3, "us": 1.0, "ms": 1e3}.get(r[ui], 1.0)
        tot[name] = tot.get(name, 0.0) + v; cnt[name] += 1
    calls = max(1, cnt.get("partition_histogram_kernel", 1))
    print(os.path.basename(path), "(us per call, %d calls)" % calls)
    for k, v in tot.items(): print("  %-28s %9.1f  (%d)" % (k, v / calls, cnt[k]))
PY
  echo "ncu t+$(( $(date +%s) - t0 ))"
  ;;
final)
  timeout 200 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *group_reduce .*(zipf|uniform) m=2\^24" "$R/bench.log" | grep -E "thrust|open_addr|one table|forced" | cut -c1-120
  tt test_cuda_group_strategies "[partitioned],[sample]" 100
  { SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[partitioned],[sample]";
    SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[partitioned]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
check)
  tt test_cuda_group_strategies "~[large]" 150
  { SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[partitioned]";
    SAN_LIMIT=200 san racecheck test_cuda_group_strategies "[partitioned]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
check2)
  tt test_cuda_group_strategies "~[large]" 150
  SAN_LIMIT=200 san memcheck test_cuda_group_strategies "[partitioned],[tuning]" 2>&1 | tee "$R/sanitizer.txt"
  for k in 1 2 3 4; do timeout 60 $X/seg_reduce_probe --L 4 > "$R/probe_L4_$k.log" 2>&1; echo "probe L=4 ($k) rc $?"
    grep -E "WRONG|refused" "$R/probe_L4_$k.log" | head -3
    sed -n '/median of 3 rounds/,$p' "$R/probe_L4_$k.log" | grep -E "cub::|offsets\)|uniform" | cut -c1-110; done
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
} 2>&1 | tee "$S"
