#!/usr/bin/env python3
"""Turns one bench run (one device, one commit) into docs/performance.md, its PNG plots and the
README's headline table. Every figure written comes from the CSV: nothing is copied by hand.

    python3 bench/make_performance_page.py RUN.csv [MORE.csv ...] [options]

RUN.csv is what `bench --csv` (or `select_bench --csv`, the selection family) writes (bench/harness.cuh: device, commit, algorithm, type, n, impl,
ms, GBps, baseline, speedup_vs_baseline). Several CSVs are accepted when they are parts of one run
(e.g. `bench --only scan` and `--only reduce` at one commit); they must name one device and one
commit, or the script stops (pass --device / --commit to state them when a CSV says "unknown").

Options:
  --out PATH        the page (default docs/performance.md)
  --img-dir DIR     the plots (default docs/img; file names perf_<family>.png)
  --headline PATH   the headline table alone, for the README (default docs/performance_headline.md)
  --readme PATH     also replace the text between <!-- headline:begin --> and <!-- headline:end -->
                    in that file (nothing happens when the markers are absent)
  --device / --commit / --date
                    override or supply what the CSV lacks; the date defaults to the first line of
                    env.txt beside the first CSV (`date` output), else a YYYY-MM-DD in its path
  --run TEXT        how the page names the run (default: the CSV paths)
  --family-from FAMILY=CSV
                    a family the run did not time (e.g. select=.../select.csv), taken from another
                    run's CSV: its section names that run (device, commit, date), and its headline
                    rows are marked with a dagger and a note under the table. Repeatable.

The copy limit: the bench times a device-to-device copy of the same bytes in most groups (impl
"memcpy..." rows); where a group has one, the plots draw it (black dashed) and the tables give the
default's share of it.
"""
import argparse
import csv
import datetime
import math
import os
import re
import sys
from collections import OrderedDict, defaultdict

# Family of each bench algorithm, in page order.
FAMILIES = OrderedDict(
    [
        ("scan", ("Scan", ["inclusive_scan", "exclusive_scan"])),
        ("reduce", ("Reduce", ["reduce", "transform_reduce"])),
        ("transpose", ("Transpose", ["transpose"])),
        ("segmented", ("Keys and segments", ["segmented_reduce", "segmented_scan", "scan_by_key", "reduce_by_key"])),
        ("group_by", ("Group-by on unsorted keys", ["group_reduce"])),
        ("select", ("Selection", ["copy_if", "partition_copy", "unique_copy", "unique_by_key_copy", "run_length_encode", "count_if"])),
        ("in_kernel", ("Inside your own kernels", ["row_scan", "row_sum"])),
    ]
)
# The row that stands for algo's default, per algorithm: the first name present.
DEFAULT_ROW = {
    "reduce": ["algo::cuda", "algo::cuda retirement_count/shfl"],
    "transform_reduce": ["algo::cuda transform_reduce (dot)", "algo::cuda"],
    "group_reduce": ["algo::cuda (open_addressing)", "algo::cuda"],
}
NOTES = {
    "scan": "bench/notes/scan.md",
    "reduce": "bench/notes/reduce.md",
    "transpose": "bench/notes/transpose.md",
    "segmented": "bench/notes/keys_segments.md",
    "group_by": "bench/notes/group_by.md",
    "select": "bench/notes/select.md",
    "in_kernel": "bench/notes/in_kernel.md",
}
REFERENCE = re.compile(r"^(cub\b|cub$|cublas|thrust|algo::cub\b)")
BEGIN, END = "<!-- headline:begin -->", "<!-- headline:end -->"


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                r["n"] = int(r["n"])
                r["ms"] = float(r["ms"])
                r["GBps"] = float(r["GBps"])
                r["speedup_vs_baseline"] = float(r["speedup_vs_baseline"])
                rows.append(r)
    return rows


