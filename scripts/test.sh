#!/usr/bin/env bash
# THE test command: installs what is missing (apt-get, when root and a registry answers), configures
# with the `cuda` preset when nvcc is found (else `host`), builds the tests and examples (and the bench
# where a GPU is present) with all cores and runs CTest. Extra arguments go to ctest, e.g.
#   scripts/test.sh -L device   or   scripts/test.sh -R scan
# Environment: ALGO_BUILD_DIR, ALGO_PRESET, ALGO_CUDA_ARCHITECTURES, ALGO_JOBS, ALGO_NO_INSTALL,
# ALGO_CCCL_NEXT_VERSION (see scripts/common.sh),
# ALGO_TEST_BENCH=ON|OFF (build the bench too; default: ON where a GPU is found),
# ALGO_DEVICE_TESTS_COMPILE_ONLY=ON|OFF (device test programs as compile checks; default: ON where
# no GPU is found).
# Exit status: non-zero when configuring, building or any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

start=$(date +%s)
algo_install_deps
# The bench programs only where they can run: a machine with a GPU (nvidia-smi lists one, or
# /dev/nvidia0 exists; their nine translation units took 441 of 4973 compile seconds, about 4
# minutes of the 2-core CI machine's build). ALGO_TEST_BENCH=ON|OFF decides instead.
gpu=no
if { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } || [ -e /dev/nvidia0 ]; then
  gpu=yes
fi
bench=OFF
if [ -n "${ALGO_TEST_BENCH:-}" ]; then
  bench=$ALGO_TEST_BENCH
elif [ "$gpu" = yes ]; then
  bench=ON
fi
# Where no GPU is found the device tests cannot run (each is a SKIP): they are built as compile
# checks (PTX only, cicc and host code at -O0: test/CMakeLists.txt, ALGO_DEVICE_TESTS_COMPILE_ONLY);
# the warnings unit, the demo and the examples still build as users build them.
# ALGO_DEVICE_TESTS_COMPILE_ONLY=ON|OFF decides instead.
compile_only=${ALGO_DEVICE_TESTS_COMPILE_ONLY:-$([ "$gpu" = yes ] && echo OFF || echo ON)}
# A newer CCCL than the toolkit's (CCCL 3.5, PyPI's nvidia-cuda-cccl): the warnings test and the
# examples are compiled against it too (the *_cccl_next targets), where nvcc is and it can be had.
if [ "${ALGO_PRESET:-}" != host ] && algo_find_nvcc; then
  algo_fetch_cccl_next
fi
algo_configure -DALGO_BUILD_TESTS=ON -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=$bench \
  -DALGO_DEVICE_TESTS_COMPILE_ONLY=$compile_only "-DALGO_CCCL_NEXT_INCLUDE=${ALGO_CCCL_NEXT_INCLUDE:-}"

algo_log "building with $ALGO_JOBS jobs$([ "$compile_only" = ON ] && echo ' (device test programs as compile checks: no GPU here)')"
cmake --build "$ALGO_BUILD_DIR" --parallel "$ALGO_JOBS"

log="$ALGO_BUILD_DIR/ctest.log"
set +e
ctest --test-dir "$ALGO_BUILD_DIR" --output-on-failure --no-tests=error --parallel "$ALGO_JOBS" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# ---- summary (the tail of a long log, repeated where it is seen) ---------------------------------
echo
echo "==== CTest summary ($ALGO_PRESET preset, $ALGO_BUILD_DIR, $(( $(date +%s) - start )) s) ===="
grep -E '^[0-9]+% tests passed|No tests were found' "$log" || echo "(no CTest summary line: see $log)"
# CTest's own lists of skipped and failed tests (a header line, then tab-indented names).
awk '/^The following tests (did not run|FAILED):/ { show = 1; print; next } show && /^\t/ { print; next } { show = 0 }' "$log"
# Why tests were skipped, in their own words (CTest keeps the output of every test in LastTest.log).
last=$(ls -t "$ALGO_BUILD_DIR"/Testing/Temporary/LastTest*.log 2>/dev/null | head -1 || true)
if [ -n "$last" ] && grep -q '^SKIP' "$last"; then
  echo "Skip reasons:"
  grep -h '^SKIP' "$last" | sed -E 's/^SKIP( [a-z_]+)?:? ?//' | sort | uniq -c
fi
if [ "$status" -ne 0 ]; then
  echo "FAILED (ctest exit status $status)"
fi
exit "$status"
