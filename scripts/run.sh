#!/usr/bin/env bash
# The main job: install what is missing, build, and compile the bundled
# default model (Hodgkin-Huxley 1952), printing its summary and its easyml IR.
# Usage: scripts/run.sh [model file]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" easyml-compile easyml-opt
model=${1:-$root/examples/models/hodgkin_huxley_1952.model}
bin=${EASYML_BUILD_DIR:-$root/build}/bin
echo
echo "== easyml-compile $(basename "$model") --emit=summary"
"$bin/easyml-compile" "$model" --emit=summary
echo
echo "== easyml-compile $(basename "$model") --emit=mlir --no-locations"
"$bin/easyml-compile" "$model" --emit=mlir --no-locations
