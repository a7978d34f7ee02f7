#!/usr/bin/env python3
"""Throughput of easyml-tissue on the Aliev-Panfilov problem of a 2D
ghost-cell solver's reference figures (800 x 800 points, 5-point stencil,
no-flux boundaries), on one core and on all of them.

    benchmarks/tissue.py [--points 800] [--steps 2000] [--threads 1 2]
                         [--repeat 3] [--bandwidth 46] [--json FILE]

The model is examples/models/aliev_panfilov_1996.model (two variables,
written from the published equations); a plane wave is started along one
edge. Prints a table: point-steps/s (the median of --repeat runs, the
thread counts taking turns), the fraction of the memory roof (the bytes
each point-step must move at least: Vm and the model's state read and
written once, at --bandwidth GB/s), and the share of the
run time in the one-pass step (the ionic step, diffusion and activation
times together, docs/tissue.md), the separate ionic and diffusion steps
and output.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def config(args, threads, work):
    """The Aliev-Panfilov plane wave on args.points^2 points."""
    n = args.points
    return {
        "model": os.path.join(ROOT, "examples", "models",
                              "aliev_panfilov_1996.model"),
        "threads": threads,
        "grid": {"points": [n, n], "spacing_mm": args.spacing},
        "conductivity": {"intracellular": 0.17, "extracellular": 0.62},
        "time": {"dt": args.dt, "duration": args.steps * args.dt},
        "stimuli": [{"box": [[0, 0, 0], [5 * args.spacing, (n - 1) *
                                         args.spacing, 0]],
                     "current_per_area": 100, "duration": 2}],
        "outputs": {"directory": work, "activation": ""},
    }


def run(args, threads, work):
    cfg = config(args, threads, work)
    path = os.path.join(work, f"ap-{threads}.json")
    json.dump(cfg, open(path, "w"))
    report = os.path.join(work, f"ap-{threads}-report.json")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    p = subprocess.run([args.tissue, path, "--report-json", report, "-q"],
                       capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit("easyml-tissue failed: " + p.stderr.strip())
    return json.load(open(report))["run"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=800)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--spacing", type=float, default=0.1)
    ap.add_argument("--threads", type=int, nargs="+",
                    default=[1, os.cpu_count() or 1])
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per thread count (the median is reported)")
    ap.add_argument("--bandwidth", type=float, default=46.0,
                    help="memory bandwidth for the roof, GB/s")
    ap.add_argument("--tissue", default=os.path.join(ROOT, "build", "bin",
                                                     "easyml-tissue"))
    ap.add_argument("--json")
    args = ap.parse_args()
    # Vm and the one state read and written: 4 doubles (the one-pass step
    # keeps Iion in a cache-sized block, docs/tissue.md).
    bytes_per_point_step = 4 * 8
    rows = []
    with tempfile.TemporaryDirectory() as work:
        runs = {t: [] for t in args.threads}
        for k in range(args.repeat):
            for t in args.threads:
                runs[t].append(run(args, t, work))
                print(f"run {k + 1}/{args.repeat}, {t} thread(s): "
                      f"{runs[t][-1]['point_steps_per_second']:.3e}",
                      file=sys.stderr)
        for t in args.threads:
            r = sorted(runs[t], key=lambda x: x["point_steps_per_second"])[
                len(runs[t]) // 2]
            total = r["seconds"]["total"]
            rate = r["point_steps_per_second"]
            rows.append({
                "threads": t, "point_steps_per_second": rate,
                "memory_roof_fraction": rate * bytes_per_point_step /
                (args.bandwidth * 1e9),
                "runs": [x["point_steps_per_second"] for x in runs[t]],
                "one_pass_share": r["seconds"].get("fused", 0) / total,
                "ionic_share": r["seconds"]["ionic"] / total,
                "diffusion_share": r["seconds"]["diffusion"] / total,
                "output_share": r["seconds"]["output"] / total,
                "substeps": r["substeps"]})
    print(f"Aliev-Panfilov, {args.points} x {args.points} points, "
          f"{args.steps} steps of {args.dt} ms")
    print(f"{'threads':>8} {'point-steps/s':>14} {'mem roof':>9} "
          f"{'one pass':>9} {'ionic':>7} {'diffusion':>10} {'output':>7}")
    for r in rows:
        print(f"{r['threads']:>8} {r['point_steps_per_second']:>14.3e} "
              f"{100 * r['memory_roof_fraction']:>8.1f}% "
              f"{100 * r['one_pass_share']:>8.1f}% "
              f"{100 * r['ionic_share']:>6.1f}% "
              f"{100 * r['diffusion_share']:>9.1f}% "
              f"{100 * r['output_share']:>6.1f}%")
    if len(rows) > 1:
        print(f"speed-up {rows[-1]['threads']} threads over "
              f"{rows[0]['threads']}: "
              f"{rows[-1]['point_steps_per_second'] / rows[0]['point_steps_per_second']:.2f}x")
    if args.json:
        json.dump({"points": args.points, "steps": args.steps,
                   "dt": args.dt, "rows": rows}, open(args.json, "w"),
                  indent=1)


if __name__ == "__main__":
    main()
