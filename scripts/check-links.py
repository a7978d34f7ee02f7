#!/usr/bin/env python3
"""Checks the links of README.md and every page under docs/.

  scripts/check-links.py [--root DIR] [FILE...]

Every relative link [text](path#anchor) and image must name a file of the
repository, and its anchor a heading of that page (GitHub's rule: lower
case, punctuation dropped, spaces to hyphens, -1, -2... for repeats). No
link may lead outside the repository, and no page may send the reader to
a path outside it (`../shared/...`, absolute paths of a machine). Links
to web sites are not fetched. FILE arguments are checked as well as the
tree. Prints every broken link as path:line: and exits 1 when there is
one.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
OUTSIDE = re.compile(r"(?<![\w.])\.\./shared\b|(?<![\w/])/(work|home|root)/\w")


def pages(root):
    yield os.path.join(root, "README.md")
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "docs")):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".md"):
                yield os.path.join(dirpath, f)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[`*]", "", s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out, fence = {}, set(), False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            m = re.match(r"#{1,6}\s+(.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                out.add(s if n == 0 else "%s-%d" % (s, n))
                seen[s] = n + 1
        cache[path] = out
    return cache[path]


def check(path, root, out):
    fence = False
    for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
        where = "%s:%d" % (os.path.relpath(path, root), lineno)
        if OUTSIDE.search(line):
            out.append("%s: a path outside the repository: %s"
                       % (where, OUTSIDE.search(line).group(0)))
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    if file_part else path)
            if not (dest + os.sep).startswith(os.path.abspath(root) + os.sep) and \
                    dest != os.path.abspath(root):
                out.append("%s: link outside the repository: %s" % (where, target))
                continue
            if not os.path.exists(dest):
                out.append("%s: no such file: %s" % (where, target))
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                out.append("%s: no heading '#%s' in %s" % (
                    where, anchor, os.path.relpath(dest, root)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    out, n = [], 0
    for p in list(pages(root)) + [os.path.abspath(f) for f in args.files]:
        if os.path.exists(p):
            check(p, root, out)
            n += 1
    for line in out:
        print(line)
    if out:
        print("check-links.py: %d broken links" % len(out))
        return 1
    print("links: %d pages, every link and anchor found" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
