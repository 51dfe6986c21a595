#!/usr/bin/env bash
# The segmented scans over irregular offsets in memory (issue 27: the power-law row) and the tests
# widened after 3b232a8's final run, on one H100, run from the tree's root on the GPU machine:
#   STEP=pipe    configure (scripts/common.sh's algo_configure: the cuda preset, sm_90, tests and
#                bench, OpenACC off) into /tmp/fb; build test_cuda_keyed_strategies, test_cuda_segmented,
#                test_cuda_segmented_strategies, offsets_scan_probe and bench_segmented (16 jobs); run the tests (~[large]),
#                compute-sanitizer over the changed paths at small sizes, offsets_scan_probe (power
#                law, L = 4), and ncu over the probe's kernels (power law)
#   STEP=exp     build offsets_scan_probe, bench_segmented and the segmented tests, run the tests,
#                the probe, compute-sanitizer over the offsets paths, bench_segmented's segmented section
#   STEP=probe   build offsets_scan_probe alone and run it (power law, L = 4, 32)
#   STEP=build   everything (all, bench, select_bench, bench_group, keys_sweep, the probes) into /tmp/fb
#   STEP=suite   the whole CTest suite (-E _large, the compile-only and /usr/bin/cmake docs checks,
#                which run in CI)
#   STEP=san     compute-sanitizer over the changed paths at small sizes
#   STEP=bench   the full bench and select_bench 2^10-2^28, then the probes when built
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
probe() {
  for L in 0 4 32; do
    timeout 120 /tmp/fb/bench/offsets_scan_probe --L $L > "$R/offsets_scan_probe_$L.log" 2>&1
    echo "offsets_scan_probe L=$L rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^check|^[a-z]" "$R/offsets_scan_probe_$L.log" | tail -17 | cut -c1-160
  done
}
profile() {
  timeout 240 ncu --kernel-name regex:"check|kernel|heads" --launch-skip 0 --launch-count 40 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --csv \
    /tmp/fb/bench/offsets_scan_probe --L 0 --ncu > "$R/ncu_power.csv" 2> "$R/ncu_power.err"
  echo "ncu rc $? t+$(( $(date +%s) - t0 ))"
  python3 - "$R/ncu_power.csv" <<'PY'
import csv, sys, collections
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
h = rows[0]; ix = {k: i for i, k in enumerate(h)}
want = ("Duration", "DRAM Throughput", "Compute (SM) Throughput", "Achieved Occupancy", "Registers Per Thread", "Grid Size",
        "Warp Cycles Per Issued Instruction")
seen = collections.OrderedDict()
for r in rows[1:]:
    key = (r[ix["ID"]], r[ix["Kernel Name"]][:70])
    if r[ix["Metric Name"]] in want: seen.setdefault(key, {})[r[ix["Metric Name"]]] = r[ix["Metric Value"]] + " " + r[ix["Metric Unit"]]
for (i, k), m in seen.items(): print(i, k, "|", "; ".join(f"{a}={m.get(a,'')}" for a in want))
PY
}
{
case "${STEP:-}" in
pipe)
  configure
  timeout 480 ninja -C /tmp/fb -k 0 -j 16 bench/offsets_scan_probe test/test_cuda_keyed_strategies test/test_cuda_segmented \
    > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_keyed_strategies "~[large]"
  t test_cuda_segmented "~[large]"
  probe
  { san memcheck test_cuda_keyed_strategies "[strategies],[kept]"; san racecheck test_cuda_keyed_strategies "[kept]"
    san memcheck test_cuda_segmented "[long],[offsets],[errors]"; san racecheck test_cuda_segmented "[long]"
    san synccheck test_cuda_segmented "[long]"; } 2>&1 | tee "$R/sanitizer.txt"
  profile
  ;;
exp)
  configure
  timeout 480 ninja -C /tmp/fb -k 0 -j 16 bench/offsets_scan_probe bench/bench_segmented test/test_cuda_segmented \
    test/test_cuda_segmented_strategies test/test_cub_segmented > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  t test_cuda_segmented "~[large]"
  t test_cuda_segmented_strategies "~[large]"
  t test_cub_segmented "~[large]"
  probe
  san memcheck test_cuda_segmented "[offsets],[errors]"
  san racecheck test_cuda_segmented "[offsets]"
  san memcheck test_cub_segmented "~[large]"
  timeout 150 /tmp/fb/bench/bench_segmented --only segmented --csv "$R/bench_segmented.csv" --commit "$C" > "$R/bench_segmented.log" 2>&1
  echo "bench_segmented rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(scan_by_key) " "$R/bench_segmented.log" | grep -E " cub |algo::cuda offsets  |algo::cuda uniform_offsets  " | cut -c1-130
  ;;
probe)
  configure
  timeout 300 ninja -C /tmp/fb -j 16 bench/offsets_scan_probe > "$R/build.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"; grep -E "^FAILED|error:" "$R/build.log" | head
  probe
  ;;
build)
  configure
  timeout ${BUILD_LIMIT:-540} ninja -C /tmp/fb -k 0 -j 16 all bench/bench bench/select_bench bench/bench_group bench/keys_sweep \
    bench/seg_reduce_probe bench/offsets_scan_probe > "$R/build.log" 2>&1
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
    san synccheck test_cuda_segmented "[long]"; san racecheck test_cuda_segmented "[offsets]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
bench)
  configure
  timeout 400 ninja -C /tmp/fb -j 16 bench/bench bench/select_bench > "$R/build_bench.log" 2>&1
  echo "build rc $? t+$(( $(date +%s) - t0 ))"
  timeout ${BENCH_LIMIT:-420} /tmp/fb/bench/bench --csv "$R/bench.csv" --commit "$C" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 150 /tmp/fb/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "$C" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^ *(scan_by_key|segmented_reduce) " "$R/bench.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  " | cut -c1-120
  [ -x /tmp/fb/bench/offsets_scan_probe ] && probe
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
