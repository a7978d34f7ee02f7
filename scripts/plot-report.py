#!/usr/bin/env python3
"""Plots a run report of the EasyML runtime.

Reads the JSON of `easyml-bench --report-json` (or the runtime's own
report, `Simulation::report().json()`) and draws, per wave, each device's
time and the share of the cells it held (under mpirun: per epoch, each
rank's), with the waves after which the
cells were re-split and the dimensioning windows marked. Each split the
balancer made is labelled with the gain it predicted and the gain the next
window measured, and a table of its decisions is printed.

    scripts/plot-report.py report.json -o report.png

Needs matplotlib (Debian: python3-matplotlib).
"""

import argparse
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    if "mpi" in data:
        # A run across MPI ranks: ranks take the devices' place and epochs
        # the waves'.
        m = data["mpi"]
        return {
            "model": data.get("model", ""),
            "cells": m["cells"],
            "cell_steps_per_second": data.get("cell_steps_per_second", 0),
            "devices": [{"id": "rank %d" % p["rank"]}
                        for p in m["per_rank"]],
            "wave_log": m["epoch_records"],
        }
    # easyml-bench nests the runtime's report under "runtime".
    return data.get("runtime", data)


def decisions(r, ax):
    """The balancer's splits: a table on stdout, labels on `ax`."""
    log = [p for p in r.get("repartition_log", []) if "predicted_gain" in p]
    if not log:
        return
    print(f"{'step':>9} {'imbalance':>9} {'predicted':>9} {'measured':>9} "
          f"{'gain (s)':>9} {'move (s)':>9}")
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"
    num = lambda v: "-" if v is None else f"{v:.3g}"
    for p in log:
        print(f"{p['step']:>9} {pct(p['imbalance']):>9} "
              f"{pct(p['predicted_gain']):>9} {pct(p['measured_gain']):>9} "
              f"{num(p['gain_seconds']):>9} {num(p['move_seconds']):>9}")
        ax.annotate(f"{pct(p['predicted_gain'])} / {pct(p['measured_gain'])}",
                    (p["step"], 1), xycoords=("data", "axes fraction"),
                    fontsize="x-small", rotation=90, va="top", ha="right")
    refused = r.get("moves_refused", 0)
    if refused:
        print(f"{refused} split(s) not made: the gain did not pay the move")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="report JSON")
    parser.add_argument("-o", "--output", default="report.png",
                        help="image to write (.png, .svg, .pdf)")
    parser.add_argument("--title", help="figure title (default: the model)")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot-report.py: error: matplotlib is missing "
                 "(Debian: apt-get install python3-matplotlib)")

    try:
        r = load(args.report)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-report.py: error: cannot read {args.report}: {e}")
    waves = r.get("wave_log", [])
    devices = r.get("devices", [])
    if not waves or not devices:
        sys.exit(f"plot-report.py: error: {args.report} has no waves to plot")

    ids = [d["id"] for d in devices]
    # Each wave holds from its first step to the next wave's; the last one
    # is repeated at its end so that it shows.
    waves = waves + [dict(waves[-1], step0=waves[-1]["step0"] +
                          waves[-1]["steps"], repartition=False)]
    x = [w["step0"] for w in waves]
    fig, (ax_t, ax_s) = plt.subplots(2, 1, sharex=True, figsize=(9, 6.5))
    fig.suptitle(args.title or
                 f"{r.get('model', '')}: {r.get('cells', 0)} cells, "
                 f"{r.get('cell_steps_per_second', 0):.3g} cell-steps/s")

    # Per-wave device times, per step so waves of different lengths compare.
    for k, name in enumerate(ids):
        t = [w["seconds"][k] / max(1, w["steps"]) * 1e3
             if w["cells"][k] > 0 else None for w in waves]
        if any(v is not None for v in t):
            ax_t.step(x, [v if v is not None else float("nan") for v in t],
                      where="post", label=name)
    ax_t.set_ylabel("device time per step (ms)")
    ax_t.set_yscale("log")
    ax_t.legend(loc="upper right", fontsize="small")
    ax_t.grid(True, alpha=0.3)

    # The partition: each device's share of the cells.
    total = max(1, r.get("cells", 1))
    bottom = [0.0] * len(waves)
    for k, name in enumerate(ids):
        share = [w["cells"][k] / total for w in waves]
        if any(share):
            ax_s.fill_between(x, bottom, [b + s for b, s in zip(bottom, share)],
                              step="post", alpha=0.7, label=name)
        bottom = [b + s for b, s in zip(bottom, share)]
    ax_s.set_ylabel("share of the cells")
    ax_s.set_xlabel("step")
    ax_s.set_ylim(0, 1)
    ax_s.grid(True, alpha=0.3)

    for w in waves:
        if w.get("repartition"):
            for ax in (ax_t, ax_s):
                ax.axvline(w["step0"] + w["steps"], color="k", lw=0.6,
                           ls="--", alpha=0.6)
    decisions(r, ax_t)
    dim = r.get("dimensioning", {})
    for win in dim.get("windows", []):
        ax_s.axvspan(win["step0"], win["step0"] + win["steps"], color="grey",
                     alpha=0.15)
        ax_s.text(win["step0"], 1.01, win["config"], fontsize="x-small",
                  transform=ax_s.get_xaxis_transform())
    if dim.get("enabled"):
        ax_s.set_title(f"dimensioning: {dim.get('chosen', '?')}",
                       fontsize="small")

    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output} ({len(waves)} waves, "
          f"{r.get('repartitions', 0)} repartitions)")


if __name__ == "__main__":
    main()
