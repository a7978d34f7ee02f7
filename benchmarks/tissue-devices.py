#!/usr/bin/env python3
"""Throughput of easyml-tissue on one grid across device sets: the CPU
pool, GPUs, both, with the diffusion step on the devices (Vm resident on
a GPU) or on the host.

    benchmarks/tissue-devices.py --model tt.so --points 256 256 256
        --devices cpu gpu:0 gpu:0@host cpu+gpu:0 [--steps 200] [--dt 0.01]
        [--spacing 0.1] [--threads 0] [--json FILE]

A run per --devices entry, in order; "SPEC@host" runs the diffusion step
on the host's threads (time.diffusion_on = host). A planar wave is
started at the x = 0 face. Prints a table (point-steps/s, speed over the
first entry, the share of the ionic step, the diffusion step, the halo
exchange and output) and, for runs whose devices are the same but the
diffusion step runs elsewhere, whether their final Vm is bit-identical
(the generated operator computes the same bits on every variant; only
for one kind of device, as a mix's split follows its timings).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def config(args, devices, where, work):
    n = args.points
    h = args.spacing
    return {
        "model": os.path.abspath(args.model),
        "devices": devices,
        "threads": args.threads,
        "grid": {"points": n, "spacing_mm": h},
        "time": {"dt": args.dt, "duration": args.steps * args.dt,
                 "diffusion_on": where},
        "stimuli": [{"box": [[0, 0, 0], [2 * h, (n[1] - 1) * h,
                                         (n[2] - 1) * h if len(n) > 2 else 0]],
                     "current_per_area": 100, "duration": 2}],
        "outputs": {"directory": work, "activation": "",
                    "snapshots_every": args.steps * args.dt},
    }


def run(args, entry, work):
    devices, _, where = entry.partition("@")
    where = where or "devices"
    path = os.path.join(work, "tissue.json")
    json.dump(config(args, devices, where, work), open(path, "w"))
    report = os.path.join(work, "report.json")
    t0 = time.time()
    p = subprocess.run([args.tissue, path, "--report-json", report, "-q",
                        "--no-progress"], capture_output=True, text=True)
    if p.returncode:
        return {"devices": devices, "diffusion_on": where,
                "error": p.stderr.strip()}
    r = json.load(open(report))
    last = sorted(f for f in r["files"] if f.endswith(".npy"))[-1]
    s = r["run"]["seconds"]
    total = s["total"] or 1
    return {"devices": devices, "diffusion_on": where,
            "device_names": r["devices"],
            "point_steps_per_second": r["run"]["point_steps_per_second"],
            "ionic_share": s["ionic"] / total,
            "diffusion_share": s["diffusion"] / total,
            "halo_share": s.get("halo", 0) / total,
            "output_share": s["output"] / total,
            "seconds": total, "wall_with_setup": time.time() - t0,
            "substeps": r["run"]["substeps"], "final": last}


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--points", type=int, nargs="+", required=True)
    ap.add_argument("--devices", nargs="+", required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--spacing", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--tissue", default=os.path.join(ROOT, "build", "bin",
                                                     "easyml-tissue"))
    ap.add_argument("--json")
    args = ap.parse_args()
    if not 1 <= len(args.points) <= 3:
        ap.error("--points takes one to three numbers")
    rows = []
    with tempfile.TemporaryDirectory(prefix="tissue-devices-") as top:
        for k, entry in enumerate(args.devices):
            work = os.path.join(top, str(k))
            os.makedirs(work)
            print(f"[{k + 1}/{len(args.devices)}] {entry} ...",
                  file=sys.stderr, flush=True)
            rows.append(run(args, entry, work))
            if "final" in rows[-1]:
                rows[-1]["final"] = os.path.join(work, rows[-1]["final"])
        same = compare(rows)
    points = "x".join(map(str, args.points))
    print(f"{os.path.basename(args.model)}, {points} points, "
          f"{args.steps} steps of {args.dt} ms")
    base = rows[0].get("point_steps_per_second")
    print(f"{'devices':<16} {'diffusion':<9} {'point-steps/s':>14} "
          f"{'speed':>7} {'ionic':>6} {'diff.':>6} {'halo':>6} {'output':>6}")
    for r in rows:
        if "error" in r:
            print(f"{r['devices']:<16} {r['diffusion_on']:<9} failed: "
                  f"{r['error']}")
            continue
        rate = r["point_steps_per_second"]
        print(f"{r['devices']:<16} {r['diffusion_on']:<9} {rate:>14.3e} "
              f"{rate / base if base else 0:>6.2f}x "
              f"{100 * r['ionic_share']:>5.1f}% "
              f"{100 * r['diffusion_share']:>5.1f}% "
              f"{100 * r['halo_share']:>5.1f}% "
              f"{100 * r['output_share']:>5.1f}%")
    for a, b, equal in same:
        print(f"{a} vs {b}: final Vm "
              f"{'bit-identical' if equal else 'DIFFERS'}")
    if args.json:
        for r in rows:
            r.pop("final", None)
        json.dump({"model": os.path.basename(args.model),
                   "points": args.points, "steps": args.steps,
                   "dt": args.dt, "rows": rows,
                   "identical": [{"a": a, "b": b, "equal": e}
                                 for a, b, e in same]},
                  open(args.json, "w"), indent=1)
    return 1 if any("error" in r for r in rows) or \
        not all(e for _, _, e in same) else 0


def compare(rows):
    """Pairs of runs on the same devices, diffusion on devices vs host."""
    out = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            # One kind of device (a mix's split follows timings).
            if "final" in a and "final" in b and "+" not in a["devices"] and \
                    a["devices"] == b["devices"] and \
                    a["diffusion_on"] != b["diffusion_on"]:
                va, vb = np.load(a["final"]), np.load(b["final"])
                out.append((f"{a['devices']}@{a['diffusion_on']}",
                            f"{b['devices']}@{b['diffusion_on']}",
                            bool(np.array_equal(va, vb, equal_nan=True))))
    return out


if __name__ == "__main__":
    sys.exit(main())
