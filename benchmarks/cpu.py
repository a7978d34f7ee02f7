#!/usr/bin/env python3
"""CPU throughput benchmark: cells*steps/s per model and variant.

Compiles each model once (all CPU variants in one library), runs easyml-bench
on --cells cells (stimulus off, output only at the end, so the time is the
kernels') for as many steps as fit in about --seconds (at least one), and
prints one line per run as it goes, then a summary. With two or more
variants it reports each variant's speed-up over the first, their geometric
mean, and for every run:

  - the fraction of the memory roof: 16 x states bytes per cell*step (every
    state read and written once) at --bandwidth GB/s (46: measured in-place
    read+write bandwidth of the 2-core development machine);
  - the fraction of peak FP64: static FP64 arithmetic operations per
    cell*step (counted in the baseline kernel; an FMA counts 2; libm calls
    not counted; the sub-step loop of a cvode group counted once, so a lower
    bound for such models) times cells*steps/s, over the FMA throughput
    measured by benchmarks/fp64-peak.c at the same thread count.

--scaling also runs the last variant on one thread for models with at least
15 states (2-thread / 1-thread scaling). --json and --markdown write the
results for scripts and for docs/benchmarks.md. A benchmark, not a test:
the numbers depend on the machine and its load; compare ratios from one run.

  benchmarks/cpu.py --corpus ../shared/corpus --variants baseline cpu-simd \\
      --cells 1048576 --threads 2 --scaling --json out.json --markdown out.md
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG = 15  # states: the "large model" bars of the cpu-simd issue

FLOP_WEIGHTS = {"llvm.fadd": 1, "llvm.fsub": 1, "llvm.fmul": 1,
                "llvm.fdiv": 1, "llvm.intr.fma": 2, "llvm.intr.fmuladd": 2,
                "llvm.intr.sqrt": 1}


def static_flops(compiler, path, name):
    """FP64 arithmetic operations in the baseline compute kernel (scalar, so
    one cell), and the number of libm calls there."""
    p = subprocess.run([compiler, path, "--model-name", name, "--variant",
                        "baseline", "--emit=llvm-dialect", "-w"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, None
    flops = calls = 0
    inside = False
    for line in p.stdout.splitlines():
        if line.lstrip().startswith("llvm.func"):
            inside = "_baseline_compute(" in line
            continue
        if not inside:
            continue
        m = re.search(r"= (llvm\.[a-z.]+)", line)
        if m and m.group(1) in FLOP_WEIGHTS and ": f64" in line:
            flops += FLOP_WEIGHTS[m.group(1)]
        elif m and m.group(1) == "llvm.call" and "-> f64" in line:
            calls += 1
    return flops, calls


def fp64_peak(threads):
    """GFLOP/s of benchmarks/fp64-peak.c, or None without a C compiler."""
    cc = shutil.which("clang-19") or shutil.which("cc")
    if not cc:
        return None
    with tempfile.TemporaryDirectory() as work:
        exe = os.path.join(work, "peak")
        p = subprocess.run([cc, "-O2", "-march=native", "-ffp-contract=fast",
                            "-fopenmp", os.path.join(ROOT, "benchmarks",
                                                     "fp64-peak.c"), "-o", exe],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None
        out = subprocess.run([exe, str(threads)], capture_output=True,
                             text=True).stdout
        return float(out.split()[0])


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", help="benchmark the corpus models in this folder")
    ap.add_argument("--examples", action="store_true",
                    help="benchmark the bundled example models")
    ap.add_argument("--models", nargs="*", help="only these models")
    ap.add_argument("--variants", nargs="+", default=["baseline", "cpu-simd"])
    ap.add_argument("--cells", type=int, default=1 << 20)
    ap.add_argument("--steps", type=int, default=1000,
                    help="most steps per run (the number is chosen from a "
                    "short calibration run to take about --seconds)")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scaling", action="store_true",
                    help="also run the last variant on 1 thread for models "
                    "with >= %d states" % BIG)
    ap.add_argument("--bandwidth", type=float, default=46.0,
                    help="memory bandwidth for the roof, GB/s")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--markdown", help="write a Markdown report here")
    args = ap.parse_args()
    compiler = os.path.join(args.build, "bin", "easyml-compile")
    bench = os.path.join(args.build, "bin", "easyml-bench")
    for tool in (compiler, bench):
        if not os.access(tool, os.X_OK):
            sys.exit("cpu.py: error: %s not found (build first: "
                     "scripts/build.sh)" % tool)
    files = []
    if args.corpus:
        base = os.path.join(args.corpus, "models")
        if not os.path.isdir(base):
            sys.exit("cpu.py: error: no models folder in %s" % args.corpus)
        files += [(m, os.path.join(base, m, "model.model"))
                  for m in sorted(os.listdir(base))]
    if args.examples or not files:
        base = os.path.join(ROOT, "examples", "models")
        files += [(f[:-6], os.path.join(base, f))
                  for f in sorted(os.listdir(base)) if f.endswith(".model")]
    if args.models:
        unknown = set(args.models) - {f[0] for f in files}
        if unknown:
            sys.exit("cpu.py: error: unknown models: %s" % ", ".join(sorted(unknown)))
        files = [f for f in files if f[0] in args.models]

    peaks = {args.threads: fp64_peak(args.threads)}
    if args.scaling:
        peaks[1] = fp64_peak(1)
    print("FP64 peak (fp64-peak.c): %s" % ", ".join(
        "%s GFLOP/s at %d thread(s)" % ("%.1f" % g if g else "?", t)
        for t, g in sorted(peaks.items())), flush=True)
    t_start = time.time()
    models = []
    print("%-6s %-44s %-9s %3s %6s %5s %12s %8s %7s %7s" % (
        "", "model", "variant", "thr", "states", "steps", "cell-steps/s",
        "speedup", "mem %", "fp64 %"), flush=True)
    with tempfile.TemporaryDirectory() as work:
        for index, (name, path) in enumerate(files, 1):
            lib = os.path.join(work, name + ".so")
            t0 = time.time()
            p = subprocess.run([compiler, path, "--model-name", name,
                                "--variant", ",".join(args.variants),
                                "--emit=shared", "-o", lib, "-w"],
                               capture_output=True, text=True)
            compile_s = time.time() - t0
            if p.returncode != 0:
                print("%-48s compile failed: %s" % (name, p.stderr.strip()[-200:]))
                continue
            flops, calls = static_flops(compiler, path, name)
            info = subprocess.run([bench, "--load-module", lib, "--imp-info"],
                                  capture_output=True, text=True).stdout
            states = next((int(l.split("(")[1].split(")")[0])
                           for l in info.splitlines()
                           if l.startswith("State variables")), 0)
            model = {"name": name, "states": states, "compile_seconds": compile_s,
                     "flops_per_cell_step": flops, "libm_calls_per_cell_step": calls,
                     "runs": []}

            def bench_run(variant, threads, cells, steps):
                report = os.path.join(work, "r.json")
                duration = args.dt * (steps - 1)
                p = subprocess.run(
                    [bench, "--load-module", lib, "--variant", variant,
                     "--num", str(cells), "--threads", str(threads),
                     "--dt", repr(args.dt), "--duration", repr(duration),
                     "--numstim", "0", "--dt-out", repr(duration + 1),
                     "--fout=" + os.path.join(work, "out"), "--quiet",
                     "--no-progress", "--no-trace", "--report-json",
                     report], capture_output=True, text=True, cwd=work)
                if p.returncode != 0:
                    print("%-48s %-10s failed: %s" % (
                        name, variant, p.stderr.strip()[-200:]))
                    return None
                return json.load(open(report))

            plan = [(v, args.threads) for v in args.variants]
            if args.scaling and states >= BIG:
                plan.append((args.variants[-1], 1))
            first_rate = None
            for variant, threads in plan:
                # Calibrate on a few cells, then size the run.
                r = bench_run(variant, threads, min(args.cells, 8192), 2)
                if r is None:
                    continue
                rate = max(r["cell_steps_per_second"], 1.0)
                steps = int(max(1, min(args.steps,
                                       args.seconds * rate / args.cells)))
                r = bench_run(variant, threads, args.cells, steps)
                if r is None:
                    continue
                rate = r["cell_steps_per_second"]
                run = {"variant": r.get("variant", variant), "threads": threads,
                       "cells": args.cells, "steps": r["steps"],
                       "cell_steps_per_second": rate,
                       "memory_roof_fraction": 16.0 * states * rate /
                       (args.bandwidth * 1e9)}
                peak = peaks.get(threads)
                if flops and peak:
                    run["fp64_peak_fraction"] = flops * rate / (peak * 1e9)
                if threads == args.threads:
                    if first_rate is None:
                        first_rate = rate
                    run["speedup"] = rate / first_rate
                model["runs"].append(run)
                print("%-6s %-44s %-9s %3d %6d %5d %12.4g %8s %6.2f%% %6.2f%%" % (
                    "%d/%d" % (index, len(files)), name[:44], run["variant"],
                    threads, states, run["steps"], rate,
                    "%.2fx" % run["speedup"] if "speedup" in run else "",
                    100 * run["memory_roof_fraction"],
                    100 * run.get("fp64_peak_fraction", float("nan"))),
                    flush=True)
            models.append(model)

    summary = summarise(models, args)
    print()
    for line in summary["lines"]:
        print(line)
    print("(%.0f s)" % (time.time() - t_start))
    meta = {"date": datetime.date.today().isoformat(),
            "machine": platform.node(), "cpu_count": os.cpu_count(),
            "cells": args.cells, "threads": args.threads, "dt": args.dt,
            "variants": args.variants, "bandwidth_gb_s": args.bandwidth,
            "fp64_peak_gflops": {str(t): g for t, g in peaks.items()},
            "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(meta, summary={k: v for k, v in summary.items()
                                          if k != "lines"}, models=models),
                      f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(models, summary, meta))
    return 0


def run_of(model, variant, threads):
    return next((r for r in model["runs"] if r["variant"] == variant and
                 r["threads"] == threads), None)


def summarise(models, args):
    lines, out = [], {}
    if len(args.variants) < 2:
        return {"lines": lines}
    base, last = args.variants[0], args.variants[-1]
    ratios, big = [], []
    for m in models:
        a, b = run_of(m, base, args.threads), run_of(m, last, args.threads)
        if a and b:
            ratio = b["cell_steps_per_second"] / a["cell_steps_per_second"]
            ratios.append(ratio)
            if m["states"] >= BIG:
                big.append((ratio, m["name"]))
    out["geomean_speedup"] = geomean(ratios)
    out["models"] = len(ratios)
    lines.append("%s / %s at %d threads: geometric mean %.2fx over %d models "
                 "(min %.2fx, max %.2fx)" % (last, base, args.threads,
                                           out["geomean_speedup"], len(ratios),
                                           min(ratios, default=0),
                                           max(ratios, default=0)))
    if big:
        worst = min(big)
        out["min_speedup_big"] = worst[0]
        out["min_speedup_big_model"] = worst[1]
        lines.append("models with >= %d states: %d, slowest speed-up %.2fx (%s)"
                     % (BIG, len(big), worst[0], worst[1]))
    scaling = []
    for m in models:
        one, two = run_of(m, last, 1), run_of(m, last, args.threads)
        if one and two and args.threads != 1:
            s = two["cell_steps_per_second"] / one["cell_steps_per_second"]
            m["scaling"] = s
            scaling.append((s, m["name"]))
    if scaling:
        out["scaling_geomean"] = geomean([s for s, _ in scaling])
        out["scaling_min"], out["scaling_min_model"] = min(scaling)
        lines.append("%s %d threads / 1 thread (>= %d states): geometric mean "
                     "%.2fx, lowest %.2fx (%s)" % (last, args.threads, BIG,
                                                   out["scaling_geomean"],
                                                   out["scaling_min"],
                                                   out["scaling_min_model"]))
    out["lines"] = lines
    return out


def markdown(models, summary, meta):
    variants = meta["variants"]
    base, last = variants[0], variants[-1]
    t = meta["threads"]
    s = ["Command (%s, %s, %d threads, %d cells, dt = %g ms; FP64 peak %s):"
         % (meta["date"], meta["machine"], t, meta["cells"], meta["dt"],
            ", ".join("%.1f GFLOP/s at %s thread(s)" % (g, k)
                      for k, g in sorted(meta["fp64_peak_gflops"].items()) if g)),
         "", "```", meta["command"], "```", ""]
    s += ["- " + l for l in summary.get("lines", [])] + [""]
    head = "| model | states | FP64 ops/step |"
    rule = "|---|---|---|"
    for v in variants:
        head += " %s cell·steps/s |" % v
        rule += "---|"
    head += " speed-up | %s mem roof | %s FP64 peak |" % (last, last)
    rule += "---|---|---|"
    if any(run_of(m, last, 1) for m in models):
        head += " %d/1 threads |" % t
        rule += "---|"
    s += [head, rule]
    for m in models:
        row = "| %s | %d | %s |" % (m["name"], m["states"],
                                    m["flops_per_cell_step"] or "?")
        for v in variants:
            r = run_of(m, v, t)
            row += " %s |" % ("%.3g" % r["cell_steps_per_second"] if r else "—")
        r = run_of(m, last, t)
        row += " %s | %s | %s |" % (
            "%.2f×" % r["speedup"] if r else "—",
            "%.2f%%" % (100 * r["memory_roof_fraction"]) if r else "—",
            "%.1f%%" % (100 * r["fp64_peak_fraction"])
            if r and "fp64_peak_fraction" in r else "—")
        if "|" in head.split("FP64 peak |")[1]:
            row += " %s |" % ("%.2f×" % m["scaling"] if "scaling" in m else "")
        s.append(row)
    return "\n".join(s) + "\n"


if __name__ == "__main__":
    sys.exit(main())
