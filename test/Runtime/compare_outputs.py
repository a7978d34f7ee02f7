#!/usr/bin/env python3
"""Compares two easyml-bench output files (--fout) column by column, or
two --save-vm arrays (.npy, samples x cells) cell by cell.

    compare_outputs.py A.txt B.txt --tol 1e-6
    compare_outputs.py A.npy B.npy --tol 1e-6

Fails, naming the row and column (the sample and cell), when the files
have different times or shapes or any value differs by more than --tol
(absolute).
"""
import argparse
import array
import ast
import struct
import sys


def rows(path):
    with open(path) as f:
        return [[float(x) for x in line.split()] for line in f if line.split()]


def load_npy(path):
    """(rows, cols, values) of a 2-D little-endian float64 .npy in C order
    (what --save-vm writes), without numpy."""
    with open(path, "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            sys.exit(f"compare_outputs.py: {path}: not an .npy file")
        major = f.read(2)[0]
        size = struct.unpack("<H" if major == 1 else "<I",
                             f.read(2 if major == 1 else 4))[0]
        header = ast.literal_eval(f.read(size).decode("latin1"))
        if header["descr"] != "<f8" or header["fortran_order"] or \
                len(header["shape"]) != 2:
            sys.exit(f"compare_outputs.py: {path}: {header}, expected 2-D "
                     f"<f8 in C order")
        values = array.array("d")
        values.frombytes(f.read())
    rows, cols = header["shape"]
    if len(values) != rows * cols:
        sys.exit(f"compare_outputs.py: {path}: {len(values)} values for "
                 f"shape {header['shape']}")
    return rows, cols, values


def compare_vm(args):
    ra, ca, a = load_npy(args.a)
    rb, cb, b = load_npy(args.b)
    if (ra, ca) != (rb, cb) or not a:
        sys.exit(f"compare_outputs.py: {args.a} is {ra} x {ca}, {args.b} "
                 f"{rb} x {cb}")
    worst = 0.0
    for k, (x, y) in enumerate(zip(a, b)):
        d = abs(x - y)
        if not d <= args.tol:
            sys.exit(f"compare_outputs.py: sample {k // ca}, cell {k % ca}: "
                     f"{x} vs {y} (|d| = {d:.3g} > {args.tol:g})")
        worst = max(worst, d)
    print(f"Vm agrees: {ra} samples of {ca} cells, largest difference "
          f"{worst:.3g}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, required=True)
    args = p.parse_args()
    if args.a.endswith(".npy") and args.b.endswith(".npy"):
        return compare_vm(args)
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
