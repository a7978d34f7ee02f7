#!/usr/bin/env python3
"""Compile time of easyml-compile: a model to an object with the baseline
and cpu-simd variants, cold (--no-cache, every stage runs) and cached (a
repeated build of the unchanged model), best of --repeat runs each, with the
time of every stage (--mlir-timing) of one cold build.

  benchmarks/compile.py [--models ohara-2011 ...] [--json out.json]

  benchmarks/compile.py --gpu --models all --repeat 1 --bar 30

The bars: a 40-state model under 5 s cold and 0.2 s cached on the 2-core
machine (CPU variants); every corpus model for cuda (sm_80, sm_90) and rocm
(gfx90a, gfx942) under 30 s cold (--gpu: those variants and their default
chips). Default models: the corpus's 40-state models and the largest one;
`--models all` takes every corpus model. With --bar, exits non-zero when a
cold build takes longer and lists the models that did.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPILER = None


def timed(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[-300:])
    return dt, p.stderr


def count_states(src):
    """State variables, as `easyml-compile --emit=header` declares them."""
    p = subprocess.run([COMPILER, src, "--emit=header", "-w", "-o", "-"],
                       capture_output=True, text=True)
    m = re.search(r"_NUM_STATE = (\d+)", p.stdout)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", default=os.environ.get(
        "EASYML_CORPUS", os.path.join(ROOT, "..", "shared", "corpus")))
    ap.add_argument("--models", nargs="*",
                    default=["ohara-2011", "ohara_rudy_2011_endo", "Trovato2020"])
    ap.add_argument("--variants", default="baseline,cpu-simd")
    ap.add_argument("--gpu", action="store_true",
                    help="the GPU variants, cuda and rocm, each for its "
                    "default chips (sm_80,sm_90; gfx90a,gfx942)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bar", type=float,
                    help="seconds a cold build may take (exit 1 above)")
    ap.add_argument("--cold-only", action="store_true",
                    help="no cached builds (default with --gpu)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.gpu:
        args.variants = "cuda,rocm"
        args.cold_only = True
    if args.models == ["all"]:
        models_dir = os.path.join(args.corpus, "models")
        args.models = sorted(
            m for m in os.listdir(models_dir)
            if os.path.exists(os.path.join(models_dir, m, "model.model")))
    global COMPILER
    compiler = COMPILER = os.path.join(args.build, "bin", "easyml-compile")
    results = []
    print("%-28s %6s %9s %9s  %s" % ("model", "states", "cold s", "cached s",
                                    "slowest stages (cold)"))
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, EASYML_CACHE_DIR=os.path.join(work, "cache"))
        for name in args.models:
            src = os.path.join(args.corpus, "models", name, "model.model")
            out = os.path.join(work, name + ".o")
            base = [compiler, src, "--model-name", name, "--variant",
                    args.variants, "--emit=obj", "-o", out, "-w"]
            # The first cold build also reports its stages (--mlir-timing
            # costs well under 1%).
            cold, report = timed(base + ["--no-cache", "--mlir-timing"], env)
            for _ in range(args.repeat - 1):
                cold = min(cold, timed(base + ["--no-cache"], env)[0])
            stages = {}
            for line in report.splitlines():
                # Top-level stages are indented by two spaces, passes more;
                # wall time is the last column (user time comes first when
                # the build used threads).
                m = re.match(r"\s+(?:-?[0-9.]+ \(\s*-?[0-9.]+%\)\s+)?"
                             r"(-?[0-9.]+) \(\s*-?[0-9.]+%\)( +)(\S.*)$", line)
                if m and len(m.group(2)) == 2 and \
                        m.group(3) not in ("Total", "Rest"):
                    stages[m.group(3).strip()] = float(m.group(1))
            cached = None
            if not args.cold_only:
                timed(base, env)  # fills the cache
                cached = min(timed(base, env)[0] for _ in range(args.repeat))
            states = count_states(src)
            top = sorted(stages.items(), key=lambda kv: -kv[1])[:4]
            print("%-28s %6d %9.3f %9s  %s%s" % (
                name, states, cold,
                "-" if cached is None else "%.3f" % cached,
                ", ".join("%s %.2f" % kv for kv in top),
                "  OVER THE BAR" if args.bar and cold > args.bar else ""),
                flush=True)
            results.append({"model": name, "states": states,
                            "cold_seconds": cold, "cached_seconds": cached,
                            "stages_seconds": stages})
    over = [r["model"] for r in results
            if args.bar and r["cold_seconds"] > args.bar]
    if results:
        worst = max(results, key=lambda r: r["cold_seconds"])
        print("%d models, %s: slowest cold build %s %.1f s%s" % (
            len(results), args.variants, worst["model"],
            worst["cold_seconds"],
            "; over %g s: %s" % (args.bar, " ".join(over)) if over else
            ("; all under %g s" % args.bar if args.bar else "")))
    if args.json:
        json.dump({"variants": args.variants, "repeat": args.repeat,
                   "bar_seconds": args.bar,
                   "command": " ".join(sys.argv), "results": results},
                  open(args.json, "w"), indent=1)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
