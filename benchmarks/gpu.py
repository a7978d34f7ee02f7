#!/usr/bin/env python3
"""GPU throughput per corpus model: fused task-wave kernels, one-step
kernels, and cpu-simd on the host's cores, with the fractions of the GPU's
memory roof (16 x states bytes per cell-step, read and write) and FP64 roof
(the static FP64 operation count of one cell-step) reached.

Runs where the GPU is, from the pack scripts/gpu-pack.sh makes (no LLVM
needed there):

  benchmarks/gpu.py --pack build/gpu-pack --json gpu.json --markdown gpu.md

  --facts FILE   (where LLVM is) writes the per-model facts the pack carries.

Throughput is cells x steps / seconds: "kernel" counts the compute kernels'
time measured with device events, "wall" also the transfers at events.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

# FP64 (non-tensor) peak GFLOP/s and memory bandwidth GB/s by device name.
DEVICES = [("H200", 33500, 4800), ("H100 NVL", 30000, 3900),
           ("H100 PCIe", 25600, 2000), ("H100", 33500, 3350),
           ("A100", 9700, 2039), ("MI300X", 81700, 5300),
           ("MI250X", 47900, 3200)]


def facts(args):
    from cpu import static_flops
    compiler = os.path.join(args.build, "bin", "easyml-compile")
    bench = os.path.join(args.build, "bin", "easyml-bench")
    out = {}
    sources = {name: os.path.join(args.corpus, "models", name, "model.model")
               for name in (args.models or
                            os.listdir(os.path.join(args.corpus, "models")))}
    # Models the pack derives (tentusscher-2006 in openCARP's method mix).
    if args.derived:
        for f in os.listdir(args.derived):
            if f.endswith(".model"):
                sources[f[:-len(".model")]] = os.path.join(args.derived, f)
    for name in sorted(sources):
        path = sources[name]
        flops, calls = static_flops(compiler, path, name)
        lib = os.path.join(os.path.dirname(args.facts), "models", name + ".so")
        info = subprocess.run([bench, "--load-module", lib, "--imp-info"],
                              capture_output=True, text=True).stdout
        states = next((int(l.split("(")[1].split(")")[0])
                       for l in info.splitlines()
                       if l.startswith("State variables")), 0)
        out[name] = {"states": states, "flops_per_cell_step": flops,
                     "libm_calls_per_cell_step": calls}
    json.dump(out, open(args.facts, "w"), indent=1)
    return 0


def run(bench, lib, variant, cells, duration, extra, env):
    p = subprocess.run([bench, "--load-module", lib, "--variant", variant,
                        "--num", str(cells), "--duration", repr(duration),
                        "--dt", "0.01", "--stim-start", "1", "--dt-out",
                        repr(max(duration, 1.0)), "--no-trace", "--quiet",
                        "--no-progress", "--report-json", "/dev/stdout"]
                       + extra, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip().splitlines() or ["?"])[-1])
    # The table on stdout comes first: the report is the JSON object.
    return json.loads(p.stdout[p.stdout.index("{"):])


def timed(bench, lib, variant, cells, extra, env, seconds, key):
    """Calibrates the duration so the measured time is about `seconds`."""
    duration = 1.0
    while True:
        r = run(bench, lib, variant, cells, duration, extra, env)
        rate = r[key] or r["cell_steps_per_second"]
        spent = cells * r["steps"] / rate if rate else 0
        if spent >= seconds * 0.5 or duration >= 2000:
            return r
        duration = min(2000.0, duration * max(2.0, seconds / max(spent, 1e-3)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pack", default=os.path.join(ROOT, "build", "gpu-pack"))
    ap.add_argument("--facts", help="write the facts file (with --corpus, --build)")
    ap.add_argument("--corpus", default=os.environ.get(
        "EASYML_CORPUS", os.path.join(ROOT, "..", "shared", "corpus")))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", nargs="*")
    ap.add_argument("--variant", default="cuda", choices=["cuda", "rocm"])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--cells", type=int, default=1 << 20)
    ap.add_argument("--big-model", nargs="+",
                    default=["tentusscher-2006",
                             "tentusscher-2006-opencarp-mix"],
                    help="also run these models at --big-cells (the cvode "
                         "form and openCARP's method mix of tentusscher)")
    ap.add_argument("--derived", help="(with --facts) a folder of models "
                    "the pack derives, besides the corpus")
    ap.add_argument("--big-cells", type=int, default=1 << 24)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--cpu-threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--peak-gflops", type=float, help="FP64 peak (default: by name)")
    ap.add_argument("--peak-gbs", type=float, help="memory bandwidth (default: by name)")
    ap.add_argument("--deadline", type=float, help="a Unix time: models not "
                    "started by then are reported as not run")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    if args.facts:
        return facts(args)

    bench = os.path.join(args.pack, "bin", "easyml-bench")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(args.pack, "lib") + ":" + env.get(
        "LD_LIBRARY_PATH", "")
    env["OMP_PROC_BIND"] = env.get("OMP_PROC_BIND", "close")
    info = json.load(open(os.path.join(args.pack, "facts.json")))
    listing = subprocess.run([bench, "--list-devices"], capture_output=True,
                             text=True, env=env).stdout
    m = re.search(r"device %d: ([^,\n]+)" % args.device,
                  listing.split(args.variant + ":", 1)[-1])
    device = m.group(1) if m else "unknown"
    peak, bw = args.peak_gflops, args.peak_gbs
    for key, g, b in DEVICES:
        if key in device:
            peak, bw = peak or g, bw or b
            break
    print("device %d: %s (FP64 peak %s GFLOP/s, memory %s GB/s)" % (
        args.device, device, peak, bw), flush=True)
    gpu = ["--device", str(args.device)]
    results = []
    models = args.models or sorted(info)
    print("%-44s %6s %10s %12s %12s %12s %8s %6s %6s" % (
        "model", "states", "cells", "fused", "one-step", "cpu-simd", "gpu/cpu",
        "mem%", "fp64%"), flush=True)
    for name in models:
        lib = os.path.join(args.pack, "models", name + ".so")
        f = info[name]
        if args.deadline and time.time() > args.deadline:
            results.append({"model": name, "cells": args.cells, **f,
                            "error": "not run (time budget)"})
            continue
        sizes = sorted({args.cells} |
                       ({args.big_cells} if name in args.big_model else set()))
        for cells in sizes:
            r = {"model": name, "cells": cells, **f}
            try:
                fused = timed(bench, lib, args.variant, cells, gpu, env,
                              args.seconds, "kernel_cell_steps_per_second")
                one = timed(bench, lib, args.variant, cells,
                            gpu + ["--max-wave-steps=1"], env, args.seconds,
                            "kernel_cell_steps_per_second")
                cpu = timed(bench, lib, "cpu-simd", min(cells, 1 << 20),
                            ["--threads", str(args.cpu_threads)], env,
                            args.seconds, "cell_steps_per_second")
            except RuntimeError as e:
                r["error"] = str(e)
                print("%-44s error: %s" % (name, e), flush=True)
                results.append(r)
                continue
            r["device"] = fused["device"]
            r["fused_kernel"] = fused["kernel_cell_steps_per_second"]
            r["fused_wall"] = fused["cell_steps_per_second"]
            r["one_step_kernel"] = one["kernel_cell_steps_per_second"]
            r["one_step_wall"] = one["cell_steps_per_second"]
            r["cpu_simd"] = cpu["cell_steps_per_second"]
            r["gpu_over_cpu"] = r["fused_kernel"] / r["cpu_simd"]
            if bw:
                r["one_step_memory_roof_fraction"] = (
                    r["one_step_kernel"] * 16 * f["states"] / (bw * 1e9))
            if peak and f["flops_per_cell_step"]:
                r["fused_fp64_roof_fraction"] = (
                    r["fused_kernel"] * f["flops_per_cell_step"] / (peak * 1e9))
                r["fp64_roof_cell_steps"] = peak * 1e9 / f["flops_per_cell_step"]
            results.append(r)
            print("%-44s %6d %10d %12.3e %12.3e %12.3e %8.1f %6.1f %6.1f" % (
                name, f["states"], cells, r["fused_kernel"],
                r["one_step_kernel"], r["cpu_simd"], r["gpu_over_cpu"],
                100 * r.get("one_step_memory_roof_fraction", float("nan")),
                100 * r.get("fused_fp64_roof_fraction", float("nan"))),
                flush=True)
    ok = [r for r in results if "error" not in r and r["cells"] == args.cells]
    geo = math.exp(sum(math.log(r["gpu_over_cpu"]) for r in ok) / len(ok)) if ok else 0
    print("geomean GPU (fused) / cpu-simd (%d threads): %.2fx over %d models" % (
        args.cpu_threads, geo, len(ok)))
    meta = {"device": device, "fp64_peak_gflops": peak, "memory_gbs": bw,
            "cpu_threads": args.cpu_threads, "cells": args.cells,
            "date": time.strftime("%Y-%m-%d"), "geomean_gpu_over_cpu": geo,
            "command": " ".join(sys.argv)}
    if args.json:
        json.dump({"meta": meta, "results": results}, open(args.json, "w"),
                  indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("GPU: %s, %s; cpu-simd on %d host threads; `%s`.\n\n" % (
                device, meta["date"], args.cpu_threads, meta["command"]))
            f.write("| model | states | cells | fused kernel | fused wall | "
                    "one-step kernel | cpu-simd | GPU/CPU | mem roof | FP64 roof |\n"
                    "|---|---|---|---|---|---|---|---|---|---|\n")
            for r in results:
                if "error" in r:
                    f.write("| %s | %d | %d | error: %s |\n" % (
                        r["model"], r["states"], r["cells"], r["error"]))
                    continue
                f.write("| %s | %d | %d | %.3g | %.3g | %.3g | %.3g | %.1f | "
                        "%.0f%% | %.0f%% |\n" % (
                            r["model"], r["states"], r["cells"],
                            r["fused_kernel"], r["fused_wall"],
                            r["one_step_kernel"], r["cpu_simd"],
                            r["gpu_over_cpu"],
                            100 * r.get("one_step_memory_roof_fraction", 0),
                            100 * r.get("fused_fp64_roof_fraction", 0)))
            f.write("\nGeometric mean GPU (fused kernel) / cpu-simd: %.2fx.\n" % geo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
