#!/usr/bin/env python3
"""A performance model of one EasyML simulation across MPI ranks.

Nodes of `--gpus` GPUs each run a block of the cells (one rank per node).
Per epoch of `--epoch-steps` steps a node computes, then the ranks exchange
one MPI_Allgather of a few numbers; output written asynchronously (MPI-IO,
two buffers) costs time only when writing an epoch's rows takes longer than
computing the next epoch. The model is a simulation of that schedule with
the machine's figures as parameters (defaults: docs/scaling.md).

    scaling.py [--cells N] [--weak CELLS_PER_NODE] [--nodes 1,2,...,1024]
               [--gpu-rate R] [--half-cells C] [--epoch-steps E]
               [--latency S] [--bandwidth B] [--imbalance X]
               [--output-every K] [--fs-bandwidth B] [--node-io B]
               [--json FILE] [--plot FILE]

Prints a table (nodes, cells per GPU, throughput, parallel efficiency
against the first row, and the factor that lost most since it) and, with
--json, the same as JSON.
"""
import argparse
import json
import math
import sys


def model(a, nodes):
    cells = a.weak * nodes if a.weak else a.cells
    per_node = cells / nodes
    per_gpu = per_node / a.gpus
    # A GPU needs enough cells to fill it: rate(c) = R c / (c + c_half).
    rate_gpu = a.gpu_rate * per_gpu / (per_gpu + a.half_cells)
    e = a.epoch_steps
    compute = per_node * e / (a.gpus * rate_gpu) if rate_gpu > 0 else math.inf
    # The slowest rank sets the pace: the balance leaves `imbalance`.
    compute_slowest = compute * (1 + a.imbalance)
    # One Allgather of 32 bytes per rank (recursive doubling), plus one
    # kernel launch and synchronisation per GPU and epoch.
    sync = math.ceil(math.log2(nodes)) * (a.latency + 32 * nodes / a.bandwidth) \
        if nodes > 1 else 0.0
    sync += a.launch
    # Output: Vm of every cell every `output_every` steps, 8 bytes each.
    out_bytes_node = per_node * 8 * e / a.output_every if a.output_every else 0
    io_rate = min(a.node_io, a.fs_bandwidth / nodes)
    write = out_bytes_node / io_rate if out_bytes_node else 0.0
    # Written while the next epoch computes: only the excess shows.
    exposed = max(0.0, write - compute_slowest)
    epoch = compute_slowest + sync + exposed
    ideal_rate = a.gpus * a.gpu_rate * nodes
    rate = cells * e / epoch
    eff_parts = {
        "gpu fill": rate_gpu / a.gpu_rate,
        "imbalance": 1 / (1 + a.imbalance),
        "sync": compute_slowest / (compute_slowest + sync),
        "output": (compute_slowest + sync) / epoch,
    }
    limit = min(eff_parts, key=eff_parts.get)
    return {
        "nodes": nodes, "cells": cells, "cells_per_gpu": per_gpu,
        "epoch_seconds": epoch, "compute_seconds": compute_slowest,
        "sync_seconds": sync, "output_seconds": write,
        "output_exposed_seconds": exposed,
        "cell_steps_per_second": rate,
        "efficiency": rate / ideal_rate, "limited_by": limit,
        "factors": eff_parts,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cells", type=float, default=1e7,
                   help="cells in the simulation (strong scaling)")
    p.add_argument("--weak", type=float, default=0,
                   help="cells per node instead (weak scaling)")
    p.add_argument("--nodes", default=",".join(str(2 ** k)
                                               for k in range(11)))
    p.add_argument("--gpus", type=int, default=4, help="GPUs per node")
    p.add_argument("--gpu-rate", type=float, default=7.1e8,
                   help="cell-steps/s of one full GPU")
    p.add_argument("--half-cells", type=float, default=65536,
                   help="cells per GPU at which it reaches half its rate")
    p.add_argument("--epoch-steps", type=float, default=1280,
                   help="steps between two exchanges of the ranks' times")
    p.add_argument("--latency", type=float, default=2e-6,
                   help="interconnect latency per message (s)")
    p.add_argument("--bandwidth", type=float, default=25e9,
                   help="interconnect bandwidth per node (bytes/s)")
    p.add_argument("--launch", type=float, default=50e-6,
                   help="per epoch: kernel launches, events, host work (s)")
    p.add_argument("--imbalance", type=float, default=0.05,
                   help="imbalance left by the balancing (fraction)")
    p.add_argument("--output-every", type=float, default=100,
                   help="steps between two output rows of every cell's Vm "
                        "(0: no output)")
    p.add_argument("--fs-bandwidth", type=float, default=100e9,
                   help="parallel file system bandwidth, all nodes (B/s)")
    p.add_argument("--node-io", type=float, default=5e9,
                   help="one node's file system bandwidth (B/s)")
    p.add_argument("--json")
    p.add_argument("--plot")
    a = p.parse_args()
    rows = [model(a, int(n)) for n in a.nodes.split(",")]
    # Parallel efficiency: throughput over the first row's, per node; the
    # limit is the factor that lost most since the first row.
    base = rows[0]
    for r in rows:
        r["efficiency"] = (r["cell_steps_per_second"] * base["nodes"] /
                           (r["nodes"] * base["cell_steps_per_second"]))
        loss = {k: r["factors"][k] / base["factors"][k]
                for k in r["factors"]}
        r["limited_by"] = min(loss, key=loss.get) \
            if min(loss.values()) < 0.999 else "-"
    print("%6s %12s %14s %10s %10s %10s  %s" % (
        "nodes", "cells/GPU", "cell-steps/s", "efficiency", "epoch (s)",
        "output (s)", "limited by"))
    for r in rows:
        print("%6d %12.4g %14.4g %9.1f%% %10.4g %10.4g  %s" % (
            r["nodes"], r["cells_per_gpu"], r["cell_steps_per_second"],
            100 * r["efficiency"], r["epoch_seconds"], r["output_seconds"],
            r["limited_by"]))
    below = next((r for r in rows if r["efficiency"] < 0.8), None)
    if below:
        print("efficiency below 80%% from %d nodes (%s)" %
              (below["nodes"], below["limited_by"]))
    else:
        print("efficiency stays at or above 80%")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"parameters": vars(a), "rows": rows}, f, indent=1)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        n = [r["nodes"] for r in rows]
        ax[0].loglog(n, [r["cell_steps_per_second"] for r in rows], "o-")
        ax[0].set_xlabel("nodes")
        ax[0].set_ylabel("cell-steps/s")
        ax[1].semilogx(n, [100 * r["efficiency"] for r in rows], "o-")
        ax[1].axhline(80, color="grey", ls="--")
        ax[1].set_xlabel("nodes")
        ax[1].set_ylabel("parallel efficiency (%)")
        fig.tight_layout()
        fig.savefig(a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
