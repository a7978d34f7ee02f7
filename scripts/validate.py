#!/usr/bin/env python3
"""Validate compiled models against the reference corpus (CVODE traces).

For every model folder (model.model, protocol.json, reference.csv,
meta.json) this compiles the model with easyml-compile, then

  (a) pointwise: evaluates Iion at the state of every reference row
      (easyml-bench --pointwise) and compares with the Iion column;
  (b) trace: runs the corpus protocol with easyml-bench (openCARP bench
      stepping, --stim-curr = -amplitude) at each requested dt and compares
      Vm on the 1 ms grid (RMS, max) and the action-potential features of
      both beats (V_rest, V_peak, dV/dt max, APD50, APD90; the cycle length
      for spontaneously active models) with meta.json.

It prints a table, writes Markdown and JSON reports, and exits non-zero when
a model misses a bar without being listed, with its diagnosed reason, in the
known-deviations file.

  scripts/validate.py --corpus ../shared/corpus --build build \\
      --markdown docs/validation.md --json docs/validation.json
"""

import array
import concurrent.futures as futures
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time

from corpus_args import add_tools, corpus_parser

BARS = {
    "pointwise_rel": 1e-7,
    "rms_mV": 1.0,
    "v_rest_mV": 0.5,
    "v_peak_mV": 3.0,
    "apd90_ms": 3.0,
    "apd90_rel": 0.015,
    "cycle_rel": 0.02,
}


