#!/usr/bin/env python3
"""Throughput of easyml-tissue on one grid across device sets: the CPU
pool, GPUs, both, with the diffusion step on the devices (Vm resident on
a GPU) or on the host, and the activation pass where Vm is or on the host.

    benchmarks/tissue-devices.py --model tt.so --points 256 256 256
        --devices cpu gpu:0 gpu:0@hostact gpu:0@host cpu+gpu:0
        [--steps 200] [--dt 0.01] [--spacing 0.1] [--threads 0]
        [--wave-axis first|last] [--json FILE]

A run per --devices entry, in order; "SPEC@host" runs the diffusion step
on the host's threads (time.diffusion_on = host), "SPEC@hostact" only the
activation pass (time.activation_on = host: Vm comes to the host every
step). A planar wave is started at the x = 0 face (--wave-axis last: at
the face where the last axis is 0, so that it travels across the
devices' slabs, which are cut along that axis). Prints a table
(point-steps/s, speed over the first entry, the share of the ionic step,
the diffusion step, the halo exchange and output, which includes the
host's activation pass) and, for runs whose devices are the same but
whose diffusion step or activation pass runs elsewhere, whether their
final Vm and activation times are bit-identical (the generated operator
computes the same bits on every variant; only for one kind of device, as
a mix's split follows its timings).
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


def config(args, devices, where, act, work):
    n = args.points
    h = args.spacing
    far = [(k - 1) * h for k in n] + [0] * (3 - len(n))
    near = [0.0, 0.0, 0.0]
    # Two planes of points across the chosen axis.
    axis = 0 if args.wave_axis == "first" else len(n) - 1
    face = list(far)
    face[axis] = 2 * h
    return {
        "model": os.path.abspath(args.model),
        "devices": devices,
        "threads": args.threads,
        "grid": {"points": n, "spacing_mm": h},
        "time": {"dt": args.dt, "duration": args.steps * args.dt,
                 "diffusion_on": where, "activation_on": act},
        "stimuli": [{"box": [near, face],
                     "current_per_area": 100, "duration": 2}],
        "outputs": {"directory": work, "activation": "activation",
                    "snapshots_every": args.steps * args.dt},
    }


def run(args, entry, work):
    devices, _, where = entry.partition("@")
    if where not in ("", "host", "hostact"):
        sys.exit(f"tissue-devices.py: error: unknown '@{where}' in '{entry}' "
                 "(@host, @hostact)")
    act = "host" if where else "devices"
    where = "host" if where == "host" else "devices"
    path = os.path.join(work, "tissue.json")
    json.dump(config(args, devices, where, act, work), open(path, "w"))
    report = os.path.join(work, "report.json")
    t0 = time.time()
    p = subprocess.run([args.tissue, path, "--report-json", report, "-q",
                        "--no-progress"], capture_output=True, text=True)
    if p.returncode:
        return {"devices": devices, "diffusion_on": where,
                "activation_on": act, "error": p.stderr.strip()}
    r = json.load(open(report))
    last = sorted(f for f in r["files"]
                  if f.endswith(".npy") and "vm_" in f)[-1]
    s = r["run"]["seconds"]
    total = s["total"] or 1
    return {"devices": devices, "diffusion_on": where,
            "activation_on": act,
            "activated_on_devices": r["run"].get("activated_on_devices", 0),
            "device_names": r["devices"],
            "point_steps_per_second": r["run"]["point_steps_per_second"],
            "ionic_share": s["ionic"] / total,
            "diffusion_share": s["diffusion"] / total,
            "halo_share": s.get("halo", 0) / total,
            "output_share": s["output"] / total,
            "seconds": total, "wall_with_setup": time.time() - t0,
            "substeps": r["run"]["substeps"], "final": last,
            "activation": os.path.join(work, "activation.npy")}


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
    ap.add_argument("--wave-axis", choices=("first", "last"), default="first")
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
            if "final" in rows[-1] and not os.path.isabs(rows[-1]["final"]):
                rows[-1]["final"] = os.path.join(work, rows[-1]["final"])
        same = compare(rows)
    points = "x".join(map(str, args.points))
    print(f"{os.path.basename(args.model)}, {points} points, "
          f"{args.steps} steps of {args.dt} ms")
    base = rows[0].get("point_steps_per_second")
    print(f"{'devices':<16} {'diffusion':<9} {'activ.':<8} "
          f"{'point-steps/s':>14} "
          f"{'speed':>7} {'ionic':>6} {'diff.':>6} {'halo':>6} {'output':>6}")
    for r in rows:
        if "error" in r:
            print(f"{r['devices']:<16} {r['diffusion_on']:<9} "
                  f"{r['activation_on']:<8} failed: {r['error']}")
            continue
        rate = r["point_steps_per_second"]
        print(f"{r['devices']:<16} {r['diffusion_on']:<9} "
              f"{r['activation_on']:<8} {rate:>14.3e} "
              f"{rate / base if base else 0:>6.2f}x "
              f"{100 * r['ionic_share']:>5.1f}% "
              f"{100 * r['diffusion_share']:>5.1f}% "
              f"{100 * r['halo_share']:>5.1f}% "
              f"{100 * r['output_share']:>5.1f}%")
    for a, b, equal in same:
        print(f"{a} vs {b}: final Vm and activation times "
              f"{'bit-identical' if equal else 'DIFFER'}")
    if args.json:
        for r in rows:
            r.pop("final", None)
            r.pop("activation", None)
        json.dump({"model": os.path.basename(args.model),
                   "points": args.points, "steps": args.steps,
                   "wave_axis": args.wave_axis,
                   "dt": args.dt, "rows": rows,
                   "identical": [{"a": a, "b": b, "equal": e}
                                 for a, b, e in same]},
                  open(args.json, "w"), indent=1)
    return 1 if any("error" in r for r in rows) or \
        not all(e for _, _, e in same) else 0


def label(r):
    where = {("devices", "devices"): "", ("devices", "host"): "@hostact",
             ("host", "host"): "@host"}
    return r["devices"] + where[(r["diffusion_on"], r["activation_on"])]


def compare(rows):
    """Pairs of runs on the same devices with the diffusion step or the
    activation pass elsewhere."""
    out = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            # One kind of device (a mix's split follows timings).
            if "final" in a and "final" in b and "+" not in a["devices"] and \
                    a["devices"] == b["devices"] and label(a) != label(b):
                same = all(np.array_equal(np.load(a[k]), np.load(b[k]),
                                          equal_nan=True)
                           for k in ("final", "activation"))
                out.append((label(a), label(b), bool(same)))
    return out


if __name__ == "__main__":
    sys.exit(main())
