#!/usr/bin/env python3
"""Checks the invariants of a runtime report (easyml-bench --report-json)
and, optionally, what a test expects of it.

    check_report.py report.json [--ratio A B R TOL] [--cells ID N]
        [--max-repartitions N] [--min-repartitions N] [--last-imbalance X]
        [--chosen CONFIG] [--fewer A B F] [--converged-within N]
        [--min-shared N] [--met-unaligned] [--pair-cpus bound|unbound]

Invariants: every wave's cells add up to the simulation's; every
repartition maps contiguous ranges aligned as the report says, covering
all cells, to others (the ranges it starts from can meet on any cell
where two host devices shared waves);
the devices' cell-steps add up to cells x steps.
"""
import argparse
import json
import os
import sys


def fail(msg):
    print("check_report.py: " + msg)
    sys.exit(1)


def check_ranges(ranges, cells, what, align=1):
    nonempty = sorted((b, e) for b, e in ranges if e > b)
    at = 0
    for b, e in nonempty:
        if b != at:
            fail(f"{what}: ranges {ranges} leave a gap or overlap at {at}")
        if b % align:
            fail(f"{what}: range [{b}, {e}) does not start aligned")
        at = e
    if at != cells:
        fail(f"{what}: ranges {ranges} do not cover {cells} cells")


def cpu_set(text):
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def check_pair_cpus(pair, expect):
    if pair is None:
        fail("the report has no pair_cpus")
    if expect == "unbound" or len(os.sched_getaffinity(0)) < 2:
        if pair:
            fail(f"shared waves bound to CPUs {pair}, expected unbound")
        return
    if len(pair) != 2 or not all(pair):
        fail(f"shared waves bound to {pair}, expected two CPU sets")
    lower, upper = cpu_set(pair[0]), cpu_set(pair[1])
    if lower & upper:
        fail(f"the two sides share CPUs {sorted(lower & upper)}")
    if not (lower | upper) <= os.sched_getaffinity(0):
        fail(f"CPUs {pair} outside this process's {os.sched_getaffinity(0)}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--ratio", nargs=4, metavar=("A", "B", "R", "TOL"))
    p.add_argument("--cells", nargs=2, action="append", default=[],
                   metavar=("ID", "N"))
    p.add_argument("--max-repartitions", type=int)
    p.add_argument("--min-repartitions", type=int)
    p.add_argument("--last-imbalance", type=float)
    p.add_argument("--chosen")
    p.add_argument("--fewer", nargs=3, metavar=("A", "B", "F"),
                   help="device A ends with at most 1/F of B's cells")
    p.add_argument("--converged-within", type=int, metavar="N",
                   help="a wave among the first N is below the threshold")
    p.add_argument("--min-shared", type=int, metavar="N",
                   help="at least N waves shared by two host devices, with "
                        "cells handed over between them and both holding "
                        "cells at the end")
    p.add_argument("--met-unaligned", action="store_true",
                   help="two devices met, in at least one wave, on a cell "
                        "that is not a multiple of the alignment")
    p.add_argument("--pair-cpus", choices=["bound", "unbound"],
                   help="the shared waves' two sides bound to disjoint CPUs "
                        "this process may use (expected where it may use "
                        "two or more), or left to the system")
    a = p.parse_args()
    with open(a.report) as f:
        r = json.load(f)
    r = r.get("runtime", r)
    cells = r["cells"]
    align = r["alignment"]
    ids = [d["id"] for d in r["devices"]]
    for i, w in enumerate(r["wave_log"]):
        if sum(w["cells"]) != cells:
            fail(f"wave {i} holds {sum(w['cells'])} cells, not {cells}")
        if len(w["seconds"]) != len(ids):
            fail(f"wave {i} has {len(w['seconds'])} device times")
    # Two host devices sharing waves meet on any cell: a repartition after
    # shared waves can start from unaligned ranges.
    from_align = 1 if r.get("shared_waves", 0) else align
    for k, rep in enumerate(r["repartition_log"]):
        check_ranges(rep["from"], cells, f"repartition {k} (from)",
                     from_align)
        check_ranges(rep["to"], cells, f"repartition {k} (to)", align)
    total = sum(d["cell_steps"] for d in r["devices"])
    if abs(total - cells * r["steps"]) > 0.5:
        fail(f"devices did {total} cell-steps, not {cells} x {r['steps']}")
    final = {d["id"]: d["cells"] for d in r["devices"]}
    if sum(final.values()) != cells:
        fail(f"final cells {final} do not add up to {cells}")
    if a.ratio:
        x, y, want, tol = a.ratio[0], a.ratio[1], float(a.ratio[2]), float(a.ratio[3])
        got = final[y] / max(1, final[x])
        if abs(got - want) > tol * want:
            fail(f"{y}/{x} holds {got:.3f} times the cells, expected {want}"
                 f" within {tol:.0%} (final {final})")
    for dev, n in a.cells:
        if final.get(dev) != int(n):
            fail(f"{dev} holds {final.get(dev)} cells, expected {n}")
    n = len(r["repartition_log"])
    if a.max_repartitions is not None and n > a.max_repartitions:
        fail(f"{n} repartitions, expected at most {a.max_repartitions}")
    if a.min_repartitions is not None and n < a.min_repartitions:
        fail(f"{n} repartitions, expected at least {a.min_repartitions}")
    if a.last_imbalance is not None:
        last = r["wave_log"][-1]["imbalance"]
        if last > a.last_imbalance:
            fail(f"last wave's imbalance {last:.3f} > {a.last_imbalance}")
    if a.fewer:
        x, y, f = a.fewer[0], a.fewer[1], float(a.fewer[2])
        if final[x] * f > final[y]:
            fail(f"{x} holds {final[x]} cells, {y} {final[y]}: expected "
                 f"{x} to hold at most 1/{f:g} of {y}'s")
    if a.converged_within is not None:
        waves = r["wave_log"][:a.converged_within]
        if not any(w["imbalance"] < r["lb_threshold"] for w in waves):
            fail(f"no wave among the first {a.converged_within} below the "
                 f"threshold: " + ", ".join(f"{w['imbalance']:.3f}"
                                             for w in waves))
    if a.min_shared is not None:
        if r["shared_waves"] < a.min_shared:
            fail(f"{r['shared_waves']} shared waves, expected at least "
                 f"{a.min_shared}")
        if r["cells_handed_over"] <= 0:
            fail("the shared waves handed no cells over")
        if any(d["cells"] <= 0 for d in r["devices"]):
            fail(f"a device sharing the waves ended with no cells: {final}")
    if a.met_unaligned:
        # A shared wave's entry holds where the devices met in it.
        splits = [w["cells"][0] for w in r["wave_log"]]
        if not any(s % align for s in splits):
            fail(f"every split is a multiple of {align}: {splits}")
    if a.pair_cpus is not None:
        check_pair_cpus(r.get("pair_cpus"), a.pair_cpus)
    if a.chosen is not None:
        got = r["dimensioning"]["chosen"]
        if got != a.chosen:
            fail(f"dimensioning chose '{got}', expected '{a.chosen}' "
                 f"({r['dimensioning']['reason']})")
        if len(r["dimensioning"]["windows"]) > r["dimensioning"]["max_windows"]:
            fail("dimensioning spent more windows than its bound")
    print(f"report ok: {len(r['wave_log'])} waves, {n} repartitions, "
          f"final {final}")


if __name__ == "__main__":
    main()
