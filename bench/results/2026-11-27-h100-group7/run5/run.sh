#!/usr/bin/env bash
# 2026-11-27, run 5 on one H100: group_reduce's partitioned build with persistent aggregate blocks
# (the table cleared once, each chunk emptying the slots it took) and the gated overflow kernels on
# a small grid, against d8f5617 (prev) in the same run. Tests, memcheck + racecheck of
# [partitioned], bench_group, ncu per kernel. Output: r.tar.xz + summary.txt.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p "$R"; S=$OUT/summary.txt
for tb in .bins7/*.tar.xz; do [ -f "$tb" ] && tar -xJf "$tb" -C /; done
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; } > "$R/env.txt"
B=/tmp/cfg/test; NEW=/tmp/cfg/bench/bench_group; OLD=/tmp/cfg_prev/bench/bench_group
{
cat "$R/env.txt"
for t in test_cuda_group_strategies test_cuda_group_reduce; do
  (timeout 250 $B/$t "~[large]" > "$R/$t.log" 2>&1; echo "$t rc $? $(grep -h 'test cases' "$R/$t.log" | tail -1)" >> "$R/tests.txt") &
done
wait; echo "tests t+$(( $(date +%s) - t0 ))"; sort "$R/tests.txt"
for tool in memcheck racecheck; do
  ALGO_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_cuda_group_strategies "[partitioned]" > "$R/$tool.log" 2>&1
  echo "$tool [partitioned] rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases' "$R/$tool.log" | tr '\n' ' ')"
done
echo "sanitizers t+$(( $(date +%s) - t0 ))"
IMPL='thrust sort|algo::cuda (open_addressing)|one table (no switch)|partitioned (forced)|cuco'
for v in old new; do
  bin=$OLD; [ $v = new ] && bin=$NEW
  timeout 150 $bin --only group_reduce --impl "$IMPL" --csv "$R/group_$v.csv" --commit "$v" > "$R/group_$v.log" 2>&1
  echo "bench $v rc $? t+$(( $(date +%s) - t0 ))"
done
python3 - "$R/group_old.csv" "$R/group_new.csv" <<'PY'
import csv, sys
def load(p):
    d = {}
    for r in csv.reader(open(p)):
        if len(r) > 9 and r[2] == 'group_reduce': d[(r[3], r[5])] = float(r[6])
    return d
o, n = load(sys.argv[1]), load(sys.argv[2])
for k in sorted(n):
    if 'thrust' in k[1]: continue
    t = n.get((k[0], 'thrust sort+reduce_by_key'))
    print("%-20s %-36s old %7.3f new %7.3f ms  thrust %7.3f  new ratio %.2fx (old %.2fx)" % (k[0], k[1][:36], o.get(k, 0), n[k], t or 0, (t or 0) / n[k], (o.get((k[0], 'thrust sort+reduce_by_key'), 0)) / o.get(k, 1)))
PY
for c in "f32 uniform m=2^24" "i64 uniform m=2^24" "f32 zipf m=2^24"; do
  tag=$(echo "$c" | tr ' =^' '__p')
  timeout 100 ncu --clock-control none --csv --metrics gpu__time_duration.sum $NEW --only group_reduce --case "$c" --impl "partitioned (forced)" --reps 1 --csv /dev/null > "$R/ncu_new_$tag.csv" 2>/dev/null
done
python3 - "$R" <<'PY'
import csv, glob, os, re, sys, collections
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.csv"))):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows: print(os.path.basename(path), ": no rows"); continue
    h, body = rows[0], rows[1:]
    ki, vi, ui = h.index("Kernel Name"), h.index("Metric Value"), h.index("Metric Unit")
    tot, cnt = collections.OrderedDict(), collections.Counter()
    for r in body:
        name = re.match(r"(?:void )?(?:[\w:]*::)?(\w+)", r[ki]).group(1)
        v = float(r[vi].replace(",", "")) * {"ns": 1e-3, "us": 1.0, "ms": 1e3}.get(r[ui], 1.0)
        tot[name] = tot.get(name, 0.0) + v; cnt[name] += 1
    print(os.path.basename(path), "(us per call, 5 calls)")
    for k, v in tot.items(): print("  %-28s %9.1f  (%d)" % (k, v / 5, cnt[k]))
    print("  %-28s %9.1f" % ("total", sum(tot.values()) / 5))
PY
echo "ncu times t+$(( $(date +%s) - t0 ))"
} > "$S" 2>&1
tar -cJf "$OUT/r.tar.xz" -C "$OUT" r && rm -rf "$R"
cat "$S"