def one_value(rows, key, override):
    vals = sorted({r[key] for r in rows if r[key] and r[key] != "unknown"})
    if override:
        if vals and vals != [override]:
            sys.exit(f"make_performance_page: --{key} {override}, but the CSV names {', '.join(vals)}")
        return override
    if len(vals) != 1:
        sys.exit(f"make_performance_page: the CSV names {len(vals)} values of '{key}' ({', '.join(vals) or 'none'}): "
                 f"one run is one {key}; pass --{key} to state it")
    return vals[0]


def run_date(paths, override):
    if override:
        return override
    env = os.path.join(os.path.dirname(os.path.abspath(paths[0])), "env.txt")
    if os.path.exists(env):
        with open(env) as f:
            first = f.readline().strip()
        try:
            d = datetime.datetime.strptime(re.sub(r"\s+", " ", first), "%a %b %d %I:%M:%S %p %Z %Y")
            return d.strftime("%Y-%m-%d")
        except ValueError:
            pass
    m = re.search(r"(\d{4}-\d{2}-\d{2})", os.path.abspath(paths[0]))
    if m:
        return m.group(1)
    sys.exit("make_performance_page: no date in env.txt or the path: pass --date")


def family_of(alg):
    for fam, (_, algs) in FAMILIES.items():
        if alg in algs:
            return fam
    return None


def default_impl(alg, impls):
    for name in DEFAULT_ROW.get(alg, ["algo::cuda"]):
        if name in impls:
            return name
    ours = [i for i in impls if i.startswith("algo::cuda")]
    return ours[0] if ours else None


def size_label(n):
    if n > 0 and n & (n - 1) == 0:
        return f"2^{int(math.log2(n))}"
    return str(n)


def fmt_ratio(x):
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


class Group:
    """Rows of one (algorithm, type): a size sweep or one fixed case."""

    def __init__(self, alg, typ, rows):
        self.alg, self.typ = alg, typ
        self.rows = rows
        self.impls = list(OrderedDict((r["impl"], None) for r in rows))
        self.baseline = rows[0]["baseline"]
        self.sizes = sorted({r["n"] for r in rows})
        self.ours = default_impl(alg, self.impls)
        self.copy = next((i for i in self.impls if i.startswith("memcpy") or i == "copy limit"), None)
        self.refs = [i for i in self.impls if REFERENCE.match(i) and i != self.ours]
        if alg in ("row_scan", "row_sum"):  # every in-kernel row is one of ours against CUB's kernels
            self.ours_all = [i for i in self.impls if i.startswith("algo::")]
        else:
            self.ours_all = [self.ours] if self.ours else []

    def get(self, impl, n):
        for r in self.rows:
            if r["impl"] == impl and r["n"] == n:
                return r
        return None


def groups_by_family(rows):
    by = OrderedDict()
    for r in rows:
        by.setdefault((r["algorithm"], r["type"]), []).append(r)
    fams = OrderedDict((f, []) for f in FAMILIES)
    other = []
    for (alg, typ), rs in by.items():
        fam = family_of(alg)
        (fams[fam] if fam else other).append(Group(alg, typ, rs))
    return OrderedDict((f, g) for f, g in fams.items() if g), other


def sweep_table(groups):
    """One row per (type, size): ratio of the default and of the references to the baseline."""
    refs = list(OrderedDict((i, None) for g in groups for i in g.refs if i != g.baseline))
    base = groups[0].baseline
    ours = groups[0].ours
    has_copy = any(g.copy for g in groups)
    head = ["type", "n", f"{ours} ms", f"{ours} GB/s"] + [f"{ours} vs {base}"] + [f"{r} vs {base}" for r in refs]
    if has_copy:
        head.append(f"{ours} / copy")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in groups:
        for n in g.sizes:
            o = g.get(g.ours, n)
            if not o:
                continue
            cells = [g.typ, size_label(n), f"{o['ms']:.4f}", f"{o['GBps']:.0f}", f"**{fmt_ratio(o['speedup_vs_baseline'])}**"]
            for ref in refs:
                r = g.get(ref, n)
                cells.append(fmt_ratio(r["speedup_vs_baseline"]) if r else "")
            if has_copy:
                c = g.get(g.copy, n) if g.copy else None
                cells.append(f"{100 * o['GBps'] / c['GBps']:.0f} %" if c and c["GBps"] > 0 else "")
            out.append("| " + " | ".join(cells) + " |")
    return out


