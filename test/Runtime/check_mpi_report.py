#!/usr/bin/env python3
"""Checks the MPI part of an easyml-bench report (--report-json under
mpirun) and, optionally, what a test expects of it.

    check_mpi_report.py report.json --ranks N [--slowed RANK --within E]
        [--no-repartition] [--writer RANK [--writers K]]

Invariants: every epoch's cells per rank add up to the simulation's;
every repartition gives each rank a contiguous range, in rank order,
covering all cells; per-rank cell-steps add up to cells x steps.
--slowed R --within E: the first repartition comes at one of the first E
epochs, and from then on rank R holds at most half the cells of any other
rank on average, and the fewest in at least 3 of 4 epochs.
--writer W: rank W (the first of --writers K) wrote every cell's Vm
(--save-vm): samples x cells x 8 bytes, and it is not among the computing
ranks.
"""
import argparse
import json
import sys


def fail(msg):
    print("check_mpi_report.py: " + msg)
    sys.exit(1)


def check_slowed(epochs, slowed):
    """The slowed rank holds fewer cells than every other rank on average
    (at most half the smallest other mean) and in at least 3 of 4 epochs;
    single epochs may swing when the machine is loaded, since speeds are
    measured in wall time."""
    if not epochs:
        fail("no epoch after the first repartition")
    fewer = 0
    sums = [0] * len(epochs[0]["cells"])
    for e in epochs:
        mine = e["cells"][slowed]
        others = [c for i, c in enumerate(e["cells"]) if i != slowed]
        fewer += mine < min(others)
        sums = [s + c for s, c in zip(sums, e["cells"])]
    others = [s for i, s in enumerate(sums) if i != slowed]
    if sums[slowed] * 2 > min(others):
        fail(f"slowed rank {slowed} held {sums[slowed]} cell-epochs, "
             f"others {others}: expected at most half the smallest")
    if fewer * 4 < len(epochs) * 3:
        fail(f"slowed rank {slowed} held the fewest cells in only {fewer} "
             f"of {len(epochs)} epochs after the first repartition")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--slowed", type=int)
    p.add_argument("--within", type=int, default=5)
    p.add_argument("--no-repartition", action="store_true")
    p.add_argument("--writer", type=int)
    p.add_argument("--writers", type=int, default=1)
    a = p.parse_args()
    top = json.load(open(a.report))
    r = top.get("mpi")
    if r is None:
        fail("no 'mpi' section: not an MPI run")
    cells = top["cells"]
    if r["ranks"] != a.ranks or len(r["per_rank"]) != a.ranks:
        fail(f"expected {a.ranks} ranks, report has {r['ranks']}")
    for e in r["epoch_records"]:
        if sum(e["cells"]) != cells or len(e["cells"]) != a.ranks:
            fail(f"epoch at step {e['step0']}: cells {e['cells']} do not "
                 f"add up to {cells}")
    for rp in r["repartitions"]:
        at = 0
        for b, e in rp["to"]:
            if e > b:
                if b != at:
                    fail(f"repartition at step {rp['step']}: {rp['to']} is "
                         "not contiguous in rank order")
                at = e
        if at != cells:
            fail(f"repartition at step {rp['step']}: {rp['to']} does not "
                 f"cover {cells} cells")
    steps = top["steps"]
    done = sum(x["cell_steps"] for x in r["per_rank"])
    if abs(done - cells * steps) > 0.5:
        fail(f"ranks did {done:.0f} cell-steps, expected {cells * steps}")
    if a.no_repartition and r["repartitions"]:
        fail(f"{len(r['repartitions'])} repartitions, expected none")
    if a.slowed is not None:
        epochs = r["epoch_records"]
        first = next((i for i, e in enumerate(epochs) if e["repartition"]),
                     None)
        if first is None or first >= a.within:
            fail(f"first repartition at epoch {first}, expected within "
                 f"{a.within}")
        check_slowed(epochs[first + 1:], a.slowed)
    if a.writer is not None:
        w = top.get("writer")
        if w is None or w["rank"] != a.writer or \
                w.get("writers", 1) != a.writers:
            fail(f"expected {a.writers} writers from rank {a.writer}, "
                 f"report has {w}")
        if a.writer < a.ranks:
            fail(f"writer rank {a.writer} is also a computing rank")
        # Samples every 1 ms (the default --dt-out), from step 0.
        samples = len(range(0, steps, round(1.0 / top["dt"])))
        if w["bytes"] != samples * cells * 8:
            fail(f"writer wrote {w['bytes']:.0f} bytes, expected "
                 f"{samples} samples x {cells} cells x 8")
    print(f"check_mpi_report.py: {a.ranks} ranks, "
          f"{len(r['epoch_records'])} epochs, "
          f"{len(r['repartitions'])} repartitions: ok")


if __name__ == "__main__":
    main()
