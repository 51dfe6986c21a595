#!/usr/bin/env bash
# Runs on the GPU machine, each well inside a 10-minute command limit:
#   scripts/gpu_check.sh tests     build everything (ninja -k 0, bounded), then the README's test
#                                  command (scripts/test.sh) over the whole suite but the >2^31 tests
#   scripts/gpu_check.sh sanitize  compute-sanitizer memcheck/racecheck/synccheck over every device
#                                  test (label device, not faults/large; Catch tag [big] left out) at
#                                  small sizes (ALGO_TEST_SMALL=1);
#                                  SAN_TOOLS picks the tools, SAN_JOBS the runs at a time,
#                                  SAN_TESTS (a ctest -R regex) the tests
#   scripts/gpu_check.sh bench     the full bench (bench/bench)
#   scripts/gpu_check.sh large     the tests over more than 2^31 elements (label large)
#   scripts/gpu_check.sh multi     the multi-GPU work alone (<algo/nccl.hpp>): builds only its
#                                  targets, runs ctest -L multi_gpu (MULTI_TESTS: a -R regex), then
#                                  bench/multi_gpu (GPUS=2; MULTI_BENCH=0 leaves it out)
#   scripts/gpu_check.sh scaling   weak and strong scaling at 1, 2 and 4 GPUs beside the cost model
#                                  (issue 26, item 6): the build dir and configure of `multi`, builds
#                                  only bench/multi_gpu, runs it with --scaling (GPUS=4) into
#                                  $OUT/scaling.csv, then bench/plot_scaling.py: scaling_weak.png,
#                                  scaling_strong.png and scaling.md in $OUT
#   scripts/gpu_check.sh sweep     the look-back tuning sweep (bench/scan_sweep.cu); NCU=1 adds ncu
#   scripts/gpu_check.sh tsweep    the transpose tuning sweep (bench/transpose_sweep.cu); NCU=1 adds
#                                  ncu of cuBLAS's kernel and the default on each shape (NCU_ONLY:
#                                  the variants to profile, default "default")
#   scripts/gpu_check.sh profile-group   group_reduce's kernels one by one under ncu: the time of
#                                  each kernel of one algo::cuda call per f32 case (ncu_group_*.csv,
#                                  summarized in ncu_group_summary.txt), then the build kernel's
#                                  SpeedOfLight / WarpStateStats / MemoryWorkloadAnalysis at m = 1024,
#                                  2^20 and 2^24 (ncu_build_*.txt); builds bench/bench when missing
# Logs, the CTest summary and the bench CSV go to $OUT (./out when OUT is not set).
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export ALGO_BUILD_DIR=${ALGO_BUILD_DIR:-$PWD/build/gpu}
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
commit=${ALGO_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}  # ALGO_COMMIT: the device copy's .git may be stale

case "${1:-tests}" in
tests)
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; } | tee "$OUT/env.txt"
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
  s=$(date +%s)
  timeout "${BUILD_LIMIT:-400}" ninja -k 0 -C "$ALGO_BUILD_DIR" >"$OUT/build.log" 2>&1
  echo "prebuild: rc $? in $(( $(date +%s) - s )) s"; grep -E "^FAILED" "$OUT/build.log" | head
  timeout "${TEST_LIMIT:-170}" bash scripts/test.sh -E _large >"$OUT/test.log" 2>&1
  echo "scripts/test.sh rc $?"; sed -n '/==== CTest summary/,$p' "$OUT/test.log"
  ;;
sanitize)
  # compute-sanitizer memcheck, racecheck and synccheck over every device test of the suite (CTest
  # label device; not the fault-injection tests, which trap on purpose, nor the >2^31 ones) at
  # small sizes, SAN_JOBS runs at a time; one line per (test, tool) in sanitizer.log.
  : >"$OUT/sanitizer.log"
  ctest --test-dir "$ALGO_BUILD_DIR" --show-only=json-v1 -L device -LE "faults|large" ${SAN_TESTS:+-R "$SAN_TESTS"} >"$OUT/tests.json"
  python3 - "$OUT/tests.json" "${SAN_TOOLS:-memcheck racecheck synccheck}" >"$OUT/sanitize_cmds.txt" <<'PY'
