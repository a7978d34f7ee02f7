#!/usr/bin/env python3
"""Checks the biomarkers easyml-bench computes during a run (--biomarkers)
against the same biomarkers computed here, independently, from a stored
trace of every step.

For each model: one run writes the biomarker table; a second run of the
same protocol, one step longer, stores Vm (and the calcium state) at every
step (--validate). This script then finds, beat by beat, the resting and
peak Vm, the largest dVm/dt, the 30/50/90% repolarisation crossings, the
calcium transient, early afterdepolarisations and the flags, following the
definitions of docs/biomarkers.md, and compares them with the table.

With --corpus, the models are the reference corpus's, driven by their
protocol.json; the APD90 and dVm/dt max of the CVODE references
(meta.json) are shown next to ours. With --model, any model file.

Plain Python (no numpy). The last line says how many models agree.
"""

import array
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_args import add_tools, corpus_parser  # noqa: E402

CA_NAMES = ["Cai", "Ca_i", "cai", "ca_i", "Ca_in", "Cai_free", "calcium"]
MIN_AMPLITUDE = 40.0
ALTERNANS_MS = 5.0
EAD_RISE = 1.0


def read_bin(path):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def beats_from_trace(v, ca, dt, onsets, last_step):
    """Biomarker rows (dicts) for cell 0 from Vm (and calcium) at the start
    of every step 0..last_step+1. Beats start at the stimulus onsets; the
    time before the first one is not a beat."""
    bounds = [s for s in onsets if s <= last_step]
    if not bounds or bounds[0] > 0:
        pass
    edges = bounds + [last_step + 1]
    rows = []
    prev_apd90 = prev_change = math.nan
    for k in range(len(edges) - 1):
        a, b = edges[k], edges[k + 1]
        r = {"beat": k, "start": a * dt, "v_rest": v[a]}
        # Peak: the first step reaching the highest Vm.
        s_peak = max(range(a, b), key=lambda s: (v[s + 1], -s))
        r["v_peak"] = v[s_peak + 1]
        slopes = [((v[s + 1] - v[s]) / dt, s) for s in range(a, b)]
        best = max(slopes, key=lambda x: (x[0], -x[1]))
        r["dvdt_max"] = best[0]
        t_up = best[1] * dt + 0.5 * dt
        amp = r["v_peak"] - r["v_rest"]
        excited = amp >= MIN_AMPLITUDE
        cross = {}
        cross_step = {}
        for p in (0.3, 0.5, 0.9):
            level = r["v_peak"] - p * amp
            for s in range(s_peak + 1, b):
                if v[s + 1] < level:
                    w = (v[s] - level) / (v[s] - v[s + 1])
                    w = min(max(w, 0.0), 1.0)
                    cross[p] = s * dt + dt * w
                    cross_step[p] = s
                    break
        flags = 0
        for key in ("apd30", "apd50", "apd90", "triangulation",
                    "ca_amplitude", "ca_time_to_peak"):
            r[key] = math.nan
        if not excited:
            flags |= 1
        else:
            for p, key in ((0.3, "apd30"), (0.5, "apd50"), (0.9, "apd90")):
                r[key] = cross[p] - t_up if p in cross else math.nan
            r["triangulation"] = r["apd90"] - r["apd30"]
            if 0.9 not in cross:
                flags |= 2
            # EAD: Vm more than 1 mV above its lowest value since the peak,
            # after the 50% crossing and before the 90% one.
            trough = math.inf
            s50 = cross_step.get(0.5)
            s90 = cross_step.get(0.9, b)
            for s in range(s_peak + 1, b):
                trough = min(trough, v[s + 1])
                if s50 is not None and s50 <= s < s90 and \
                        v[s + 1] > trough + EAD_RISE:
                    flags |= 4
                    break
        if ca is not None:
            seg = [ca[s + 1] for s in range(a, b)]
            i_max = max(range(len(seg)), key=lambda i: (seg[i], -i))
            r["ca_amplitude"] = seg[i_max] - min(seg)
            if excited:
                r["ca_time_to_peak"] = (a + i_max + 1) * dt - t_up
        change = r["apd90"] - prev_apd90
        r["apd90_change"] = change
        if abs(change) > ALTERNANS_MS and abs(prev_change) > ALTERNANS_MS \
                and (change > 0) != (prev_change > 0):
            flags |= 8
        prev_apd90, prev_change = r["apd90"], change
        r["flags"] = flags
        rows.append(r)
    return rows


def close(a, b, scale):
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= 1e-9 * (abs(scale) + 1.0)