def run(cmd, timeout=1800):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read_bin(path):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def features(t, v, t_up, stim_starts, upstroke_threshold, window_rest=False):
    """AP features of the beat whose upstroke crosses the threshold at
    `t_up`, defined as the corpus meta.json does: V_rest at the start of the
    last stimulus before the upstroke, peak and maximum dV/dt of the
    upstroke, APD50/90 from the time of maximum dV/dt."""
    def index(x):
        lo, hi = 0, len(t) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if t[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return lo
    before = [s for s in stim_starts if s <= t_up]
    if window_rest or not before:
        # meta.json's rule for spontaneously active models: the window
        # starts 50 ms before the upstroke.
        t_rest = max(0.0, t_up - 50.0)
    else:
        t_rest = before[-1]
    i_rest = index(t_rest)
    iu0 = index(max(t_rest, t_up - 20.0))
    iu1 = index(t_up + 20.0)
    best, iu = -1e300, iu0
    for i in range(iu0, min(iu1, len(v) - 1)):
        d = (v[i + 1] - v[i]) / (t[i + 1] - t[i])
        if d > best:
            best, iu = d, i
    ip1 = index(t_up + 100.0)
    ip = max(range(iu, max(iu + 1, ip1)), key=lambda i: v[i])
    f = {"V_rest_at_stim_start": v[i_rest], "V_peak": v[ip], "t_peak": t[ip],
         "dVdt_max": best, "t_max_upstroke": t[iu] + 0.5 * (t[iu + 1] - t[iu])}
    amp = v[ip] - v[i_rest]
    for pct in (50, 90):
        level = v[ip] - amp * pct / 100.0
        apd = None
        for i in range(ip, len(v) - 1):
            if v[i] >= level > v[i + 1]:
                frac = (v[i] - level) / (v[i] - v[i + 1])
                apd = t[i] + frac * (t[i + 1] - t[i]) - f["t_max_upstroke"]
                break
        f["APD%d" % pct] = apd
    return f


def upstrokes(t, v, threshold):
    ups = []
    for i in range(len(v) - 1):
        if v[i] < threshold <= v[i + 1]:
            ups.append(t[i] + (threshold - v[i]) / (v[i + 1] - v[i]) *
                       (t[i + 1] - t[i]))
    return ups


def cycle_length(ups):
    if len(ups) < 2:
        return None
    return (ups[-1] - ups[0]) / (len(ups) - 1)


def simulate(bench, lib, variant, proto, dt, workdir, tag, dt_out=None,
             extra=()):
    """Runs the corpus protocol; returns ((t, Vm), None) or (None, error).
    Output every step unless `dt_out`; `extra`: more easyml-bench options."""
    stim = proto["stimulus"]
    out = os.path.join(workdir, tag)
    cmd = [bench, "--load-module", lib, "--variant", variant, "--dt", repr(dt),
           "--dt-out", repr(dt_out or dt), "--duration", repr(proto["t_end"]),
           "--fout=" + out, "--bin", "--no-trace", "--quiet",
           "--no-progress"]
    amp = stim.get("amplitude") or 0.0
    if amp and stim.get("number_of_pulses", 0) > 0:
        cmd += ["--stim-curr", repr(-amp), "--stim-start", repr(stim["start"]),
                "--stim-dur", repr(stim["duration"]), "--bcl",
                repr(stim["period"]), "--numstim",
                str(stim["number_of_pulses"])]
    else:
        cmd += ["--numstim", "0"]
    cmd += list(extra)
    rc, so, se = run(cmd)
    if rc != 0:
        return None, (se.strip().splitlines() or ["exit %d" % rc])[-1]
    t = read_bin(out + ".t.bin")
    v = read_bin(out + ".Vm.bin")
    for ext in (".t.bin", ".Vm.bin", ".Iion.bin"):
        try:
            os.remove(out + ext)
        except OSError:
            pass
    return (t, v), None


def read_reference(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        it = header.index("time_ms")
        iv = header.index("Vm")
        t, v = [], []
        for line in f:
            parts = line.split(",")
            if len(parts) < len(header):
                continue
            t.append(float(parts[it]))
            v.append(float(parts[iv]))
    return t, v


def compare_trace(sim, ref, dt):
    t, v = sim
    rt, rv = ref
    per_ms = int(round(1.0 / dt))
    diffs = []
    for k, (tr, vr) in enumerate(zip(rt, rv)):
        i = int(round(tr / dt))
        if i >= len(v):
            break
        diffs.append(v[i] - vr)
    rms = math.sqrt(sum(d * d for d in diffs) / max(1, len(diffs)))
    mx = max((abs(d) for d in diffs), default=float("nan"))
    return rms, mx


def validate_model(args, name, variant):
    folder = os.path.join(args.corpus, "models", name)
    meta = json.load(open(os.path.join(folder, "meta.json")))
    proto = json.load(open(os.path.join(folder, "protocol.json")))
    r = {"model": name, "variant": variant, "problems": []}
    with tempfile.TemporaryDirectory(prefix="easyml-val-") as work:
        lib = os.path.join(work, "model.so")
        t0 = time.time()
        if args.prebuilt:
            # Compiled elsewhere (scripts/gpu-pack.sh), e.g. for a GPU
            # machine without LLVM.
            lib = os.path.join(args.prebuilt, name + ".so")
            rc, se = (0, "") if os.path.exists(lib) else (1, "no " + lib)
        else:
            rc, so, se = run([args.compiler,
                              os.path.join(folder, "model.model"),
                              "--model-name", name, "--variant", variant,
                              "--emit=shared", "-o", lib] +
                             shlex.split(args.compile_args))
        r["compile_s"] = round(time.time() - t0, 3)
        if rc != 0:
            r["problems"].append("compile failed: " +
                                 (se.strip().splitlines() or ["?"])[-1])
            return r
        rc, so, se = run([args.bench, "--load-module", lib, "--variant",
                          variant, "--pointwise",
                          os.path.join(folder, "reference.csv")])
        if rc == 0:
            pw = json.loads(so)
            r["pointwise_rel"] = pw["relative_error"]
            if not pw["relative_error"] <= BARS["pointwise_rel"]:
                r["problems"].append("pointwise Iion error %.3g > %g" % (
                    pw["relative_error"], BARS["pointwise_rel"]))
        else:
            r["problems"].append("pointwise run failed: " +
                                 (se.strip().splitlines() or ["?"])[-1])
        ref = read_reference(os.path.join(folder, "reference.csv"))
        spont = bool(meta.get("spontaneously_active"))
        r["spontaneous"] = spont
        stim = proto["stimulus"]
        starts = [p[0] for p in stim.get("pulses_ms", [])] or [10.0, 1010.0]
        dts = args.dt if (args.convergence_variants is None or
                          variant in args.convergence_variants) else args.dt[:1]
        for dt in dts:
            key = "dt=%g" % dt
            t0 = time.time()
            sim, err = simulate(args.bench, lib, variant, proto, dt, work, "run")
            res = {"run_s": round(time.time() - t0, 3)}
            r[key] = res
            if sim is None:
                res["error"] = err
                r["problems"].append("%s: %s" % (key, err))
                continue
            res["rms_mV"], res["max_mV"] = compare_trace(sim, ref, dt)
            if spont:
                thr = meta.get("upstroke_threshold_mV", -20.0)
                ups = upstrokes(sim[0], sim[1], thr)
                ref_ups = meta.get("upstroke_times_ms") or upstrokes(*ref, thr)
                res["upstrokes_ms"], res["ref_upstrokes_ms"] = ups, ref_ups
                # Cycle length: the period of the beats, or with a single beat
                # in 2 s the time to the first upstroke.
                cl = cycle_length(ups) or (ups[0] if ups else None)
                rcl = cycle_length(ref_ups) or (ref_ups[0] if ref_ups else None)
                res["cycle_ms"], res["ref_cycle_ms"] = cl, rcl
                if len(ups) != len(ref_ups) or cl is None or rcl is None or \
                        not abs(cl - rcl) <= BARS["cycle_rel"] * rcl:
                    if dt == args.dt[0]:
                        r["problems"].append(
                            "%s: %d beats, cycle length %s ms; reference %d "
                            "beats, %s ms" % (key, len(ups), fmt(cl), len(ref_ups),
                                               fmt(rcl)))
                continue
            beats = []
            note = meta.get("ap_metrics_note", "")
            thr = meta.get("upstroke_threshold_mV", -20.0)
            if "negative deflection" in note:
                # Metrics on -Vm (original HH sign convention).
                sim = (sim[0], array.array("d", (-x for x in sim[1])))
            window_rest = "window starting 50 ms" in note
            ups = upstrokes(sim[0], sim[1], thr)
            res["upstrokes_ms"] = ups
            for k in range(2):
                ref_f = meta.get("ap_beat%d" % (k + 1))
                if not ref_f:
                    continue
                # The beat of ours nearest the reference upstroke.
                near = [u for u in ups
                        if abs(u - ref_f["t_max_upstroke"]) < 100.0]
                f = (features(sim[0], sim[1], near[0], starts, thr, window_rest)
                     if near else None)
                beats.append({"sim": f, "ref": ref_f})
                if dt != args.dt[0]:
                    continue
                if f is None:
                    r["problems"].append("%s beat %d: no AP near %.1f ms" % (
                        key, k + 1, ref_f["t_max_upstroke"]))
                    continue
                dr = f["V_rest_at_stim_start"] - ref_f["V_rest_at_stim_start"]
                dp = f["V_peak"] - ref_f["V_peak"]
                if not abs(dr) <= BARS["v_rest_mV"]:
                    r["problems"].append("beat %d: dV_rest %.3g mV" % (k + 1, dr))
                if not abs(dp) <= BARS["v_peak_mV"]:
                    r["problems"].append("beat %d: dV_peak %.3g mV" % (k + 1, dp))
                if ref_f.get("APD90") is not None:
                    if f["APD90"] is None:
                        r["problems"].append("beat %d: no repolarisation" % (k + 1))
                    else:
                        da = f["APD90"] - ref_f["APD90"]
                        bar = max(BARS["apd90_ms"],
                                  BARS["apd90_rel"] * ref_f["APD90"])
                        if not abs(da) <= bar:
                            r["problems"].append(
                                "beat %d: dAPD90 %.3g ms (bar %.3g)" % (k + 1, da, bar))
            res["beats"] = beats
            if not spont and dt == args.dt[0] and not res["rms_mV"] <= BARS["rms_mV"]:
                r["problems"].append("%s: Vm RMS %.3g mV" % (key, res["rms_mV"]))
        if len(dts) > 1 and not spont:
            a, b = r.get("dt=%g" % args.dt[0], {}), r.get("dt=%g" % args.dt[1], {})
            if "rms_mV" in a and "rms_mV" in b and not b["rms_mV"] < a["rms_mV"]:
                r["problems"].append("RMS does not shrink with dt: %.3g -> %.3g mV"
                                     % (a["rms_mV"], b["rms_mV"]))
    return r


def fmt(x, spec=".3g"):
    if x is None:
        return "–"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return format(x, spec)


def markdown(results, args, known, elapsed):
    lines = []
    lines.append("# Validation against the reference corpus\n")
    variants = sorted({r.get("variant", "baseline") for r in results},
                      key=lambda v: VARIANT_ORDER.get(v, 99))
    models = {r["model"] for r in results}
    lines.append("Generated by `scripts/validate.py` on %s (%s, %d cores), %d "
                 "models, variants %s, %.0f s wall. Command:\n" % (
                     datetime.date.today().isoformat(), platform.machine(),
                     os.cpu_count() or 1, len(models),
                     ", ".join("`%s`" % v for v in variants), elapsed))
    if getattr(args, "note", None):
        lines.append(args.note + "\n")
    if getattr(args, "note", None):
        lines.append("```\nscripts/validate.py %s\n```\n" % " ".join(sys.argv[1:]))
    else:
        lines.append("```\nscripts/validate.py --dt %s --variants %s --json "
                     "docs/validation.json --markdown docs/validation.md\n```\n" % (
                         " ".join("%g" % d for d in args.dt), " ".join(variants)))
    lines.append("Bars (issue 3): pointwise |ΔIion| ≤ 1e-7·max|Iion_ref|; at dt = %g ms "
                 "Vm RMS ≤ 1 mV, |ΔV_rest| ≤ 0.5 mV, |ΔV_peak| ≤ 3 mV, "
                 "|ΔAPD90| ≤ max(3 ms, 1.5%%) for both beats; spontaneously active "
                 "models: cycle length within 2%%; the RMS error shrinks at "
                 "dt = %s ms.\n" % (args.dt[0], args.dt[1] if len(args.dt) > 1 else "–"))
    for variant in variants:
        lines.append("\n## Variant `%s`\n" % variant)
        table(lines, [r for r in results
                      if r.get("variant", "baseline") == variant], args, known)
    bad = [r for r in results if r["problems"]]
    if bad:
        lines.append("\n## Models that miss a bar\n")
        for r in bad:
            reason = known.get(r["model"], "not diagnosed yet")
            lines.append("- **%s** (`%s`): %s. Diagnosis: %s" % (
                r["model"], r.get("variant", "baseline"),
                "; ".join(r["problems"]), reason))
    return "\n".join(lines) + "\n"


VARIANT_ORDER = {"baseline": 0, "cpu-simd": 1, "cuda": 2, "rocm": 3}


def table(lines, results, args, known):
    dts = ["dt=%g" % d for d in args.dt]
    head = ["model", "pointwise rel"]
    for d in dts:
        head += ["RMS %s" % d, "max %s" % d]
    head += ["ΔV_rest b1/b2", "ΔV_peak b1/b2", "ΔAPD90 b1/b2", "cycle (ref)", "status"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for r in results:
        row = [r["model"], fmt(r.get("pointwise_rel"))]
        for d in dts:
            res = r.get(d, {})
            row += [fmt(res.get("rms_mV")), fmt(res.get("max_mV"))]
        res = r.get(dts[0], {})
        dr, dp, da = [], [], []
        for b in res.get("beats", []):
            s, ref = b["sim"], b["ref"]
            if not s or not ref:
                dr.append("–"); dp.append("–"); da.append("–")
                continue
            dr.append(fmt(s["V_rest_at_stim_start"] - ref["V_rest_at_stim_start"], ".2f"))
            dp.append(fmt(s["V_peak"] - ref["V_peak"], ".2f"))
            da.append(fmt(s["APD90"] - ref["APD90"], ".2f")
                      if s.get("APD90") is not None and ref.get("APD90") is not None
                      else "–")
        row += ["/".join(dr) or "–", "/".join(dp) or "–", "/".join(da) or "–"]
        if r.get("spontaneous"):
            row.append("%s (%s)" % (fmt(res.get("cycle_ms"), ".1f"),
                                    fmt(res.get("ref_cycle_ms"), ".1f")))
        else:
            row.append("–")
        if not r["problems"]:
            row.append("pass")
        elif r["model"] in known:
            row.append("known deviation")
        else:
            row.append("**FAIL**")
        lines.append("| " + " | ".join(row) + " |")


def main():
    ap = corpus_parser(__doc__)
    ap.add_argument("--dt", type=float, nargs="+", default=[0.01, 0.002])
    ap.add_argument("--variants", nargs="+", default=["baseline", "cpu-simd"],
                    help="variants to validate (each compiled and run)")
    ap.add_argument("--convergence-variants", nargs="+", metavar="VARIANT",
                    help="variants also run at the finer time steps (the "
                    "RMS-shrinks bar; default: all). The test suite checks "
                    "convergence on baseline only: cpu-simd runs the same "
                    "algebra (scripts/step-agreement.py)")
    ap.add_argument("--markdown", help="write the Markdown report here")
    ap.add_argument("--json", help="write the JSON report here")
    ap.add_argument("--from-json", help="re-render the reports from a JSON "
                    "report instead of running (with --markdown)")
    ap.add_argument("--known", default=os.path.join(os.path.dirname(__file__), "..",
                                                    "test", "Corpus",
                                                    "known-deviations.json"))
    ap.add_argument("--prebuilt", help="folder of <model>.so files compiled "
                    "with the variants asked for, instead of compiling")
    ap.add_argument("--compile-args", default="",
                    help="more easyml-compile options, e.g. "
                    "\"--cvode-rtol 1e-8 --cvode-atol 1e-11\"")
    ap.add_argument("--note", help="a line for the report's header (the "
                    "device, say)")
    ap.add_argument("--deadline", type=float, help="a Unix time: models not "
                    "started by then are reported as not run")
    ap.add_argument("--bench", dest="bench_path",
                    help="easyml-bench to run (default: BUILD/bin)")
    args = ap.parse_args()
    add_tools(args)
    if args.bench_path:
        args.bench = args.bench_path
    known = {}
    if os.path.exists(args.known):
        known = json.load(open(args.known))
    if args.from_json:
        data = json.load(open(args.from_json))
        args.dt = data["dt"]
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(markdown(data["results"], args, known,
                                 data.get("seconds", 0)))
        return 0
    models = args.models or sorted(os.listdir(os.path.join(args.corpus, "models")))
    t0 = time.time()
    results = []
    with futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        def job(m, v):
            if args.deadline and time.time() > args.deadline:
                return {"model": m, "variant": v,
                        "problems": ["not run (time budget)"]}
            return validate_model(args, m, v)
        jobs = {pool.submit(job, m, v): (m, v)
                for m in models for v in args.variants}
        for n, fut in enumerate(futures.as_completed(jobs), 1):
            m, v = jobs[fut]
            try:
                r = fut.result()
            except Exception as e:  # report, never hide
                r = {"model": m, "variant": v,
                     "problems": ["validation crashed: %r" % e]}
            results.append(r)
            d0 = r.get("dt=%g" % args.dt[0], {})
            status = "ok" if not r["problems"] else (
                "known" if m in known else "FAIL")
            print("[%3d/%d] %-50s %-8s %-5s rms %s mV  pointwise %s  %s" % (
                n, len(jobs), m, v, status, fmt(d0.get("rms_mV")),
                fmt(r.get("pointwise_rel")), "; ".join(r["problems"])[:150]),
                flush=True)
    results.sort(key=lambda r: (r["model"],
                                VARIANT_ORDER.get(r.get("variant"), 99)))
    elapsed = time.time() - t0
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(results, args, known, elapsed))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bars": BARS, "dt": args.dt, "seconds": elapsed,
                       "command": " ".join(["scripts/validate.py"] + sys.argv[1:]),
                       "results": results}, f,
                      indent=1, default=lambda x: None)
    failed = [r["model"] for r in results if r["problems"] and r["model"] not in known]
    passed = sum(1 for r in results if not r["problems"])
    print("%d passed, %d known deviations, %d failed (model x variant; %.0f s)" % (
        passed, len(results) - passed - len(failed), len(failed), elapsed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
