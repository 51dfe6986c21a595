#!/usr/bin/env bash
# Final tree of 2026-11-26's fifth session, one H100: binaries built on the CPU machine (nvcc 13.0,
# sm_90, /tmp/cfg, ALGO_OPENACC=OFF), carried in two parts (.binsA5/a.tar.xz: the bench programs and
# half the test programs; .binsF/b.tar.xz: the rest and the CTest files) and run here. The machine
# keeps /tmp/cfg between calls while it stays warm, so the two calls follow each other:
#   STEP=bench     the full bench (bench/bench --csv) and select_bench 2^10-2^28
#   STEP=suite     the whole CTest suite as the README's test command runs it but the >2^31 tests
#                  (-E _large) and the compile-only checks that rebuild from the build tree
#                  (docs_snippets_*, install_and_find_package: they need no GPU and run in CI), then
#                  compute-sanitizer over the changed paths at small sizes
set -u
t0=$(date +%s)
# the CTest files name the CPU machine's checkout (/work/main): point it at this copy of the tree
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
for tb in .binsA5/*.tar.xz .binsF/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
echo "extracted t+$(( $(date +%s) - t0 )); $(ls /tmp/cfg/test | grep -c '^test_') test programs"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -2; } > "$OUT/env.txt"
case "${STEP:-extract}" in
suite)
  timeout ${TEST_LIMIT:-330} ctest --test-dir /tmp/cfg --output-on-failure --no-tests=error --parallel 8 -E "_large|docs_snippets|install_and_find_package" > "$OUT/ctest.log" 2>&1
  echo "ctest rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Timeout" "$OUT/ctest.log" | tail -12
  B=/tmp/cfg/test
  san() { local tool=$1 t=$2 f=$3; ALGO_TEST_SMALL=1 timeout ${SAN_LIMIT:-60} compute-sanitizer --tool $tool --error-exitcode 9 $B/$t "$f" > /tmp/san.log 2>&1; echo "$tool $t $f -> rc $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' /tmp/san.log | tr '\n' ' ')"; }
  { san memcheck test_cuda_scan_ordered "[ordered]"; san racecheck test_cuda_scan_ordered "[ordered]"
    san memcheck test_cuda_segmented_strategies "[ordered]"; san racecheck test_cuda_segmented_strategies "[ordered]"; } 2>&1 | tee "$OUT/sanitizer.txt"
  echo "sanitizers t+$(( $(date +%s) - t0 ))"
  ;;
bench)
  timeout ${BENCH_LIMIT:-500} /tmp/cfg/bench/bench --csv "$OUT/bench.csv" --commit "${ALGO_COMMIT:-unknown}" > "$OUT/bench.log" 2>&1
  echo "bench rc $? t+$(( $(date +%s) - t0 ))"; tail -3 "$OUT/bench.log"
  timeout 150 /tmp/cfg/bench/select_bench --min-log2 10 --max-log2 28 --csv "$OUT/select.csv" --commit "${ALGO_COMMIT:-unknown}" > "$OUT/select.log" 2>&1
  echo "select_bench rc $? t+$(( $(date +%s) - t0 ))"
  grep -E "^(scan_by_key|reduce_by_key|segmented_reduce|group_reduce|reduce) " "$OUT/bench.log" | grep -E " cub | algo::cuda +[0-9]" | grep -E "L=4 |L=4096|power|m=2\^24| 1024 | 4096 " | cut -c1-110 | head -40
  ;;
esac
