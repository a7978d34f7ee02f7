#!/usr/bin/env python3
"""Runs the shell commands of a Markdown page as written: every ```sh
block under the numbered sections asked for, in order, in a scratch
folder where build/, examples/ and scripts/ lead to the build tree and the
sources (so the page's paths work as they do from the repository).

  scripts/doc-commands.py docs/getting-started.md --sections 4 5 6 7 8 \\
      --build build [--python /usr/bin/python3] [--work DIR] \\
      [--replace "--num 10000=--num 1000"]

--work runs the blocks in DIR (made if missing) instead of a new scratch
folder, so a test can look at what they wrote; --replace changes a
block's text before it runs (a smaller size for the test suite, said in
the test).

Prints each block's output; exits non-zero at the first block that fails,
naming it.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blocks(page, sections):
    """The ```sh blocks of the sections numbered in `sections`."""
    current, out, inside, lines = None, [], False, []
    for line in open(page):
        m = re.match(r"## (\d+)\. ", line)
        if m and not inside:
            current = int(m.group(1))
        if line.startswith("```"):
            if inside:
                if current in sections and lang == "sh":
                    out.append((current, "".join(lines)))
                inside, lines = False, []
            else:
                inside, lang = True, line[3:].strip()
            continue
        if inside:
            lines.append(line)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--sections", type=int, nargs="+", required=True)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--python", help="the python3 the page's commands get "
                    "(one with numpy and matplotlib)")
    ap.add_argument("--work", help="the folder to run in (made if missing)")
    ap.add_argument("--replace", action="append", default=[],
                    metavar="OLD=NEW", help="change OLD to NEW in every block")
    args = ap.parse_args()
    if args.work:
        work = os.path.abspath(args.work)
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="easyml-doc-")
    links = [("build", os.path.abspath(args.build))] + [
        (d, os.path.join(ROOT, d)) for d in ("examples", "scripts", "data")]
    for name, target in links:
        path = os.path.join(work, name)
        if os.path.islink(path):
            os.unlink(path)
        os.symlink(target, path)
    env = dict(os.environ)
    if args.python:
        bin_dir = os.path.join(work, ".bin")
        os.makedirs(bin_dir, exist_ok=True)
        if os.path.islink(os.path.join(bin_dir, "python3")):
            os.unlink(os.path.join(bin_dir, "python3"))
        os.symlink(args.python, os.path.join(bin_dir, "python3"))
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    # Open MPI refuses root unless told (a container's usual user).
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    found = blocks(args.page, set(args.sections))
    for old_new in args.replace:
        old, new = old_new.split("=", 1)
        if not any(old in text for _, text in found):
            print("doc-commands.py: --replace: '%s' is in no block" % old)
            return 1
        found = [(n, text.replace(old, new)) for n, text in found]
    for section, text in found:
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text],
                           cwd=work, env=env, capture_output=True, text=True)
        print("== section %d\n%s" % (section, p.stdout), end="", flush=True)
        if p.returncode:
            print("doc-commands.py: section %d failed (exit %d):\n%s\n%s" % (
                section, p.returncode, text, p.stderr[-2000:]))
            return 1
    print("%d blocks of %s ran as written" % (len(found),
                                               os.path.basename(args.page)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
