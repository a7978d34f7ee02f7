#!/usr/bin/env python3
"""The whole-cell adaptive integrator (easyml-compile --adaptive).

1. A passive membrane, dV/dt = stim - g (V - E), has a closed form: Vm
   after a stimulus and after the relaxation that follows must match it to
   the tolerance at any dt, so the stimulus acts as a current over its
   steps (not as a jump) and Vm is integrated by the model.
2. ten Tusscher-Panfilov 2006 (19 states), paced 3 beats: APD90 of the
   last beat within 1% of openCARP's scheme at dt = 0.01 ms, with at least
   ten times fewer steps (the report's adaptive sub-steps per cell against
   the fixed run's steps); its largest dV/dt within 2% and its peak within
   1.5 mV, though the upstroke is shorter than a step of dt (the
   biomarkers read Vm's extremes within the step from the sub-steps).

Every check runs with both adaptive methods (ROS2 and RODAS3,
--cvode-method) and with the scalar baseline and the vectorised cpu-simd
kernels. Usage: check_whole_cell.py <build> <examples> <tmp>
"""

import array
import csv
import json
import math
import os
import subprocess
import sys

build, examples, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
compiler = os.path.join(build, "bin", "easyml-compile")
bench = os.path.join(build, "bin", "easyml-bench")

PASSIVE = """V; .external(Vm); .nodal();
Iion; .external(); .nodal();
V_init = -80.0;
g = 0.5;
E = -80.0;
Iion = g * (V - E);
"""


def passive_exact(t, start, dur, stim):
    """V(t) of the passive membrane from rest, stimulated over
    [start, start + dur)."""
    g, e = 0.5, -80.0
    if t <= start:
        return e
    on = min(t, start + dur) - start
    v = e + stim / g * (1 - math.exp(-g * on))
    if t > start + dur:
        v = e + (v - e) * math.exp(-g * (t - start - dur))
    return v


def compile_model(path, name, options):
    lib = os.path.join(tmp, name + ".so")
    if not os.path.exists(lib):
        subprocess.run([compiler, path, "--emit=shared", "-o", lib, "-w",
                        "--variant=baseline,cpu-simd"] + options, check=True)
    return lib


def bench_run(lib, variant, out, args):
    report = out + ".json"
    subprocess.run([bench, "--load-module", lib, "--variant", variant,
                    "--fout=" + out, "--quiet", "--report-json", report] + args,
                   check=True, cwd=tmp)
    return json.load(open(report))


failures = 0


def check(ok, variant, method, text):
    global failures
    failures += not ok
    print(("ok   " if ok else "FAIL ") + "%-9s %-7s " % (variant, method) +
          text)


def passive(variant, method):
    path = os.path.join(tmp, "passive.model")
    with open(path, "w") as f:
        f.write(PASSIVE)
    lib = compile_model(path, "passive-" + method,
                        ["--adaptive", "--cvode-rtol=1e-8", "--cvode-atol=1e-8",
                         "--cvode-method=" + method])
    for dt in [0.5, 0.05]:
        for t_end in [2.0, 6.0]:
            out = os.path.join(tmp, "passive-%s-%s-%g-%g" %
                               (variant, method, dt, t_end))
            bench_run(lib, variant, out,
                      ["--dt", repr(dt), "--duration", repr(t_end),
                       "--dt-out", repr(t_end), "--stim-start", "1",
                       "--stim-dur", "1", "--stim-curr", "20", "--validate",
                       "--no-trace"])
            v = array.array("d")
            with open(out + ".Vm.bin", "rb") as f:
                v.frombytes(f.read())
            exact = passive_exact(t_end, 1.0, 1.0, 20.0)
            err = abs(v[-1] - exact)
            check(err < 1e-5, variant, method,
                  "passive membrane, dt %g, Vm(%g) = %.8f (exact %.8f)" %
                  (dt, t_end, v[-1], exact))


def last_beat(path, column):
    rows = list(csv.DictReader(open(path)))
    last = max(int(r["beat"]) for r in rows)
    return [float(r[column]) for r in rows if int(r["beat"]) == last]


def ten_tusscher(variant, method):
    model = os.path.join(examples, "ten_tusscher_panfilov_2006.model")
    fixed = compile_model(model, "tt-fixed", [])
    adaptive = compile_model(model, "tt-adaptive-" + method,
                             ["--adaptive", "--cvode-method=" + method])
    protocol = ["--num", "4", "--numstim", "3", "--bcl", "1000",
                "--duration", "3000", "--stim-dur", "1", "--no-trace"]
    runs = {}
    for name, lib, dt in [("fixed", fixed, 0.01), ("adaptive", adaptive, 0.5)]:
        out = os.path.join(tmp, "tt-%s-%s-%s" % (name, variant, method))
        bio = out + "-bio.csv"
        report = bench_run(lib, variant, out,
                           protocol + ["--dt", repr(dt), "--biomarkers", bio])
        runs[name] = (report, {c: last_beat(bio, c)
                               for c in ("apd90", "dvdt_max", "v_peak")})
    apd_f, apd_a = runs["fixed"][1]["apd90"], runs["adaptive"][1]["apd90"]
    worst = max(abs(a / f - 1) for a, f in zip(apd_a, apd_f))
    check(worst < 0.01, variant, method,
          "ten Tusscher 2006, APD90 of beat 3: %.2f ms adaptive, %.2f ms at "
          "dt 0.01 (largest difference %.3f%%)" %
          (apd_a[0], apd_f[0], 100 * worst))
    # The upstroke lasts less than a step of 0.5 ms: its rate and peak are
    # those the sub-steps saw.
    up_f, up_a = runs["fixed"][1]["dvdt_max"], runs["adaptive"][1]["dvdt_max"]
    worst = max(abs(a / f - 1) for a, f in zip(up_a, up_f))
    check(worst < 0.02, variant, method,
          "ten Tusscher 2006, dV/dt max of beat 3: %.1f mV/ms adaptive, "
          "%.1f at dt 0.01 (largest difference %.2f%%)" %
          (up_a[0], up_f[0], 100 * worst))
    pk_f, pk_a = runs["fixed"][1]["v_peak"], runs["adaptive"][1]["v_peak"]
    worst = max(abs(a - f) for a, f in zip(pk_a, pk_f))
    check(worst < 1.5, variant, method,
          "ten Tusscher 2006, peak Vm of beat 3: %.2f mV adaptive, %.2f at "
          "dt 0.01 (largest difference %.2f mV)" % (pk_a[0], pk_f[0], worst))
    steps_fixed = runs["fixed"][0]["steps"]
    steps = runs["adaptive"][0]["adaptive_steps"]["per_cell"]
    check(steps * 10 <= steps_fixed, variant, method,
          "ten Tusscher 2006, 3 beats: %d sub-steps per cell against %d steps"
          " of dt 0.01 (%.1fx fewer)" % (steps, steps_fixed,
                                         steps_fixed / steps))


for method in ["ros2", "rodas3"]:
    for variant in ["baseline", "cpu-simd"]:
        passive(variant, method)
        ten_tusscher(variant, method)
print("%d failed" % failures)
sys.exit(1 if failures else 0)
