#!/usr/bin/env bash
# Final tree of 2026-11-27 (aa88301), one H100: binaries built on the CPU machine (nvcc 13.0,
# sm_90, /tmp/cfg, ALGO_OPENACC=OFF), carried in parts (.bins6/*.tar.xz, .binsF/*.tar.xz) and run
# here; the machine keeps /tmp/cfg while it stays warm, so the calls follow each other:
#   STEP=suite   the whole CTest suite as the README's test command runs it, but the >2^31 tests
#                (-E _large), the compile-only checks that rebuild from the build tree
#                (docs_snippets_*, install_and_find_package) and the docs checks that call
#                /usr/bin/cmake (docs_links, docs_api_reference): they need no GPU and run in CI;
#                then compute-sanitizer over the segmented, ordered look-back and one-block reduce paths, at small sizes
#   STEP=bench   the full bench (bench/bench) and select_bench 2^10-2^28
# Output: r.tar.xz + summary.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .bins6/*.tar.xz .binsF/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$R/env_${STEP:-x}.txt"
B=/tmp/cfg/test
{
echo "extracted t+$(( $(date +%s) - t0 )); $(ls /tmp/cfg/test | grep -c '^test_') test programs"
case "${STEP:-}" in
suite)
  timeout ${TEST_LIMIT:-450} ctest --test-dir /tmp/cfg --output-on-failure --no-tests=error --parallel 16 \
    -E "_large|docs_snippets|install_and_find_package|docs_links|docs_api_reference" > "$R/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout|Not Run" "$R/ctest.log" | tail -14
  echo "skipped: $(grep -c 'Skipped' "$R/ctest.log")"
  san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-90} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
  { san memcheck test_cuda_segmented "[offsets],[long],[errors],[uniform]"; san racecheck test_cuda_segmented "[long]"
    san memcheck test_cuda_scan_ordered "[ordered]"; san racecheck test_cuda_scan_ordered "[by_key]"
    san memcheck test_cuda_segmented_strategies "[ordered]"; san memcheck test_cuda_reduce_retirement "[retirement]"; } 2>&1 | tee "$R/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
bench)
  timeout ${BENCH_LIMIT:-420} /tmp/cfg/bench/bench --csv "$R/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$R/bench.log"
  timeout 150 /tmp/cfg/bench/select_bench --min-log2 10 --max-log2 28 --csv "$R/select.csv" --commit "${ALGO_COMMIT:-unknown}" > "$R/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^(scan_by_key|reduce_by_key|segmented_reduce|group_reduce|reduce) " "$R/bench.log" | grep -E " cub  | algo::cuda  |offsets \(seg" | grep -E "L=4 |L=4096|L=1048576|power|m=2\^24| 1024 | 4096 " | cut -c1-110 | head -50
  ;;
esac
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
