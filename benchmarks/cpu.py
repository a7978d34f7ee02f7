#!/usr/bin/env python3
"""CPU throughput benchmark: cells*steps/s per model and variant.

Compiles each model, runs easyml-bench on --cells cells for --steps steps
(stimulus off, output only at the end, so the time is the kernels'), and
prints a table and, with --json, writes the figures as JSON. A benchmark, not
a test: the numbers depend on the machine and its load.

  benchmarks/cpu.py --corpus ../shared/corpus --cells 65536 --threads 2
  benchmarks/cpu.py --examples --variants baseline --json out.json
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", help="benchmark the corpus models in this folder")
    ap.add_argument("--examples", action="store_true",
                    help="benchmark the project's example models")
    ap.add_argument("--models", nargs="*", help="only these models")
    ap.add_argument("--variants", nargs="+", default=["baseline"])
    ap.add_argument("--cells", type=int, default=65536)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    compiler = os.path.join(args.build, "bin", "easyml-compile")
    bench = os.path.join(args.build, "bin", "easyml-bench")
    files = []
    if args.corpus:
        base = os.path.join(args.corpus, "models")
        files += [(m, os.path.join(base, m, "model.model"))
                  for m in sorted(os.listdir(base))]
    if args.examples or not files:
        base = os.path.join(ROOT, "examples", "models")
        files += [(f[:-6], os.path.join(base, f))
                  for f in sorted(os.listdir(base)) if f.endswith(".model")]
    if args.models:
        files = [f for f in files if f[0] in args.models]
    results = []
    print("%-48s %-10s %6s %14s %10s" % ("model", "variant", "states",
                                         "cell-steps/s", "compile s"))
    with tempfile.TemporaryDirectory() as work:
        for name, path in files:
            lib = os.path.join(work, name + ".so")
            t0 = time.time()
            p = subprocess.run([compiler, path, "--model-name", name,
                                "--emit=shared", "-o", lib, "-w"],
                               capture_output=True, text=True)
            compile_s = time.time() - t0
            if p.returncode != 0:
                print("%-48s compile failed: %s" % (name, p.stderr.strip()[-200:]))
                continue
            for variant in args.variants:
                report = os.path.join(work, "r.json")
                duration = args.dt * (args.steps - 1)
                p = subprocess.run(
                    [bench, "--load-module", lib, "--variant", variant,
                     "--num", str(args.cells), "--threads", str(args.threads),
                     "--dt", repr(args.dt), "--duration", repr(duration),
                     "--numstim", "0", "--dt-out", repr(duration + 1),
                     "--fout=" + os.path.join(work, "out"), "--quiet",
                     "--no-progress", "--no-trace", "--report-json", report],
                    capture_output=True, text=True, cwd=work)
                if p.returncode != 0:
                    print("%-48s %-10s failed: %s" % (name, variant,
                                                      p.stderr.strip()[-200:]))
                    continue
                r = json.load(open(report))
                info = subprocess.run([bench, "--load-module", lib, "--imp-info"],
                                      capture_output=True, text=True).stdout
                states = next((int(l.split("(")[1].split(")")[0])
                               for l in info.splitlines()
                               if l.startswith("State variables")), 0)
                r.update({"states": states, "compile_seconds": compile_s,
                          "name": name})
                results.append(r)
                print("%-48s %-10s %6d %14.4g %10.2f" % (
                    name, variant, states, r["cell_steps_per_second"], compile_s),
                    flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.node(), "cpu_count": os.cpu_count(),
                       "cells": args.cells, "steps": args.steps,
                       "threads": args.threads, "dt": args.dt,
                       "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
