#!/usr/bin/env bash
# The runs of 2026-11-27 (fifteenth session) on one H100, from the tree's root on the GPU machine:
#   STEP=exp1    binaries built on the CPU machine and carried in build_x/ (nvcc 13.0, sm_90, the
#                bench's flags): seg_reduce_probe against the headers before (probe_base, 74627df)
#                and after (probe_new) the change, alternated, at L = 4096, 2048, 16384, 2^20, 256;
#                test_cuda_segmented and test_cuda_segmented_strategies (~[large]); compute-sanitizer
#                (ALGO_TEST_SMALL=1) memcheck, racecheck, synccheck over test_cuda_segmented [long]
#   STEP=exp2    the same way: probe_base / probe_r1 (5eb7776) / probe_pf alternated at L = 4096,
#                2048, 256, 1024, 32; test_cuda_segmented [long],[offsets],[uniform]; racecheck of
#                [long], memcheck of [uniform]
#   STEP=final   carried binaries: seg_reduce_probe of 5eb7776 (r1) and of version 3 (u) alternated
#                at L = 2048, 4096, 16384; test_cuda_segmented [long] (version 3);
#                test_families_threads and its memcheck; the full bench of version 3 and of r1
#                (cuCollections' row included); select_bench 2^10-2^28
#   STEP=suite   everything but the bench built on the GPU machine, the whole CTest suite
# Output: r_STEP.tar.xz + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-120} compute-sanitizer --tool $tool --error-exitcode 9 $X/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
{
case "${STEP:-}" in
exp1)
  for L in 4096 2048 16384 1048576 256; do
    for b in base new base new; do timeout 60 $X/probe_$b --L $L > "$R/probe_${L}_$b.log" 2>&1; echo "probe_$b L=$L rc $?"
      grep -E "WRONG|refused" "$R/probe_${L}_$b.log" | cut -c1-120 | head -3
      sed -n '/median of 3 rounds/,$p' "$R/probe_${L}_$b.log" | grep -E "cub::|offsets\)|fused kernel, 5|no check|uniform" | cut -c1-100
      mv "$R/probe_${L}_$b.log" "$R/probe_${L}_${b}_$(date +%s).log"; done; done
  echo "probes t+$(( $(date +%s) - t0 ))"
  for t in test_cuda_segmented test_cuda_segmented_strategies; do timeout 240 $X/$t "~[large]" > "$R/$t.log" 2>&1
    echo "$t rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/$t.log" | tail -1)"
    grep -E "FAILED|failure|REQUIRE|with expansion" "$R/$t.log" | head -8; done
  { san memcheck test_cuda_segmented "[long]"; san racecheck test_cuda_segmented "[long]"; san synccheck test_cuda_segmented "[long]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
exp2)
  # base (74627df), r1 (5eb7776: one barrier a segment), pf (r1 + the next segment's bounds read
  # during the fold, the groups' rows loaded together)
  for L in 4096 2048 256 1024 32; do
    for b in base r1 pf base r1 pf; do timeout 60 $X/probe_$b --L $L > "$R/probe.log" 2>&1; echo "probe_$b L=$L rc $?"
      grep -E "WRONG|refused" "$R/probe.log" | grep -v "^check fused" | cut -c1-120 | head -3
      sed -n '/median of 3 rounds/,$p' "$R/probe.log" | grep -E "cub::|offsets\)|blocks kernel over|uniform" | cut -c1-100
      mv "$R/probe.log" "$R/probe_${L}_${b}_$(date +%s).log"; done; done
  echo "probes t+$(( $(date +%s) - t0 ))"
  timeout 200 $X/test_cuda_segmented "[long],[offsets],[uniform]" > "$R/test_cuda_segmented.log" 2>&1
  echo "test_cuda_segmented rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/test_cuda_segmented.log" | tail -1)"
  grep -E "FAILED|failure|REQUIRE|with expansion" "$R/test_cuda_segmented.log" | head -8
  { san racecheck test_cuda_segmented "[long]"; san memcheck test_cuda_segmented "[uniform]"; } 2>&1 | tee "$R/sanitizer.txt"
  ;;
final)
  # carried binaries, built on the CPU machine with the build's own flags (sm_90, stripped):
  # bench_r1 / probe_r1 (5eb7776's library code), bench_u / probe_u / test_cuda_segmented (version 3:
  # a block a segment when the host decided), select_bench and test_families_threads (r1)
  for L in 2048 4096 16384; do
    for b in r1 u r1 u; do timeout 60 $X/probe_$b --L $L > "$R/probe.log" 2>&1; echo "probe_$b L=$L rc $?"
      grep -E "WRONG|refused" "$R/probe.log" | grep -v "^check fused" | cut -c1-120 | head -3
      sed -n '/median of 3 rounds/,$p' "$R/probe.log" | grep -E "cub::|offsets\)|blocks kernel over|a block a segment, no check \(timing only\), no" | cut -c1-100
      mv "$R/probe.log" "$R/probe_${L}_${b}_$(date +%s).log"; done; done
  echo "probes t+$(( $(date +%s) - t0 ))"
  timeout 150 $X/test_cuda_segmented "[long]" > "$R/test_cuda_segmented.log" 2>&1
  echo "test_cuda_segmented (version 3) [long] rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/test_cuda_segmented.log" | tail -1)"
  grep -E "FAILED|failure|REQUIRE|with expansion" "$R/test_cuda_segmented.log" | head -8
  timeout 60 $X/test_families_threads > "$R/test_families_threads.log" 2>&1
  echo "test_families_threads rc $? t+$(( $(date +%s) - t0 )): $(grep -E 'test cases|assertions' "$R/test_families_threads.log" | tail -1)"
  SAN_LIMIT=150 san memcheck test_families_threads "[threads]" 2>&1 | tee "$R/sanitizer.txt"
  for b in u r1; do
    timeout ${BENCH_LIMIT:-120} $X/bench_$b --csv "$R/bench_$b.csv" --commit "${ALGO_COMMIT:-unknown}-$b" > "$R/bench_$b.log" 2>&1
    echo "bench_$b rc $? t+$(( $(date +%s) - t0 ))"
    grep -E "^ *segmented_reduce " "$R/bench_$b.log" | grep -E " cub |algo::cuda offsets  |algo::cuda  |gemv|uniform" | cut -c1-120; done
  timeout 60 $X/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  ;;
suite)
  # everything but the bench built on the GPU machine (scripts/common.sh's algo_configure: the cuda
  # preset, sm_90, tests and examples, OpenACC off), then the whole CTest suite
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
*) echo "STEP: exp1, exp2, final or suite" ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r_${STEP:-x}.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
