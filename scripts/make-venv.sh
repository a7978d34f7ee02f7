#!/usr/bin/env bash
# Makes build/venv: a Python environment with numpy and matplotlib (from
# the system's Python, --system-site-packages) and the easyml package of
# the build tree, so that `build/venv/bin/python` runs the tutorials'
# scripts whatever `python3` comes first on PATH.
# Usage: scripts/make-venv.sh   (EASYML_PYTHON=/path/to/python3 to choose)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EASYML_BUILD_DIR:-$root/build}
venv=$build/venv
py=${EASYML_PYTHON:-}
if [ -z "$py" ]; then
  for c in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -x "$c" ] && "$c" -c "import numpy, matplotlib" 2>/dev/null; then
      py=$c; break
    fi
  done
fi
if [ -z "$py" ]; then
  echo "easyml: no python3 with numpy and matplotlib (install python3-numpy" \
       "python3-matplotlib, or set EASYML_PYTHON)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv --system-site-packages --without-pip "$venv"
fi
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$build/python" > "$site/easyml-build.pth"
echo "easyml: Python environment $venv (from $py)"
