#!/usr/bin/env python3
"""Draws the figures of the tutorials (docs/tutorials) from what their
commands wrote, and checks a drawn figure against the committed one.

  tutorial-figure.py trace RUN.txt REFERENCE.csv -o fig.png
      easyml-bench's output file (t, Vm, Iion) over a reference trace
  tutorial-figure.py apd90 BIOMARKERS.csv -o fig.png [--beat N]
      histogram of a population's APD90
  tutorial-figure.py qnet STUDY.csv -o fig.png
      qNet per dose and drug of an easyml-drug table
  tutorial-figure.py activation DIR --spacing MM -o fig.png
      the activation map easyml-tissue wrote to DIR/activation.npy
  tutorial-figure.py restart A.txt B.txt -o fig.png
      a run restarted from a checkpoint (B) over an uninterrupted one (A)
  tutorial-figure.py same NEW.png COMMITTED.png [--rtol R]
      the figures' summaries (numbers written into each PNG) agree

Every figure carries a one-line summary of its data in the PNG's
"Description" text; `same` compares the numbers of two summaries, so the
test suite finds a committed figure that no longer shows what the
tutorial's commands produce. Needs numpy and matplotlib (build/venv/bin/python
after scripts/run.sh).
"""

import argparse
import csv
import re
import sys


def plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    return p


def save(fig, path, summary):
    fig.tight_layout()
    # No creation time or software version: the same data, the same text.
    fig.savefig(path, dpi=100, metadata={"Description": summary,
                                         "Software": None})
    print("wrote %s: %s" % (path, summary))


