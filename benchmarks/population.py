#!/usr/bin/env python3
"""The cost of a population: per-cell parameters and in-run biomarkers.

Runs one model on the CPU pool (cpu-simd) twice with the same protocol and
cells:

  uniform     one parameter vector for every cell, no biomarkers
  population  --population with PARAMS sampled per cell, and --biomarkers
              (with the calcium state when given)

and prints both throughputs (compute cell-steps/s, best of --repeat runs,
alternating) and their ratio. Issue 16's bar: the population runs within
10% of the uniform run (ratio >= 0.90) for 10^5 cells of a >= 15-state
model with 3 per-cell parameters. The last line states the ratio.

  benchmarks/population.py --build build --corpus ../shared/corpus \\
      [--model tentusscher-2006] [--cells 100000] [--json population.json]

A benchmark, not a test: compare ratios from one run on a quiet machine.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus",
                    default=os.environ.get("EASYML_CORPUS", "../shared/corpus"))
    ap.add_argument("--model", default="tentusscher-2006",
                    help="corpus model name, or a .model file")
    ap.add_argument("--order", default="grouped", choices=["grouped", "drawn"],
                    help="--population-order: similar samples on "
                    "neighbouring cells (the default), or in draw order")
    ap.add_argument("--params", default="gKr,gKs,gCaL",
                    help="parameters made per-cell (comma-separated)")
    ap.add_argument("--ca-variable", default="Cai")
    ap.add_argument("--cells", type=int, default=100000)
    ap.add_argument("--duration", type=float, default=20.0,
                    help="simulated ms (the stimulus is at 1 ms, so the run "
                    "holds the upstroke)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    compiler = os.path.join(args.build, "bin", "easyml-compile")
    bench = os.path.join(args.build, "bin", "easyml-bench")
    path = args.model if args.model.endswith(".model") else os.path.join(
        args.corpus, "models", args.model, "model.model")
    name = os.path.splitext(os.path.basename(path))[0] \
        if args.model.endswith(".model") else args.model
    spec = ",".join("%s*lognormal(1,0.2)" % p for p in args.params.split(","))
    rates = {"uniform": [], "population": []}
    with tempfile.TemporaryDirectory() as work:
        lib = os.path.join(work, "model.so")
        subprocess.run([compiler, path, "--variant=cpu-simd", "--emit=shared",
                        "-o", lib], check=True)
        common = [bench, "--load-module", lib, "--num", str(args.cells),
                  "--duration", repr(args.duration), "--stim-start", "1",
                  "--no-trace", "--fout=" + os.path.join(work, "out"), "-q",
                  "--no-progress"]
        runs = {"uniform": [],
                "population": ["--population", spec, "--seed", "1",
                               "--population-order", args.order,
                               "--biomarkers",
                               os.path.join(work, "bio.npy")] +
                (["--ca-variable", args.ca_variable]
                 if args.ca_variable else [])}
        for r in range(args.repeat):
            for kind, extra in runs.items():
                report = os.path.join(work, kind + ".json")
                subprocess.run(common + extra + ["--report-json", report],
                               check=True)
                with open(report) as f:
                    rates[kind].append(json.load(f)["cell_steps_per_second"])
                print("  run %d/%d %-10s %.4g cell-steps/s" % (
                    r + 1, args.repeat, kind, rates[kind][-1]),
                    file=sys.stderr, flush=True)
    best = {k: max(v) for k, v in rates.items()}
    ratio = best["population"] / best["uniform"]
    print("%-24s %8s %8s %14s" % ("model", "cells", "per-cell",
                                   "cell-steps/s"))
    for kind in ("uniform", "population"):
        print("%-24s %8d %8d %14.4g  %s" % (
            name, args.cells,
            0 if kind == "uniform" else len(args.params.split(",")),
            best[kind], kind + (" + biomarkers" if kind == "population"
                                else "")))
    result = {"model": name, "cells": args.cells,
              "per_cell_params": args.params.split(","),
              "population_order": args.order,
              "duration_ms": args.duration, "rates": rates, "best": best,
              "ratio": ratio}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    print("population / uniform throughput: %.3f (%.1f%%)" % (ratio,
                                                              100 * ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
