# -*- Python -*-
# lit configuration for the EasyML regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EASYML"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".model", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "check_corpus.py", "known-deviations.json",
                   "check_opencarp_ap.py", "check_methods.py", "compare_with_corpus.py",
                   "check_report.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.easyml_obj_root, "test")

# easyml-compile's artifact cache: one per build tree, not the user's.
config.environment["EASYML_CACHE_DIR"] = os.path.join(
    config.easyml_obj_root, "test", "easyml-cache")

config.environment["FILECHECK_OPTS"] = (
    "--enable-var-scope --allow-unused-prefixes=false")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("easyml-compile", unresolved="fatal"),
    ToolSubst("easyml-opt", unresolved="fatal"),
    ToolSubst("easyml-bench", unresolved="fatal"),
    ToolSubst("easyml-tissue", unresolved="fatal"),
    ToolSubst("easyml-drug", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.easyml_tools_dir])

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%easyml_src", config.easyml_src_root))
config.substitutions.append(("%easyml_obj_root", config.easyml_obj_root))
# The C headers of a program against the runtime: the ABI and the C API.
config.substitutions.append(("%easyml_c_includes", "-I%s -I%s" % (
    os.path.join(config.easyml_src_root, "abi", "include"),
    os.path.join(config.easyml_src_root, "runtime", "capi", "include"))))
config.substitutions.append(
    ("%examples", os.path.join(config.easyml_src_root, "examples", "models")))
config.substitutions.append(("%unittests", config.easyml_unittests_dir))

# The reference corpus (../shared/corpus) is test data read in place.
corpus = os.environ.get("EASYML_CORPUS", config.easyml_corpus_dir)
if os.path.isdir(os.path.join(corpus, "models")):
    config.available_features.add("corpus")
    config.substitutions.append(("%corpus", corpus))
if os.path.isdir(config.easyml_unittests_dir):
    config.available_features.add("unittests")

# A C compiler and the runtime library, for tests that link models
# statically into a program.
import shutil
host_cc = shutil.which("clang-19") or shutil.which("clang") or shutil.which("cc")
runtime_lib = os.path.join(config.easyml_obj_root, "lib", "libEasyMLRuntime.a")
if host_cc and os.path.exists(runtime_lib):
    config.available_features.add("host-cc")
    config.substitutions.append(("%host_cc", host_cc))
    config.substitutions.append(("%easyml_runtime_lib", runtime_lib))

# CMake and Ninja, for the install and consumer-project test.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake-ninja")

# glibc's vector math library, which the cpu-simd variant calls on x86-64.
import ctypes.util
import platform
if platform.machine() in ("x86_64", "AMD64") and ctypes.util.find_library("mvec"):
    config.available_features.add("libmvec")

# GPU toolkits for the cuda and rocm variants (compilation only: no GPU is
# needed). Found where easyml-compile looks for them.
cuda = next((p for p in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"),
                         "/usr/local/cuda")
             if p and os.path.exists(os.path.join(p, "bin", "ptxas"))), None)
if cuda:
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%ptxas", os.path.join(cuda, "bin", "ptxas")))
rocm_bitcode = [os.path.join(p, "amdgcn", "bitcode", "ocml.bc")
                for p in (os.environ.get("ROCM_PATH"), "/opt/rocm",
                          "/usr/lib/x86_64-linux-gnu") if p]
if any(os.path.exists(b) for b in rocm_bitcode) and \
        (shutil.which("ld.lld-19") or shutil.which("ld.lld")):
    config.available_features.add("rocm-device-libs")
if cuda and os.path.exists(os.path.join(cuda, "lib64", "stubs", "libcuda.so")):
    config.substitutions.append(("%cuda_stubs", os.path.join(cuda, "lib64", "stubs")))
    config.available_features.add("cuda-stub")

# The emulated CUDA driver and HIP runtime (test/Runtime/EmulatedDriver):
# the runtime's GPU paths over host memory, for machines without a GPU.
emulated_cuda = os.path.join(config.easyml_obj_root, "test", "emulated-cuda")
if os.path.exists(os.path.join(emulated_cuda, "libcuda.so.1")):
    config.available_features.add("emulated-cuda")
    config.substitutions.append(("%emulated_cuda", emulated_cuda))
