"""Efficiency of a run on emulated GPUs with modelled times
(EASYML_EMULATED_RATE, EASYML_EMULATED_PHASE) against the ideal, where
every step's cells are shared by the devices in proportion to their rates
in that step's phase: ideal time / the sum over the waves of the slowest
device's time.

    phase_efficiency.py REPORT.json CELLS PERIOD HOT RATE FACTORS
"""
import json
import sys

path, cells, period = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hot, rate = float(sys.argv[4]), float(sys.argv[5])
factors = [float(x) for x in sys.argv[6].split(",")]
report = json.load(open(path))
waves = report.get("runtime", report)["wave_log"]
steps = sum(w["steps"] for w in waves)
h = int(hot * period)
hot_steps = sum(min(h, steps - p) for p in range(0, steps, period))
ideal = (cells * hot_steps / sum(rate / f for f in factors) +
         cells * (steps - hot_steps) / (rate * len(factors)))
actual = sum(max(w["seconds"]) for w in waves)
print(f"efficiency {ideal / actual:.3f}")
print("at least 0.93:", ideal / actual >= 0.93)
