#!/usr/bin/env python3
"""Throughput of two builds of the toolchain on the same models, side by side.

Each build compiles each model with its own easyml-compile and runs it with
its own easyml-bench; the runs alternate (A, B, A, B, ...) so both see the
same machine load, and the median of --repeat runs is compared. Prints one
line per model (B / A) and the geometric mean; --json writes everything.

  benchmarks/compare-builds.py --a /tmp/old-build --b build \\
      --models luo_rudy_1991 ten_tusscher_panfilov_2006 --variant cpu-simd

A and B can be one build compiled two ways: --compile-args-a and
--compile-args-b add easyml-compile options to one side only, e.g.

  benchmarks/compare-builds.py --a build --b build --corpus ../shared/corpus \
      --models ohara-2011 --compile-args-b="--cvode-jacobian-age=20"

--corpus takes models from the reference corpus instead of examples/;
--bench-args adds easyml-bench options to every run (e.g. "--max-wave-steps
1" for one-step kernels, "--dt-out 0.01" for output every step).
A benchmark, not a test: compare ratios from one run.
"""

import argparse
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source(args, name):
    if args.corpus:
        return os.path.join(args.corpus, "models", name, "model.model")
    return os.path.join(ROOT, "examples", "models", name + ".model")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="build folder A (reference)")
    ap.add_argument("--b", required=True, help="build folder B")
    ap.add_argument("--corpus")
    ap.add_argument("--models", nargs="+", required=True)
    ap.add_argument("--variant", default="cpu-simd")
    ap.add_argument("--compile-args", default="",
                    help="easyml-compile options for both sides")
    ap.add_argument("--compile-args-a", default="",
                    help="more easyml-compile options for A only")
    ap.add_argument("--compile-args-b", default="",
                    help="more easyml-compile options for B only")
    ap.add_argument("--bench-args", default="")
    ap.add_argument("--cells", type=int, default=65536)
    ap.add_argument("--duration", type=float, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    args.a, args.b = os.path.abspath(args.a), os.path.abspath(args.b)

    tmp = tempfile.mkdtemp(prefix="easyml-compare-")
    results = {}
    ratios = []
    print(f"{'model':<34} {'A cell-steps/s':>15} {'B cell-steps/s':>15} "
          f"{'B/A':>7}")
    for name in args.models:
        rates = {"a": [], "b": []}
        libs = {}
        for key in ("a", "b"):
            build = getattr(args, key)
            lib = os.path.join(tmp, f"{name}-{key}.so")
            cmd = [os.path.join(build, "bin", "easyml-compile"),
                   source(args, name), "--emit=shared", "-o", lib, "-w",
                   "--variant=" + args.variant] + shlex.split(
                       args.compile_args) + shlex.split(
                           getattr(args, "compile_args_" + key))
            if args.corpus:
                cmd += ["--model-name", name]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                sys.exit(f"compare-builds.py: {name} ({key}): {p.stderr}")
            libs[key] = lib
        for _ in range(args.repeat):
            for key in ("a", "b"):
                report = os.path.join(tmp, "r.json")
                cmd = [os.path.join(getattr(args, key), "bin", "easyml-bench"),
                       "--load-module", libs[key], "--variant", args.variant,
                       "--num", str(args.cells), "--duration",
                       str(args.duration), "--numstim", "0", "--dt-out",
                       str(args.duration), "--no-trace", "-q",
                       "--fout=" + os.path.join(tmp, "out"),
                       "--report-json", report] + shlex.split(args.bench_args)
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   cwd=tmp)
                if p.returncode:
                    sys.exit(f"compare-builds.py: {name} ({key}): {p.stderr}")
                rates[key].append(json.load(open(report))
                                  ["cell_steps_per_second"])
        a, b = statistics.median(rates["a"]), statistics.median(rates["b"])
        ratios.append(b / a)
        results[name] = {"a": rates["a"], "b": rates["b"], "ratio": b / a}
        print(f"{name:<34} {a:15.4g} {b:15.4g} {b / a:7.3f}", flush=True)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"{'geometric mean':<34} {'':>15} {'':>15} {geo:7.3f} "
          f"(min {min(ratios):.3f})")
    if args.json:
        json.dump({"a": args.a, "b": args.b, "variant": args.variant,
                   "compile_args": args.compile_args,
                   "compile_args_a": args.compile_args_a,
                   "compile_args_b": args.compile_args_b,
                   "cells": args.cells, "duration_ms": args.duration,
                   "bench_args": args.bench_args, "results": results,
                   "geomean": geo}, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
