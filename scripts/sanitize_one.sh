#!/usr/bin/env bash
# One compute-sanitizer run (scripts/gpu_check.sh sanitize runs many of these side by side):
#   scripts/sanitize_one.sh NAME TOOL COMMAND...
# Runs COMMAND under `compute-sanitizer --tool TOOL --error-exitcode 9` with ALGO_TEST_SMALL=1, the
# log in $OUT/san_NAME_TOOL.log (kept only when the run fails), and prints one line:
#   NAME TOOL (rc N): <the ERROR SUMMARY and Catch2 summary lines>
name=$1 tool=$2
shift 2
log="$OUT/san_${name}_${tool}.log"
ALGO_TEST_SMALL=1 timeout "${SAN_LIMIT:-420}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >"$log" 2>&1
rc=$?
summary=$(grep -E "ERROR SUMMARY|All tests passed|test cases|FAILED|SKIP" "$log" | tr '\n' ' ')
echo "$name $tool (rc $rc): $summary"
[ "$rc" = 0 ] && rm -f "$log"
exit 0
