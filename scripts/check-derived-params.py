#!/usr/bin/env python3
"""A changed parameter reaches everything computed from it, on every corpus
model: the check behind derived parameters (docs/parameters.md).

For every corpus model and every parameter or flag that a derived parameter
reads (GKr_b in GKr = GKr_b * 1.3), changed to 1.1 times its value (1 when it
is 0; then one up and one down where that does not move Vm, for switches
such as a cell type):

  - the change given for every cell (Simulation.set_shared, --imp-par) and
    the same change given per cell (Simulation.set_param, --param-file) give
    the same Vm trace, bit for bit, and the unchanged cell next to it keeps
    the unmodified trace;
  - that trace differs from the unmodified run, unless the parameter cannot
    affect Vm, and the report says which way: every value a kernel reads
    keeps its value ("cannot": the change is selected away in the
    definitions), or the values it moves leave Vm alone when set directly
    too ("nil": a zero factor or a branch not taken in the model, e.g. an
    IKatp scaled by 0). A change that moves values the kernels read, which
    change Vm when set directly but not through the parameter, is a
    failure: the change was lost on its way to the kernels.

Each model runs its corpus protocol's first stimulus for --duration ms on
each variant asked for; --gpu-host adds the cuda variant's kernels compiled
for the host and run on the emulated CUDA driver (test/Runtime/
EmulatedDriver), built with --per-cell-params=all.

  scripts/check-derived-params.py --corpus ../shared/corpus --build build \\
      [--variants baseline cpu-simd] [--gpu-host build/lib] [--models a b]
      [--json out.json]
"""

import concurrent.futures as futures
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

from corpus_args import add_tools, corpus_parser

FACTOR = 1.1


def candidates(value):
    """The changes tried, in order: 1.1 times (1 for 0), then one up and
    one down (integer-coded switches such as a cell type: 1.1 times 1
    selects what 1 does)."""
    return [value * FACTOR if value != 0 else 1.0, value + 1, value - 1]


class Unresolved(Exception):
    """A formula names something that is not a parameter or flag."""


FUNCTIONS = {
    "exp": math.exp, "expm1": math.expm1, "log": math.log,
    "log10": math.log10, "log2": math.log2, "log1p": math.log1p,
    "pow": math.pow, "sqrt": math.sqrt, "fabs": math.fabs, "sin": math.sin,
    "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh,
    "cosh": math.cosh, "tanh": math.tanh, "floor": math.floor,
    "ceil": math.ceil, "trunc": math.trunc, "erf": math.erf,
    "exp2": lambda x: 2.0 ** x, "fmin": min, "fmax": max,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "square": lambda x: x * x, "cube": lambda x: x * x * x,
    "heav": lambda x: 1.0 if x >= 0 else 0.0,
    "round": lambda x: math.copysign(math.floor(abs(x) + 0.5), x),
}
TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
                   r"|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|[-+*/<>!?:(),]))")


