#!/usr/bin/env bash
# Issue 27 item 4 on the GPU machine, one call, binaries built on the CPU machine (bin.tar.xz beside
# this script, unpacked into ./bin) (reduce_small_main: the probe against main's headers; reduce_small_new: against this
# branch's; the reduce tests of this branch), so the device's time goes to measuring, not compiling.
#   1. --verify (bitwise: the one-block kernel against main's one-block path)
#   2. the reduce tests (~[large]) in parallel, with racecheck + synccheck of [retirement] (small sizes)
#   3. the probe: main, new, main, new (b2b / event / gpu / host columns, CUB in each run)
#   4. ncu: the reduce kernels of `reduce_small --ncu` (main and new): duration, launch, warp states
#   5. SASS of the one-block kernel and CUB's single-tile kernel (i32)
# Everything goes to $OUT/r; a summary is printed last.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
R=$OUT/r
mkdir -p "$R" bin
[ -f bin.tar.xz ] && tar -xJf bin.tar.xz -C bin
B=$PWD/bin
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader; } | tee "$R/env.txt"
"$B/reduce_small_new" --verify >"$R/verify.log" 2>&1; echo "verify rc $?" >>"$R/tests.txt"
for t in "$B"/test_*; do
  n=$(basename "$t")
  (timeout "${TEST_TIMEOUT:-150}" "$t" "~[large]" >"$R/$n.log" 2>&1; echo "$n rc $?" >>"$R/tests.txt") &
done
for tool in racecheck synccheck; do
  (ALGO_TEST_SMALL=1 timeout "${SAN_TIMEOUT:-120}" compute-sanitizer --tool $tool "$B/test_cuda_reduce_retirement" "[retirement]" >"$R/$tool.log" 2>&1; echo "$tool rc $?" >>"$R/tests.txt") &
done
wait
for r in $(seq 1 "${ROUNDS:-2}"); do
  "$B/reduce_small_main" --reps "${REPS:-200}" >"$R/probe_main_$r.log" 2>&1
  "$B/reduce_small_new" --reps "${REPS:-200}" >"$R/probe_new_$r.log" 2>&1
done
M=gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,smsp__cycles_active.max
for v in ${NCU_BINS:-new}; do
  timeout 100 ncu --clock-control none --cache-control none --csv --page raw --metrics "$M" --section WarpStateStats \
    -k 'regex:[Rr]educe' "$B/reduce_small_$v" --ncu >"$R/ncu_$v.csv" 2>"$R/ncu_$v.err"
done
cuobjdump -sass "$B/reduce_small_new" >"$R/sass_new.txt" 2>/dev/null
echo "==== tests"; sort "$R/tests.txt"; grep -h "test cases\|All tests passed\|ERROR SUMMARY\|RACECHECK SUMMARY" "$R"/*.log | sort | uniq -c
cat "$R/verify.log" | tail -8
echo "==== probes"
for f in "$R"/probe_*.log; do
  echo "-- $(basename "$f")"
  grep "per call" "$f"
  grep "^i32\|^f32" "$f" | grep -v memcpy | sed -E 's/ +/ /g; s/\(cub\/this ([0-9.]+); rounds [0-9. ]+\)/\1/; s/ event .* gpu / gpu /; s/ us//g; s/\(([0-9.]+)\)/\1/g'
done
