"""Reads and compares structured .npy tables (float64 fields) without numpy.

  npy_table.py same A.npy B.npy [--rows-of-b CELL] [--cell-of-a CELL]
      the rows of cell CELL of A equal (bit for bit) the rows of cell 0 of
      B, field by field, for every field B has
  npy_table.py show A.npy FIELD...
      prints the fields, one row per line
  npy_table.py write OUT.npy NAME=v1,v2,... ...
      writes a structured .npy of float64 fields
  npy_table.py permuted A.npy B.npy
      the rows of A and B, field "cell" left out, are the same rows (bit
      for bit) in another order of cells
"""

import struct
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path + ": not a .npy file"
    if data[6] == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = data[start:start + hlen].decode("latin1")
    d = eval(header)  # the header is a Python literal
    names = [n for n, t in d["descr"]]
    assert all(t == "<f8" for n, t in d["descr"]), header
    rows = d["shape"][0]
    body = data[start + hlen:]
    k = len(names)
    values = struct.unpack("<%dd" % (rows * k), body[:rows * k * 8])
    return names, [dict(zip(names, values[r * k:(r + 1) * k]))
                   for r in range(rows)]


def bits(x):
    return struct.pack("<d", x)


def write(path, items):
    names, cols = [], []
    for item in items:
        name, values = item.split("=")
        names.append(name)
        cols.append([float(v) for v in values.split(",")])
    header = "{'descr': [%s], 'fortran_order': False, 'shape': (%d,), }" % (
        ", ".join("('%s', '<f8')" % n for n in names), len(cols[0]))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        for r in range(len(cols[0])):
            f.write(struct.pack("<%dd" % len(cols), *[c[r] for c in cols]))


def main():
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3:])
        return 0
    if sys.argv[1] == "show":
        names, rows = load(sys.argv[2])
        for r in rows:
            print(" ".join("%s=%.6g" % (f, r[f]) for f in sys.argv[3:]))
        return 0
    if sys.argv[1] == "permuted":
        names, a = load(sys.argv[2])
        _, b = load(sys.argv[3])
        key = [f for f in names if f != "cell"]
        rows_a = sorted(tuple(bits(r[f]) for f in key) for r in a)
        rows_b = sorted(tuple(bits(r[f]) for f in key) for r in b)
        if rows_a != rows_b:
            print("the tables hold different rows")
            return 1
        same_order = all(bits(x[f]) == bits(y[f])
                         for x, y in zip(a, b) for f in key)
        print("%d rows equal bit for bit, %s" % (
            len(rows_a), "in the same order" if same_order
            else "in another order of cells"))
        return 0
    _, a = load(sys.argv[2])
    names_b, b = load(sys.argv[3])
    cell = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    ra = [r for r in a if r["cell"] == cell]
    rb = [r for r in b if r["cell"] == 0]
    if len(ra) != len(rb):
        print("%d rows for cell %d, %d in the other table" % (len(ra), cell,
                                                            len(rb)))
        return 1
    for x, y in zip(ra, rb):
        for f in names_b:
            if f == "cell":
                continue
            if bits(x[f]) != bits(y[f]):
                print("beat %g, %s: %r != %r" % (x["beat"], f, x[f], y[f]))
                return 1
    print("cell %d: %d rows equal bit for bit" % (cell, len(ra)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
