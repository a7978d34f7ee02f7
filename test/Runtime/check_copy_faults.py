#!/usr/bin/env python3
"""A GPU copy failing at each kind of place, recovered byte for byte.

Runs COMMAND ARGS... with EASYML_EMULATED_FAIL=DEVICE:copy:N for N = FIRST,
FIRST+1, ... and, for each wanted kind of failure (a regular expression
searched in the first "device lost" line the run prints), takes the first
N that fails there; the run's outputs must equal the reference's: with
--ref, PREFIX.txt, PREFIX.npy and PREFIX.csv (easyml-bench, as the
arguments name them); with --same REF OUT, every file of the folder REF
(OUT is emptied before each run: easyml-tissue). Prints "ok KIND (copy N)"
or "FAIL ..." per kind.

  check_copy_faults.py --device 0 --first 30 --last 400 --ref ref \\
      --kind "taking the host copy after the wave" --kind "downloading externals" \\
      -- easyml-bench ... --fout=out --save-vm out.npy --biomarkers out.csv
  check_copy_faults.py --device 1 --first 27 --last 260 --same ref out \\
      --kind "downloading the halo of Vm" -- easyml-tissue out.json
"""

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys


def same_outputs(args):
    """Whether the faulty run wrote the reference's bytes."""
    if args.same:
        ref, out = args.same
        return all(
            os.path.exists(os.path.join(out, f)) and
            filecmp.cmp(os.path.join(ref, f), os.path.join(out, f),
                        shallow=False)
            for f in sorted(os.listdir(ref)))
    return all(
        filecmp.cmp(f"{args.ref}.{ext}", f"{args.out}.{ext}", shallow=False)
        for ext in ("txt", "npy", "csv"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="0")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--last", type=int, default=400)
    ap.add_argument("--ref", help="the reference run's prefix")
    ap.add_argument("--out", default="out", help="the faulty run's prefix")
    ap.add_argument("--same", nargs=2, metavar=("REF", "OUT"),
                    help="the reference run's folder and the faulty run's")
    ap.add_argument("--kind", action="append", required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    if not args.ref and not args.same:
        ap.error("--ref or --same is needed")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    todo = list(args.kind)
    failures = 0
    for n in range(args.first, args.last + 1):
        if not todo:
            break
        env = dict(os.environ, EASYML_EMULATED_FAIL=f"{args.device}:copy:{n}")
        if args.same:
            shutil.rmtree(args.same[1], ignore_errors=True)
        p = subprocess.run(command, env=env, capture_output=True, text=True)
        lost = [l for l in (p.stdout + p.stderr).splitlines()
                if l.startswith("device lost")]
        kind = next((k for k in todo if lost and re.search(k, lost[0])), None)
        if kind is None:
            continue
        todo.remove(kind)
        same = p.returncode == 0 and same_outputs(args)
        failures += not same
        print(("ok   " if same else "FAIL ") + f"{kind} (copy {n})")
    for kind in todo:
        failures += 1
        print(f"FAIL {kind}: no copy in {args.first}-{args.last} failed there")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
