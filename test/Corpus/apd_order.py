"""APD90 in easyml-bench biomarker tables (CSV).

  apd_order.py POP.csv PARAM   cells, distinct APD90, whether APD90
                               decreases as PARAM grows
  apd_order.py A.csv B.csv ... each table's APD90 (one cell), and whether
                               it is shorter or longer than A's
"""
import csv
import sys


def rows(path):
    return list(csv.DictReader(open(path)))


if len(sys.argv) == 3 and not sys.argv[2].endswith(".csv"):
    r = sorted(rows(sys.argv[1]), key=lambda x: float(x[sys.argv[2]]))
    apd = [float(x["apd90"]) for x in r]
    decreasing = all(a > b for a, b in zip(apd, apd[1:]))
    print("%d cells, %d distinct APD90, %s as %s grows" % (
        len(apd), len(set(apd)), "decreasing" if decreasing else
        "NOT decreasing", sys.argv[2]))
else:
    first = float(rows(sys.argv[1])[0]["apd90"])
    print("%s %.7f" % (sys.argv[1], first))
    for path in sys.argv[2:]:
        a = float(rows(path)[0]["apd90"])
        print("%s %.7f %s" % (path, a, "shorter" if a < first else
                              "longer" if a > first else "the same"))
