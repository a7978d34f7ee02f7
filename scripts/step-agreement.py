#!/usr/bin/env python3
"""One-step agreement of the cpu-simd variant with the baseline variant.

For every corpus model, from the state of every row of its reference trace,
advance one step (dt, Vm held; easyml-bench --pointwise-step) with

  - baseline (scalar, libm),
  - cpu-simd with libmvec (the default vector math), and
  - cpu-simd with --vector-math=scalar (libm per lane),

all compiled with --no-tables, and compare every state:
rel = |a - b| / max(|a|, |b|) (0 where both are below 1e-300).

With scalar math the two variants run the same algebra on the same libm
values, so they must agree bit for bit (the states are written with 17
significant digits, which round-trip): any difference is a code-generation
bug (issue 15: cpu-simd --vector-math=scalar stays bit-identical to
baseline). With libmvec the differences are those of the vector
math library (at most a few ulp per call, docs/vector-math.md) propagated
through one step; they are reported next to the bar, together with
rel_to_scale = |a - b| / max |state| over the trace, which stays at rounding
level where a state's value is many orders below its own range (a relative
difference of such a value magnifies the ulp error of its inputs).

  scripts/step-agreement.py --corpus ../shared/corpus --build build \\
      [--json out.json] [--models a b]
"""

import concurrent.futures as futures
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

from corpus_args import add_tools, corpus_parser

BAR = 1e-12