def evaluate(formula, lookup):
    """Evaluates a formula as the compiler writes it (C syntax: ternaries,
    && || !, calls) in double precision; `lookup(name)` gives a parameter's
    value. Written independently of the compiler, to check its code."""
    tokens, pos = [], 0
    while pos < len(formula):
        m = TOKEN.match(formula, pos)
        if not m or m.end() == pos:
            if formula[pos:].strip() == "":
                break
            raise Unresolved("cannot read %r" % formula[pos:])
        tokens.append(m.group(1) and ("num", float(m.group(1))) or
                      m.group(2) and ("name", m.group(2)) or
                      ("op", m.group(3)))
        pos = m.end()
    tokens.append(("end", None))
    at = [0]

    def peek():
        return tokens[at[0]]

    def take(op=None):
        t = tokens[at[0]]
        if op is not None and t != ("op", op):
            raise Unresolved("expected %r in %r" % (op, formula))
        at[0] += 1
        return t

    levels = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="),
              ("+", "-"), ("*", "/")]
    ops = {"||": lambda a, b: float(bool(a) or bool(b)),
           "&&": lambda a, b: float(bool(a) and bool(b)),
           "==": lambda a, b: float(a == b), "!=": lambda a, b: float(a != b),
           "<": lambda a, b: float(a < b), "<=": lambda a, b: float(a <= b),
           ">": lambda a, b: float(a > b), ">=": lambda a, b: float(a >= b),
           "+": lambda a, b: a + b, "-": lambda a, b: a - b,
           "*": lambda a, b: a * b,
           "/": lambda a, b: a / b if b else math.copysign(math.inf, a)}

    def ternary():
        c = binary(0)
        if peek() == ("op", "?"):
            take()
            a = ternary()
            take(":")
            b = ternary()
            return a if c else b
        return c

    def binary(level):
        if level == len(levels):
            return unary()
        x = binary(level + 1)
        while peek()[0] == "op" and peek()[1] in levels[level]:
            op = take()[1]
            x = ops[op](x, binary(level + 1))
        return x

    def unary():
        t = peek()
        if t in (("op", "-"), ("op", "+"), ("op", "!")):
            take()
            x = unary()
            return -x if t[1] == "-" else (x if t[1] == "+" else float(not x))
        return primary()

    def primary():
        t = take()
        if t[0] == "num":
            return t[1]
        if t == ("op", "("):
            x = ternary()
            take(")")
            return x
        if t[0] != "name":
            raise Unresolved("unexpected %r in %r" % (t[1], formula))
        if peek() == ("op", "("):
            take()
            args = [ternary()]
            while peek() == ("op", ","):
                take()
                args.append(ternary())
            take(")")
            if t[1] not in FUNCTIONS:
                raise Unresolved("function %s" % t[1])
            return float(FUNCTIONS[t[1]](*args))
        return lookup(t[1])

    value = ternary()
    if peek()[0] != "end":
        raise Unresolved("trailing %r in %r" % (peek()[1], formula))
    return value


def expected_values(info, changes):
    """Every parameter's value after `changes` (name: value, set by the
    user), derived ones from their formulas; None where a formula names
    something else than parameters and flags."""
    memo = {}

    def value(name):
        if name in memo:
            return memo[name]
        p = info[name]
        if name in changes:
            v = changes[name]
        elif p["derived"] and not p["set"]:
            memo[name] = None  # (a cycle would end here)
            try:
                v = evaluate(p["formula"], lambda n: need(n))
            except (Unresolved, ValueError, OverflowError):
                v = None
        else:
            v = p["value"]
        memo[name] = v
        return v

    def need(n):
        if n not in info:
            raise Unresolved(n)
        v = value(n)
        if v is None:
            raise Unresolved(n)
        return v

    return {n: value(n) for n in info}


