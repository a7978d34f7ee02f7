"""Run under mpirun (test/Python/mpi.test): the same protocol through
easyml.Simulation(comm=MPI.COMM_WORLD) and in one process on every rank;
recorded traces and biomarkers must be the same bits, on every rank."""
import sys

import numpy as np
from mpi4py import MPI

import easyml

comm = MPI.COMM_WORLD
model = easyml.load(sys.argv[1])
cells = int(sys.argv[2])


def protocol(sim):
    sim.sample("G_Kr*uniform(0.5,1.5)", seed=3)
    out = sim.run(30.0, stimulus=easyml.Stimulus(start=1.0, bcl=10.0,
                                                  count=3),
                  record=["Vm", "Ca_i"], every=0.5, biomarkers=True,
                  ca_variable="Ca_i")
    return out, sim.biomarkers()


dist, dbio = protocol(easyml.Simulation(model, cells, threads=1, comm=comm))
one, obio = protocol(easyml.Simulation(model, cells, threads=1))
for k in one:
    if one[k].shape != dist[k].shape or not np.array_equal(one[k], dist[k]):
        print("rank %d: %s differs" % (comm.rank, k))
        sys.exit(1)
if obio.tobytes() != dbio.tobytes():
    print("rank %d: biomarkers differ" % comm.rank)
    sys.exit(1)
try:
    easyml.Simulation(model, cells, comm=comm).state("Ca_i")
    print("state() across ranks should fail")
    sys.exit(1)
except easyml.Error as e:
    if comm.rank == 0:
        print("error: %s" % e)
if comm.rank == 0:
    print("%d ranks, %d cells, %d samples, %d biomarker rows: identical" %
          (comm.size, cells, len(one["t"]), len(obio)))
