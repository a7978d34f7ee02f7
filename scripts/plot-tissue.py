#!/usr/bin/env python3
"""Pictures of an easyml-tissue run: the activation map and the Vm
snapshots as PNG, and a movie of the snapshots when ffmpeg is installed.

    scripts/plot-tissue.py OUTPUT_DIR [--spacing 0.1] [--movie vm.mp4]

Reads OUTPUT_DIR/activation.npy and OUTPUT_DIR/vm_*.npy (easyml-tissue's
"npy" format); writes activation.png and vm_<ms>.png next to them. A 3D
field is shown as its bottom (z = 0) and top surfaces side by side; a 1D
one as a curve.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

import numpy as np

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot-tissue.py: error: matplotlib is needed "
             "(Debian: python3-matplotlib)")


def panels(field):
    """The 2D pictures of a field: itself, or a 3D field's two faces."""
    if field.ndim == 3:
        return [("z = 0", field[0]), ("top", field[-1])]
    return [("", field)]


def picture(field, path, title, label, cmap, vmin=None, vmax=None,
            spacing=1.0):
    if field.ndim == 1:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.plot(np.arange(field.size) * spacing, field)
        ax.set_xlabel("x (mm)")
        ax.set_ylabel(label)
        ax.set_title(title)
    else:
        shown = panels(field)
        fig, axes = plt.subplots(1, len(shown), figsize=(5 * len(shown), 4),
                                 squeeze=False)
        for ax, (name, f) in zip(axes[0], shown):
            ny, nx = f.shape
            im = ax.imshow(f, origin="lower", cmap=cmap, vmin=vmin,
                           vmax=vmax, extent=(0, (nx - 1) * spacing, 0,
                                              (ny - 1) * spacing))
            ax.set_xlabel("x (mm)")
            ax.set_ylabel("y (mm)")
            ax.set_title(f"{title} {name}".strip())
            fig.colorbar(im, ax=ax, label=label)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--spacing", type=float, default=0.1, help="mm")
    ap.add_argument("--movie", help="also a movie of the snapshots (ffmpeg)")
    args = ap.parse_args()
    written = []
    act = os.path.join(args.folder, "activation.npy")
    if os.path.exists(act):
        out = os.path.join(args.folder, "activation.png")
        picture(np.load(act), out, "activation time", "ms", "viridis",
                spacing=args.spacing)
        written.append(out)
    snaps = sorted(glob.glob(os.path.join(args.folder, "vm_*.npy")))
    for s in snaps:
        out = s[:-len(".npy")] + ".png"
        t = float(os.path.basename(s)[3:-4])
        picture(np.load(s), out, f"Vm at {t:g} ms", "mV", "inferno",
                vmin=-90, vmax=40, spacing=args.spacing)
        written.append(out)
    if args.movie and snaps:
        if not shutil.which("ffmpeg"):
            print("plot-tissue.py: ffmpeg is not installed: no movie",
                  file=sys.stderr)
        else:
            pattern = os.path.join(args.folder, "vm_*.png")
            subprocess.run(["ffmpeg", "-y", "-loglevel", "error",
                            "-framerate", "10", "-pattern_type", "glob",
                            "-i", pattern, "-pix_fmt", "yuv420p",
                            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                            args.movie], check=True)
            written.append(args.movie)
    if not written:
        sys.exit(f"plot-tissue.py: error: no activation.npy or vm_*.npy in "
                 f"{args.folder}")
    for w in written:
        print("wrote", w)


if __name__ == "__main__":
    main()
