#!/usr/bin/env python3
"""Runs one of our example models under a corpus model's protocol and
compares Vm on the 1 ms grid with that corpus model's CVODE reference.
Usage: compare_with_corpus.py <bench> <lib.so> <corpus model folder> <tmp>"""

import csv
import json
import math
import os
import subprocess
import sys

bench, lib, folder, tmp = sys.argv[1:5]
proto = json.load(open(os.path.join(folder, "protocol.json")))
stim = proto["stimulus"]
out = os.path.join(tmp, "cmp")
subprocess.run([bench, "--load-module", lib, "--stim-curr", repr(-stim["amplitude"]),
                "--stim-dur", repr(stim["duration"]), "--stim-start",
                repr(stim["start"]), "--bcl", repr(stim["period"]), "--numstim",
                str(stim["number_of_pulses"]), "--duration", repr(proto["t_end"]),
                "--dt-out", "1", "--fout=" + out, "--quiet", "--no-trace"],
               check=True, cwd=tmp)
ref = [float(r[1]) for r in list(csv.reader(open(os.path.join(folder,
                                                              "reference.csv"))))[1:]]
sim = [float(l.split()[1]) for l in open(out + ".txt")]
d = [a - b for a, b in zip(sim, ref)]
print("samples %d, Vm RMS %.4f mV, max %.3f mV" % (
    len(d), math.sqrt(sum(x * x for x in d) / len(d)), max(map(abs, d))))
