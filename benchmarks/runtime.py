#!/usr/bin/env python3
"""The heterogeneous runtime's benchmark.

For each model, easyml-bench runs the same protocol on device sets -- the
CPU pool alone, the GPUs, the CPU with the GPUs, and `auto` (resource
dimensioning) -- and reports throughput (cells x steps / compute seconds),
the final share of the cells on each device, repartitions and what
dimensioning chose. Device sets the machine does not have are skipped
(and said so). It also measures what recording outputs inside the waves
buys: the same run with waves cut at every output step (as before the
runtime recorded samples in the kernels) against waves cut only at
stimulus edges.

  benchmarks/runtime.py --build build [--models luo_rudy_1991 ...]
  benchmarks/runtime.py --pack build/gpu-pack --models tentusscher-2006 \\
      --cells 1048576 --json runtime.json --markdown runtime.md

Models are compiled from examples/models (or the corpus with --corpus)
unless a pack's prebuilt libraries are given.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_model(compiler, source, out, variants):
    cmd = [compiler, source, "--emit=shared", "-o", out,
           "--variant=" + variants]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"runtime.py: error: compiling {source} failed:\n{p.stderr}")


def run(bench, lib, args, extra, duration=None):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [bench, "--load-module", lib, "--num", str(args.cells),
               "--duration", str(duration or args.duration), "--dt", "0.01",
               "--dt-out", str(args.dt_out), "--stim-start", "1",
               "--bcl", str(args.bcl),
               "--numstim", "0" if args.rest else "1000000",
               "--fout=" + os.path.join(tmp, "out"), "--no-trace", "-q",
               "--report-json", report] + extra
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        if p.returncode:
            return {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
        r = json.load(open(report))
    rt = r["runtime"]
    total = max(1, rt["cells"])
    return {
        "rate": r["cell_steps_per_second"],
        "waves": r["waves"],
        "compute_seconds": r["seconds"]["compute"],
        "repartitions": rt["repartitions"],
        "shares": {d["id"]: d["cells"] / total for d in rt["devices"]
                   if d["cells"]},
        "device_rates": {d["id"]: d["cell_steps_per_second"]
                         for d in rt["devices"] if d["cell_steps"]},
        "dimensioning": rt["dimensioning"]["chosen"]
        if rt["dimensioning"]["enabled"] else None,
        "dimensioning_report": rt["dimensioning"]
        if rt["dimensioning"]["enabled"] else None,
        "duration_ms": duration or args.duration,
        "bytes_moved": rt["bytes_moved"],
    }


def summarise(row):
    """Efficiency of each mixed set against its devices run alone (the sets
    named exactly `cpu` and `gpu:all`): a set with the CPU and the GPUs
    against the sum of their throughputs, and `auto` against the better of
    the two."""
    def rate(key):
        r = row.get(key, {})
        return r.get("rate") if "rate" in r else None
    cpu, gpu = rate("cpu"), rate("gpu:all")
    if not cpu or not gpu:
        return
    for devices, r in row.items():
        if "rate" not in r:
            continue
        first = devices.split()[0]
        if first == "cpu+gpu:all":
            r["vs_summed"] = r["rate"] / (cpu + gpu)
        if first == "auto":
            r["vs_best"] = r["rate"] / max(cpu, gpu)
    row["cpu_worth_of_gpu"] = cpu / gpu


def gpus_found(bench):
    p = subprocess.run([bench, "--list-devices"], capture_output=True,
                       text=True)
    return sum(1 for l in p.stdout.splitlines()
               if l.strip().startswith("device "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--pack", help="a GPU pack (scripts/gpu-pack.sh)")
    ap.add_argument("--corpus", help="compile corpus models from here")
    ap.add_argument("--models", nargs="+", default=["luo_rudy_1991",
                                                    "ten_tusscher_panfilov_2006"])
    ap.add_argument("--cells", type=int, default=65536)
    ap.add_argument("--duration", type=float, default=200)
    ap.add_argument("--cpu-duration", type=float,
                    help="run the set `cpu` for this long instead (ms): its "
                    "rate per cell-step from fewer cycles, where the CPU "
                    "alone would take most of a time-boxed run")
    ap.add_argument("--bcl", type=float, default=500)
    ap.add_argument("--dt-out", type=float, default=1.0)
    ap.add_argument("--devices", nargs="+",
                    default=["cpu", "gpu:all", "cpu+gpu:all", "auto"],
                    help="device sets, each run once; a set may carry "
                    "easyml-bench options after it, e.g. "
                    "'cpu+gpu:all --lb-periodic'")
    ap.add_argument("--rest", action="store_true",
                    help="cells at rest (no stimulus) instead of paced")
    ap.add_argument("--no-cut", action="store_true",
                    help="skip the run with waves cut at every output")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()

    if args.pack:
        pack = os.path.abspath(args.pack)
        bench = os.path.join(pack, "bin", "easyml-bench")
        libdir = os.path.join(pack, "models")
    else:
        bench = os.path.join(args.build, "bin", "easyml-bench")
        libdir = tempfile.mkdtemp(prefix="easyml-runtime-bench-")
    ngpu = gpus_found(bench)
    variants = "cpu-simd" + (",cuda" if ngpu else "")
    results = {}
    text = report(args, ngpu, results)
    for name in args.models:
        lib = os.path.join(libdir, name + ".so")
        if not args.pack:
            src = (os.path.join(args.corpus, "models", name, "model.model")
                   if args.corpus else
                   os.path.join(ROOT, "examples", "models", name + ".model"))
            compile_model(os.path.join(args.build, "bin", "easyml-compile"),
                          src, lib, variants)
        row = {}
        for devices in args.devices:
            if devices != "cpu" and not ngpu:
                row[devices] = {"skipped": "no GPU on this machine"}
                continue
            print(f"{name}: {devices} ...", file=sys.stderr, flush=True)
            words = devices.split()
            row[devices] = run(bench, lib, args, ["--devices"] + words,
                               args.cpu_duration if devices == "cpu"
                               else None)
        summarise(row)
        if not args.no_cut:
            # Outputs recorded in the waves vs a wave per output step.
            every = max(1, round(args.dt_out / 0.01))
            print(f"{name}: output cutting waves ...", file=sys.stderr,
                  flush=True)
            row["cpu, waves cut at outputs"] = run(
                bench, lib, args, ["--max-wave-steps", str(every)])
        results[name] = row
        # Written after every model, so that a time-boxed run keeps what
        # it finished.
        text = report(args, ngpu, results)
    print(text)
    return 0


def report(args, ngpu, results):
    pacing = ("at rest" if args.rest else f"stimulus every {args.bcl} ms")
    lines = [f"cells {args.cells}, {args.duration} ms at dt 0.01, output "
             f"every {args.dt_out} ms, {pacing}; "
             + (f"cpu alone {args.cpu_duration} ms; " if args.cpu_duration
                else "") +
             f"{ngpu} GPU(s) found", "",
             "| model | devices | cell-steps/s | vs cpu | waves | shares | "
             "repartitions | chosen | efficiency |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, row in results.items():
        base = row.get("cpu", {}).get("rate")
        for devices, r in row.items():
            if not isinstance(r, dict):
                continue
            if "skipped" in r or "error" in r:
                lines.append(f"| {name} | {devices} | "
                             f"{r.get('skipped') or r.get('error')} "
                             "| | | | | | |")
                continue
            ratio = f"{r['rate'] / base:.2f}x" if base else ""
            eff = (f"{r['vs_summed']:.1%} of summed" if "vs_summed" in r else
                   f"{r['vs_best']:.1%} of best" if "vs_best" in r else "")
            shares = ", ".join(f"{k} {v:.1%}" for k, v in r["shares"].items())
            lines.append(f"| {name} | {devices} | {r['rate']:.3g} | {ratio} | "
                         f"{r['waves']} | {shares} | {r['repartitions']} | "
                         f"{r['dimensioning'] or ''} | {eff} |")
    text = "\n".join(lines)
    if args.markdown:
        open(args.markdown, "w").write(text + "\n")
    if args.json:
        json.dump({"cells": args.cells, "duration_ms": args.duration,
                   "dt_out_ms": args.dt_out, "bcl_ms": args.bcl,
                   "paced": not args.rest, "gpus": ngpu,
                   "results": results}, open(args.json, "w"), indent=1)
    return text


if __name__ == "__main__":
    sys.exit(main())
