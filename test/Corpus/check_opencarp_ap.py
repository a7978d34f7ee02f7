#!/usr/bin/env python3
"""Checks that easyml-bench tables (<name>.txt) of the ToR-ORd openCARP files
show an action potential comparable to the corpus reference of tomek-2020:
peak above 0 mV, rest below -75 mV, APD90 within 25% of the reference's."""

import csv
import os
import sys


def apd90(t, v):
    i0 = next(i for i, x in enumerate(t) if x >= 10.0)
    rest = v[i0]
    ip = max(range(i0, len(v)), key=lambda i: v[i])
    level = v[ip] - 0.9 * (v[ip] - rest)
    for i in range(ip, len(v) - 1):
        if v[i] >= level > v[i + 1]:
            return rest, v[ip], t[i] - 10.0
    return rest, v[ip], None


corpus = sys.argv[1]
rows = list(csv.reader(open(os.path.join(corpus, "models", "tomek-2020",
                                         "reference.csv"))))
h = rows[0]
ref = [(float(r[h.index("time_ms")]), float(r[h.index("Vm")])) for r in rows[1:]
       if float(r[0]) <= 1000]
_, ref_peak, ref_apd = apd90([x for x, _ in ref], [y for _, y in ref])
status = 0
for path in sys.argv[2:]:
    t, v = [], []
    for line in open(path):
        parts = line.split()
        t.append(float(parts[0]))
        v.append(float(parts[1]))
    rest, peak, apd = apd90(t, v)
    ok = peak > 0 and rest < -75 and apd is not None and \
        abs(apd - ref_apd) <= 0.25 * ref_apd
    print("%s: %s (rest %.1f mV, peak %.1f mV, APD90 %s ms; tomek-2020 "
          "reference: peak %.1f mV, APD90 %.0f ms)" % (
              path, "AP" if ok else "NO COMPARABLE AP", rest, peak,
              "%.0f" % apd if apd else "-", ref_peak, ref_apd))
    status |= not ok
sys.exit(status)
