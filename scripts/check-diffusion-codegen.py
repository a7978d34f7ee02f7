#!/usr/bin/env python3
"""Checks that ABI 6 left the ionic kernels' code as it was.

Compiles each corpus model with two easyml-compile builds (--emit=llvm
--no-cache, the default CPU variants) and compares the LLVM IR after
taking out of the new one exactly what ABI 6 adds: each variant's
`_diffuse` function, the variant records' two new fields (`diffuse`,
`diffuse_kernel`) and the ABI version; the compiler's version string is
masked in both. Both modules then go through `opt -passes=strip-dead-
prototypes` (which renumbers attribute groups and metadata the same way)
and must be identical (declarations compared as a set).

usage: check-diffusion-codegen.py OLD_COMPILE NEW_COMPILE CORPUS MODEL...
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

OPT = "/usr/lib/llvm-19/bin/opt"


def compile_model(compiler, corpus, name, out):
    subprocess.run([compiler, f"{corpus}/models/{name}/model.model",
                    "--model-name", name, "--emit=llvm", "--no-cache",
                    "-o", str(out)], check=True)


def mask_version(text):
    return re.sub(r'(@\.easyml\.str(\.\d+)? = .*constant )\[\d+ x i8\] '
                  r'c"easyml-compile [^"]*"',
                  r'\1[9 x i8] c"COMPILER\\00"', text)


def strip_diffusion(text):
    """The new IR without what ABI 6 adds."""
    out, skip = [], False
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"define .*@easyml_\w+_diffuse\(", line):
            skip = True
            if out and out[-1].startswith("; Function Attrs:"):
                out.pop()
            continue
        if skip:
            if line == "}":
                skip = False
            continue
        out.append(line)
    text = "\n".join(out) + "\n"
    # The variant records' new fields: a host function or a kernel name.
    text = re.sub(r", ptr @easyml_\w+_diffuse, ptr null \}", " }", text)
    text = re.sub(r", ptr null, ptr @\.easyml\.str\.\d+ \}", " }", text)
    text = text.replace(
        "{ ptr, i64, i64, ptr, ptr, ptr, i64, i64, ptr, ptr, ptr, ptr, i64, "
        "i64, ptr, ptr, ptr }",
        "{ ptr, i64, i64, ptr, ptr, ptr, i64, i64, ptr, ptr, ptr, ptr, i64, "
        "i64, ptr }")
    # The ABI version, the descriptor's first field.
    text = re.sub(r"(@easyml_model_\w+ = .*\} \{ )i64 6,", r"\1i64 5,", text)
    return text


def canonical(text, path):
    """The module as opt prints it, its declarations sorted (the first use
    of an intrinsic, which may now be in a diffusion entry, orders them)."""
    path.write_text(text)
    printed = subprocess.run([OPT, "-S", "-passes=strip-dead-prototypes",
                              str(path), "-o", "-"], check=True,
                             capture_output=True, text=True).stdout
    body, declarations = [], []
    for line in printed.splitlines():
        if line.startswith("; ModuleID"):
            continue
        if line.startswith("declare "):
            if body and body[-1].startswith("; Function Attrs:"):
                declarations.append(body.pop() + "\n" + line)
            else:
                declarations.append(line)
            continue
        body.append(line)
    return "\n".join(body + sorted(declarations)) + "\n"


def main():
    old, new, corpus, models = sys.argv[1], sys.argv[2], sys.argv[3], \
        sys.argv[4:]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for name in models:
            compile_model(old, corpus, name, t / "old.ll")
            compile_model(new, corpus, name, t / "new.ll")
            new_text = (t / "new.ll").read_text()
            diffuse = len(re.findall(r"^define .*_diffuse\(", new_text,
                                     re.M))
            a = canonical(mask_version((t / "old.ll").read_text()),
                          t / "a.ll")
            b = canonical(strip_diffusion(mask_version(new_text)),
                          t / "b.ll")
            if a == b:
                print(f"{name}: unchanged but for {diffuse} diffusion "
                      f"entries, the variant fields and the ABI version")
            else:
                failed += 1
                (t / "a.ll").write_text(a)
                (t / "b.ll").write_text(b)
                diff = subprocess.run(["diff", "-u", str(t / "a.ll"),
                                       str(t / "b.ll")],
                                      capture_output=True, text=True).stdout
                print(f"{name}: DIFFERS\n" + "\n".join(diff.splitlines()[:40]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