def read_columns(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and not line.startswith("#"):
                rows.append([float(x) for x in parts])
    return list(zip(*rows))


def cmd_trace(a):
    t, vm = read_columns(a.run)[:2]
    ref_t, ref_v = [], []
    with open(a.reference) as f:
        for r in csv.DictReader(f):
            ref_t.append(float(r["time_ms"]))
            ref_v.append(float(r["Vm"]))
    n = min(len(vm), len(ref_v))
    rms = (sum((vm[i] - ref_v[i]) ** 2 for i in range(n)) / n) ** 0.5
    p = plt()
    fig, ax = p.subplots(figsize=(7, 3.2))
    ax.plot(ref_t, ref_v, color="0.7", lw=4, label="reference (dt 1e-4 ms)")
    ax.plot(t, vm, color="C3", lw=1.2, label="easyml-bench (dt %g ms)" % a.dt)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("Vm (mV)")
    ax.legend(loc="upper right", frameon=False)
    ax.set_title(a.title or "Vm: easyml-bench over the reference trace")
    save(fig, a.o, "trace samples %d peak %.1f mV rest %.1f mV rms %.3f mV"
         % (n, max(vm), vm[0], rms))


def cmd_apd90(a):
    apd = []
    with open(a.biomarkers) as f:
        for r in csv.DictReader(f):
            if int(r["beat"]) == a.beat and r["apd90"] not in ("", "nan"):
                v = float(r["apd90"])
                if v == v:
                    apd.append(v)
    if not apd:
        sys.exit("tutorial-figure.py: no APD90 of beat %d in %s" % (a.beat, a.biomarkers))
    apd.sort()
    med = apd[len(apd) // 2]
    p10, p90 = apd[len(apd) // 10], apd[(9 * len(apd)) // 10]
    p = plt()
    fig, ax = p.subplots(figsize=(6, 3.4))
    ax.hist(apd, bins=50, color="C0")
    ax.axvline(med, color="k", lw=1)
    ax.set_xlabel("APD90 (ms), beat %d" % a.beat)
    ax.set_ylabel("cells")
    ax.set_title("%d cells: median %.0f ms, 10–90%% %.0f–%.0f ms"
                 % (len(apd), med, p10, p90))
    save(fig, a.o, "apd90 median %.1f ms p10 %.1f ms p90 %.1f ms"
         % (med, p10, p90))


def cmd_qnet(a):
    by_drug = {}
    control = None
    with open(a.study) as f:
        for r in csv.DictReader(f):
            q = float(r["qnet"])
            if r["drug"] == "control":
                control = q
            else:
                by_drug.setdefault(r["drug"], []).append((float(r["dose"]), q))
    p = plt()
    fig, ax = p.subplots(figsize=(6, 3.4))
    parts = []
    for i, (drug, pts) in enumerate(sorted(by_drug.items())):
        pts.sort()
        ax.plot([d for d, _ in pts], [q for _, q in pts], "o-", color="C%d" % i,
                label=drug)
        parts.append("%s %s" % (drug, " ".join("%.2f" % q for _, q in pts)))
    if control is not None:
        ax.axhline(control, color="0.5", ls="--", label="control")
    ax.set_xlabel("dose (multiples of Cmax)")
    ax.set_ylabel("qNet (C/F)")
    ax.legend(frameon=False)
    ax.set_title("qNet of the last beat per dose")
    save(fig, a.o, "qnet control %.2f %s" % (control if control is not None
                                             else float("nan"), " ".join(parts)))


def cmd_activation(a):
    import numpy as np
    lat = np.load(a.dir + "/activation.npy")
    lat2 = lat.reshape(lat.shape[-2:]) if lat.ndim > 2 else lat
    p = plt()
    fig, ax = p.subplots(figsize=(6, 3.8))
    ny, nx = lat2.shape
    ext = (0, nx * a.spacing, 0, ny * a.spacing)
    im = ax.imshow(lat2, origin="lower", extent=ext, cmap="viridis")
    ax.contour(lat2, levels=np.arange(0, np.nanmax(lat2), 2.0), colors="w",
               linewidths=0.6, origin="lower", extent=ext)
    fig.colorbar(im, ax=ax, label="activation time (ms)")
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_title("Activation map, isochrones every 2 ms")
    act = lat2[np.isfinite(lat2)]
    save(fig, a.o, "activation points %d of %d latest %.2f ms mean %.2f ms"
         % (act.size, lat2.size, act.max(), act.mean()))


def cmd_restart(a):
    ta, va = read_columns(a.a)[:2]
    tb, vb = read_columns(a.b)[:2]
    n = min(len(va), len(vb))
    diff = max(abs(va[i] - vb[i]) for i in range(n))
    p = plt()
    fig, ax = p.subplots(figsize=(7, 3.2))
    ax.plot(ta, va, color="0.7", lw=4, label="uninterrupted")
    ax.plot(tb, vb, color="C2", lw=1.2, label="killed, restarted from its checkpoint")
    if a.kill_at is not None:
        ax.axvline(a.kill_at, color="C3", ls=":", label="last checkpoint")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("Vm (mV)")
    ax.legend(loc="upper right", frameon=False)
    save(fig, a.o, "restart samples %d max difference %.3g mV" % (n, diff))


def summary(path):
    from PIL import Image
    return Image.open(path).info.get("Description", "")


def numbers(text):
    return [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def cmd_same(a):
    new, old = summary(a.new), summary(a.committed)
    words = lambda s: re.sub(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", "#", s)
    ok = bool(new) and words(new) == words(old)
    if ok:
        for x, y in zip(numbers(new), numbers(old)):
            if abs(x - y) > a.atol + a.rtol * max(abs(x), abs(y)):
                ok = False
    if not ok:
        print("tutorial-figure.py: %s is stale:\n  committed: %s\n  now:       %s\n"
              "regenerate it with the tutorial's commands and commit it"
              % (a.committed, old, new))
        return 1
    print("figure current: %s" % new)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("trace")
    s.add_argument("run")
    s.add_argument("reference")
    s.add_argument("--dt", type=float, default=0.01)
    s.add_argument("--title")
    s.add_argument("-o", required=True)
    s = sub.add_parser("apd90")
    s.add_argument("biomarkers")
    s.add_argument("--beat", type=int, default=1)
    s.add_argument("-o", required=True)
    s = sub.add_parser("qnet")
    s.add_argument("study")
    s.add_argument("-o", required=True)
    s = sub.add_parser("activation")
    s.add_argument("dir")
    s.add_argument("--spacing", type=float, required=True)
    s.add_argument("-o", required=True)
    s = sub.add_parser("restart")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--kill-at", type=float)
    s.add_argument("-o", required=True)
    s = sub.add_parser("same")
    s.add_argument("new")
    s.add_argument("committed")
    s.add_argument("--rtol", type=float, default=0.01)
    s.add_argument("--atol", type=float, default=0.05)
    a = ap.parse_args()
    return {"trace": cmd_trace, "apd90": cmd_apd90, "qnet": cmd_qnet,
            "restart": cmd_restart, "activation": cmd_activation, "same": cmd_same}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())
