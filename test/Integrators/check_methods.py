#!/usr/bin/env python3
"""Convergence of every integration method on problems with known solutions.

For each method a model is written, compiled and run with easyml-bench at
two time steps; the error at t = T against the exact solution must match the
method's order (fe 1, rk2 2, rk4 4, sundnes 2, rosenbrock 2, markov_be 1),
Rush-Larsen must be exact for a gate with constant rates, and cvode must be
accurate to its tolerance at any step. Every check runs with each variant
(baseline and the vectorised cpu-simd). Usage: check_methods.py <build> <tmp>
"""

import array
import math
import os
import subprocess
import sys

build, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
compiler = os.path.join(build, "bin", "easyml-compile")
bench = os.path.join(build, "bin", "easyml-bench")

HEADER = """V; .external(Vm); .nodal();
Iion; .external(); .nodal();
V_init = 0.0;
Iion = 0.0;
"""

# dx/dt = -x + sin(t): x(t) = 1.5 e^{-t} + (sin t - cos t)/2, x(0) = 1.
NONLINEAR_T = HEADER + """
x_init = 1.0;
diff_x = -x + sin(t);
x; .method({m});
"""
def exact_t(t):
    return 1.5 * math.exp(-t) + (math.sin(t) - math.cos(t)) / 2


# A gate with constant rates: exact exponential relaxation.
GATE = HEADER.replace("Iion = 0.0;", "Iion = 0.0 * a;") + """
a_init = 0.0;
a_inf = 0.8;
tau_a = 0.7;
a; .method({m});
"""
def exact_gate(t):
    return 0.8 * (1 - math.exp(-t / 0.7))


# A stiff linear 2-state chain: c <-> o with rates 50 and 5 per ms.
CHAIN = HEADER + """
c_init = 1.0;
o_init = 0.0;
diff_c = 5.0 * o - 50.0 * c;
diff_o = 50.0 * c - 5.0 * o;
group {{ c; o; }} .method({m});
"""
def exact_chain(t):
    return 50.0 / 55.0 * (1 - math.exp(-55.0 * t))


VARIANT = "baseline"


def run(model_text, name, dt, T, var, options=()):
    path = os.path.join(tmp, name + ".model")
    with open(path, "w") as f:
        f.write(model_text)
    lib = os.path.join(tmp, name + ".so")
    if not os.path.exists(lib):
        subprocess.run([compiler, path, "--emit=shared", "-o", lib, "-w"] +
                       list(options), check=True)
    out = os.path.join(tmp, "%s-%s-%g" % (name, VARIANT, dt))
    subprocess.run([bench, "--load-module", lib, "--variant", VARIANT,
                    "--dt", repr(dt), "--duration",
                    repr(T), "--dt-out", repr(T), "--numstim", "0",
                    "--fout=" + out, "--validate", "--quiet", "--no-trace"],
                   check=True, cwd=tmp)
    a = array.array("d")
    with open("%s_%s.%s.bin" % (out, name, var), "rb") as f:
        a.frombytes(f.read())
    return a[-1]


def order(model, exact, name, var, T, dt):
    e1 = abs(run(model, name, dt, T, var) - exact(T))
    e2 = abs(run(model, name, dt / 2, T, var) - exact(T))
    return e1, e2, math.log2(e1 / e2) if e1 > 0 and e2 > 0 else float("inf")


failures = 0
def report(ok, text):
    global failures
    failures += not ok
    print(("ok   " if ok else "FAIL ") + "%-9s " % VARIANT + text)


def check_all():
    for m, expected in [("fe", 1), ("rk2", 2), ("rk4", 4), ("sundnes", 2),
                        ("rosenbrock", 2), ("rush_larsen", 1)]:
        e1, e2, p = order(NONLINEAR_T.format(m=m), exact_t, "t_" + m, "x", 2.0,
                          0.05)
        report(abs(p - expected) < 0.3,
               "%-11s dx/dt = -x + sin t: error %.3g -> %.3g, order %.2f (expected %d)"
               % (m, e1, e2, p, expected))

    for m in ["rush_larsen", "sundnes"]:
        err = abs(run(GATE.format(m=m), "g_" + m, 0.1, 3.0, "a") - exact_gate(3.0))
        report(err < 1e-12, "%-11s constant-rate gate: error %.3g (exact)" % (m, err))

    for m, expected in [("markov_be", 1), ("rosenbrock", 2)]:
        e1, e2, p = order(CHAIN.format(m=m), exact_chain, "c_" + m, "o", 0.2, 0.002)
        report(abs(p - expected) < 0.3,
               "%-11s stiff chain: error %.3g -> %.3g, order %.2f (expected %d)"
               % (m, e1, e2, p, expected))
    # Backward Euler keeps the stiff chain bounded where forward Euler explodes.
    val = run(CHAIN.format(m="markov_be"), "c_markov_be", 0.1, 5.0, "o")
    report(abs(val - exact_chain(5.0)) < 1e-6,
           "markov_be   stiff chain at dt = 0.1 (dt*55 = 5.5): o(5) = %.9f" % val)

    for dt in [0.1, 0.01]:
        err = abs(run(NONLINEAR_T.format(m="cvode"), "t_cvode", dt, 2.0, "x") -
                  exact_t(2.0))
        report(err < 1e-5, "cvode       dx/dt = -x + sin t at dt = %g: error %.3g" % (dt, err))
    err = abs(run(CHAIN.format(m="cvode"), "c_cvode", 0.1, 0.2, "o") - exact_chain(0.2))
    report(err < 1e-5, "cvode       stiff chain at dt = 0.1: error %.3g" % err)

    # Reusing the factorised iteration matrix for up to 20 steps (a
    # W-method) keeps cvode at its tolerance (that it reuses them is
    # python/tests: test_cvode_reuses_its_factorised_matrix).
    reuse = ["--cvode-jacobian-age=20"]
    for dt in [0.1, 0.01]:
        err = abs(run(NONLINEAR_T.format(m="cvode"), "t_cvode_reuse", dt, 5.0,
                      "x", reuse) - exact_t(5.0))
        report(err < 1e-5, "cvode       reusing its matrix, dx/dt = -x + "
               "sin t at dt = %g: error %.3g" % (dt, err))
    err = abs(run(CHAIN.format(m="cvode"), "c_cvode_reuse", 0.01, 1.0, "o",
                  reuse) - exact_chain(1.0))
    report(err < 1e-5, "cvode       reusing its matrix, stiff chain at "
           "dt = 0.01: error %.3g" % err)


for VARIANT in ["baseline", "cpu-simd"]:
    check_all()
print("%d failed" % failures)
sys.exit(1 if failures else 0)
