#!/usr/bin/env python3
"""Compile time of easyml-compile: a model to an object with the baseline
and cpu-simd variants, cold (--no-cache, every stage runs) and cached (a
repeated build of the unchanged model), best of --repeat runs each, with the
time of every stage (--mlir-timing) of one cold build.

  benchmarks/compile.py [--models ohara-2011 ...] [--json out.json]

The issue's bars: a 40-state model under 5 s cold and 0.2 s cached on the
2-core machine. Default: the corpus's 40-state models and the largest one.
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


def timed(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[-300:])
    return dt, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", default=os.environ.get(
        "EASYML_CORPUS", os.path.join(ROOT, "..", "shared", "corpus")))
    ap.add_argument("--models", nargs="*",
                    default=["ohara-2011", "ohara_rudy_2011_endo", "Trovato2020"])
    ap.add_argument("--variants", default="baseline,cpu-simd")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    compiler = os.path.join(args.build, "bin", "easyml-compile")
    bench = os.path.join(args.build, "bin", "easyml-bench")
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
            cold = min(timed(base + ["--no-cache"], env)[0]
                       for _ in range(args.repeat))
            _, report = timed(base + ["--no-cache", "--mlir-timing"], env)
            stages = {}
            for line in report.splitlines():
                # Top-level stages are indented by two spaces, passes more.
                m = re.match(r"\s+([0-9.]+) \(\s*[0-9.]+%\)( +)(\S.*)$", line)
                if m and len(m.group(2)) == 2 and m.group(3) != "Total":
                    stages[m.group(3).strip()] = float(m.group(1))
            timed(base, env)  # fills the cache
            cached = min(timed(base, env)[0] for _ in range(args.repeat))
            so = os.path.join(work, name + ".so")
            subprocess.run([compiler, src, "--model-name", name, "--variant",
                            args.variants, "--emit=shared", "-o", so, "-w"],
                           env=env, check=True)
            info = subprocess.run([bench, "--load-module", so, "--imp-info"],
                                  capture_output=True, text=True).stdout
            states = next((int(l.split("(")[1].split(")")[0])
                           for l in info.splitlines()
                           if l.startswith("State variables")), 0)
            top = sorted(stages.items(), key=lambda kv: -kv[1])[:4]
            print("%-28s %6d %9.3f %9.3f  %s" % (
                name, states, cold, cached,
                ", ".join("%s %.2f" % kv for kv in top)), flush=True)
            results.append({"model": name, "states": states,
                            "cold_seconds": cold, "cached_seconds": cached,
                            "stages_seconds": stages})
    if args.json:
        json.dump({"variants": args.variants, "repeat": args.repeat,
                   "command": " ".join(sys.argv), "results": results},
                  open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
