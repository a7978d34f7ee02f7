#!/usr/bin/env python3
"""Writes docs/python-api.md, the reference of the `easyml` Python package,
from the package itself: every name of `easyml.__all__` with its
signature and docstring, the public methods and properties of its
classes, and each constant with its value and the string literal that
follows its assignment in the source.

  scripts/python-api-doc.py --build build            # writes the page
  scripts/python-api-doc.py --build build --check    # fails if it differs

Needs the built package (build/python) and numpy.
"""

import argparse
import ast
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "python-api.md")


def sig(obj):
    try:
        s = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    if inspect.isclass(obj):  # a constructor returns the instance
        s = s.replace(return_annotation=inspect.Signature.empty)
    return str(s)


def doc(obj):
    d = inspect.getdoc(obj)
    return (d or "(no description)").strip()


def attribute_docs(module):
    """Name -> the string literal right after its assignment at the top
    level of the module's source (how constants are documented)."""
    docs = {}
    body = ast.parse(inspect.getsource(module)).body
    for node, after in zip(body, body[1:]):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign):
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(after, ast.Expr) \
                and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            docs[target.id] = inspect.cleandoc(after.value.value)
    return docs


def render(easyml):
    out = ["# Python API: the `easyml` package", "",
           "Generated from the package's docstrings by",
           "`scripts/python-api-doc.py`; the test suite checks that it is",
           "current. `import easyml` needs the package on `sys.path`",
           "(`PYTHONPATH=build/python`, `build/venv/bin/python` after",
           "`scripts/run.sh`, or the installed package). Tutorials:",
           "[getting-started.md](getting-started.md#5-from-python),",
           "[tutorials/population.md](tutorials/population.md).", "",
           "Public names (`easyml.__all__`): " +
           ", ".join("[`%s`](#%s)" % (n, n.lower()) for n in easyml.__all__) + ".",
           ""]
    constants = attribute_docs(easyml)
    for name in easyml.__all__:
        obj = getattr(easyml, name)
        out.append("## %s" % name)
        out.append("")
        if inspect.isclass(obj):
            bases = [b.__name__ for b in obj.__bases__ if b is not object]
            out.append("```python\nclass %s%s%s\n```" % (
                name, "(%s)" % ", ".join(bases) if bases else "",
                sig(obj) if not issubclass(obj, BaseException) else ""))
            out.append("")
            out.append(doc(obj))
            out.append("")
            for mname, member in sorted(vars(obj).items()):
                if mname.startswith("_"):
                    continue
                if isinstance(member, property):
                    out.append("### `%s.%s` (property)" % (name, mname))
                    out.append("")
                    out.append(doc(member))
                    out.append("")
                elif inspect.isfunction(member):
                    out.append("### `%s.%s%s`" % (name, mname, sig(member)))
                    out.append("")
                    out.append(doc(member))
                    out.append("")
        elif not callable(obj):
            out.append("```python\n%s = %r\n```" % (name, obj))
            out.append("")
            out.append(constants.get(name, "(no description)"))
            out.append("")
        else:
            out.append("```python\n%s%s\n```" % (name, sig(obj)))
            out.append("")
            out.append(doc(obj))
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-o", default=PAGE)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(a.build), "python"))
    import easyml
    text = render(easyml)
    if a.check:
        old = open(a.o).read() if os.path.exists(a.o) else ""
        if old != text:
            print("python-api-doc.py: %s is not current: run "
                  "scripts/python-api-doc.py --build BUILD" % a.o)
            return 1
        print("python API reference current: %d public names"
              % len(easyml.__all__))
        return 0
    with open(a.o, "w") as f:
        f.write(text)
    print("wrote %s: %d public names" % (a.o, len(easyml.__all__)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
