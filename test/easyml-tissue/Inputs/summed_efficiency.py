"""A tissue run on emulated GPUs with modelled times against the sum of
each device's throughput alone: point-steps over the sum of each wave's
slowest device time, per report. Prints the efficiency against a bar, how
many repartitions put the devices' slabs in another order, and the
devices in the order of their slabs at the end.

    summed_efficiency.py HYBRID.json ALONE.json... [--bar B]
"""
import json
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--bar")]
bar = 0.9
for a in sys.argv[1:]:
    if a.startswith("--bar="):
        bar = float(a.split("=", 1)[1])


def load(path):
    return json.load(open(path))["runtime"]


def throughput(rt):
    waves = rt["wave_log"]
    seconds = sum(max(w["seconds"]) for w in waves)
    return sum(w["steps"] * sum(w["cells"]) for w in waves) / seconds


hybrid = load(args[0])
summed = sum(throughput(load(p)) for p in args[1:])
efficiency = throughput(hybrid) / summed
log = hybrid["repartition_log"]
reorders = sum("reordered" in r["reason"] for r in log)
last = log[-1]["to"] if log else []
order = sorted((r[0], d) for d, r in enumerate(last) if r[1] > r[0])
print(f"efficiency {efficiency:.3f} of the summed standalone throughputs")
print(f"at least {bar}:", efficiency >= bar)
print("reorders", reorders)
print("slabs in order: devices", [d for _, d in order])
