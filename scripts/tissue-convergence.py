#!/usr/bin/env python3
"""Convergence of the conduction velocity of a planar wave as dx and dt
shrink: a 1D cable of ten Tusscher-Panfilov 2006 epicardial cells with
the N-version benchmark's conductivity along the fibres, stimulated at one
end. Prints the velocity per dx (at a fixed short dt) and per dt (at a
fixed fine dx), the changes between refinements and the observed order
(log2 of the ratio of successive changes), and the results as JSON:

    scripts/tissue-convergence.py [--length 10] [--dx 0.4 0.2 0.1 0.05 0.025]
                                  [--dt 0.04 0.02 0.01 0.005] [--json FILE]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def velocity(args, dx, dt, scheme):
    n = int(round(args.length / dx)) + 1
    cfg = {"model": os.path.abspath(args.model), "threads": 1,
           "grid": {"points": [n], "spacing_mm": dx},
           "conductivity": {"intracellular": 0.17, "extracellular": 0.62},
           "time": {"dt": dt, "duration": 60, "scheme": scheme,
                    "until_activated": True},
           "stimuli": [{"box": [[0, 0, 0], [0.5, 0, 0]],
                        "current_per_area": 60, "duration": 2}],
           "outputs": {"activation": ""}}
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "cable.json")
        json.dump(cfg, open(path, "w"))
        report = os.path.join(work, "report.json")
        p = subprocess.run([args.tissue, path, "--report-json", report, "-q"],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(p.stderr)
        return json.load(open(report))["conduction_velocity_mm_per_ms"]["x"]


def series(name, values, cvs):
    print(f"{name:>8} {'velocity (m/s)':>15} {'change':>10} {'order':>6}")
    rows = []
    for i, (v, cv) in enumerate(zip(values, cvs)):
        change = cvs[i] - cvs[i - 1] if i else None
        order = None
        if i >= 2 and change and cvs[i - 1] != cvs[i - 2]:
            order = math.log2(abs((cvs[i - 1] - cvs[i - 2]) / change))
        print(f"{v:>8g} {cv:>15.5f} "
              f"{'' if change is None else f'{change:+.5f}':>10} "
              f"{'' if order is None else f'{order:.2f}':>6}")
        rows.append({name: v, "velocity": cv, "order": order})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(
        ROOT, "examples", "models", "ten_tusscher_panfilov_2006.model"))
    ap.add_argument("--length", type=float, default=10.0, help="mm")
    ap.add_argument("--dx", type=float, nargs="+",
                    default=[0.4, 0.2, 0.1, 0.05, 0.025])
    ap.add_argument("--dt", type=float, nargs="+",
                    default=[0.04, 0.02, 0.01, 0.005])
    ap.add_argument("--fine-dt", type=float, default=0.005)
    ap.add_argument("--fine-dx", type=float, default=0.05)
    ap.add_argument("--scheme", default="explicit",
                    choices=["explicit", "crank-nicolson"])
    ap.add_argument("--tissue", default=os.path.join(ROOT, "build", "bin",
                                                     "easyml-tissue"))
    ap.add_argument("--json")
    args = ap.parse_args()
    print(f"planar wave in a {args.length} mm cable, {args.scheme} diffusion")
    print(f"-- dx (mm), dt {args.fine_dt} ms")
    by_dx = series("dx", args.dx, [velocity(args, dx, args.fine_dt,
                                            args.scheme) for dx in args.dx])
    print(f"-- dt (ms), dx {args.fine_dx} mm")
    by_dt = series("dt", args.dt, [velocity(args, args.fine_dx, dt,
                                            args.scheme) for dt in args.dt])
    if args.json:
        json.dump({"scheme": args.scheme, "dx": by_dx, "dt": by_dt},
                  open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
