#!/usr/bin/env python3
"""Compile every corpus model for the given variants and check the result.

For each model: easyml-compile --variant=<variants> --emit=shared, then
easyml-bench --imp-info to read back the descriptor, which must list every
requested variant, and for GPU variants one non-empty code object per chip.
Prints one line per model and a summary; exit status 1 if any failed.

  scripts/compile-corpus.py --corpus ../shared/corpus --build build \\
      --variants cuda,rocm [--jobs 2] [--models a b] \\
      [--extra=--cuda-chips=sm_90 --extra=--rocm-chips=gfx942]
"""

import concurrent.futures as futures
import os
import re
import subprocess
import sys
import tempfile
import time

from corpus_args import add_tools, corpus_parser


def check(args, name, work):
    model = os.path.join(args.corpus, "models", name, "model.model")
    lib = os.path.join(work, name + ".so")
    t0 = time.time()
    p = subprocess.run([args.compiler, model, "--model-name", name, "-w",
                        "--variant", args.variants, "--emit=shared", "-o", lib]
                       + args.extra,
                       capture_output=True, text=True)
    seconds = time.time() - t0
    if p.returncode != 0:
        return name, seconds, "compile failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    info = subprocess.run([args.bench, "--load-module", lib, "--imp-info"],
                          capture_output=True, text=True).stdout
    line = next((l for l in info.splitlines() if l.startswith("Variants:")), "")
    problems = []
    for v in args.variants.split(","):
        if not re.search(r"\b%s\b" % re.escape(v), line):
            problems.append("variant %s missing" % v)
        elif v in ("cuda", "rocm"):
            m = re.search(r"\b%s \(([^)]*)\)" % v, line)
            images = m.group(1).split("; ") if m else []
            if not images or any(not re.search(r", [1-9][0-9]* bytes$", i)
                                 for i in images):
                problems.append("variant %s has no code objects" % v)
    os.remove(lib)
    return name, seconds, "; ".join(problems)


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--variants", default="cuda,rocm")
    ap.add_argument("--extra", action="append", default=[],
                    help="an extra easyml-compile argument (repeatable)")
    args = ap.parse_args()
    add_tools(args)
    models = args.models or sorted(os.listdir(os.path.join(args.corpus, "models")))
    t0 = time.time()
    failed = []
    with tempfile.TemporaryDirectory() as work, \
            futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(check, args, m, work) for m in models]
        for n, job in enumerate(futures.as_completed(jobs), 1):
            name, seconds, problem = job.result()
            if problem:
                failed.append(name)
            print("[%2d/%d] %-50s %5.1f s %s" % (n, len(models), name, seconds,
                                                problem or "ok"), flush=True)
    print("%d models compiled for %s: %d ok, %d failed (%.0f s)" % (
        len(models), args.variants, len(models) - len(failed), len(failed),
        time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
