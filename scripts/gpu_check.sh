#!/usr/bin/env bash
# One call on the lent GPU machine: build with the README's test command, run the whole suite,
# compute-sanitizer over the device tests, and the bench. Logs and CSVs go to $OUT (or ./out).
#   scripts/gpu_check.sh [tests] [sanitize] [bench] [bench-args...]
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export ALGO_BUILD_DIR=${ALGO_BUILD_DIR:-$PWD/build/gpu}
steps=" $* "
[ -z "${*}" ] && steps=" tests sanitize bench "
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -1
  echo "commit $commit"
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

if [[ $steps == *" tests "* ]]; then
  set -o pipefail
  bash scripts/test.sh 2>&1 | tee "$OUT/test.log" | grep -E "tests passed|Test +#|Failed|SKIP|Error|error:" | tail -80
  set +o pipefail
fi

if [[ $steps == *" sanitize "* ]]; then
  : >"$OUT/sanitizer.log"
  for t in "$ALGO_BUILD_DIR"/test/test_cuda_* "$ALGO_BUILD_DIR"/test/test_cub_* "$ALGO_BUILD_DIR"/test/test_device_*; do
    [ -x "$t" ] || continue
    for tool in memcheck racecheck synccheck; do
      # ALGO_TEST_SMALL asks the suites for their small sizes: the sanitizer slows kernels 10-100x.
      res=$(ALGO_TEST_SMALL=1 timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$t" "~[large]" 2>&1 | tail -3 | tr '\n' ' ')
      echo "$(basename "$t") $tool: $res" | tee -a "$OUT/sanitizer.log"
    done
  done
fi

if [[ $steps == *" bench "* ]]; then
  b="$ALGO_BUILD_DIR/bench/bench"
  [ -x "$b" ] || ninja -C "$ALGO_BUILD_DIR" bench >/dev/null
  "$b" --csv "$OUT/bench.csv" --commit "$commit" ${BENCH_ARGS:-} >"$OUT/bench.log" 2>&1
  tail -5 "$OUT/bench.log"
fi
