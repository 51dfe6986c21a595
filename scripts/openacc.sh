#!/usr/bin/env bash
# The OpenACC parts (algo::acc, the interop, its example and bench), built where the offload
# compiler is and run where the GPU is.
#
#   scripts/openacc.sh build   here (Debian 12: g++-12 + gcc-12-offload-nvptx, nvcc): configures
#                              build/openacc, builds the OpenACC tests, example and bench, and puts
#                              them with Debian's libgomp.so.1 and libgomp-plugin-nvptx.so.1 in
#                              build/openacc-dist/ (self-contained but for the GPU driver, libcuda,
#                              and cuBLAS, which the CUDA toolkit there has; about 20 MB)
#   scripts/openacc.sh run     there (any Linux with an NVIDIA driver and the CUDA 13 libraries,
#                              no compiler needed): runs every test of the folder with its
#                              libraries first on LD_LIBRARY_PATH, prints a CTest-like summary, then
#                              the bench (bench_acc), its CSV to $OUT (or the folder) when set.
#                              Exit status: non-zero when a test fails.
#   scripts/openacc.sh run --no-bench    the tests only
# Environment: ALGO_OPENACC_DIST (default build/openacc-dist), ALGO_JOBS (build jobs, default: all
# cores), ALGO_NO_INSTALL=1, ALGO_CUDA_ARCHITECTURES (default 90).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DIST=${ALGO_OPENACC_DIST:-$ALGO_ROOT/build/openacc-dist}
TESTS=(test_acc_numeric test_acc_interop test_acc_interop_eager example_openacc_compaction)
# test_acc_interop_eager: test_acc_interop with CUDA_MODULE_LOADING=EAGER (its first calls gated too)
binary_of() { [ "$1" = test_acc_interop_eager ] && echo test_acc_interop || echo "$1"; }
env_of() { [ "$1" = test_acc_interop_eager ] && echo CUDA_MODULE_LOADING=EAGER || true; }
BENCH=bench_acc

build() {
  algo_install_deps
  local preset=host
  algo_find_nvcc && preset=cuda
  [ "$preset" = cuda ] || algo_log "no nvcc: only algo::acc's own test (the interop, example and bench need the CUDA build)"
  local dir=$ALGO_ROOT/build/openacc
  ALGO_PRESET=$preset ALGO_BUILD_DIR=$dir algo_configure -DALGO_OPENACC=ON -DALGO_BUILD_TESTS=ON \
    -DALGO_BUILD_EXAMPLES=ON -DALGO_BUILD_BENCH=ON
  local targets=(test_acc_numeric)
  [ "$preset" = cuda ] && targets+=(test_acc_interop example_openacc_compaction bench_acc)
  cmake --build "$dir" --parallel "${ALGO_JOBS:-$(nproc)}" --target "${targets[@]}"

  rm -rf "$DIST"
  mkdir -p "$DIST/bin" "$DIST/lib"
  local t
  for t in "${targets[@]}"; do
    find "$dir" -maxdepth 3 -type f -name "$t" -perm -u+x -exec cp {} "$DIST/bin/" \;
  done
  # the OpenACC runtime the binaries were built against, and its NVIDIA plugin (dlopens libcuda.so.1)
  local cxx gomp plugin
  cxx=$(grep -E '^CMAKE_CXX_COMPILER:' "$dir/CMakeCache.txt" | cut -d= -f2)
  gomp=$(readlink -f "$("$cxx" -print-file-name=libgomp.so.1)")
  plugin=$(readlink -f "$(dirname "$gomp")/libgomp-plugin-nvptx.so.1")
  cp "$gomp" "$DIST/lib/libgomp.so.1"
  cp "$plugin" "$DIST/lib/libgomp-plugin-nvptx.so.1"
  {
    echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), commit $(git -C "$ALGO_ROOT" rev-parse --short HEAD)"
    "$cxx" --version | head -1
    echo "flags: $(grep -E '^ALGO_OPENACC_FLAGS:' "$dir/CMakeCache.txt" | cut -d= -f2-)"
    command -v nvcc >/dev/null && nvcc --version | grep release
  } >"$DIST/BUILD-INFO"
  algo_log "$DIST: $(ls "$DIST/bin" | tr '\n' ' ')($(du -sh "$DIST" | cut -f1))"
}

run() {
  local bench=1
  [ "${1:-}" = --no-bench ] && bench=0
  [ -d "$DIST/bin" ] || { algo_log "no $DIST/bin: run 'scripts/openacc.sh build' where the offload compiler is"; exit 1; }
  local cuda_libs=/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/targets/x86_64-linux/lib
  export LD_LIBRARY_PATH="$DIST/lib:$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cat "$DIST/BUILD-INFO" 2>/dev/null || true
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

  local pass=0 fail=0 skip=0 total=0 failed=() skipped=() t rc start
  local out=${OUT:-$DIST}
  for t in "${TESTS[@]}"; do
    [ -x "$DIST/bin/$(binary_of "$t")" ] || continue
    total=$((total + 1))
    start=$(date +%s%N)
    set +e
    env $(env_of "$t") "$DIST/bin/$(binary_of "$t")" >"$out/$t.log" 2>&1
    rc=$?
    set -e
    local secs
    secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    case $rc in
      0) pass=$((pass + 1)); printf '%2d/%d %-32s Passed  %s s\n' "$total" "${#TESTS[@]}" "$t" "$secs" ;;
      77) skip=$((skip + 1)); skipped+=("$t: $(grep -m1 '^SKIP' "$out/$t.log" || echo SKIP)")
          printf '%2d/%d %-32s Skipped %s s\n' "$total" "${#TESTS[@]}" "$t" "$secs" ;;
      *) fail=$((fail + 1)); failed+=("$t (exit $rc)")
         printf '%2d/%d %-32s FAILED  %s s (exit %d)\n' "$total" "${#TESTS[@]}" "$t" "$secs" "$rc"
         tail -40 "$out/$t.log" ;;
    esac
  done
  echo
  echo "$(( total ? (pass + skip) * 100 / total : 0 ))% tests passed, $fail tests failed out of $total ($skip skipped)"
  for t in "${skipped[@]}"; do echo "  skipped: $t"; done
  for t in "${failed[@]}"; do echo "  FAILED: $t"; done

  if [ "$bench" = 1 ] && [ -x "$DIST/bin/$BENCH" ]; then
    echo
    set +e
    "$DIST/bin/$BENCH" "$out/bench_acc.csv" 2>&1 | tee "$out/bench_acc.log"
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || { echo "bench_acc FAILED (exit $rc)"; fail=$((fail + 1)); }
  fi
  [ "$fail" = 0 ]
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: scripts/openacc.sh build | run [--no-bench]" >&2; exit 2 ;;
esac
