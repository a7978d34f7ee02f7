#!/usr/bin/env python3
"""Checks that the user documentation speaks of the product alone.

The pages (README.md, docs/, examples/) and every tool's --help text say
what EasyML does and how to use it. Words about how the software is made
(who had which machine, work sessions, "the first version", "was X, now
Y") belong in the version history, not there. This script finds them.

  scripts/check-wording.py [--root DIR] [--tools BIN_DIR] [FILE...]

FILE arguments are checked as well as the tree (a page in progress, or a
planted sentence to show the check works). Prints every finding as
path:line: the phrase, and exits 1 when there is one.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (pattern, why). Case-insensitive, matched line by line.
PHRASES = [
    (r"\bsessions?\b", "work sessions"),
    (r"\b(lent|lending|borrowed)\b", "who was lent what"),
    (r"\b(the|our) team\b", "who develops it"),
    (r"\b(development|dev|developer'?s?) machines?\b", "the development machine"),
    (r"\bthe \d+-core machine\b", "a machine named by its role, not its CPU"),
    (r"\bavailable to (the|us|our)\b", "what the developers had"),
    (r"\bfirst version\b", "work history"),
    (r"\bsince then\b", "work history"),
    (r"\bwent from\b", "work history (\"went from X to Y\")"),
    (r"\bno longer\b", "work history (\"no longer\")"),
    (r"\bused to\b", "work history (\"used to\")"),
    (r"\bwas [^.;:,()]{1,40}, now\b", "work history (\"was X, now Y\")"),
    (r"\bbefore (this|the) change\b|\bafter the change\b", "work history"),
    (r"\bpending\b", "work not done"),
    (r"\b(TODO|FIXME|XXX)\b", "work not done"),
    (r"\bwe\b|\bour\b", "the developers speaking", "pages"),
    (r"\bissue\s*#?\d+\b|(?<![\w&/])#\d{2,}\b", "an issue number"),
    (r"\b(budget's timeout|device time left|time limit of the tool)\b",
     "the development environment's limits"),
    (r"\bwaits? for (a|the next) GPU\b", "what the developers had"),
    (r"\bwhen a GPU (is|becomes) available\b", "what the developers had"),
    (r"\b(busy elsewhere|other engineer|concurrently building)\b",
     "the development environment"),
]
# A third element "pages" keeps a phrase to the pages: --help texts carry
# LLVM's own options too, written in the first person.
COMPILED = [(re.compile(p[0], re.IGNORECASE), p[1], len(p) > 2)
            for p in PHRASES]

TEXT_SUFFIXES = (".md", ".txt", ".c", ".cpp", ".h", ".py", ".json", ".cmake",
                 ".model", ".sh", ".cff")


def tree_files(root):
    yield os.path.join(root, "README.md")
    for top in ("docs", "examples"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith(TEXT_SUFFIXES) or f == "CMakeLists.txt":
                    yield os.path.join(dirpath, f)


def check_text(name, text, out, is_help=False):
    for lineno, line in enumerate(text.splitlines(), 1):
        for rx, why, pages_only in COMPILED:
            if pages_only and is_help:
                continue
            m = rx.search(line)
            if m:
                out.append("%s:%d: '%s' (%s)" % (name, lineno, m.group(0), why))


def help_texts(bin_dir):
    for tool in ("easyml-compile", "easyml-opt", "easyml-bench",
                 "easyml-tissue", "easyml-drug"):
        path = os.path.join(bin_dir, tool)
        if not os.path.exists(path):
            continue
        p = subprocess.run([path, "--help"], capture_output=True, text=True)
        yield "%s --help" % tool, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--tools", help="folder of the built tools, whose --help "
                    "texts are checked too")
    args = ap.parse_args()
    findings, count = [], 0
    for path in list(tree_files(args.root)) + args.files:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        check_text(os.path.relpath(path, args.root) if path.startswith(args.root)
                   else path, text, findings)
        count += 1
    helps = 0
    if args.tools:
        for name, text in help_texts(args.tools):
            check_text(name, text, findings, is_help=True)
            helps += 1
    for f in findings:
        print(f)
    if findings:
        print("check-wording.py: %d phrases about how the software is made, "
              "not what it does" % len(findings))
        return 1
    print("wording: %d files and %d --help texts speak of the product alone"
          % (count, helps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