import json, shlex, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    cmd = t.get("command")
    if not cmd: continue
    if cmd[-1] == "~[large]": cmd[-1] = "~[large]~[big]"  # no 16384^2 transposes under the sanitizer
    for tool in sys.argv[2].split():
        print(t["name"], tool, " ".join(shlex.quote(c) for c in cmd))
PY
  echo "sanitizer runs: $(wc -l <"$OUT/sanitize_cmds.txt")"
  export OUT SAN_LIMIT
  xargs -P "${SAN_JOBS:-6}" -L 1 scripts/sanitize_one.sh <"$OUT/sanitize_cmds.txt" >>"$OUT/sanitizer.log"
  sort "$OUT/sanitizer.log" -o "$OUT/sanitizer.log"
  echo "sanitizer: $(grep -c "(rc 0)" "$OUT/sanitizer.log") of $(wc -l <"$OUT/sanitizer.log") runs exit 0," \
       "$(grep -c "(rc 77)" "$OUT/sanitizer.log") SKIP (exit 77: the two-GPU tests on one GPU)"
  grep -v "(rc 0)\|(rc 77)" "$OUT/sanitizer.log" || true
  ;;
multi)
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
    python3 -c 'import os, nvidia.nccl as m; print("nccl wheel:", list(m.__path__)[0])' 2>&1 | tail -1
    echo "NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-unset}"; } | tee "$OUT/env.txt"
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
  grep "algo: NCCL" "$OUT/configure.log"
  s=$(date +%s)
  timeout "${BUILD_LIMIT:-400}" ninja -C "$ALGO_BUILD_DIR" test_nccl_reduce test_nccl_scan test_nccl_transpose \
    test_nccl_errors test_nccl_faults test_nccl_records example_multi_gpu multi_gpu demo \
    $(ninja -C "$ALGO_BUILD_DIR" -t targets all 2>/dev/null | grep -o '^example_mpi_multi_gpu' | head -1) >"$OUT/build.log" 2>&1
  echo "build: rc $? in $(( $(date +%s) - s )) s"; grep -E "^FAILED|error" "$OUT/build.log" | head
  s=$(date +%s)
  timeout "${TEST_LIMIT:-300}" ctest --test-dir "$ALGO_BUILD_DIR" -L multi_gpu ${MULTI_TESTS:+-R "$MULTI_TESTS"} --output-on-failure \
    >"$OUT/multi_gpu_tests.log" 2>&1
  echo "ctest -L multi_gpu rc $? in $(( $(date +%s) - s )) s"
  grep -E "Test +#" "$OUT/multi_gpu_tests.log" | grep -v " Passed " | head -40
  sed -n '/tests passed/,$p' "$OUT/multi_gpu_tests.log" | head -60
  "$ALGO_BUILD_DIR/test/test_nccl_records" >>"$OUT/multi_gpu_tests.log" 2>&1; echo "test_nccl_records rc $?"
  if [ "${MULTI_BENCH:-1}" = 1 ]; then
    timeout "${BENCH_LIMIT:-240}" "$ALGO_BUILD_DIR/bench/multi_gpu" --gpus "${GPUS:-2}" --csv "$OUT/multi_gpu.csv" --commit "$commit" \
      >"$OUT/multi_gpu_bench.log" 2>&1
    echo "bench/multi_gpu rc $?"; tail -25 "$OUT/multi_gpu_bench.log"
  fi
  ;;
