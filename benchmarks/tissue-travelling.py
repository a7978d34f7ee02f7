#!/usr/bin/env python3
"""A planar wave crossing the slabs of the CPU pool and two emulated GPUs
of different speeds: the hybrid's throughput against the sum of each
device's throughput alone.

    benchmarks/tissue-travelling.py [--points 64 256] [--duration 100]
        [--rates 5e7,1e8] [--excited 6] [--start high|low] [--threads 2]
        [--repeat 3] [--build DIR] [--json FILE]

Needs the test suite's emulated CUDA driver (build/test/emulated-cuda)
and the CUDA toolkit (the model's cuda variant is compiled). The GPUs'
times are modelled (EASYML_EMULATED_RATE: cell-steps/s; a cell whose Vm
is at least -60 mV after a step costs --excited times as much,
EASYML_EMULATED_EXCITED) and their kernels run on the calling thread
before the CPU pool starts (EASYML_EMULATED_INLINE), so the CPU pool's
time is its own, measured. A run's time is the sum over its ionic waves
of the slowest device's time in the wave (what the balancer evens out);
throughput is the grid's point-steps over it. The wave is started at
the far y edge (--start high): it crosses the slab of GPU 1 (cut last)
into those before it while the balancer moves the bounds; --start low
starts it in the CPU pool's slab. The CPU alone and the hybrid run
--repeat times each, taking turns (the median runs); the GPUs' modelled
times do not vary. Prints a table and the efficiency: the hybrid's throughput over
the sum of the three standalone ones, and over the best split of each of
its waves (each device's cells costing what they cost it in that wave).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_models(args, work):
    BIN = os.path.join(args.build, "bin")
    model = os.path.abspath(args.model)
    lr = os.path.join(work, "model.so")
    lr1 = os.path.join(work, "model1.so")
    common = ["--vector-math=scalar", "--emit=shared"]
    for cmd in ([os.path.join(BIN, "easyml-compile"), model,
                 "--variant=cpu-simd,cuda", "--cuda-chips=sm_90",
                 "--emulate-gpu-kernels", "-o", lr] + common,
                [os.path.join(BIN, "easyml-compile"), model,
                 "--variant=cpu-simd", "--vector-width=1", "-o", lr1] + common):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            sys.exit("easyml-compile failed: " + p.stderr.strip())
    return lr, lr1


def config(args, model, devices, where, out):
    nx, ny = args.points
    h = 0.1
    y0 = (ny - 3) * h if args.start == "high" else 0.0
    return {
        "model": model, "devices": devices, "threads": args.threads,
        "grid": {"points": [nx, ny], "spacing_mm": h},
        "time": {"dt": 0.01, "duration": args.duration,
                 "diffusion_on": where},
        "stimuli": [{"box": [[0, y0, 0], [(nx - 1) * h, y0 + 2 * h, 0]],
                     "current_per_area": 80, "duration": 1}],
        "outputs": {"directory": out, "activation": "activation"},
    }


def run(args, model, env, devices, where, work, tag):
    BIN = os.path.join(args.build, "bin")
    out = os.path.join(work, tag)
    path = out + ".json"
    json.dump(config(args, model, devices, where, out), open(path, "w"))
    report = out + ".report.json"
    p = subprocess.run([os.path.join(BIN, "easyml-tissue"), path,
                        "--report-json", report, "-q", "--no-progress"],
                       capture_output=True, text=True, env=env)
    if p.returncode:
        sys.exit(f"easyml-tissue ({devices}) failed: " + p.stderr.strip())
    rt = json.load(open(report))["runtime"]
    if rt.get("recoveries"):
        sys.exit(f"easyml-tissue ({devices}) lost a device: "
                 f"{rt['recoveries']}")
    waves = rt["wave_log"]
    if rt.get("waves_recorded", len(waves)) < rt.get("waves", len(waves)):
        print(f"warning: the wave log of {devices} holds only part of the "
              "run (shorten --duration)", file=sys.stderr)
    seconds = sum(max(w["seconds"]) for w in waves)
    point_steps = sum(w["steps"] * sum(w["cells"]) for w in waves)
    return {"devices": devices, "seconds": seconds,
            "point_steps_per_second": point_steps / seconds,
            "of_ideal_split": ideal_split(waves),
            "repartitions": rt.get("repartitions", 0),
            "first_cells": waves[0]["cells"], "last_cells": waves[-1]["cells"],
            "last_ranges": last_ranges(rt, waves),
            "reorders": [{"step": r["step"], "to": r["to"],
                          "predicted_gain": r.get("predicted_gain"),
                          "measured_gain": r.get("measured_gain")}
                         for r in rt.get("repartition_log", [])
                         if "reordered" in r["reason"]],
            "activation": os.path.join(out, "activation.npy")}


def last_ranges(rt, waves):
    """Each device's cells [begin, end) at the end of the run: the last
    repartition's, else the first wave's contiguous split (in device
    order)."""
    log = rt.get("repartition_log", [])
    if log:
        return log[-1]["to"]
    bounds = np.concatenate([[0], np.cumsum(waves[0]["cells"])])
    return [[int(b), int(e)] for b, e in zip(bounds[:-1], bounds[1:])]


def ideal_split(waves):
    """The time of the best split of every wave, each device's cells
    costing what its cells cost it in that wave, over the time taken."""
    ideal = taken = 0.0
    for w in waves:
        used = [(c, t) for c, t in zip(w["cells"], w["seconds"]) if c > 0]
        if any(t <= 0 for _, t in used):
            sys.exit("a device with cells took no time in a wave")
        ideal += sum(w["cells"]) / sum(c / t for c, t in used)
        taken += max(w["seconds"])
    return ideal / taken


def crossings(args, result):
    """Slab bounds (rows) the front passed, by the bounds the run's slabs
    had at its end: from the far edge, bounds above the lowest activated
    row; from the near edge, bounds below the highest."""
    lat = np.load(result["activation"])
    rows = np.where(np.isfinite(lat).all(axis=1))[0]
    if not rows.size:
        return 0
    nx = args.points[0]
    # Inner bounds between slabs (the slabs may be in any order).
    edges = sorted({c for r in result["last_ranges"] if r[1] > r[0]
                    for c in r})
    bounds = np.array(edges[1:-1]) // nx
    if args.start == "high":
        return int(sum(1 for b in bounds if rows.min() < b))
    return int(sum(1 for b in bounds if rows.max() >= b))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(
        ROOT, "examples", "models", "luo_rudy_1991.model"))
    ap.add_argument("--points", type=int, nargs=2, default=[64, 256])
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--rates", default="5e7,1e8",
                    help="the two GPUs' modelled cell-steps/s")
    ap.add_argument("--excited", type=float, default=6.0,
                    help="cost of an excited cell on the GPUs, in resting ones")
    ap.add_argument("--start", choices=["high", "low"], default="high",
                    help="the y edge the wave starts from: high (GPU 1's "
                    "slab, default) or low (the CPU pool's)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="the build tree (its bin/ and test/emulated-cuda/)")
    ap.add_argument("--json")
    args = ap.parse_args()
    driver = os.path.join(args.build, "test", "emulated-cuda")
    if not os.path.exists(os.path.join(driver, "libcuda.so.1")):
        sys.exit(f"no emulated CUDA driver in {driver} (build the tests)")
    with tempfile.TemporaryDirectory() as work:
        model, model1 = compile_models(args, work)
        env = dict(os.environ, LD_LIBRARY_PATH=driver,
                   EASYML_EMULATED_KERNELS=model1 + ":cpu-simd",
                   EASYML_EMULATED_DEVICES="2", EASYML_EMULATED_INLINE="1",
                   EASYML_EMULATED_RATE=args.rates,
                   EASYML_EMULATED_EXCITED=f"0:-60:{args.excited:g}")
        gpus = [run(args, model, env, f"gpu:{g}", "devices", work, f"gpu{g}")
                for g in (0, 1)]
        cpu, hybrid = [], []
        for k in range(args.repeat):
            print(f"run {k + 1}/{args.repeat}", file=sys.stderr, flush=True)
            cpu.append(run(args, model, env, "cpu", "host", work, f"cpu{k}"))
            hybrid.append(run(args, model, env, "cpu+gpu:all", "devices",
                              work, f"hybrid{k}"))
        same = all(np.array_equal(np.load(cpu[0]["activation"]),
                                  np.load(h["activation"]), equal_nan=True)
                   for h in hybrid)
        def median_run(rs):
            order = sorted(rs, key=lambda r: r["point_steps_per_second"])
            return order[(len(order) - 1) // 2]
        mid = median_run(hybrid)
        alone = {"cpu": median_run(cpu)["point_steps_per_second"],
                 "gpu:0": gpus[0]["point_steps_per_second"],
                 "gpu:1": gpus[1]["point_steps_per_second"]}
        both = mid["point_steps_per_second"]
        efficiency = both / sum(alone.values())
        crossed = crossings(args, mid)
        print(f"{'devices':>12}  {'point-steps/s':>13}")
        for name, v in alone.items():
            print(f"{name:>12}  {v:13.3e}")
        print(f"{'cpu+gpu:all':>12}  {both:13.3e}  "
              f"(runs: {', '.join('%.3e' % r['point_steps_per_second'] for r in hybrid)})")
        ideal = mid["of_ideal_split"]
        print(f"efficiency {efficiency:.3f} of the summed standalone "
              f"throughputs, {ideal:.3f} of the best split of every wave; "
              f"repartitions {[r['repartitions'] for r in hybrid]} "
              f"(slabs reordered {[len(r['reorders']) for r in hybrid]}); "
              f"cells per device first {mid['first_cells']}, last "
              f"{mid['last_cells']}; the front crossed {crossed} slab "
              f"bound(s); activation times the CPU's bits: {same}")
        if args.json:
            for r in gpus + cpu + hybrid:
                r.pop("activation", None)
            json.dump({"points": args.points, "duration": args.duration,
                       "rates": args.rates, "excited": args.excited,
                       "threads": args.threads, "standalone": alone,
                       "start": args.start, "hybrid": both,
                       "efficiency": efficiency, "of_ideal_split": ideal,
                       "crossed": crossed, "same_bits": same,
                       "runs": {"gpu": gpus, "cpu": cpu, "hybrid": hybrid}},
                      open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
