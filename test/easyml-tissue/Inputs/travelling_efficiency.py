"""Efficiency of a tissue run on emulated GPUs with modelled times
(EASYML_EMULATED_RATE, EASYML_EMULATED_EXCITED) against the ideal split
of every step: each wave's modelled work (each device's time less the
launch latency, times its rate) shared by the devices in proportion to
their rates, over the sum of the slowest device's times.

    travelling_efficiency.py REPORT.json RATES [LATENCY] [BAR]
"""
import json
import sys

report = json.load(open(sys.argv[1]))["runtime"]
rates = [float(x) for x in sys.argv[2].split(",")]
latency = float(sys.argv[3]) if len(sys.argv) > 3 else 5e-6
bar = float(sys.argv[4]) if len(sys.argv) > 4 else 0.9
ideal = actual = 0.0
for wave in report["wave_log"]:
    seconds = wave["seconds"]
    work = sum(max(0.0, s - latency) * r for s, r in zip(seconds, rates) if s > 0)
    ideal += latency + work / sum(rates)
    actual += max(seconds)
print(f"efficiency {ideal / actual:.3f} over {len(report['wave_log'])} waves, "
      f"{report['repartitions']} repartitions")
print(f"at least {bar}:", ideal / actual >= bar)
