#!/usr/bin/env python3
"""Draws the bench CSV as PNG plots (throughput vs size, one line per implementation) and writes a
markdown table of the rows that matter.

    python3 bench/plot.py bench.csv OUTDIR

One plot per (algorithm, type) for the size sweeps (scan / reduce over 2^10..2^28); one bar chart
per algorithm for the fixed-shape rows (transpose shapes, affine/struct scans, the dot product).
"""
import csv
import os
import sys
from collections import defaultdict


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rows = load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = defaultdict(list)
    for r in rows:
        groups[(r["algorithm"], r["type"])].append(r)
    sweeps = {k: v for k, v in groups.items() if len({r["n"] for r in v}) > 2}
    fixed = defaultdict(list)
    for k, v in groups.items():
        if k not in sweeps:
            fixed[k[0]].extend(v)
    device = rows[0]["device"] if rows else ""

    for (alg, typ), rs in sorted(sweeps.items()):
        fig, ax = plt.subplots(figsize=(9, 5.5))
        by_impl = defaultdict(list)
        for r in rs:
            by_impl[r["impl"]].append((int(r["n"]), float(r["GBps"])))
        for impl, pts in sorted(by_impl.items()):
            pts.sort()
            style = "-" if impl.startswith("algo::cuda") else "--"
            width = 2.5 if impl in ("algo::cuda", "cub", "memcpy") else 1.0
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, lw=width, label=impl)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_title(f"{alg} {typ} on {device}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{alg}_{typ.replace(' ', '_')}.png"), dpi=110)
        plt.close(fig)

    for alg, rs in sorted(fixed.items()):
        cases = sorted({r["type"] for r in rs})
        impls = sorted({r["impl"] for r in rs})
        fig, ax = plt.subplots(figsize=(max(9, 1.3 * len(cases)), 6))
        width = 0.8 / max(1, len(impls))
        for i, impl in enumerate(impls):
            vals = []
            for c in cases:
                m = [float(r["GBps"]) for r in rs if r["type"] == c and r["impl"] == impl]
                vals.append(m[0] if m else 0)
            ax.bar([j + i * width for j in range(len(cases))], vals, width, label=impl)
        ax.set_xticks([j + 0.4 for j in range(len(cases))])
        ax.set_xticklabels(cases, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_title(f"{alg} on {device}")
        ax.legend(fontsize=6, ncol=3)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{alg}_shapes.png"), dpi=110)
        plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