def run(cmd, timeout=900, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def read_states(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0][1:], [[float(x) for x in r[1:]] for r in rows[1:]]


def compare(a, b, names):
    """Largest relative difference (where, which state) and largest
    difference relative to the state's own scale (max |x| over the rows)."""
    worst = (0.0, None, None)
    scales = [max(abs(r[j]) for r in a) for j in range(len(names))]
    scaled = 0.0
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (x, y) in enumerate(zip(ra, rb)):
            m = max(abs(x), abs(y))
            if m < 1e-300:
                continue
            d = abs(x - y) / m
            if d != d:  # NaN in one of them
                d = float("inf")
            if d > worst[0]:
                worst = (d, i, names[j])
            scaled = max(scaled, abs(x - y) / max(scales[j], m))
    return worst + (scaled,)


def check_model(args, name):
    folder = os.path.join(args.corpus, "models", name)
    ref = os.path.join(folder, "reference.csv")
    r = {"model": name, "problems": []}
    with tempfile.TemporaryDirectory(prefix="easyml-step-") as work:
        builds = {"libmvec": ["--variant=baseline,cpu-simd"],
                  "scalar": ["--variant=cpu-simd", "--vector-math=scalar"]}
        if args.skip_simd:
            builds = {"libmvec": ["--variant=baseline"]}
        if args.gpu_host:
            builds["gpu"] = ["--variant=cuda", "--cuda-chips=sm_90",
                             "--emulate-gpu-kernels"]
        libs = {}
        for key, flags in builds.items():
            lib = os.path.join(work, key + ".so")
            rc, _, se = run([args.compiler, os.path.join(folder, "model.model"),
                             "--model-name", name, "--no-tables",
                             "--emit=shared", "-o", lib] + flags)
            if rc != 0:
                r["problems"].append("compile (%s) failed: %s" % (
                    key, (se.strip().splitlines() or ["?"])[-1]))
                return r
            libs[key] = lib
        states = {}
        steps = [("baseline", "libmvec", "baseline", None)]
        if not args.skip_simd:
            steps += [("libmvec", "libmvec", "cpu-simd", None),
                      ("scalar", "scalar", "cpu-simd", None)]
        if args.gpu_host:
            env = dict(os.environ, EASYML_EMULATED_KERNELS="host",
                       LD_LIBRARY_PATH=args.gpu_host)
            steps.append(("gpu", "gpu", "cuda", env))
        for tag, build, variant, env in steps:
            lib = libs[build]
            out = os.path.join(work, tag + ".csv")
            rc, _, se = run([args.bench, "--load-module", lib, "--variant",
                             variant, "--dt", repr(args.dt), "--threads", "1",
                             "--pointwise", ref, "--pointwise-step", out],
                            env=env)
            if rc != 0 or not os.path.exists(out):
                r["problems"].append("%s step failed: %s" % (
                    tag, (se.strip().splitlines() or ["?"])[-1]))
                return r
            states[tag] = read_states(out)
    names, base = states["baseline"]
    r["rows"] = len(base)
    for tag in ("scalar", "libmvec", "gpu"):
        if tag not in states:
            continue
        d, row, var, scaled = compare(base, states[tag][1], names)
        r[tag] = {"max_rel": d, "row": row, "state": var,
                  "max_rel_to_scale": scaled}
    for tag, what in (("scalar", "scalar math"),
                      ("gpu", "GPU kernels on the host")):
        if tag in r and r[tag]["max_rel"] != 0:
            r["problems"].append("%s: not bit-identical, %.3g (state %s, row "
                                 "%s)" % (what, r[tag]["max_rel"],
                                          r[tag]["state"], r[tag]["row"]))
    # libmvec: a few ulp per call. Where a state is orders of magnitude
    # below its own scale, ulp-level differences of cancelling terms are
    # large relative to the value but not to the state's scale.
    if "libmvec" in r and not r["libmvec"]["max_rel_to_scale"] <= BAR:
        r["problems"].append("libmvec: %.3g > %g relative to the state's "
                             "scale" % (r["libmvec"]["max_rel_to_scale"], BAR))
    return r


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--gpu-host", metavar="DIR",
                    help="the emulated CUDA driver's directory: also check "
                    "the cuda variant's kernels compiled for the host")
    ap.add_argument("--skip-simd", action="store_true",
                    help="leave out the cpu-simd checks")
    args = ap.parse_args()
    add_tools(args)
    models = args.models or sorted(os.listdir(os.path.join(args.corpus, "models")))
    t0 = time.time()
    results = []
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = {pool.submit(check_model, args, m): m for m in models}
        for n, fut in enumerate(futures.as_completed(jobs), 1):
            m = jobs[fut]
            try:
                r = fut.result()
            except Exception as e:  # report, never hide
                r = {"model": m, "problems": ["crashed: %r" % e]}
            results.append(r)
            sc, lv = r.get("scalar", {}), r.get("libmvec", {})
            gp = r.get("gpu", {})
            print("[%2d/%d] %-50s scalar %-8s libmvec %-8s (%s; to scale "
                  "%s)%s %s"
                  % (n, len(models), m,
                     "%.2g" % sc["max_rel"] if sc else "-",
                     "%.2g" % lv["max_rel"] if lv else "-",
                     lv.get("state", ""),
                     "%.2g" % lv["max_rel_to_scale"] if lv else "-",
                     " gpu-host %.2g" % gp["max_rel"] if gp else "",
                     "; ".join(r["problems"])), flush=True)
    results.sort(key=lambda r: r["model"])
    failed = [r["model"] for r in results if r["problems"]]
    lv = [r["libmvec"] for r in results if "libmvec" in r]
    worst = max((x["max_rel"] for x in lv), default=0.0)
    worst_scaled = max((x["max_rel_to_scale"] for x in lv), default=0.0)
    within = sum(1 for x in lv if x["max_rel"] <= BAR)
    gpu_same = sum(1 for r in results
                   if r.get("gpu", {}).get("max_rel", 1) == 0)
    if args.skip_simd:
        print("%d models: GPU kernels on the host bit-identical for %d; %d "
              "failed (%.0f s)" % (len(results), gpu_same, len(failed),
                                   time.time() - t0))
    else:
        print("%d models: scalar math bit-identical for %d; libmvec within %g "
              "for %d (largest %.3g; relative to the state's scale %.3g)%s; "
              "%d failed (%.0f s)"
              % (len(results),
                 sum(1 for r in results
                     if r.get("scalar", {}).get("max_rel", 1) == 0),
                 BAR, within, worst, worst_scaled,
                 "; GPU kernels on the host bit-identical for %d" % gpu_same
                 if args.gpu_host else "",
                 len(failed), time.time() - t0))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bar": BAR, "dt": args.dt, "results": results}, f,
                      indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
