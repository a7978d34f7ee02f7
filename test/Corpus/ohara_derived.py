"""O'Hara-Rudy 2011 (the corpus's Myokit export): GKr = f(celltype, GKr_b)
and GKr_total = GKr * sqrt(ko / 5.4) are parameters computed from others.
Sampling GKr_b per cell must change every cell's APD90, longer where GKr_b
is smaller, through the Python package.

  ohara_derived.py LIBRARY
"""
import sys

import numpy as np

import easyml

model = easyml.load(sys.argv[1])
sim = easyml.Simulation(model, 64)
gkr_b = sim.sample("GKr_b*lognormal(1,0.3)", seed=3)["GKr_b"]
sim.run(until=600, stimulus=easyml.Stimulus(start=10, duration=1,
                                            strength=40, count=1),
        biomarkers=True)
apd90 = sim.biomarkers()["apd90"]
order = np.argsort(gkr_b)
print("%d cells, %d distinct APD90, %s as GKr_b grows" % (
    len(apd90), len(set(apd90.tolist())),
    "decreasing" if np.all(np.diff(apd90[order]) < 0) else "NOT decreasing"))
