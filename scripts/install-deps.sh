#!/usr/bin/env bash
# Installs the Debian packages EasyML needs, only those that are missing.
set -euo pipefail
pkgs=(cmake ninja-build python3 git
      llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
      clang-19 lld-19 libomp-19-dev libclang-rt-19-dev libgtest-dev
      rocm-device-libs python3-matplotlib python3-numpy python3-dev
      pybind11-dev python3-pytest python3-venv libopenmpi-dev openmpi-bin python3-mpi4py
      python3-pip python3-setuptools python3-wheel)
# (Open MPI and mpi4py: one simulation across MPI ranks; without them the
# MPI tests are reported as skipped, with the reason.
# The rocm variant links the ROCm device libraries' bitcode; the cuda
# variant needs the CUDA toolkit, which is not a Debian package: it is found
# in $CUDA_PATH or /usr/local/cuda, and its tests are skipped without it.)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "easyml: system packages present"
  exit 0
fi
echo "easyml: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "easyml: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