scaling)
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
    echo "NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-unset}"; } | tee "$OUT/env.txt"
  # the same configure as `multi` (one build dir for both), but only the bench is built
  algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
  grep "algo: NCCL" "$OUT/configure.log"
  s=$(date +%s)
  timeout "${BUILD_LIMIT:-400}" ninja -C "$ALGO_BUILD_DIR" multi_gpu >"$OUT/build.log" 2>&1
  echo "build: rc $? in $(( $(date +%s) - s )) s"; grep -E "^FAILED|error" "$OUT/build.log" | head
  s=$(date +%s)
  timeout "${BENCH_LIMIT:-240}" "$ALGO_BUILD_DIR/bench/multi_gpu" --scaling --gpus "${GPUS:-4}" --csv "$OUT/scaling.csv" \
    --commit "$commit" ${BENCH_ARGS:-} >"$OUT/scaling.log" 2>&1
  echo "bench/multi_gpu --scaling rc $? in $(( $(date +%s) - s )) s"
  if grep -q '^mode ' "$OUT/scaling.log"; then sed -n '/^mode /,$p' "$OUT/scaling.log"; else tail -30 "$OUT/scaling.log"; fi
  python3 bench/plot_scaling.py "$OUT/scaling.csv" "$OUT"; echo "plot_scaling rc $?"
  ;;
bench)
  timeout "${BENCH_LIMIT:-240}" "$ALGO_BUILD_DIR/bench/bench" --csv "$OUT/bench.csv" --commit "$commit" ${BENCH_ARGS:-} >"$OUT/bench.log" 2>&1
  echo "bench rc $?"
  ;;
sweep)
  # the look-back tuning sweep (bench/scan_sweep.cu) and an ncu summary of ours and CUB's scan kernel
  algo_configure -DALGO_BUILD_TESTS=OFF -DALGO_BUILD_EXAMPLES=OFF >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
  timeout "${BUILD_LIMIT:-300}" ninja -C "$ALGO_BUILD_DIR" scan_sweep >"$OUT/build.log" 2>&1 || tail -30 "$OUT/build.log"
  timeout "${BENCH_LIMIT:-200}" "$ALGO_BUILD_DIR/bench/scan_sweep" --csv "$OUT/scan_sweep.csv" --commit "$commit" ${BENCH_ARGS:-} >"$OUT/scan_sweep.log" 2>&1
  echo "sweep rc $?"; sed -n '/^algorithm/,$p' "$OUT/scan_sweep.log"
  if [ -n "${NCU:-}" ]; then
    for k in decoupled_lookback_kernel DeviceScanKernel decoupled_lookback_persistent_kernel; do
      timeout 120 ncu --clock-control none -k "regex:$k" -c 1 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
        "$ALGO_BUILD_DIR/bench/scan_sweep" --min-log2 28 --max-log2 28 --reps 1 --csv /dev/null >"$OUT/ncu_$k.txt" 2>&1
      echo "ncu $k rc $?"
    done
  fi
  ;;
tsweep)
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee "$OUT/env.txt"
  algo_configure -DALGO_BUILD_TESTS=OFF -DALGO_BUILD_EXAMPLES=OFF >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
  s=$(date +%s)
  timeout "${BUILD_LIMIT:-300}" ninja -C "$ALGO_BUILD_DIR" transpose_sweep >"$OUT/build.log" 2>&1 || tail -30 "$OUT/build.log"
  echo "build: $(( $(date +%s) - s )) s"
  timeout "${BENCH_LIMIT:-200}" "$ALGO_BUILD_DIR/bench/transpose_sweep" --csv "$OUT/transpose_sweep.csv" --commit "$commit" ${BENCH_ARGS:-} >"$OUT/transpose_sweep.log" 2>&1
  echo "sweep rc $?"; sed -n '/^algorithm/,$p' "$OUT/transpose_sweep.log"; grep '!!' "$OUT/transpose_sweep.log" || true
  if [ -n "${NCU:-}" ]; then
    timeout "${NCU_LIMIT:-200}" ncu --clock-control none -k "regex:transpose|geam|fast" \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --section MemoryWorkloadAnalysis \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum \
      "$ALGO_BUILD_DIR/bench/transpose_sweep" --once --only "${NCU_ONLY:-default}" ${NCU_ARGS:-} >"$OUT/ncu.txt" 2>&1
    echo "ncu rc $?"
  fi
  ;;