def check(args, name, lib, protocol, ca_var, work):
    stim = protocol["stimulus"]
    dt = args.dt
    t_end = protocol["t_end"]
    base = [args.bench, "--load-module", lib, "--variant", args.variant,
            "--dt", repr(dt), "--no-trace", "--quiet", "--no-progress"]
    amp = stim.get("amplitude") or 0.0
    n = stim.get("number_of_pulses", 0)
    if amp and n > 0:
        base += ["--stim-curr", repr(-amp), "--stim-start", repr(stim["start"]),
                 "--stim-dur", repr(stim["duration"]), "--bcl",
                 repr(stim["period"]), "--numstim", str(n)]
        start = round(stim["start"] / dt)
        period = round(stim["period"] / dt)
        onsets = [start + k * period for k in range(n)]
    else:
        base += ["--numstim", "0"]
        onsets = [0]
    bio = os.path.join(work, name + ".bio.csv")
    cmd = base + ["--duration", repr(t_end), "--biomarkers", bio,
                  "--fout=" + os.path.join(work, name + ".a")]
    if ca_var:
        cmd += ["--ca-variable", ca_var]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, "biomarker run failed: " + p.stderr.strip()[-300:]
    out = os.path.join(work, name + ".b")
    p = subprocess.run(base + ["--duration", repr(t_end + dt), "--validate",
                               "--dt-out", repr(dt), "--fout=" + out],
                       capture_output=True, text=True)
    if p.returncode:
        return None, "trace run failed: " + p.stderr.strip()[-300:]
    v = read_bin(out + ".Vm.bin")
    ca = None
    if ca_var:
        files = [f for f in os.listdir(work)
                 if f.startswith(name + ".b_") and f.endswith("." + ca_var +
                                                              ".bin")]
        ca = read_bin(os.path.join(work, files[0]))
    last_step = round(t_end / dt)
    if len(v) < last_step + 2:
        return None, "trace has %d samples, expected %d" % (len(v),
                                                            last_step + 2)
    ours = beats_from_trace(v, ca, dt, onsets if onsets[0] > 0 else [0],
                            last_step)
    with open(bio) as f:
        table = [r for r in csv.DictReader(f) if r["cell"] == "0"]
    if len(table) != len(ours):
        return None, "%d beats in the table, %d from the trace" % (
            len(table), len(ours))
    worst = ""
    for got, want in zip(table, ours):
        for key, w in want.items():
            g = float(got[key])
            scale = 1000.0 if key in ("start",) else w if not math.isnan(w) \
                else 0.0
            if not close(g, w, scale if key != "flags" else 0):
                worst = "beat %s %s: table %r, trace %r" % (got["beat"], key,
                                                           g, w)
                return ours, worst
    return ours, ""


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--model", action="append", default=[],
                    help="a model file (instead of the corpus); repeatable")
    ap.add_argument("--ca-variable", help="with --model: the calcium state")
    ap.add_argument("--variant", default="cpu-simd")
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--numstim", type=int, default=3,
                    help="with --model: stimuli (bcl 500 ms)")
    ap.add_argument("--json", help="write the results here")
    args = add_tools(ap.parse_args())
    jobs = []
    if args.model:
        proto = {"stimulus": {"amplitude": -60.0, "start": 10.0,
                              "duration": 1.0, "period": 500.0,
                              "number_of_pulses": args.numstim},
                 "t_end": 500.0 * args.numstim}
        for m in args.model:
            jobs.append((os.path.splitext(os.path.basename(m))[0], m, proto,
                         args.ca_variable, None))
    else:
        models = os.path.join(args.corpus, "models")
        names = args.models or sorted(os.listdir(models))
        for n in names:
            d = os.path.join(models, n)
            with open(os.path.join(d, "protocol.json")) as f:
                proto = json.load(f)
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)
            cols = proto.get("reference_columns", [])
            ca = next((c for c in CA_NAMES if c in cols), None)
            jobs.append((n, os.path.join(d, "model.model"), proto, ca, meta))
    results = []
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        print("%-40s %5s %9s %9s %9s %9s  %s" % (
            "model", "beats", "APD90", "ref", "dV/dt", "ref", "agreement"))
        for i, (name, path, proto, ca, meta) in enumerate(jobs):
            lib = os.path.join(work, name + ".so")
            p = subprocess.run([args.compiler, path, "--emit=shared",
                                "--variant=baseline,cpu-simd", "-o", lib],
                               capture_output=True, text=True)
            if p.returncode:
                failed += 1
                print("%-40s compile failed: %s" % (name, p.stderr[-200:]))
                results.append({"model": name, "ok": False,
                                "error": "compile failed"})
                continue
            ours, err = check(args, name, lib, proto, ca, work)
            ok = ours is not None and not err
            failed += not ok
            first = ours[0] if ours else {}
            ref = (meta or {}).get("ap_beat1", {})
            fmt = lambda x: ("%9.2f" % x) if isinstance(x, float) and \
                not math.isnan(x) else "%9s" % "-"
            print("%-40s %5s %s %s %s %s  %s" % (
                name, len(ours) if ours else "-", fmt(first.get("apd90")),
                fmt(ref.get("APD90")), fmt(first.get("dvdt_max")),
                fmt(ref.get("dVdt_max")), "agree" if ok else err),
                flush=True)
            results.append({"model": name, "ok": ok, "error": err,
                            "ca_variable": ca, "beats": ours or [],
                            "reference_beat1": ref})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=lambda x: None)
    print("%d of %d models: biomarkers from the run equal those from the "
          "stored trace" % (len(jobs) - failed, len(jobs)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
