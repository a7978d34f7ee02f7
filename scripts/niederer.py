#!/usr/bin/env python3
"""One case of the N-version monodomain benchmark (Niederer et al. 2011).

A 20 x 7 x 3 mm slab, fibres along x, ten Tusscher-Panfilov 2006
epicardial cells (examples/models/ten_tusscher_panfilov_2006.model);
intracellular 0.17/0.019 S/m and extracellular 0.62/0.24 S/m along/across,
surface-to-volume 140 /mm, Cm 1 uF/cm^2; 50,000 uA/cm^3 for 2 ms in the
1.5 mm cube at the corner P1. Prints a table and, on its last line, the
activation times (Vm first above 0 mV, ms) at P1..P9 as JSON:

  scripts/niederer.py --dx 0.2 --dt 0.01 [--scheme explicit|crank-nicolson]
                      [--threads N] [--devices gpu:0] [--keep DIR]

With --all, every case of the benchmark (dx 0.5, 0.2, 0.1 mm x dt 0.05,
0.01, 0.005 ms; or those of --dx-list and --dt-list), then a Markdown
table of the nine points' times and, with --json FILE, the results.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZE = (20.0, 7.0, 3.0)
POINTS = {  # the eight corners (P1 the stimulated one) and the centre
    "P1": (0, 0, 0), "P2": (0, 7, 0), "P3": (20, 0, 0), "P4": (20, 7, 0),
    "P5": (0, 0, 3), "P6": (0, 7, 3), "P7": (20, 0, 3), "P8": (20, 7, 3),
    "P9": (10, 3.5, 1.5),
}


def config(args):
    return {
        "model": os.path.abspath(args.model),
        "devices": args.devices,
        "threads": args.threads,
        "grid": {"size_mm": list(SIZE), "spacing_mm": args.dx},
        "conductivity": {"intracellular": [0.17, 0.019, 0.019],
                         "extracellular": [0.62, 0.24, 0.24],
                         "surface_to_volume": 140, "capacitance": 1},
        "time": {"dt": args.dt, "duration": args.duration,
                 "scheme": args.scheme, "until_activated": True,
                 "diffusion_on": args.diffusion_on},
        "stimuli": [{"box": [[0, 0, 0], [1.5, 1.5, 1.5]],
                     "current_per_volume": 50000, "start": 0,
                     "duration": 2}],
        "outputs": {"directory": ".", "activation": "activation",
                    "activation_threshold": 0,
                    "probes": {k: list(v) for k, v in POINTS.items()}},
    }


def case(args, dx, dt):
    """Runs one case; its activation times and throughput."""
    a = argparse.Namespace(**vars(args))
    a.dx, a.dt = dx, dt
    with tempfile.TemporaryDirectory(prefix="niederer-") as work:
        path = os.path.join(work, "niederer.json")
        with open(path, "w") as f:
            json.dump(config(a), f, indent=1)
        report = os.path.join(work, "report.json")
        p = subprocess.run([a.tissue, path, "--report-json", report,
                            "--no-progress", "-q"], text=True,
                           capture_output=True, cwd=work)
        if p.returncode != 0:
            sys.exit(p.stderr)
        r = json.load(open(report))
    return {"dx": dx, "dt": dt, "scheme": a.scheme,
            "activation_ms": r["activation_ms"],
            "point_steps_per_second": r["run"]["point_steps_per_second"],
            "seconds": r["run"]["seconds"]["total"]}


def table(args):
    rows = []
    for dx in args.dx_list:
        for dt in args.dt_list:
            print(f"dx {dx} mm, dt {dt} ms ...", file=sys.stderr, flush=True)
            rows.append(case(args, dx, dt))
    print("| dx (mm) | dt (ms) | " + " | ".join(POINTS) +
          " | point·steps/s |")
    print("|---|---|" + "---|" * len(POINTS) + "---|")
    for r in rows:
        t = r["activation_ms"]
        print(f"| {r['dx']} | {r['dt']} | " +
              " | ".join("–" if t[k] is None else f"{t[k]:.2f}"
                         for k in POINTS) +
              f" | {r['point_steps_per_second']:.3g} |")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dx", type=float, help="mm")
    ap.add_argument("--dt", type=float, help="ms")
    ap.add_argument("--all", action="store_true",
                    help="every case of --dx-list x --dt-list, as a table")
    ap.add_argument("--dx-list", type=float, nargs="+",
                    default=[0.5, 0.2, 0.1])
    ap.add_argument("--dt-list", type=float, nargs="+",
                    default=[0.05, 0.01, 0.005])
    ap.add_argument("--json", help="with --all: the results as JSON")
    ap.add_argument("--scheme", default="explicit",
                    choices=["explicit", "crank-nicolson"])
    ap.add_argument("--model", default=os.path.join(
        ROOT, "examples", "models", "ten_tusscher_panfilov_2006.model"))
    ap.add_argument("--duration", type=float, default=200,
                    help="ms at most (the run stops once all has activated)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--devices", default="cpu",
                    help="devices of the run (e.g. gpu:0, cpu+gpu:all)")
    ap.add_argument("--diffusion-on", default="devices",
                    choices=["devices", "host"])
    ap.add_argument("--tissue", default=os.path.join(ROOT, "build", "bin",
                                                     "easyml-tissue"))
    ap.add_argument("--keep", help="keep the configuration and outputs here")
    args = ap.parse_args()
    if args.all:
        return table(args)
    if args.dx is None or args.dt is None:
        ap.error("give --dx and --dt, or --all")
    work = args.keep or tempfile.mkdtemp(prefix="niederer-")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "niederer.json")
    with open(path, "w") as f:
        json.dump(config(args), f, indent=1)
    report = os.path.join(work, "report.json")
    p = subprocess.run([args.tissue, path, "--report-json", report,
                        "--no-progress"], text=True, capture_output=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        return p.returncode
    r = json.load(open(report))
    times = r["activation_ms"]
    run = r["run"]
    print(f"dx {args.dx} mm, dt {args.dt} ms, {args.scheme}: "
          f"{r['grid'][0]} x {r['grid'][1]} x {r['grid'][2]} points, "
          f"{run['steps']} steps, {run['point_steps_per_second']:.3g} "
          f"point-steps/s")
    for k in POINTS:
        t = times[k]
        print(f"  {k}  {'never' if t is None else f'{t:8.3f} ms'}")
    print(json.dumps({"dx": args.dx, "dt": args.dt, "scheme": args.scheme,
                      "activation_ms": times,
                      "point_steps_per_second": run["point_steps_per_second"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
