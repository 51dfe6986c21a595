#!/usr/bin/env bash
# THE main job: builds the demo (examples/demo.cu) and runs it. It runs all five algorithms on
# generated data with every available policy (seq, par, and on a GPU cub and cuda), checks each
# against Thrust and prints a table. Without a GPU it says so and runs the host policies only.
# Extra arguments go to the demo:  scripts/demo.sh [n]   (elements per algorithm, default 2^24)
# Environment: ALGO_BUILD_DIR, ALGO_PRESET, ALGO_CUDA_ARCHITECTURES, ALGO_JOBS (see scripts/common.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

algo_install_deps
# The demo needs no Catch2: without it, configure without the tests rather than fail.
if algo_have_header catch2/catch.hpp catch2/catch_all.hpp; then
  algo_configure -DALGO_BUILD_EXAMPLES=ON
else
  algo_configure -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_TESTS=OFF
fi
cmake --build "$ALGO_BUILD_DIR" --parallel "$ALGO_JOBS" --target demo
exec "$ALGO_BUILD_DIR/examples/demo" "$@"
