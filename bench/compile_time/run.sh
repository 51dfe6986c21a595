#!/usr/bin/env bash
# Compile time and object size of N reduce calls per translation unit (bench/compile_time/gen.py),
# algo against thrust::reduce and cub::DeviceReduce. One nvcc per unit, JOBS at a time (default 4;
# each nvcc is single-threaded). Writes compile_time.csv (lib, calls, seconds, object bytes) to OUT.
#   bench/compile_time/run.sh [counts...]      (default 1 8 32 70)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
OUT=${OUT:-$PWD/out}
work=${WORK:-/tmp/algo_compile_time}
mkdir -p "$OUT" "$work"
python3 "$here/gen.py" "$work" "$@"
arch=${ALGO_CUDA_ARCHITECTURES:-90}
ls "$work"/*.cu | xargs -P "${JOBS:-4}" -I{} bash -c '
  f={}; o=${f%.cu}.o
  s=$(date +%s.%N)
  if timeout '"${LIMIT:-1500}"' nvcc -std=c++17 -O3 -arch=sm_'"$arch"' --extended-lambda -I'"$root"'/include -c "$f" -o "$o" 2>"${f%.cu}.err"; then
    e=$(date +%s.%N); printf "%s,%s,%.1f,%s\n" "$(basename "${f%.cu}" | sed "s/_\([0-9]*\)$/,\1/")" "" "$(echo "$e - $s" | bc)" "$(stat -c %s "$o")"
  else
    printf "%s,,failed,0\n" "$(basename "${f%.cu}" | sed "s/_\([0-9]*\)$/,\1/")"
  fi' | sed 's/,,/,/' | sort -t, -k1,1 -k2,2n | (echo "lib,calls,seconds,object_bytes"; cat) | tee "$OUT/compile_time.csv"
