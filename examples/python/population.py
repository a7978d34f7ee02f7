#!/usr/bin/env python3
"""A population of 10^4 ten Tusscher-Panfilov 2006 cells with two sampled
conductances, their APD90 as a histogram.

    PYTHONPATH=build/python python3 examples/python/population.py [out.png]

IKr and ICaL conductances are scaled per cell by lognormal factors (median
1, log-standard deviation 0.25); the cells are paced twice at 1 Hz and the
second beat's biomarkers, computed during the run, give the histogram.
"""

import os
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import easyml  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "models", "ten_tusscher_panfilov_2006.model")
CELLS = int(os.environ.get("EASYML_EXAMPLE_CELLS", "10000"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "population-apd90.png"
    model = easyml.compile(MODEL, variants="cpu-simd")
    sim = easyml.Simulation(model, cells=CELLS, devices="cpu")
    sim.sample("G_Kr*lognormal(1,0.25),G_CaL*lognormal(1,0.25)", seed=2026)
    t0 = time.time()
    sim.run(until=1500, stimulus=easyml.Stimulus(start=10, bcl=1000, count=2),
            biomarkers=True, ca_variable="Ca_i")
    wall = time.time() - t0
    b = sim.biomarkers()
    last = b[b["beat"] == b["beat"].max()]
    ok = last["flags"] == 0
    apd = last["apd90"][ok]
    print("%d cells, %.1f s: APD90 median %.1f ms (5-95%%: %.1f-%.1f), "
          "%d cells flagged" % (CELLS, wall, np.median(apd),
                                np.percentile(apd, 5), np.percentile(apd, 95),
                                int((~ok).sum())))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.hist(apd, bins=60, color="#3b6ea8")
    ax1.set_xlabel("APD90 (ms)")
    ax1.set_ylabel("cells")
    ax1.set_title("%s, %d cells, beat 2" % (model.name, CELLS))
    sc = ax2.scatter(last["G_Kr"][ok], last["G_CaL"][ok], c=apd, s=2,
                     cmap="viridis")
    ax2.set_xlabel("G_Kr (mS/uF)")
    ax2.set_ylabel("G_CaL")
    fig.colorbar(sc, ax=ax2, label="APD90 (ms)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
