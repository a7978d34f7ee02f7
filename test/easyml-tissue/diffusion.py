"""Diffusion checks of easyml-tissue with a passive membrane (Iion = 0).

  gaussian  a spreading Gaussian against its analytic solution: the error
            shrinks with dx (second order) and, for the explicit scheme,
            with dt (first order); Crank-Nicolson is second order in dt
  conserve  the sum of Vm over the tissue is kept by no-flux boundaries,
            with and without a mask (points outside stay NaN)
"""
import json
import os
import subprocess
import sys

import numpy as np

TISSUE, MODEL = sys.argv[2], os.path.abspath(sys.argv[3])
D = 100 * (0.17 * 0.62 / 0.79) / 140  # the default conductivity along x


def run(name, n, h, dt, duration, v0, scheme="explicit", mask=None,
        extra=None, ok=True):
    np.save(name + "-v0.npy", v0)
    cfg = {"model": MODEL, "threads": 1,
           "point_parameters": {"V0": name + "-v0.npy"},
           "grid": {"points": list(n), "spacing_mm": h},
           "conductivity": {"intracellular": [0.17, 0.17, 0.17],
                            "extracellular": [0.62, 0.62, 0.62]},
           "time": {"dt": dt, "duration": duration, "scheme": scheme},
           "outputs": {"directory": name, "activation": "",
                       "snapshots_every": duration}}
    if mask is not None:
        np.save(name + "-mask.npy", mask)
        cfg["grid"]["mask"] = name + "-mask.npy"
    cfg.update(extra or {})
    json.dump(cfg, open(name + ".json", "w"))
    p = subprocess.run([TISSUE, name + ".json", "-q"], capture_output=True,
                       text=True)
    if not ok:
        return p
    assert p.returncode == 0, p.stderr
    return np.load(f"{name}/vm_{duration:09.3f}.npy")


def gaussian(h, dt, scheme="explicit", duration=1.0):
    """Vm after `duration`, and its largest error against the analytic
    exp(-r^2 / 2 s^2) spreading as s^2 + 2 D t (or None)."""
    # Wide enough (6 widths at the end) that the walls reflect nothing.
    L = 6.0
    n = int(round(L / h)) + 1
    x = np.arange(n) * h - L / 2
    X, Y = np.meshgrid(x, x)  # (ny, nx)
    s0 = 0.25
    v0 = np.exp(-(X**2 + Y**2) / (2 * s0**2))
    v = run(f"g-{scheme}-{h}-{dt}", (n, n), h, dt, duration, v0, scheme)
    s2 = s0**2 + 2 * D * duration
    analytic = (s0**2 / s2) * np.exp(-(X**2 + Y**2) / (2 * s2))
    return v, np.abs(v - analytic).max()


def order(e1, e2, ratio=2):
    return np.log(e1 / e2) / np.log(ratio)


def main():
    what = sys.argv[1]
    if what == "gaussian-dx":
        # Crank-Nicolson with a short step: the spatial error dominates.
        e = [gaussian(h, 0.002, "crank-nicolson")[1] for h in (0.1, 0.05)]
        print(f"dx: errors {e[0]:.3e} {e[1]:.3e} order {order(*e):.2f}")
    elif what == "gaussian-dt":
        # Against the same grid with a far shorter step: the time error.
        ref, _ = gaussian(0.1, 0.0005, "crank-nicolson")
        for scheme, steps in (("explicit", (0.02, 0.01)),
                              ("crank-nicolson", (0.25, 0.125))):
            e = [np.abs(gaussian(0.1, dt, scheme)[0] - ref).max()
                 for dt in steps]
            print(f"{scheme} dt: errors {e[0]:.3e} {e[1]:.3e} "
                  f"order {order(*e):.2f}")
    elif what == "conserve":
        n = (24, 16, 6)
        rng = np.random.default_rng(3)
        v0 = rng.uniform(-80, 20, size=n[::-1])
        for scheme in ("explicit", "crank-nicolson"):
            v = run("c-" + scheme, n, 0.1, 0.05, 5.0, v0, scheme)
            print(f"{scheme}: relative change of the sum "
                  f"{abs(v.sum() - v0.sum()) / abs(v0).sum():.1e}, "
                  f"spread {v0.std():.1f} -> {v.std():.2f} mV")
        mask = np.ones(n[::-1], dtype=np.uint8)
        mask[:, 4:12, 8:16] = 0
        v = run("c-mask", n, 0.1, 0.05, 5.0, v0, mask=mask)
        inside = mask.astype(bool)
        print(f"mask: outside NaN {np.isnan(v[~inside]).all()}, "
              f"relative change of the sum "
              f"{abs(v[inside].sum() - v0[inside].sum()) / abs(v0[inside]).sum():.1e}")


main()
