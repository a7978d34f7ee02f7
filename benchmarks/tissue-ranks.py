#!/usr/bin/env python3
"""Throughput of easyml-tissue across MPI ranks on the Aliev-Panfilov
problem of benchmarks/tissue.py (800 x 800 points), per process grid: how
the grid is cut into slabs or boxes (docs/tissue.md, "Across ranks").

    benchmarks/tissue-ranks.py [--ranks 4] [--grids auto 1x4 2x2 4x1]
                               [--threads 1] [--steps 1000] [--repeat 3]
                               [--mpirun "mpirun -np"] [--json FILE]
    benchmarks/tissue-ranks.py --ranks 2 --grids 1x2 --balance on off \
                               --mpi-slow 1:3 --steps 3000 --repeat 4

The process grids (and, with --balance on off, slabs that follow the
ranks' balancer against the even shares) take turns, --repeat times; the
table gives the median point-steps/s, rank 0's share of the time in halo
exchange, the halo points the busiest rank receives per diffusion
sub-step, and how many times the slabs moved. --mpi-slow makes one rank's
ionic steps slower (easyml-tissue --mpi-slow).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tissue import ROOT, config  # noqa: E402


def halo_points(n, grid):
    """Halo points received per sub-step by the rank that receives most."""
    px, py = grid
    worst = 0
    for bx in range(px):
        for by in range(py):
            w = (bx + 1) * n // px - bx * n // px
            h = (by + 1) * n // py - by * n // py
            worst = max(worst, ((bx > 0) + (bx < px - 1)) * h +
                        ((by > 0) + (by < py - 1)) * w)
    return worst


def run(args, grid, balance, work):
    cfg = config(args, args.threads, work)
    if grid != "auto":
        cfg["process_grid"] = [int(x) for x in grid.split("x")]
    cfg["balance_ranks"] = balance == "on"
    path = os.path.join(work, f"ap-{grid}-{balance}.json")
    json.dump(cfg, open(path, "w"))
    report = os.path.join(work, f"ap-{grid}-{balance}-report.json")
    cmd = shlex.split(args.mpirun) + [str(args.ranks), args.tissue, path,
                                      "--report-json", report, "-q"]
    if args.mpi_slow:
        cmd += ["--mpi-slow", args.mpi_slow]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit(f"tissue-ranks: error: {' '.join(cmd)}: {p.stderr.strip()}")
    return json.load(open(report))["run"]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=800)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--spacing", type=float, default=0.1)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--grids", nargs="+", default=["auto", "1x4", "2x2"])
    ap.add_argument("--threads", type=int, default=1,
                    help="threads per rank")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--balance", nargs="+", default=["on"],
                    choices=["on", "off"],
                    help="slabs that follow the ranks' balancer (on), the "
                    "even shares (off), or both in turn")
    ap.add_argument("--mpi-slow", metavar="RANK:FACTOR",
                    help="that rank's ionic steps FACTOR times as long")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe -np",
                    help="the launcher, ending with its rank-count option")
    ap.add_argument("--tissue", default=os.path.join(ROOT, "build", "bin",
                                                     "easyml-tissue"))
    ap.add_argument("--json")
    args = ap.parse_args()
    for g in args.grids:
        if g != "auto" and (len(g.split("x")) != 2 or
                            not all(x.isdigit() for x in g.split("x"))):
            ap.error(f"--grids: '{g}' is not 'auto' or PXxPY")
    cases = [(g, b) for g in args.grids for b in args.balance]
    runs = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as work:
        for k in range(args.repeat):
            for g, b in cases:
                runs[g, b].append(run(args, g, b, work))
                print(f"run {k + 1}/{args.repeat}, {g}, balance {b}: "
                      f"{runs[g, b][-1]['point_steps_per_second']:.3e}",
                      file=sys.stderr)
    rows = []
    for g, b in cases:
        r = sorted(runs[g, b], key=lambda x: x["point_steps_per_second"])[
            len(runs[g, b]) // 2]
        pg = r["process_grid"]
        rows.append({"grid": g, "balance": b, "process_grid": pg,
                     "point_steps_per_second": r["point_steps_per_second"],
                     "halo_share": r["seconds"]["halo"] /
                     r["seconds"]["total"],
                     "halo_points": halo_points(args.points, pg[:2]),
                     "moves": [x["rank_repartitions"] for x in runs[g, b]],
                     "rank_points": [x["rank_points"] for x in runs[g, b]],
                     "runs": [x["point_steps_per_second"] for x in runs[g, b]]})
    slow = f", rank {args.mpi_slow.replace(':', ' slowed ')}x" \
        if args.mpi_slow else ""
    print(f"Aliev-Panfilov, {args.points} x {args.points} points, "
          f"{args.steps} steps, {args.ranks} ranks x {args.threads} "
          f"thread(s){slow}")
    print(f"{'grid':>6} {'balance':>7} {'process grid':>13} "
          f"{'point-steps/s':>14} {'halo time':>10} {'halo points':>12} "
          f"{'moves':>8}")
    for r in rows:
        pg = " x ".join(str(x) for x in r["process_grid"])
        moves = f"{min(r['moves'])}-{max(r['moves'])}"
        print(f"{r['grid']:>6} {r['balance']:>7} {pg:>13} "
              f"{r['point_steps_per_second']:>14.3e} "
              f"{100 * r['halo_share']:>9.1f}% {r['halo_points']:>12} "
              f"{moves:>8}")
    if args.json:
        json.dump({"points": args.points, "steps": args.steps,
                   "ranks": args.ranks, "threads": args.threads,
                   "mpi_slow": args.mpi_slow, "rows": rows},
                  open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
