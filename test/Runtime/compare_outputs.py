#!/usr/bin/env python3
"""Compares two easyml-bench output files (--fout) column by column.

    compare_outputs.py A.txt B.txt --tol 1e-6

Fails, naming the row and column, when the files have different times or
any value differs by more than --tol (absolute).
"""
import argparse
import sys


def rows(path):
    with open(path) as f:
        return [[float(x) for x in line.split()] for line in f if line.split()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, required=True)
    args = p.parse_args()
    a, b = rows(args.a), rows(args.b)
    if len(a) != len(b) or not a:
        sys.exit(f"compare_outputs.py: {len(a)} rows in {args.a}, "
                 f"{len(b)} in {args.b}")
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if len(x) != len(y) or x[0] != y[0]:
            sys.exit(f"compare_outputs.py: row {i + 1}: {x[:1]} vs {y[:1]}")
        for c in range(1, len(x)):
            d = abs(x[c] - y[c])
            worst = max(worst, d)
            if d > args.tol:
                sys.exit(f"compare_outputs.py: row {i + 1} (t = {x[0]}), "
                         f"column {c + 1}: {x[c]} vs {y[c]} (|d| = {d:.3g} "
                         f"> {args.tol:g})")
    print(f"outputs agree: {len(a)} rows, largest difference {worst:.3g}")


if __name__ == "__main__":
    main()