def worker(libs, stim, duration, dt):
    """Runs in its own process: every check of one model, compiled once per
    variant (`libs`: variant -> library)."""
    import numpy as np
    import easyml

    models = {v: easyml.load(lib) for v, lib in libs.items()}

    def make(variant, cells):
        model = models[variant]
        if variant in ("cuda", "rocm"):
            return easyml.Simulation(model, cells, devices=variant + ":0",
                                     dt=dt, threads=1)
        return easyml.Simulation(model, cells, cpu_variant=variant, dt=dt,
                                 threads=1)

    def trace(sim):
        try:
            return sim.run(until=duration, stimulus=stim, record=["Vm"],
                           every=dt)["Vm"]
        except easyml.Error as e:
            return str(e)

    out = {}
    for variant in libs:
        probe = make(variant, 1)
        info = {p["name"]: p for p in probe.params()}
        bases = sorted({r for p in info.values() for r in p["reads"]})
        ref = trace(make(variant, 1))
        if isinstance(ref, str):
            out[variant] = {"error": "unmodified run: " + ref}
            continue
        read = {n for n, p in info.items() if p["read_by_kernels"]}
        results = []
        for name in bases:
            value = info[name]["value"]
            # The first change that moves Vm (or the first one).
            for new in candidates(value):
                shared = make(variant, 1)
                shared.set_shared(name, new)
                after = {p["name"]: p["value"] for p in shared.params()}
                # The runtime's derived values against the formulas.
                expect = expected_values(info, {name: new})
                wrong = [n for n, v in expect.items() if v is not None and
                         not math.isclose(v, after[n], rel_tol=1e-12,
                                          abs_tol=1e-300)]
                unverified = sum(1 for v in expect.values() if v is None)
                moved = sorted(n for n in read
                               if after[n] != info[n]["value"] or
                               (expect[n] is not None and
                                expect[n] != info[n]["value"]))
                uniform = trace(shared)
                if not moved or isinstance(uniform, str) or \
                        not np.array_equal(uniform[:, 0], ref[:, 0]):
                    break
                if new == candidates(value)[0]:
                    first = (new, moved, uniform)
            else:
                new, moved, uniform = first
            per_cell = make(variant, 2)
            per_cell.set_param(name, [value, new])
            both = trace(per_cell)
            r = {"param": name, "value": value, "changed_to": new,
                 "moved": moved, "unverified": unverified}
            if wrong:
                r["wrong"] = {n: [after[n], expect[n]] for n in wrong}
            if isinstance(uniform, str) or isinstance(both, str):
                # A change that blows the cell up must do so either way.
                r["nonfinite"] = [uniform if isinstance(uniform, str) else "",
                                  both if isinstance(both, str) else ""]
                r["same"] = isinstance(uniform, str) and isinstance(both, str)
                r["problem"] = "" if r["same"] else (
                    "non-finite in one run only: %s" % "; ".join(
                        x for x in r["nonfinite"] if x))
                results.append(r)
                continue
            r["same"] = bool(np.array_equal(uniform[:, 0], both[:, 1]))
            r["neighbour_kept"] = bool(np.array_equal(ref[:, 0], both[:, 0]))
            r["differs"] = not np.array_equal(uniform[:, 0], ref[:, 0])
            problems = []
            if wrong:
                problems.append("derived %s: %s, its formula gives %s" % (
                    wrong[0], after[wrong[0]], expect[wrong[0]]))
            if not r["same"]:
                problems.append("uniform and per-cell traces differ (max %.3g"
                                " mV)" % np.max(np.abs(uniform[:, 0] -
                                                       both[:, 1])))
            if not r["neighbour_kept"]:
                problems.append("the unchanged cell's trace moved")
            if not r["differs"] and moved:
                # The values the kernels read move, Vm does not: the same
                # values set directly must leave Vm alone too (a zero factor
                # or a branch not taken in the model), else the change is
                # lost on its way to the kernels.
                direct = make(variant, 1)
                for n in moved:
                    direct.set_shared(n, after[n])
                d = trace(direct)
                r["nil"] = not isinstance(d, str) and bool(
                    np.array_equal(d[:, 0], uniform[:, 0]))
                if not r["nil"]:
                    problems.append("moves %s, which changes Vm when set "
                                    "directly, but not through %s" %
                                    (", ".join(moved[:4]), name))
            r["problem"] = "; ".join(problems)
            results.append(r)
        out[variant] = {"params": results}
    return out


