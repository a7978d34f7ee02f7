"""The build step of `pip install .` and `pip wheel .` (pyproject.toml).

Runs CMake and packs what `cmake --install` puts into a prefix into the
`easyml` package of the wheel:

  easyml/                the Python modules and the extension
  easyml/bin/            easyml-compile, -opt, -bench, -tissue, -drug and
                         the plotting scripts (also on PATH as console
                         scripts of the same names)
  easyml/lib/, include/  the libraries, headers and CMake package
  easyml/share/          the drug channel mappings, the documentation

Environment:

  EASYML_CMAKE_BUILD_DIR  a configured and built CMake build tree to pack
                          (its `cmake --install` step runs, nothing is
                          rebuilt); without it, setup.py configures and
                          builds build/wheel
  CMAKE_ARGS              more configure options for build/wheel, e.g.
                          "-DMLIR_DIR=/opt/llvm-19/lib/cmake/mlir"
  CMAKE_BUILD_PARALLEL_LEVEL  parallel build jobs (CMake's own variable)

The extension is built for one Python: the one that runs pip must have
the same version (`EXT_SUFFIX`) as the build tree's.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# Console script function -> file in easyml/bin (pyproject.toml lists them).
TOOLS = {
    "easyml_compile": "easyml-compile",
    "easyml_opt": "easyml-opt",
    "easyml_bench": "easyml-bench",
    "easyml_tissue": "easyml-tissue",
    "easyml_drug": "easyml-drug",
    "easyml_plot_report": "easyml-plot-report",
    "easyml_plot_tissue": "easyml-plot-tissue",
}

PATHS_PY = '''\
# Where the easyml package finds easyml-compile (written by setup.py).
import os

COMPILER_CANDIDATES = [os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "bin", "easyml-compile")]
'''

TOOLS_PY_HEAD = '''\
"""The console scripts of the easyml wheel: each runs its tool from
easyml/bin with the arguments it was given (written by setup.py)."""
import os
import sys

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _run(name: str) -> None:
    path = os.path.join(_BIN, name)
    if not os.access(path, os.X_OK):
        sys.exit("%s: not in this easyml package (it was built without it)"
                 % name)
    with open(path, "rb") as f:
        first_line = f.readline()
    if first_line.startswith(b"#!") and b"python" in first_line:
        # The plotting scripts: with this environment's Python.
        os.execv(sys.executable, [sys.executable, path] + sys.argv[1:])
    os.execv(path, [path] + sys.argv[1:])
'''


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(EasyML VERSION ([0-9.]+)", f.read())
    if not m:
        sys.exit("setup.py: no project(EasyML VERSION ...) in CMakeLists.txt")
    return m.group(1)


def run(cmd):
    print("setup.py: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True)


class BinaryDistribution(Distribution):
    """The wheel holds an extension and executables: tag it for this
    Python and platform."""

    def has_ext_modules(self):
        return True


class CMakeBuild(build_ext):
    """Configures and builds with CMake (or takes a built tree), installs
    into a staging prefix and lays the prefix out inside the package."""

    def run(self):
        build_dir = os.environ.get("EASYML_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = os.path.abspath(build_dir)
            if not os.path.isfile(os.path.join(build_dir,
                                               "cmake_install.cmake")):
                sys.exit("setup.py: EASYML_CMAKE_BUILD_DIR=%s is not a "
                         "configured CMake build tree" % build_dir)
        else:
            build_dir = os.path.join(ROOT, "build", "wheel")
            self.configure_and_build(build_dir)

        stage = os.path.abspath(os.path.join(self.build_temp, "prefix"))
        shutil.rmtree(stage, ignore_errors=True)
        run(["cmake", "--install", build_dir, "--prefix", stage])
        package = self.find_package(stage)

        out = os.path.abspath(os.path.join(self.build_lib, "easyml"))
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(stage, out, symlinks=True)
        # The package's own files at the top of easyml/, the rest of the
        # prefix (bin, lib, include, share) beside them.
        moved = os.path.join(out, os.path.relpath(package, stage))
        for name in os.listdir(moved):
            shutil.move(os.path.join(moved, name), os.path.join(out, name))
        os.removedirs(moved)  # and its parents as they become empty
        with open(os.path.join(out, "_paths.py"), "w") as f:
            f.write(PATHS_PY)
        with open(os.path.join(out, "_tools.py"), "w") as f:
            f.write(TOOLS_PY_HEAD)
            for function, tool in TOOLS.items():
                f.write("\n\ndef %s() -> None:\n    _run(%r)\n"
                        % (function, tool))

    def configure_and_build(self, build_dir):
        if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
            cmd = ["cmake", "-S", ROOT, "-B", build_dir,
                   "-DCMAKE_BUILD_TYPE=Release",
                   "-DPython3_EXECUTABLE=" + sys.executable,
                   "-DEASYML_BUILD_UNITTESTS=OFF",
                   "-DEASYML_BUILD_FUZZERS=OFF"]
            if shutil.which("ninja"):
                cmd += ["-G", "Ninja"]
            cmd += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            run(cmd)
        run(["cmake", "--build", build_dir])

    @staticmethod
    def find_package(stage):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        found = glob.glob(os.path.join(stage, "**", "easyml", "_easyml*"),
                          recursive=True)
        extensions = [p for p in found if not p.endswith(".pyi")]
        if not extensions:
            sys.exit("setup.py: the install step put no easyml Python "
                     "extension into %s (was the build configured with "
                     "pybind11 and the Python headers?)" % stage)
        for p in extensions:
            if p.endswith(suffix):
                return os.path.dirname(p)
        sys.exit("setup.py: the build's extension %s is not for this Python "
                 "(%s): configure the build with -DPython3_EXECUTABLE=%s"
                 % (os.path.basename(extensions[0]), suffix, sys.executable))


setup(
    version=version(),
    packages=[],
    py_modules=[],
    distclass=BinaryDistribution,
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join("build", "pip")}},
)
