#!/usr/bin/env python3
"""Writes a tetrahedral box slab in openCARP's text format, fibres along x.

    scripts/make-mesh.py --size 20 7 3 --dx 0.5 -o slab [--tag 1]

The box [0, X] x [0, Y] x [0, Z] (mm) is cut into cubes of side dx (each
size a whole number of dx), and each cube into six tetrahedra around its
diagonal from (x, y, z) to (x+dx, y+dx, z+dx) (Kuhn's split, the same in
every cube, so neighbouring cubes share their faces' triangles). Every
tetrahedron is positively oriented: v0 v1 v2 counter-clockwise seen from v3.

Writes OUT.pts (vertices in micrometres, openCARP's unit; x fastest, then
y, then z), OUT.elem (Tt v0 v1 v2 v3 TAG, the cubes in the same order) and
OUT.lon (one fibre, 1 0 0, per element), and prints one line saying what
it wrote. Needs numpy (Debian: python3-numpy, for /usr/bin/python3).
"""
import argparse
import itertools
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("make-mesh.py: error: numpy is needed (Debian: python3-numpy; "
             "run the script with /usr/bin/python3)")


def cells(size, dx, axis):
    """The number of cubes along an axis: size must be a multiple of dx."""
    n = int(round(size / dx))
    if n < 1 or abs(n * dx - size) > 1e-9 * max(size, dx):
        sys.exit("make-mesh.py: error: the size along %s, %g mm, is not a "
                 "whole number of dx = %g mm" % (axis, size, dx))
    return n


def vertices(n, dx):
    """The grid's vertices in micrometres, x fastest."""
    axes = [np.arange(m + 1) * dx * 1000.0 for m in n]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    return np.column_stack([x.ravel(), y.ravel(), z.ravel()])


def kuhn_tetrahedra():
    """The six tetrahedra of the unit cube, as corner offsets, positively
    oriented: for the axis order p, 0 -> e_p0 -> e_p0 + e_p1 -> 1 1 1."""
    tets = []
    for p in itertools.permutations(range(3)):
        corners = [np.zeros(3, int)]
        for axis in p:
            corners.append(corners[-1] + np.eye(3, dtype=int)[axis])
        # An odd permutation gives a negative volume: swap the last two.
        if np.linalg.det(np.array(corners[1:]) - corners[0]) < 0:
            corners[2], corners[3] = corners[3], corners[2]
        tets.append(corners)
    return np.array(tets)  # (6, 4, 3)


def tetrahedra(n):
    """Vertex indices of the six tetrahedra of every cube, cubes x fastest."""
    nx, ny, nz = n
    k, j, i = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx),
                          indexing="ij")
    origin = np.column_stack([i.ravel(), j.ravel(), k.ravel()])  # (cubes, 3)
    corner = origin[:, None, None, :] + kuhn_tetrahedra()[None]
    index = corner[..., 0] + (nx + 1) * (corner[..., 1] +
                                         (ny + 1) * corner[..., 2])
    return index.reshape(-1, 4)


def write(out, pts, tets, tag):
    with open(out + ".pts", "w") as f:
        f.write("%d\n" % len(pts))
        np.savetxt(f, pts, fmt="%.10g")
    with open(out + ".elem", "w") as f:
        f.write("%d\n" % len(tets))
        rows = np.column_stack([tets, np.full(len(tets), tag)])
        np.savetxt(f, rows, fmt="Tt %d %d %d %d %d")
    with open(out + ".lon", "w") as f:
        f.write("1\n")
        f.write("1 0 0\n" * len(tets))


def main():
    ap = argparse.ArgumentParser(
        description="A tetrahedral box slab in openCARP's text format.")
    ap.add_argument("--size", nargs=3, type=float, default=[20.0, 7.0, 3.0],
                    metavar=("X", "Y", "Z"), help="the box in mm "
                    "(default: 20 7 3, the N-version slab)")
    ap.add_argument("--dx", type=float, required=True,
                    help="the cubes' side in mm")
    ap.add_argument("--tag", type=int, default=1,
                    help="every element's tag (default 1)")
    ap.add_argument("-o", "--output", required=True,
                    help="OUT: writes OUT.pts, OUT.elem and OUT.lon")
    args = ap.parse_args()
    if not args.dx > 0:
        sys.exit("make-mesh.py: error: --dx must be positive")
    n = [cells(s, args.dx, a) for s, a in zip(args.size, "xyz")]
    pts = vertices(n, args.dx)
    tets = tetrahedra(n)
    write(args.output, pts, tets, args.tag)
    print("%s: %g x %g x %g mm at dx %g mm: %d vertices, %d tetrahedra "
          "(.pts .elem .lon)" % (args.output, *args.size, args.dx, len(pts),
                                 len(tets)))


if __name__ == "__main__":
    main()
