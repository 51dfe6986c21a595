#!/usr/bin/env bash
# The runs of the twentieth session (2026-12-01) on one H200 (the only kind lent that day), from the
# tree's root on the GPU machine; binaries built on the CPU machine (nvcc 13.0, sm_90, Release) and
# carried in build_x/x.tar.xz:
#   STEP=probe1  group_onepass_probe at 2^26 records, m = 2^24 / 2^22 / 2^20 uniform keys
# Output: r/ + summary_STEP.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary_${STEP:-x}.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env_${STEP:-x}.txt"
X=$PWD/build_x
[ -f $X/x.tar.xz ] && tar -C $X -xJf $X/x.tar.xz
{
case "${STEP:-}" in
probe1)
  for lm in 24 22 20; do
    timeout 150 $X/group_onepass_probe --log2m $lm > "$R/probe_m$lm.log" 2>&1
    echo "probe m=2^$lm rc $? t+$(( $(date +%s) - t0 ))"
    grep -vE "^  check" "$R/probe_m$lm.log"
    grep -E "CHECK" "$R/probe_m$lm.log" | head -5
  done
  ;;
esac
} > "$S" 2>&1
cat "$S"
