#!/usr/bin/env bash
# The main job: install what is missing, build every tool and the Python
# package, make build/venv (a Python with numpy, matplotlib and easyml, for
# the tutorials), compile the bundled default model (Luo-Rudy 1991,
# written from the paper) to a shared library and simulate two beats with
# easyml-bench, printing the trace and the report.
# Usage: scripts/run.sh [model file [easyml-bench options...]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" easyml-compile easyml-opt easyml-bench easyml-tissue \
  easyml-drug easyml-python
"$root/scripts/make-venv.sh"
model=${1:-$root/examples/models/luo_rudy_1991.model}
shift || true
bin=${EASYML_BUILD_DIR:-$root/build}/bin
out=${EASYML_RUN_DIR:-$root/build/run}
mkdir -p "$out"
name=$(basename "$model" .model)
echo
echo "== easyml-compile $(basename "$model") --emit=summary"
"$bin/easyml-compile" "$model" --emit=summary
echo
echo "== easyml-compile $(basename "$model") --emit=shared -o $out/$name.so --mlir-timing"
"$bin/easyml-compile" "$model" --emit=shared -o "$out/$name.so" --mlir-timing 2>&1 |
  sed -n '/Total Execution Time/,$p' | head -20
echo
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
  args=(--stim-curr 60 --stim-dur 0.5 --stim-start 10 --bcl 500 --numstim 2
        --duration 1000 --dt 0.01 --dt-out 25)
fi
echo "== easyml-bench --load-module $name.so ${args[*]}"
cd "$out"
"$bin/easyml-bench" --load-module "$out/$name.so" "${args[@]}" \
  --report-json "$out/$name.report.json"
echo
echo "(report as JSON: $out/$name.report.json)"