profile-group)
  if [ ! -x "$ALGO_BUILD_DIR/bench/bench" ]; then
    algo_configure -DALGO_BUILD_TESTS=OFF -DALGO_BUILD_EXAMPLES=OFF -DALGO_BUILD_BENCH=ON >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
    timeout "${BUILD_LIMIT:-300}" ninja -C "$ALGO_BUILD_DIR" bench/bench >"$OUT/build.log" 2>&1 || tail -30 "$OUT/build.log"
  fi
  kernels='regex:oa_build_kernel|clear_table_kernel|clear_status_kernel|mark_first_kernel|rank_partials_kernel|rank_spine_kernel|rank_words_kernel|emit_kernel|emit_in_order_kernel|partition_count_kernel|partition_offsets_kernel|partition_scatter_kernel'
  for c in "uniform m=1024" "uniform m=2^20" "uniform m=2^24" "zipf m=1024" "zipf m=2^20" "zipf m=2^24"; do
    tag=$(echo "$c" | tr ' =^' '__p')
    # --reps 1: the bench's first call, three warm-ups and one timed call, each kernel profiled alone
    timeout "${NCU_LIMIT:-120}" ncu --clock-control none -k "$kernels" --metrics gpu__time_duration.sum --csv       "$ALGO_BUILD_DIR/bench/bench" --only group_reduce --case "f32 $c" --impl "algo::cuda (open_addressing)"       --reps 1 --csv /dev/null >"$OUT/ncu_group_$tag.csv" 2>&1
    echo "ncu f32 $c rc $?"
  done
  python3 - "$OUT" >"$OUT/ncu_group_summary.txt" <<'PY'
import csv, glob, os, re, sys, collections
out = sys.argv[1]
for path in sorted(glob.glob(os.path.join(out, "ncu_group_*.csv"))):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows: print(path, ": no ncu rows"); continue
    head, body = rows[0], rows[1:]
    ki, vi, ui = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
    tot, cnt = collections.OrderedDict(), collections.Counter()
    for r in body:
        name = re.match(r"(?:void )?(?:[\w:]*::)?(\w+)", r[ki]).group(1)
        # ncu 2025 (CUDA 13.0) writes "ns"; older ones "nsecond"
        v = float(r[vi].replace(",", "")) * {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
                                             "ms": 1e3, "msecond": 1e3}[r[ui]]
        tot[name] = tot.get(name, 0.0) + v; cnt[name] += 1
    calls = 5  # the bench's first call (the group count), three warm-ups, one timed
    print(os.path.basename(path), "(per call: the sum over", sum(cnt.values()), "kernels /", calls, "calls)")
    for k, v in tot.items(): print("  %-22s %9.1f us  (%d launches)" % (k, v / calls, cnt[k]))
    print("  %-22s %9.1f us" % ("total", sum(tot.values()) / calls))
PY
  cat "$OUT/ncu_group_summary.txt"
  for c in "uniform m=1024" "uniform m=2^20" "uniform m=2^24"; do
    tag=$(echo "$c" | tr ' =^' '__p')
    timeout "${NCU_LIMIT:-120}" ncu --clock-control none -k regex:oa_build_kernel -s 3 -c 1 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
      "$ALGO_BUILD_DIR/bench/bench" --only group_reduce --case "f32 $c" --impl "algo::cuda (open_addressing)" \
      --reps 1 --csv /dev/null >"$OUT/ncu_build_$tag.txt" 2>&1
    echo "ncu build f32 $c rc $?"
  done
  ;;
large)
  timeout "${TEST_LIMIT:-500}" ctest --test-dir "$ALGO_BUILD_DIR" -L large --output-on-failure >"$OUT/large.log" 2>&1
  echo "large rc $?"; grep -E "tests passed|Test +#" "$OUT/large.log"
  ;;
esac
