#!/usr/bin/env python3
"""GPU execution checks beyond the corpus bars, for every corpus model.

  fused vs one-step: the corpus protocol run on the GPU with whole waves per
      launch (state in registers, Vm integrated in-kernel) and with one
      launch per step (--max-wave-steps=1) must give the same Vm, bit for
      bit up to 1e-9 mV: the same kernel code runs each step;
  GPU vs CPU: the GPU's Vm trace against cpu-simd's on the host, on the
      1 ms grid (RMS and max |dVm|): the same algebra with different math
      libraries (libdevice / the ROCm device libraries vs libmvec), so the
      traces agree to far below the corpus bars.

  scripts/gpu-equivalence.py --prebuilt build/gpu-pack/models \\
      --bench build/gpu-pack/bin/easyml-bench --variant cuda --json out.json
"""

import concurrent.futures as futures
import json
import math
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_args import corpus_parser  # noqa: E402
from validate import simulate  # noqa: E402

BARS = {"fused_vs_one_step_mV": 1e-9, "gpu_vs_cpu_rms_mV": 0.05,
        "gpu_vs_cpu_max_mV": 2.0}


def diff(a, b):
    n = min(len(a[1]), len(b[1]))
    d = [a[1][i] - b[1][i] for i in range(n)]
    if n == 0 or len(a[1]) != len(b[1]):
        return float("nan"), float("nan")
    return (math.sqrt(sum(x * x for x in d) / n), max(abs(x) for x in d))


def check(args, name):
    folder = os.path.join(args.corpus, "models", name)
    proto = json.load(open(os.path.join(folder, "protocol.json")))
    lib = os.path.join(args.prebuilt, name + ".so")
    r = {"model": name, "problems": []}
    with tempfile.TemporaryDirectory(prefix="easyml-gpu-") as work:
        t0 = time.time()
        runs = {}
        for tag, variant, extra in (
                ("fused", args.variant, ["--device", str(args.device)]),
                ("one_step", args.variant, ["--device", str(args.device),
                                            "--max-wave-steps=1"]),
                ("cpu", "cpu-simd", [])):
            sim, err = simulate(args.bench, lib, variant, proto, args.dt, work,
                                tag, dt_out=1.0, extra=extra)
            if sim is None:
                r["problems"].append("%s run failed: %s" % (tag, err))
                return r
            runs[tag] = sim
        r["seconds"] = round(time.time() - t0, 2)
    _, r["fused_vs_one_step_mV"] = diff(runs["fused"], runs["one_step"])
    r["gpu_vs_cpu_rms_mV"], r["gpu_vs_cpu_max_mV"] = diff(runs["fused"],
                                                          runs["cpu"])
    for key, bar in BARS.items():
        if not r[key] <= bar:
            r["problems"].append("%s %.3g > %g" % (key, r[key], bar))
    return r


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--prebuilt", required=True,
                    help="folder of <model>.so with cpu-simd and the GPU variant")
    ap.add_argument("--bench", help="easyml-bench (default: BUILD/bin)")
    ap.add_argument("--variant", default="cuda", choices=["cuda", "rocm"])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--deadline", type=float, help="a Unix time: models not "
                    "started by then are reported as not run")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--markdown", help="write a Markdown table here")
    args = ap.parse_args()
    args.bench = args.bench or os.path.join(args.build, "bin", "easyml-bench")
    models = args.models or sorted(os.listdir(os.path.join(args.corpus, "models")))
    results = []
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        def job(m):
            if args.deadline and time.time() > args.deadline:
                return {"model": m, "problems": ["not run (time budget)"]}
            return check(args, m)
        jobs = {pool.submit(job, m): m for m in models}
        for n, fut in enumerate(futures.as_completed(jobs), 1):
            r = fut.result()
            results.append(r)
            print("[%d/%d] %-45s %s" % (n, len(models), r["model"],
                                        "; ".join(r["problems"]) or "ok"),
                  flush=True)
    results.sort(key=lambda r: r["model"])
    failed = [r for r in results if r["problems"]]
    summary = "%d passed, %d failed (fused = one-step, GPU ~ CPU; %s device %d)" % (
        len(results) - len(failed), len(failed), args.variant, args.device)
    print(summary)
    if args.json:
        json.dump({"bars": BARS, "variant": args.variant, "dt": args.dt,
                   "results": results}, open(args.json, "w"), indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| model | fused vs one-step max (mV) | GPU vs CPU RMS (mV) "
                    "| GPU vs CPU max (mV) | |\n|---|---|---|---|---|\n")
            for r in results:
                f.write("| %s | %s | %s | %s | %s |\n" % (
                    r["model"], *("%.3g" % r[k] if k in r else "–" for k in (
                        "fused_vs_one_step_mV", "gpu_vs_cpu_rms_mV",
                        "gpu_vs_cpu_max_mV")),
                    "; ".join(r["problems"]) or "ok"))
            f.write("\n%s\n" % summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
