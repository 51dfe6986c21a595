#!/usr/bin/env python3
"""Draws the CSV of `bench/multi_gpu --scaling` as two PNG plots, weak and strong scaling, and writes
a markdown table of the same rows.

    python3 bench/plot_scaling.py scaling.csv OUTDIR

OUTDIR/scaling_weak.png and OUTDIR/scaling_strong.png: on the left the time of each operation against
the number of GPUs (measured: points and solid lines; the cost model's prediction: dashed lines in
the same colour), on the right the efficiency (weak: t(1) / t(G); strong: t(1) / (G t(G))), measured
and as the model predicts it (the same ratio of the model's times), against the ideal 1.
OUTDIR/scaling.md: the table (time, model, model / time, efficiencies) for bench/NOTES.md.
"""
import csv
import os
import sys
from collections import defaultdict

MODES = ("weak", "strong")
OPS = ("reduce", "transform_reduce", "inclusive_scan", "transpose")


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["gpus"] = int(r["gpus"])
        r["elements_total"] = int(r["elements_total"])
        r["elements_per_gpu"] = int(r["elements_per_gpu"])
        r["time_ms"] = float(r["time_ms"])
        r["model_ms"] = float(r["model_ms"])
        r["efficiency"] = float(r["efficiency"])
    return rows


def size(n):
    """2^k when n is a power of two, else the number."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def series(rows, mode):
    """{op: [rows sorted by gpus]} of one mode, with the model's efficiency added to each row."""
    by_op = defaultdict(list)
    for r in rows:
        if r["mode"] == mode:
            by_op[r["op"]].append(r)
    for rs in by_op.values():
        rs.sort(key=lambda r: r["gpus"])
        one = [r for r in rs if r["gpus"] == 1]
        for r in rs:
            scale = 1.0 if mode == "weak" else r["gpus"]
            r["model_efficiency"] = one[0]["model_ms"] / (scale * r["model_ms"]) if one and r["model_ms"] > 0 else float("nan")
    order = {op: i for i, op in enumerate(OPS)}
    return dict(sorted(by_op.items(), key=lambda kv: (order.get(kv[0], len(OPS)), kv[0])))


def label(op, rs, mode):
    r = rs[0]
    if mode == "weak":
        return f"{op} ({size(r['elements_per_gpu'])}/GPU)"
    return f"{op} ({size(r['elements_total'])} in all)"


def plot_mode(matplotlib, plt, rows, mode, out):
    ops = series(rows, mode)
    if not ops:
        return None
    device = rows[0].get("device", "")
    commit = rows[0].get("commit", "")
    gpus = sorted({r["gpus"] for rs in ops.values() for r in rs})
    fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(13, 5.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (op, rs) in enumerate(ops.items()):
        c = colors[i % len(colors)]
        g = [r["gpus"] for r in rs]
        ax_t.plot(g, [r["time_ms"] for r in rs], "-", marker="o", color=c, lw=2, label=label(op, rs, mode))
        ax_t.plot(g, [r["model_ms"] for r in rs], "--", marker="x", color=c, lw=1.2, alpha=0.8)
        ax_e.plot(g, [r["efficiency"] for r in rs], "-", marker="o", color=c, lw=2, label=op)
        ax_e.plot(g, [r["model_efficiency"] for r in rs], "--", marker="x", color=c, lw=1.2, alpha=0.8)
    # one legend entry for the line styles
    ax_t.plot([], [], "-", marker="o", color="gray", label="measured (median wall clock)")
    ax_t.plot([], [], "--", marker="x", color="gray", label="cost model")
    ax_e.axhline(1.0, color="black", lw=0.8, ls=":", label="ideal")
    for ax in (ax_t, ax_e):
        ax.set_xscale("log", base=2)
        ax.set_xticks(gpus)
        ax.set_xticklabels([str(g) for g in gpus])
        ax.set_xlabel("GPUs")
        ax.grid(True, alpha=0.3)
    ax_t.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax_t.yaxis.set_major_formatter(plain)
    ax_t.yaxis.set_minor_formatter(plain)
    ax_t.tick_params(axis="y", which="minor", labelsize=7)
    ax_t.set_ylabel("time per call (ms)")
    ax_t.set_title("time: measured (solid) and model (dashed)")
    ax_t.legend(fontsize=7)
    effs = [r[k] for rs in ops.values() for r in rs for k in ("efficiency", "model_efficiency") if r[k] == r[k]]
    ax_e.set_ylim(0, max([1.1] + [e * 1.05 for e in effs]))
    ax_e.set_ylabel("efficiency: t(1) / t(G)" if mode == "weak" else "efficiency: t(1) / (G t(G))")
    ax_e.set_title("efficiency: measured (solid) and model (dashed)")
    ax_e.legend(fontsize=7)
    what = "fixed size per GPU" if mode == "weak" else "fixed total size"
    fig.suptitle(f"{mode} scaling ({what}), algo::nccl on {device}" + (f", {commit}" if commit else ""))
    fig.tight_layout()
    path = os.path.join(out, f"scaling_{mode}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def table(rows):
    lines = ["| mode | op | GPUs | elements in all | per GPU | time (ms) | model (ms) | model / time | efficiency | model efficiency |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for mode in MODES:
        for op, rs in series(rows, mode).items():
            for r in rs:
                lines.append(f"| {mode} | {op} | {r['gpus']} | {size(r['elements_total'])} | {size(r['elements_per_gpu'])} | "
                             f"{r['time_ms']:.4f} | {r['model_ms']:.4f} | {r['model_ms'] / r['time_ms']:.3f} | "
                             f"{r['efficiency']:.3f} | {r['model_efficiency']:.3f} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if not os.path.exists(sys.argv[1]):
        print(f"{sys.argv[1]}: no such file (did the bench run?)")
        return 1
    rows = load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if not rows:
        print(f"{sys.argv[1]}: no rows")
        return 1
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (plot_mode's tick labels)

    for mode in MODES:
        path = plot_mode(matplotlib, plt, rows, mode, out)
        print(f"{mode}: {path or 'no rows'}")
    with open(os.path.join(out, "scaling.md"), "w") as f:
        f.write(table(rows))
    print(f"table: {os.path.join(out, 'scaling.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
