#!/usr/bin/env python3
"""easyml-drug against FDA's CiPA reference code (AP_simulation, R).

    scripts/cipa-compare.py --cipa DIR [--drugs dofetilide,bepridil,...]
        [--doses 1,4] [--model M.model] [--mapping MAP.json]
        [--imp-par mode=0] [--work DIR] [--ours CSV] [--json FILE]
        [--drug-args "EASYML-DRUG OPTIONS"]

DIR is a checkout of github.com/FDA/CiPA (its AP_simulation R code, the
hERG and Hill fitting results and the Cmax table; needs Debian's
r-base-core, r-cran-desolve and r-cran-optparse). The script runs FDA's
AP_simulation.R for control and each drug at the doses (1,000 beats at
2,000 ms, lsoda, optimal-fit inputs) in a copy under --work, and
easyml-drug on the same inputs, from the same initial states (FDA's,
paced at 2,000 ms; or reads its table from --ours), then
prints qNet, APD90 and CaTD90 side by side and, on its last line, the
largest relative difference in percent. FDA's metrics are of the beat with the
largest max_dv among its last 250, sampled every 1 ms; ours are of the
last beat, from the kernels.
"""
import argparse
import csv
import io
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def run_fda(args, work):
    """FDA's metrics per (drug, dose): {(drug, dose): row}."""
    ap = os.path.join(work, "AP_simulation")
    if not os.path.isdir(ap):
        shutil.copytree(os.path.join(args.cipa, "AP_simulation"), ap)
        subprocess.run(["R", "CMD", "SHLIB", "newordherg_qNet.c"],
                       cwd=os.path.join(ap, "models"), check=True,
                       capture_output=True)
    herg = os.path.join(os.path.abspath(args.cipa), "hERG_fitting", "results")
    hill = os.path.join(os.path.abspath(args.cipa), "Hill_fitting", "results")
    out = {}
    for drug in ["control"] + args.drugs:
        rds = os.path.join(ap, "results", "fixed", drug, "metrics.rds")
        if not os.path.exists(rds):
            print(f"FDA AP_simulation.R: {drug} ...", file=sys.stderr,
                  flush=True)
            cmd = ["Rscript", "AP_simulation.R", "-d", drug,
                   "-b", herg + "/", "-m", hill + "/"]
            if drug != "control":
                cmd += ["-x", ",".join(args.doses)]
            subprocess.run(cmd, cwd=ap, check=True, capture_output=True)
        text = subprocess.run(
            ["Rscript", "-e", f'write.csv(readRDS("{rds}"), stdout(), '
                              'row.names=FALSE)'],
            check=True, capture_output=True, text=True).stdout
        for row in csv.DictReader(io.StringIO(text)):
            out[(drug, float(row["dose"]))] = row
    return out


# FDA's state names (models/newordherg_states_CL2000.txt) as the Myokit
# export of the corpus names them; its compact hERG form has no Obound, and
# D is a parameter the study sets.
FDA_NAMES = {"nai": "Na_i", "nass": "Na_ss", "ki": "K_i", "kss": "K_ss",
             "cai": "Ca_i", "cass": "Ca_ss", "cansr": "Ca_nsr",
             "cajsr": "Ca_jsr", "m": "m_1", "mL": "m_2", "hL": "h_2",
             "hLp": "hp_2", "iF": "if", "iS": "is", "iFp": "ifp",
             "iSp": "isp", "xs1": "x1_1", "xs2": "x2_1", "xk1": "x",
             "CaMKt": "CaMK_trapped"}


def fnv1a(data):
    h = 1469598103934665603
    for c in data:
        h = ((h ^ c) * 1099511628211) % 2**64
    return h


def fda_initial_states(args, work, path):
    """A state file (PopulationState.h) of the study's cells, every cell
    starting from FDA's initial states: a one-beat study gives the layout,
    then FDA's values replace the states they name."""
    template = os.path.join(work, "template.state")
    subprocess.run(ours_command(args, os.path.join(work, "template.csv"),
                                beats=1, bcl=20) +
                   ["--save-states", template], check=True)
    data = open(template, "rb").read()
    magic, header, rest = data.split(b"\n", 2)
    h = json.loads(header)
    columns = h["sv"] + h["externals"] + h["params"]
    values = list(struct.unpack("<%dd" % (h["cells"] * len(columns)),
                                rest[:8 * h["cells"] * len(columns)]))
    fda = {}
    for line in open(os.path.join(args.cipa, "AP_simulation", "models",
                                  "newordherg_states_CL2000.txt")):
        name, value = line.split()
        fda["Vm" if name == "v" else FDA_NAMES.get(name, name)] = float(value)
    for k, name in enumerate(columns):
        if name in fda and name not in h["params"]:
            for c in range(h["cells"]):
                values[c * len(columns) + k] = fda[name]
    body = magic + b"\n" + header + b"\n" + struct.pack(
        "<%dd" % len(values), *values)
    open(path, "wb").write(body + b"CHECKSUM %016x\n" % fnv1a(body))