emulated_hip = os.path.join(config.easyml_obj_root, "test", "emulated-hip")
if os.path.exists(os.path.join(emulated_hip, "libamdhip64.so")):
    config.available_features.add("emulated-hip")
    config.substitutions.append(("%emulated_hip", emulated_hip))

# The diffusion operator's checker (test/Runtime/DiffusionCheck).
config.substitutions.append(
    ("%diffusion_check",
     os.path.join(config.easyml_obj_root, "test", "tools",
                  "easyml-diffusion-check")))
# The mesh readers' summary (test/Mesh/MeshSummary).
config.substitutions.append(
    ("%mesh_summary",
     os.path.join(config.easyml_obj_root, "test", "tools",
                  "easyml-mesh-summary")))

# GPU drivers the dynamic loader finds on this machine (execution tests
# need them).
def loadable(name):
    try:
        ctypes.CDLL(name)
        return True
    except OSError:
        return False
if loadable("libcuda.so.1"):
    config.available_features.add("cuda-driver")
if loadable("libamdhip64.so") or loadable("libamdhip64.so.6"):
    config.available_features.add("hip-runtime")

# MPI (Debian: libopenmpi-dev, openmpi-bin): easyml-bench built with the
# distributed runtime and an mpirun to start it. Without them the MPI tests
# are reported as unsupported, and the reason is said here.
mpi_lib = os.path.join(config.easyml_obj_root, "lib", "libEasyMLRuntimeMPI.a")
mpirun = shutil.which("mpirun")
if mpirun and os.path.exists(mpi_lib):
    config.available_features.add("mpi")
    # Loopback only, more ranks than cores; root needs Open MPI's consent.
    # Waiting ranks yield the core instead of polling.
    args = [mpirun, "--oversubscribe", "--mca", "btl", "self,vader,tcp",
            "--mca", "btl_tcp_if_include", "lo",
            "--mca", "mpi_yield_when_idle", "1"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-run-as-root")
    config.substitutions.append(("%mpirun", " ".join(args)))
    # C programs against the MPI C API: the MPI runtime library and mpicc's
    # flags around the host compiler.
    config.substitutions.append(("%easyml_runtime_mpi_lib", mpi_lib))
    if shutil.which("mpicc"):
        config.available_features.add("mpicc")
else:
    lit_config.note("MPI tests skipped: %s" % (
        "no mpirun (install openmpi-bin)" if not mpirun else
        "easyml-bench was built without MPI (install libopenmpi-dev and "
        "reconfigure)"))

# matplotlib, for the report plot: Debian's python3-matplotlib serves
# /usr/bin/python3, which need not be the python running lit.
import subprocess
for candidate in (config.python_executable, "/usr/bin/python3"):
    try:
        subprocess.run([candidate, "-c", "import matplotlib"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        continue
    config.available_features.add("matplotlib")
    config.substitutions.append(("%plot_python", candidate))
    break

# numpy, for checks of numerical results (Debian: python3-numpy).
for candidate in (config.python_executable, "/usr/bin/python3"):
    try:
        subprocess.run([candidate, "-c", "import numpy"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        continue
    config.available_features.add("numpy")
    config.substitutions.append(("%np_python", candidate))
    break

# The Python package (built when pybind11 is found) and a python with numpy
# and pytest to test it (Debian: python3-numpy, python3-pytest).
import glob
py_package = os.path.join(config.easyml_obj_root, "python")
if glob.glob(os.path.join(py_package, "easyml", "_easyml*.so")):
    for candidate in (config.python_executable, "/usr/bin/python3"):
        try:
            subprocess.run([candidate, "-c", "import numpy, pytest"],
                           check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            continue
        config.available_features.add("python-package")
        config.substitutions.append(("%py_python", candidate))
        config.substitutions.append(("%py_package", py_package))
        break

# mpi4py (Debian: python3-mpi4py) for the Python package across ranks.
if "python-package" in config.available_features and \
        "mpi" in config.available_features:
    for candidate in (config.python_executable, "/usr/bin/python3"):
        try:
            subprocess.run([candidate, "-c", "import mpi4py, numpy"],
                           check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            continue
        config.available_features.add("mpi4py")
        config.substitutions.append(("%mpi_python", candidate))
        break
    else:
        lit_config.note("Python MPI test skipped: no python with mpi4py "
                        "(install python3-mpi4py)")
