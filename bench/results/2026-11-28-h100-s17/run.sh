#!/usr/bin/env bash
# The runs of the seventeenth session (2026-11-28) on one H100, from the tree's root on the GPU
# machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release, device tests not
# compile-only) and carried in build_x/x.tar.xz:
#   STEP=exp1    seg_uniform_probe built against three trees of the headers, run in turn twice:
#                probe_base (e64a5b1's group-of-lanes kernel), probe_new (one wave of resident
#                blocks, a warp's sets contiguous, the next row's chunk loaded before this one is
#                folded), probe_new8 (the same capped to 8 blocks an SM); test_cuda_segmented's
#                uniform cases and compute-sanitizer memcheck / racecheck of the short ones
#   STEP=exp2    the probe against seven trees: base; b = stride order, one wave, next step loaded
#                ahead; c = b with base's grid (16 blocks an SM); d = c without the load ahead; e = b
#                without it; f = base with the partner's count shuffled only for part-filled rows;
#                g = b capped to 8 blocks an SM
#   STEP=exp3    the probe: base, f, fin (the kept kernels: f, and two rows loaded together from 8
#                rows on), and fin with other grids: k = one wave of 8 blocks an SM, l = the fewest
#                warps that give each the same count of sets (within one), m = 4 waves; then
#                test_cuda_segmented (all but [large]) and memcheck / racecheck of [uniform]
#   STEP=exp4    ncu: gemv's kernel and ours at L = 256; the one-table group build at f32 uniform
#                m = 1024 (stalls, and per SASS line)
#   STEP=exp5    the probe: fin against rows_kernel (whole rows of 32 lanes, four rows a warp loaded
#                before any is folded, blocks of 128, no loop over the grid: gemv's shape), r8
#                (eight rows a step), r4b (blocks of 256)
#   STEP=final2  after the offsets-in-memory change: test_cuda_segmented (~[large]) and its
#                strategies, memcheck / racecheck of [uniform] (the new in-memory case among them),
#                the full bench (the README's figures)
#   STEP=check3  test_cuda_segmented [uniform] after the in-memory case's transform check was fixed,
#                and its memcheck
#   STEP=suite   everything but the bench built on the GPU machine, the whole CTest suite
#   STEP=final   the full bench (the README's figures), the probe once, memcheck / racecheck of
#                test_cuda_segmented [uniform]
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
  for k in 1 2; do for p in base new new8; do
    { echo "== probe_$p run $k"; timeout 120 $X/probe_$p; } > "$R/probe_${p}_$k.log" 2>&1; echo "probe_$p ($k) rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "WRONG" "$R/probe_${p}_$k.log" | head -3
  done; done
  cat "$R"/probe_*.log > "$R/probe_all.txt"; rm -f "$R"/probe_*_?.log
  tt test_cuda_segmented "[uniform],[long],[fancy]" 200
  { san memcheck test_cuda_segmented "[uniform]"; san racecheck test_cuda_segmented "[uniform]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
exp2)
  for k in 1 2; do for p in ${PROBES:-base b c d e f g}; do
    { echo "== probe_$p run $k"; timeout 120 $X/probe_$p; } > "$R/probe2_${p}_$k.log" 2>&1; echo "probe_$p ($k) rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "WRONG" "$R/probe2_${p}_$k.log" | head -3
  done; done
  cat "$R"/probe2_*.log > "$R/probe2_all.txt"; rm -f "$R"/probe2_*_?.log
  ;;
exp3)
  for k in 1 2; do for p in ${PROBES:-base f fin k l m}; do
    { echo "== probe_$p run $k"; timeout 120 $X/probe_$p; } > "$R/probe3_${p}_$k.log" 2>&1; echo "probe_$p ($k) rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "WRONG" "$R/probe3_${p}_$k.log" | head -3
  done; done
  cat "$R"/probe3_*.log > "$R/probe3_all.txt"; rm -f "$R"/probe3_*_?.log
  tt test_cuda_segmented "~[large]" 300
  { san memcheck test_cuda_segmented "[uniform]"; san racecheck test_cuda_segmented "[uniform]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
exp4)
  # where gemv's kernel and ours differ at L = 256 (launch shape, registers, occupancy, DRAM)
  timeout 120 ncu -k "regex:gemv|groups" -c 2 --section LaunchStats --section Occupancy --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats $X/probe_fin --L 256 --reps 3 > "$R/ncu_L256.txt" 2>&1
  echo "ncu L=256 rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^  [a-z_:]*(gemv|groups)|Block Size|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Duration|Waves Per SM|Stall Long" "$R/ncu_L256.txt" | head -40
  # the one-table build at f32 uniform m = 1024: where its warps stall, by SASS line
  timeout 200 ncu -k "regex:oa_build" -c 1 --section WarpStateStats --section SourceCounters --section SpeedOfLight \
    --section Occupancy --section InstructionStats --page details \
    $X/bench_group --only group_reduce --case "f32 uniform m=1024" --impl "one table" --reps 1 > "$R/ncu_build1024.txt" 2>&1
  echo "ncu build rc $? t+$(( $(date +%s) - t0 ))"
  timeout 200 ncu -k "regex:oa_build" -c 1 --section SourceCounters --page source --print-source sass --csv \
    $X/bench_group --only group_reduce --case "f32 uniform m=1024" --impl "one table" --reps 1 > "$R/ncu_build1024_sass.csv" 2>&1
  echo "ncu sass rc $? t+$(( $(date +%s) - t0 )) $(wc -c < "$R/ncu_build1024_sass.csv") bytes"
  ;;
exp5)
  for k in 1 2; do for p in ${PROBES:-fin rows r8 r4b}; do
    { echo "== probe_$p run $k"; timeout 120 $X/probe_$p; } > "$R/probe5_${p}_$k.log" 2>&1; echo "probe_$p ($k) rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "WRONG" "$R/probe5_${p}_$k.log" | head -3
  done; done
  cat "$R"/probe5_*.log > "$R/probe5_all.txt"; rm -f "$R"/probe5_*_?.log
  ;;
final2)
  tt test_cuda_segmented "~[large]" 120
  SAN_LIMIT=60 san memcheck test_cuda_segmented "[uniform]" 2>&1 | tee "$R/sanitizer.txt"
  timeout 100 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^segmented_reduce" "$R/bench.log" | grep -E "cuda  |uniform|gemv|  cub " | cut -c1-120
  tt test_cuda_segmented_strategies "~[large]" 60
  SAN_LIMIT=40 san racecheck test_cuda_segmented "[uniform]" 2>&1 | tee -a "$R/sanitizer.txt"
  ;;
check3)
  tt test_cuda_segmented "[uniform]" 40
  SAN_LIMIT=40 san memcheck test_cuda_segmented "[uniform]" 2>&1 | tee "$R/sanitizer.txt"
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
final)
  timeout 240 $X/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "segmented_reduce" "$R/bench.log" | grep -E "uniform|gemv" | cut -c1-120
  { echo "== probe_final run 1"; timeout 60 $X/seg_uniform_probe; } > "$R/probe_final.txt" 2>&1; echo "probe rc $?"
  { san memcheck test_cuda_segmented "[uniform]"; san racecheck test_cuda_segmented "[uniform]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
esac
} 2>&1 | tee "$S"