def ours_command(args, out, beats=None, bcl=2000):
    cmd = [args.easyml_drug, "--model", args.model, "--mapping",
           args.mapping, "--cipa", args.cipa, "--drugs",
           ",".join(args.drugs), "--doses", ",".join(args.doses),
           "--beats", str(beats or args.beats), "--bcl", str(bcl),
           "--out", out, "-q"]
    if args.imp_par:
        cmd += ["--imp-par", args.imp_par]
    return cmd + shlex.split(args.drug_args)


def run_ours(args, work):
    path = args.ours or os.path.join(work, "easyml-drug.csv")
    if not args.ours:
        cmd = ours_command(args, path)
        if args.fda_states:
            states = os.path.join(work, "fda-initial.state")
            fda_initial_states(args, work, states)
            cmd += ["--load-states", states]
        print("easyml-drug ...", file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True)
    return {(r["drug"], float(r["dose"])): r
            for r in csv.DictReader(open(path))}


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cipa", required=True)
    ap.add_argument("--drugs", default="dofetilide,bepridil,verapamil,"
                                       "ranolazine")
    ap.add_argument("--doses", default="1,4")
    ap.add_argument("--beats", type=int, default=1000)
    ap.add_argument("--model", default=os.path.join(
        CORPUS, "models", "ohara-cipa-v1-2017", "model.model"))
    ap.add_argument("--mapping", default=os.path.join(
        ROOT, "data", "drugs", "ohara-cipa-v1-2017.json"))
    ap.add_argument("--imp-par", default="mode=0",
                    help="shared parameters (FDA's cell type is endo)")
    ap.add_argument("--easyml-drug", default=os.path.join(
        ROOT, "build", "bin", "easyml-drug"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build",
                                                   "cipa-compare"))
    ap.add_argument("--ours", help="easyml-drug's table, already run")
    ap.add_argument("--drug-args", default="",
                    help="more easyml-drug options, e.g. \"--dt 0.5 "
                         "--compile-args --adaptive\" (each cell's own "
                         "steps)")
    ap.add_argument("--own-initial-states", dest="fda_states",
                    action="store_false",
                    help="start from the model's initial values, not from "
                         "FDA's states paced at 2,000 ms")
    ap.add_argument("--write-initial-states",
                    help="only write the state file of FDA's initial "
                         "states for the study's cells, and stop")
    ap.add_argument("--json")
    args = ap.parse_args()
    args.drugs = [d for d in args.drugs.split(",") if d]
    args.doses = [d for d in args.doses.split(",") if d]
    os.makedirs(args.work, exist_ok=True)
    if args.write_initial_states:
        fda_initial_states(args, args.work, args.write_initial_states)
        return
    fda = run_fda(args, args.work)
    ours = run_ours(args, args.work)
    rows, worst = [], 0.0
    metrics = [("qnet", "qNet", "qnet"), ("apd90", "APD90", "apd90"),
               ("catd90", "CaTD90", "catd90")]
    print(f"{'drug':<12} {'dose':>5}" + "".join(
        f" {label + ' FDA':>11} {label + ' ours':>11} {'diff':>7}"
        for _, label, _ in metrics))
    for (drug, dose), f in sorted(fda.items()):
        o = ours.get((drug, dose))
        if o is None:
            continue
        r = {"drug": drug, "dose": dose}
        line = f"{drug:<12} {dose:>5g}"
        for name, fk, ok in metrics:
            if ok not in o:  # a table from before CaTD was computed
                line += f" {'':>11} {'':>11} {'':>7}"
                continue
            a, b = float(f[fk]), float(o[ok])
            r[name] = {"fda": a, "ours": b,
                       "percent": 100 * abs(b - a) / abs(a)}
            worst = max(worst, r[name]["percent"])
            line += f" {a:>11.4g} {b:>11.4g} {r[name]['percent']:>6.2f}%"
        rows.append(r)
        print(line)
    if args.json:
        json.dump({"rows": rows, "largest_percent": worst},
                  open(args.json, "w"), indent=1)
    print(f"largest relative difference: {worst:.2f}%")


if __name__ == "__main__":
    main()
