#!/usr/bin/env python3
"""Checks the layer map of the runtime: every #include goes down a layer.

The runtime is a stack of folders (docs/architecture.md). A file may
include headers of its own layer and of the layers below it; never of a
layer above, never of a sibling on its own level (tissue, drugs and the
tools' shared code know nothing of each other), and never of the compiler
(LLVM, MLIR or easyml's compiler libraries). The compiler, for its part,
sees only abi/ of everything the runtime has.

    scripts/check-layers.py [ROOT]     (ROOT: the repository, default ..)

Prints one line per offending include (file:line, what it includes, and
why not) and exits 1; prints a one-line summary and exits 0 when the tree
keeps the map. A folder under runtime/ that is not in the map is an error
too: a new layer is added here, with its level, before it holds code.
"""

import os
import re
import sys

# folder -> (level, include prefix). Lower levels are below higher ones;
# folders on one level are siblings (core and mesh: what a simulation is
# made of, and heart meshes, which need only support).
LAYERS = {
    "abi": (0, "easyml/ABI/"),
    "runtime/support": (1, "easyml/Runtime/Support/"),
    "runtime/io": (2, "easyml/Runtime/IO/"),
    "runtime/core": (3, "easyml/Runtime/Core/"),
    "runtime/mesh": (3, "easyml/Runtime/Mesh/"),
    "runtime/devices": (4, "easyml/Runtime/Devices/"),
    "runtime/schedule": (5, "easyml/Runtime/Schedule/"),
    "runtime/simulation": (6, "easyml/Runtime/Simulation/"),
    "runtime/mpi": (7, "easyml/Runtime/MPI/"),
    "runtime/tissue": (8, "easyml/Runtime/Tissue/"),
    "runtime/drugs": (8, "easyml/Runtime/Drugs/"),
    "runtime/apps": (8, "easyml/Runtime/Apps/"),
    "runtime/capi": (9, "easyml-c/"),
}

# The compiler's folders: they may include abi/ and nothing else above.
COMPILER = ["lib", "include/easyml", "dialects", "tools/easyml-compile",
            "tools/easyml-opt"]

# Headers of the compiler side and of LLVM/MLIR: never in the runtime.
COMPILER_PREFIXES = ("llvm/", "llvm-c/", "mlir/", "mlir-c/", "easyml/Dialect/",
                     "easyml/Conversion/", "easyml/Pipelines/",
                     "easyml/Target/", "easyml/Driver/", "easyml/Frontend/",
                     "easyml/MLIRGen/", "easyml/Support/")

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
SOURCES = (".h", ".cpp", ".c", ".inc", ".def")


def layer_of_include(path):
    for folder, (_, prefix) in LAYERS.items():
        if path.startswith(prefix):
            return folder
    return None


def layer_of_file(root, path):
    """The layer folder a file lies in, or None."""
    rel = os.path.relpath(os.path.normpath(path), root).replace(os.sep, "/")
    for folder in LAYERS:
        if rel == folder or rel.startswith(folder + "/"):
            return folder
    return None


def target_layer(root, path, inc):
    """The layer an include reaches: by its prefix, or a relative path
    ("../simulation/Scheduler.h") by where it lands."""
    target = layer_of_include(inc)
    if target is None and "/" in inc and not inc.startswith("easyml"):
        landing = os.path.join(os.path.dirname(path), inc)
        if os.path.exists(landing):
            target = layer_of_file(root, landing)
    return target


def files_under(root, folder):
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(names):
            if name.endswith(SOURCES):
                yield os.path.join(dirpath, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def check_runtime(root, problems):
    count = 0
    for folder, (level, _) in LAYERS.items():
        for path in files_under(root, folder):
            count += 1
            rel = os.path.relpath(path, root)
            for number, inc in includes(path):
                where = "%s:%d: includes %s" % (rel, number, inc)
                if inc.startswith(COMPILER_PREFIXES):
                    problems.append(where + ": the runtime never includes the "
                                    "compiler (LLVM, MLIR or easyml's compiler "
                                    "libraries)")
                    continue
                target = target_layer(root, path, inc)
                if target is None or target == folder:
                    continue
                other = LAYERS[target][0]
                if other > level:
                    problems.append(where + ": %s (level %d) is above %s "
                                    "(level %d)" % (target, other, folder, level))
                elif other == level:
                    problems.append(where + ": %s and %s are siblings on level "
                                    "%d and know nothing of each other" %
                                    (target, folder, level))
    return count


def check_compiler(root, problems):
    count = 0
    for folder in COMPILER:
        for path in files_under(root, folder):
            count += 1
            rel = os.path.relpath(path, root)
            for number, inc in includes(path):
                target = layer_of_include(inc)
                if target is not None and target != "abi":
                    problems.append("%s:%d: includes %s: the compiler sees "
                                    "only abi/ of the runtime" %
                                    (rel, number, inc))
    return count


def check_folders(root, problems):
    runtime = os.path.join(root, "runtime")
    for name in sorted(os.listdir(runtime)):
        if os.path.isdir(os.path.join(runtime, name)) and \
                "runtime/" + name not in LAYERS:
            problems.append("runtime/%s: a folder the layer map does not "
                            "know: add it to scripts/check-layers.py with "
                            "its level" % name)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if not os.path.isdir(os.path.join(root, "runtime")):
        sys.exit("check-layers.py: error: no runtime/ folder in '%s'" % root)
    problems = []
    check_folders(root, problems)
    runtime = check_runtime(root, problems)
    compiler = check_compiler(root, problems)
    for p in problems:
        print(p)
    if problems:
        print("layers: %d include(s) against the layer map" % len(problems))
        return 1
    print("layers: %d runtime files in %d layers and %d compiler files keep "
          "the layer map" % (runtime, len(LAYERS), compiler))
    return 0


if __name__ == "__main__":
    sys.exit(main())