def check_model(args, name, work):
    folder = os.path.join(args.corpus, "models", name)
    proto = json.load(open(os.path.join(folder, "protocol.json")))["stimulus"]
    env = dict(os.environ)
    libs = {}
    for variant in list(args.variants) + (["cuda"] if args.gpu_host else []):
        libs[variant] = os.path.join(work, "%s.%s.so" % (name, variant))
        # As scripts/validate.py compiles it: the artifact cache serves both.
        cmd = [args.compiler, os.path.join(folder, "model.model"),
               "--model-name", name, "--variant", variant, "--emit=shared",
               "-o", libs[variant]]
        if variant == "cuda":
            cmd += ["--emulate-gpu-kernels", "--cuda-chips=sm_90",
                    "--per-cell-params=all"]
            env["LD_LIBRARY_PATH"] = args.gpu_host + ":" + env.get(
                "LD_LIBRARY_PATH", "")
            env["EASYML_EMULATED_KERNELS"] = "host"
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            return {"model": name, "problems": ["%s: compile failed: %s" % (
                variant, p.stderr.strip()[-300:])]}
    stim = {"start": 5.0, "duration": proto["duration"],
            "strength": -proto["amplitude"], "count": 1}
    env["PYTHONPATH"] = os.path.join(args.build, "python") + ":" + env.get(
        "PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                        json.dumps({"libs": libs, "stim": stim,
                                    "duration": args.duration,
                                    "dt": args.dt})],
                       capture_output=True, text=True, env=env)
    if p.returncode:
        return {"model": name, "problems": ["check crashed: " +
                                            p.stderr.strip()[-500:]]}
    r = {"model": name, "variants": json.loads(p.stdout), "problems": []}
    for variant, v in r["variants"].items():
        if "error" in v:
            r["problems"].append("%s: %s" % (variant, v["error"]))
        for x in v.get("params", []):
            if x["problem"]:
                r["problems"].append("%s %s: %s" % (variant, x["param"],
                                                     x["problem"]))
    return r


def summarize(r):
    """One line: params checked, changed Vm, shown unable to, per variant."""
    parts = []
    for variant, v in r.get("variants", {}).items():
        ps = v.get("params", [])
        moves = sum(1 for x in ps if x.get("differs"))
        inert = [x["param"] for x in ps
                 if not x.get("differs") and not x.get("moved")
                 and "nonfinite" not in x]
        nil = [x["param"] for x in ps if x.get("nil")]
        blow = sum(1 for x in ps if "nonfinite" in x)
        s = "%s %d: %d change Vm" % (variant, len(ps), moves)
        if inert:
            s += ", %d cannot (%s)" % (len(inert), ", ".join(inert[:3]) +
                                       (", ..." if len(inert) > 3 else ""))
        if nil:
            s += ", %d nil (%s)" % (len(nil), ", ".join(nil[:3]) +
                                    (", ..." if len(nil) > 3 else ""))
        if blow:
            s += ", %d non-finite both ways" % blow
        parts.append(s)
    return "; ".join(parts)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        cfg = json.loads(sys.argv[2])
        import easyml
        stim = easyml.Stimulus(**cfg["stim"])
        json.dump(worker(cfg["libs"], stim, cfg["duration"], cfg["dt"]),
                  sys.stdout)
        return 0
    ap = corpus_parser(__doc__)
    ap.add_argument("--variants", nargs="+", default=["baseline", "cpu-simd"])
    ap.add_argument("--gpu-host", help="folder of the emulated CUDA driver: "
                    "also check the cuda variant's kernels on the host")
    ap.add_argument("--duration", type=float, default=60.0,
                    help="ms simulated per run (the stimulus at 5 ms)")
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--json", help="write every result here")
    args = add_tools(ap.parse_args())
    models = args.models or sorted(os.listdir(os.path.join(args.corpus,
                                                           "models")))
    t0 = time.time()
    results = []
    with tempfile.TemporaryDirectory(prefix="easyml-derived-") as work, \
            futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = {pool.submit(check_model, args, m, work): m for m in models}
        for n, fut in enumerate(futures.as_completed(jobs), 1):
            r = fut.result()
            results.append(r)
            status = "FAIL" if r["problems"] else "ok"
            print("[%2d/%d] %-48s %-4s %s" % (
                n, len(jobs), r["model"], status,
                "; ".join(r["problems"])[:300] if r["problems"]
                else summarize(r)), flush=True)
    results.sort(key=lambda r: r["model"])
    failed = [r["model"] for r in results if r["problems"]]
    checked = sum(len(v.get("params", [])) for r in results
                  for v in r.get("variants", {}).values())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"factor": FACTOR, "duration_ms": args.duration,
                       "dt": args.dt, "results": results}, f, indent=1)
    print("%d models, %d parameter checks (model x variant x parameter), "
          "%d models failed (%.0f s)" % (len(results), checked, len(failed),
                                         time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
