#!/usr/bin/env python3
"""Reference traces of the project's example models, and checks against them.

  example-references.py make   [--build build]  writes examples/references/<model>.csv
  example-references.py check  [--build build] [--dt 0.01]  compares a run with them

`make` integrates each model with easyml-bench at dt = 1e-4 ms (openCARP's
scheme converges at first order, so the error is ~1% of that at 0.01 ms;
the script also runs dt = 5e-5 ms and records the largest Vm difference
between the two as the reference's error estimate). The CSV holds time, Vm,
every state and Iion on a 1 ms grid.

`check` runs each model at --dt and requires Vm RMS <= 1% of the action
potential amplitude and max |dVm| <= 10% of it (an upstroke a step early), and that the pointwise Iion of
every reference row is reproduced to 1e-9 relative.
"""

import argparse
import array
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = os.path.join(ROOT, "examples", "models")
REFS = os.path.join(ROOT, "examples", "references")


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def simulate(build, name, proto, dt, work):
    lib = os.path.join(work, name + ".so")
    if not os.path.exists(lib):
        sh([os.path.join(build, "bin", "easyml-compile"),
            os.path.join(MODELS, name + ".model"), "--emit=shared", "-o", lib])
    out = os.path.join(work, "%s-%g" % (name, dt))
    sh([os.path.join(build, "bin", "easyml-bench"), "--load-module", lib,
        "--dt", repr(dt), "--dt-out", "1", "--duration", repr(proto["duration"]),
        "--stim-curr", repr(proto["stim_curr"]), "--stim-dur", repr(proto["stim_dur"]),
        "--stim-start", repr(proto["stim_start"]), "--bcl", repr(proto["bcl"]),
        "--numstim", str(proto["numstim"]), "--fout=" + out, "--validate",
        "--no-trace", "--quiet", "--no-progress"])
    def rd(path):
        a = array.array("d")
        with open(path, "rb") as f:
            a.frombytes(f.read())
        return a
    cols = {"time_ms": rd(out + ".t.bin"), "Vm": rd(out + ".Vm.bin")}
    info = sh([os.path.join(build, "bin", "easyml-bench"), "--load-module", lib,
               "--imp-info"])
    states = []
    section = None
    for line in info.splitlines():
        if line.startswith("State variables"):
            section = "states"
            continue
        if not line.strip():
            section = None if section == "states" else section
            continue
        if section == "states":
            states.append(line.split()[0])
    for s in states:
        cols[s] = rd("%s_%s.%s.bin" % (out, name, s))
    cols["Iion"] = rd(out + ".Iion.bin")
    return cols, states, lib


def make(args):
    protos = json.load(open(os.path.join(REFS, "protocols.json")))
    summary = {}
    with tempfile.TemporaryDirectory() as work:
        for name, proto in protos.items():
            if name.startswith("_"):
                continue
            fine, states, _ = simulate(args.build, name, proto, 1e-4, work)
            finer, _, _ = simulate(args.build, name, proto, 5e-5, work)
            err = max(abs(a - b) for a, b in zip(fine["Vm"], finer["Vm"]))
            keys = ["time_ms", "Vm"] + states + ["Iion"]
            with open(os.path.join(REFS, name + ".csv"), "w") as f:
                f.write(",".join(keys) + "\n")
                for i in range(len(fine["time_ms"])):
                    f.write(",".join("%.12g" % fine[k][i] for k in keys) + "\n")
            # Iion at each row's state (bench outputs the previous step's).
            path = os.path.join(REFS, name + ".csv")
            sh([os.path.join(args.build, "bin", "easyml-bench"), "--load-module",
                os.path.join(work, name + ".so"), "--pointwise", path,
                "--pointwise-write", path])
            summary[name] = {"dt_ms": 1e-4, "max_abs_dVm_vs_dt_5e-5": err}
            print("%-28s reference written; max |Vm(1e-4) - Vm(5e-5)| = %.3g" % (name, err))
    with open(os.path.join(REFS, "accuracy.json"), "w") as f:
        json.dump(summary, f, indent=1)


def check(args):
    protos = json.load(open(os.path.join(REFS, "protocols.json")))
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, proto in protos.items():
            if name.startswith("_"):
                continue
            ref_path = os.path.join(REFS, name + ".csv")
            with open(ref_path) as f:
                header = f.readline().strip().split(",")
                rows = [list(map(float, l.split(","))) for l in f if l.strip()]
            ref_v = [r[header.index("Vm")] for r in rows]
            sim, _, lib = simulate(args.build, name, proto, args.dt, work)
            diffs = [a - b for a, b in zip(sim["Vm"], ref_v)]
            amp = max(ref_v) - min(ref_v)
            rms = math.sqrt(sum(d * d for d in diffs) / len(diffs))
            mx = max(abs(d) for d in diffs)
            pw = json.loads(sh([os.path.join(args.build, "bin", "easyml-bench"),
                                "--load-module", lib, "--pointwise", ref_path]))
            ok = (len(diffs) == len(ref_v) and rms <= 0.01 * amp and
                  mx <= 0.10 * amp and pw["relative_error"] <= 1e-9)
            failed += not ok
            print("%-28s %s  Vm RMS %.3g, max %.3g (AP amplitude %.3g); pointwise %.2g"
                  % (name, "ok  " if ok else "FAIL", rms, mx, amp,
                     pw["relative_error"]))
    print("%d passed, %d failed" % (len(protos) - 1 - failed, failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["make", "check"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--dt", type=float, default=0.01)
    args = ap.parse_args()
    return make(args) if args.mode == "make" else check(args)


if __name__ == "__main__":
    sys.exit(main())
