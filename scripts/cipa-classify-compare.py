#!/usr/bin/env python3
"""easyml-drug --classify against FDA's CiPA classification code (R).

    scripts/cipa-classify-compare.py --cipa DIR --study STUDY.csv
        --ours RISK.csv [--work DIR] [--json FILE]

STUDY.csv is an easyml-drug results table (--out) and RISK.csv the
classification easyml-drug made of it (--classify-out). The script hands
the same qNet values to FDA's AP_simulation/compute_TdP_error.R (from the
checkout DIR of github.com/FDA/CiPA; needs Debian's r-base-core,
r-cran-optparse and r-cran-rms), which fits its ordinal logistic
regression per dose with R's rms::lrm and cross-validates leaving each
drug out (its tables' list columns flattened so that R 4 can write them),
and compares per dose: the intercepts and slope (relative
difference), the training error and every drug's leave-one-out error.
Prints a table and, on its last line, the largest relative difference of
the coefficients in percent (doses whose classes qNet separates left out:
their likelihood has no maximum, and both fits stop anywhere along the way)
and the number of errors that differ.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def run_fda(cipa, study, work):
    """FDA's training and LOOCV error tables for the study's qNet."""
    ap = os.path.join(work, "AP_simulation")
    shutil.copytree(os.path.join(cipa, "AP_simulation"), ap,
                    ignore=shutil.ignore_patterns("results", "figs"))
    fixed = os.path.join(ap, "results", "fixed")
    os.makedirs(fixed)
    rows = [r for r in read_csv(study)]
    table = os.path.join(work, "metrics.csv")
    with open(table, "w") as f:
        f.write("drug,dose,sample,qNet,max_dv\n")
        for r in rows:
            # FDA's script leaves out the simulations whose max_dv is NA
            # (no depolarisation); tables from before max_dv have none.
            dv = r.get("max_dv", r["dvdt_max"])
            f.write(f"{r['drug']},{r['dose']},{r['sample']},{r['qnet']},"
                    f"{'NA' if dv in ('nan', '') else dv}\n")
    subprocess.run(["Rscript", "-e",
                    f'saveRDS(read.csv("{table}"), "{fixed}/metrics.rds")'],
                   check=True, capture_output=True)
    # The script builds its coefficient columns as lists, which R >= 4
    # cannot write as CSV: its tables are flattened on the way out (the
    # script itself runs unchanged).
    flatten = ('write.csv <- function(x, ...) { x[] <- lapply(x, function(c) '
               'if (is.list(c)) unlist(c) else c); utils::write.csv(x, ...) }; '
               'source("compute_TdP_error.R")')
    p = subprocess.run(["Rscript", "-e", flatten], cwd=ap,
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("compute_TdP_error.R failed:\n" + p.stderr[-2000:])
    return (read_csv(os.path.join(fixed, "training_errors.csv")),
            read_csv(os.path.join(fixed, "LOOCV_errors.csv")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cipa", required=True)
    ap.add_argument("--study", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--work")
    ap.add_argument("--json")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="cipa-classify-")
    os.makedirs(work, exist_ok=True)
    training, loocv = run_fda(os.path.abspath(a.cipa),
                              os.path.abspath(a.study), work)
    ours = read_csv(a.ours)
    by_dose = {}
    for r in ours:
        by_dose.setdefault(float(r["dose"]), r)
    worst, differ, out = 0.0, 0, []
    print(f"{'dose':>5} {'coef':>10} {'FDA (rms::lrm)':>16} {'ours':>16} "
          f"{'diff':>9}   training error FDA / ours")
    for t in training:
        dose = float(t["dose"])
        o = by_dose[dose]
        separated = o.get("separated") == "1"
        for name in ("intercept1", "intercept2", "slope"):
            fda, mine = float(t[name]), float(o[name])
            rel = abs(mine - fda) / abs(fda)
            # Classes separated by qNet: no maximum, both fits are where
            # their iterations stopped; only the classes they give count.
            if not separated:
                worst = max(worst, rel)
            out.append({"dose": dose, "coefficient": name, "fda": fda,
                        "ours": mine, "relative_difference": rel})
            extra = (f"   {float(t['error']):.4f} / "
                     f"{float(o['training_error']):.4f}"
                     + ("  (separated: no maximum)" if separated else "")
                     if name == "slope" else "")
            print(f"{dose:5g} {name:>10} {fda:16.8g} {mine:16.8g} "
                  f"{100 * rel:8.5f}%{extra}")
        # Both tables round the mean error (1/3, 1/6) to about 7 digits.
        differ += abs(float(t["error"]) - float(o["training_error"])) > 1e-5
    ours_cv = {(float(r["dose"]), r["drug"]): r for r in ours}
    for c in loocv:
        r = ours_cv.get((float(c["dose"]), c["drug"]))
        if r is None or r["loocv_error"] in ("", "nan") or \
                abs(float(r["loocv_error"]) - float(c["error"])) > 1e-5:
            differ += 1
            print(f"leave-one-out {c['drug']} at dose {c['dose']}: FDA "
                  f"{c['error']}, ours {r['loocv_error'] if r else 'none'}")
    fda_cv = {(float(c["dose"]), c["drug"]) for c in loocv}
    for (dose, drug), r in ours_cv.items():
        if (dose, drug) not in fda_cv and r["loocv_error"] not in ("", "nan"):
            differ += 1
            print(f"leave-one-out {drug} at dose {dose:g}: FDA none, ours "
                  f"{r['loocv_error']}")
    print(f"{len(loocv)} leave-one-out fits compared")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"coefficients": out, "errors_differ": differ,
                       "largest_relative_difference": worst}, f, indent=1)
    print(f"largest coefficient difference {100 * worst:.6f}%, "
          f"{differ} errors differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