def case_table(groups):
    """One row per (case, implementation of interest): time, GB/s, ratio to the case's baseline."""
    head = ["algorithm", "case", "implementation", "ms", "GB/s", "vs baseline", "baseline"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in groups:
        shown = list(OrderedDict((i, None) for i in g.ours_all + g.refs + ([g.copy] if g.copy else [])))
        for impl in shown:
            for n in g.sizes:
                r = g.get(impl, n)
                if not r:
                    continue
                case = g.typ if len(g.sizes) == 1 else f"{g.typ}, n = {size_label(n)}"
                name = f"**{impl}**" if impl in g.ours_all else impl
                out.append(f"| {g.alg} | {case} | {name} | {r['ms']:.4f} | {r['GBps']:.0f} | "
                           f"{fmt_ratio(r['speedup_vs_baseline'])} | {g.baseline} |")
    return out


def plot_sweeps(plt, fam, title, groups, device, path):
    n = len(groups)
    cols = min(3, n)
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.3 * nrows), squeeze=False)
    for ax, g in zip([a for row in axes for a in row], groups):
        lines = [(g.ours, "-", 2.2, "C0")] + [(r, "--", 1.2, f"C{k + 1}") for k, r in enumerate(g.refs)]
        for impl, style, lw, color in lines:
            pts = [(n_, r["GBps"]) for n_ in g.sizes for r in [g.get(impl, n_)] if r]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, lw=lw, marker="o", ms=2.5, label=impl)
        if g.copy:
            pts = [(n_, g.get(g.copy, n_)["GBps"]) for n_ in g.sizes if g.get(g.copy, n_)]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ":", color="k", lw=1.2, label="copy limit (memcpy)")
        ax.set_xscale("log", base=2)
        ax.set_title(f"{g.alg} {g.typ}", fontsize=9)
        ax.set_xlabel("elements", fontsize=8)
        ax.set_ylabel("GB/s (read + written)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6)
    for ax in [a for row in axes for a in row][n:]:
        ax.axis("off")
    fig.suptitle(f"{title}: {device}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_cases(plt, fam, title, groups, device, path):
    """Horizontal grouped bars: GB/s of each implementation of interest per case; the copy limit as a
    black bar across the case where the group has a copy row."""
    cases = []  # (label, [(impl, GB/s)], copy GB/s or None)
    for g in groups:
        for n in g.sizes:
            label = f"{g.alg} {g.typ}" if len(g.sizes) == 1 else f"{g.alg} {g.typ} n={size_label(n)}"
            shown = list(OrderedDict((i, None) for i in g.ours_all + g.refs))
            bars = [(i, g.get(i, n)["GBps"]) for i in shown if g.get(i, n)]
            c = g.get(g.copy, n) if g.copy else None
            cases.append((label, bars, c["GBps"] if c else None))
    impls = list(OrderedDict((i, None) for _, bars, _ in cases for i, _ in bars))
    colors = {i: f"C{k % 10}" for k, i in enumerate(impls)}
    width = 0.8 / max(1, max(len(b) for _, b, _ in cases))
    h = max(2.5, 0.22 * sum(max(1, len(b)) for _, b, _ in cases) * width / 0.8 * 3 + 1.2)
    fig, ax = plt.subplots(figsize=(9, min(h, 14)))
    seen, copy_seen = set(), False
    for k, (label, bars, copy) in enumerate(cases):
        y0 = len(cases) - 1 - k
        for j, (impl, v) in enumerate(bars):
            y = y0 + 0.4 - width * (j + 0.5)
            ax.barh(y, v, height=width * 0.9, color=colors[impl], label=None if impl in seen else impl)
            seen.add(impl)
        if copy:
            ax.plot([copy, copy], [y0 - 0.45, y0 + 0.45], color="k", lw=2, label=None if copy_seen else "copy limit (memcpy)")
            copy_seen = True
    ax.set_yticks(range(len(cases)))
    ax.set_yticklabels([c[0] for c in cases][::-1], fontsize=7)
    ax.set_xlabel("GB/s (bytes the algorithm must read + write)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=6, loc="lower right")
    ax.set_title(f"{title}: {device}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def headline_rows(fams):
    """A handful of rows: the core families at the largest size of the run."""
    out = []
    for fam in ("scan", "reduce"):
        for g in fams.get(fam, []):
            if len(g.sizes) < 3 or not g.ours:
                continue
            n = g.sizes[-1]
            o = g.get(g.ours, n)
            c = g.get(g.copy, n) if g.copy else None
            if o:
                out.append((f"{g.alg} {g.typ}", size_label(n), o, g.baseline, c))
    for g in fams.get("select", []):
        if (g.alg, g.typ) in (("copy_if", "i32 50%"), ("unique_copy", "i32 runs of 4")) and g.ours:
            n = g.sizes[-1]
            o = g.get(g.ours, n)
            c = g.get(g.copy, n) if g.copy else None
            if o:
                out.append((f"{g.alg} {g.typ}", size_label(n), o, g.baseline, c))
    for g in fams.get("transpose", []):
        if g.typ.startswith("16384x16384 f32") or g.typ.startswith("8191x8193 f32"):
            n = g.sizes[-1]
            o = g.get(g.ours, n)
            c = g.get(g.copy, n) if g.copy else None
            if o:
                out.append((f"transpose {g.typ}", "-", o, g.baseline, c))
    return out


def headline_table(fams, device, commit, date, borrowed=None):
    borrowed = borrowed or {}
    rows = headline_rows(fams)
    out = [f"`algo::cuda` on one {device} (commit {commit}, {date}; speed relative to the baseline in the same run, "
           "> 1 is faster; [docs/performance.md](docs/performance.md)):", "",
           "| algorithm | n | time | vs | GB/s / copy's GB/s |", "|---|---|---|---|---|"]
    marked = []
    for name, n, o, base, c in rows:
        share = f"{100 * o['GBps'] / c['GBps']:.0f} %" if c and c["GBps"] > 0 else ""
        fam = family_of(o["algorithm"])
        mark = ""
        if fam in borrowed:
            mark = " †"
            if fam not in marked:
                marked.append(fam)
        out.append(f"| {name}{mark} | {n} | {o['ms']:.3f} ms | **{fmt_ratio(o['speedup_vs_baseline'])}** {base} | {share} |")
    for fam in marked:
        dev, com, day = borrowed[fam][:3]
        out += ["", f"† {FAMILIES[fam][0]}: from another run (one {dev}, commit {com}, {day}); this run did not time it."]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", default="docs/performance.md")
    ap.add_argument("--img-dir", default="docs/img")
    ap.add_argument("--headline", default="docs/performance_headline.md")
    ap.add_argument("--readme")
    ap.add_argument("--device")
    ap.add_argument("--commit")
    ap.add_argument("--date")
    ap.add_argument("--run")
    ap.add_argument("--family-from", action="append", default=[])
    a = ap.parse_args()

    rows = load(a.csv)
    if not rows:
        sys.exit("make_performance_page: no rows")
    device = one_value(rows, "device", a.device)
    commit = one_value(rows, "commit", a.commit)
    date = run_date(a.csv, a.date)
    run = a.run or ", ".join(f"`{os.path.relpath(p)}`" for p in a.csv)
    fams, other = groups_by_family(rows)
    borrowed = {}  # family -> (device, commit, date, path) of the run it comes from
    for spec in a.family_from:
        fam, _, path = spec.partition("=")
        if fam not in FAMILIES or not path:
            sys.exit(f"make_performance_page: --family-from {spec}: FAMILY=CSV, FAMILY one of {', '.join(FAMILIES)}")
        if fam in fams:
            sys.exit(f"make_performance_page: --family-from {spec}: the run itself has that family")
        extra = [r for r in load([path]) if family_of(r["algorithm"]) == fam]
        if not extra:
            sys.exit(f"make_performance_page: --family-from {spec}: no {fam} rows there")
        xfams, _ = groups_by_family(extra)
        fams[fam] = xfams[fam]
        borrowed[fam] = (one_value(extra, "device", None), one_value(extra, "commit", None), run_date([path], None), path)
    fams = OrderedDict((f, fams[f]) for f in FAMILIES if f in fams)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(a.img_dir, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    img_rel = os.path.relpath(a.img_dir, os.path.dirname(os.path.abspath(a.out)))
    page = [
        "# Performance",
        "",
        "<!-- Generated by bench/make_performance_page.py from one bench run; do not edit by hand:",
        "     regenerate it whenever a full bench of main is committed. -->",
        "",
        f"**Device:** {device}. **Commit:** `{commit}`. **Date:** {date}. **Run:** {run}."
        + (" Sections marked \"From another run\" come from the CSV they name." if borrowed else ""),
        "",
        "Every figure below comes from that run's CSV (`bench --csv`; CUDA-event timing, 3 warm-ups, median",
        "of 30 repetitions, inputs rotated over at least 4x the L2). Speed ratios are the baseline's time",
        "over the row's time in the same run (> 1 is faster); GB/s counts the bytes each algorithm must",
        "read and write. \"copy\" is a device-to-device `cudaMemcpyAsync` of the same bytes timed in the",
        "same group: the limit a memory-bound algorithm can reach. How the bench measures, and what each",
        "family's figures mean: [bench/NOTES.md](../bench/NOTES.md).",
        "",
        "## Headline",
        "",
    ] + headline_table(fams, device, commit, date, borrowed)[2:] + [""]
    for fam, groups in fams.items():
        title = FAMILIES[fam][0]
        png = f"perf_{fam}.png"
        sweeps = [g for g in groups if len(g.sizes) > 2]
        cases = [g for g in groups if len(g.sizes) <= 2]
        page += [f"## {title}", ""]
        if fam in borrowed:
            dev, com, day, path = borrowed[fam]
            page += [f"**From another run** (this run did not time it): one {dev}, commit `{com}`, {day}, "
                     f"`{os.path.relpath(path)}`.", ""]
        notes = NOTES.get(fam)
        if notes:
            page += [f"Notes, open gaps and history: [{notes}](../{notes}).", ""]
        if sweeps:
            plot_sweeps(plt, fam, title, sweeps, device, os.path.join(a.img_dir, png))
            page += [f"![{title}: GB/s by size]({img_rel}/{png})", ""]
            page += sweep_table(sweeps) + [""]
        if cases:
            cpng = png if not sweeps else f"perf_{fam}_cases.png"
            plot_cases(plt, fam, title, cases, device, os.path.join(a.img_dir, cpng))
            page += [f"![{title}: GB/s by case, copy limit in black]({img_rel}/{cpng})", ""]
            page += case_table(cases) + [""]
    if other:
        page += ["## Other rows", ""] + case_table(other) + [""]
    with open(a.out, "w") as f:
        f.write("\n".join(page).rstrip("\n") + "\n")

    head = headline_table(fams, device, commit, date, borrowed)
    if a.headline:
        os.makedirs(os.path.dirname(os.path.abspath(a.headline)), exist_ok=True)
        with open(a.headline, "w") as f:
            f.write("\n".join(head) + "\n")
    if a.readme and os.path.exists(a.readme):
        text = open(a.readme).read()
        i, j = text.find(BEGIN), text.find(END)
        if 0 <= i < j:
            text = text[: i + len(BEGIN)] + "\n" + "\n".join(head) + "\n" + text[j:]
            with open(a.readme, "w") as f:
                f.write(text)
            print(f"{a.readme}: headline replaced")
        else:
            print(f"{a.readme}: no {BEGIN} / {END} markers, left as it is")
    print(f"{a.out}: {sum(len(g) for g in fams.values()) + len(other)} groups from {len(rows)} rows "
          f"({device}, {commit}, {date})")


if __name__ == "__main__":
    main()
