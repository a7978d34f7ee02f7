# The uniform tissue's biomarker maps against a single cell's table.
import csv
import sys

import numpy as np

folder, table = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(table)))
for beat, row in enumerate(rows):
    apd = np.load(f"{folder}/apd90_beat{beat}.npy")
    up = np.load(f"{folder}/dvdt_max_beat{beat}.npy")
    uniform = bool(np.ptp(apd) == 0 and np.ptp(up) == 0)
    # The splittings differ (stimulus in or after the ionic step): APD90
    # to 1e-3 ms.
    close = abs(apd.flat[0] - float(row["apd90"])) < 1e-3
    print(f"beat {beat}: uniform {uniform}, apd90 {apd.flat[0]:.3f} vs "
          f"{float(row['apd90']) if close else float('nan'):.3f}, "
          f"dvdt_max + 80 {up.flat[0] + 80:.2f} vs "
          f"{float(row['dvdt_max']):.2f}")
