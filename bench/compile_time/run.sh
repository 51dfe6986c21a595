#!/usr/bin/env bash
# Compile time and object size of N reduce calls per translation unit (bench/compile_time/gen.py),
# algo against thrust::reduce and cub::DeviceReduce. One nvcc per unit, JOBS at a time (default 2;
# each nvcc is single-threaded), the largest units first. Writes compile_time.csv to OUT:
#   lib, calls, wall seconds, CPU seconds (user + sys of nvcc and every process it ran), object bytes
# and, per unit, nvcc's own per-phase times (`nvcc -time`) as time_<lib>_<calls>.csv.
# CPU seconds are the number to compare when other work shares the machine.
#   bench/compile_time/run.sh [counts...]      (default 1 8 32 70)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
OUT=${OUT:-$PWD/out}
work=${WORK:-/tmp/algo_compile_time}
mkdir -p "$OUT" "$work"
python3 "$here/gen.py" "$work" "$@"
arch=${ALGO_CUDA_ARCHITECTURES:-90}
export OUT work root arch LIMIT=${LIMIT:-1500}
ls "$work"/*.cu | sed 's/.*_\([0-9]*\)\.cu$/\1 &/' | sort -k1,1nr | cut -d' ' -f2 | xargs -P "${JOBS:-2}" -I{} bash -c '
  f={}; o=${f%.cu}.o; b=$(basename "${f%.cu}")
  rm -f "$OUT/time_$b.csv"
  if /usr/bin/time -f "%e %U %S" -o "${f%.cu}.rusage" timeout "$LIMIT" nvcc -std=c++17 -O3 -arch=sm_$arch --extended-lambda \
       -I"$root/include" -time "$OUT/time_$b.csv" -c "$f" -o "$o" 2>"${f%.cu}.err"; then
    read -r wall user sys < "${f%.cu}.rusage"
    printf "%s,%s,%.1f,%.1f,%s\n" "${b%_*}" "${b##*_}" "$wall" "$(echo "$user + $sys" | bc)" "$(stat -c %s "$o")"
  else
    printf "%s,%s,failed,failed,0\n" "${b%_*}" "${b##*_}"
  fi' | sort -t, -k1,1 -k2,2n | (echo "lib,calls,wall_s,cpu_s,object_bytes"; cat) | tee "$OUT/compile_time.csv"
