#!/usr/bin/env bash
# Bounded libFuzzer runs of the front end, seeded with the reference corpus
# (when ../shared/corpus exists), the example models and the lit inputs,
# of the state-file and checkpoint reader (10^5 inputs from a state file
# and a checkpoint made here) and of the mesh readers (10^5 inputs from
# small meshes of each format made here).
# Usage: scripts/fuzz.sh [seconds]   (default: $EASYML_FUZZ_SECONDS or 120)
# Exits non-zero if the fuzzer finds a crash, leak or sanitizer report; the
# reproducer is left in build/fuzz-artifacts/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EASYML_BUILD_DIR:-$root/build}
seconds=${1:-${EASYML_FUZZ_SECONDS:-120}}
"$root/scripts/build.sh" easyml-fuzz-frontend || exit 1
seeds="$build/fuzz-seeds"
work="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
rm -rf "$seeds"
mkdir -p "$seeds" "$work" "$artifacts"
i=0
for f in "$root"/examples/models/*.model "$root"/test/Frontend/*.model \
         "${EASYML_CORPUS:-$root/../shared/corpus}"/models/*/model.model \
         "${EASYML_CORPUS:-$root/../shared/corpus}"/opencarp/*.model; do
  [ -f "$f" ] || continue
  cp "$f" "$seeds/seed$i.model"
  i=$((i + 1))
done
echo "easyml: fuzzing the front end for ${seconds}s from $i seeds"
"$build/bin/easyml-fuzz-frontend" "$work" "$seeds" \
  -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | \
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|INFO: Running|Done)"
# (The fuzzer's status, not grep's: `|| true` would hide it.)
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "easyml: the fuzzer found a problem (exit $status); see $artifacts" >&2
  exit 1
fi

# The state-file reader: seeds are a small valid file, whole (first byte
# even) and without its checksum line (odd: the fuzzer adds a correct one).
"$root/scripts/build.sh" easyml-fuzz-state || exit 1
rm -rf "$seeds" "$work-state" && mkdir -p "$seeds" "$work-state"
python3 - "$seeds" <<'PY'
import json, struct, sys
header = {"format": 1, "model": "m", "cells": 2, "sv": ["a", "b"],
          "externals": ["Vm"], "params": ["g"], "step": 10, "beat": 1,
          "beat_start": 5, "dt": 0.01}
body = b"EASYML-STATE\n" + json.dumps(header).encode() + b"\n" + \
    struct.pack("<8d", 1, 2, -80, 0.5, 3, 4, -81, 0.25)
h = 1469598103934665603
for c in body:
    h = ((h ^ c) * 1099511628211) % 2**64
open(sys.argv[1] + "/whole", "wb").write(b"\0" + body + b"CHECKSUM %016x\n" % h)
open(sys.argv[1] + "/fixed", "wb").write(b"\1" + body)
# A checkpoint: accumulators, biomarker rows and the run position line.
header.update({"accumulators": 1, "rows": 2, "run": 1})
run = {"settings": "--bcl=500\n", "files": [["a.txt", 120]],
       "speeds": {"cpu": 1e6}, "counters": [0, 3]}
body = b"EASYML-STATE\n" + json.dumps(header).encode() + b"\n" + \
    json.dumps(run).encode() + b"\n" + \
    struct.pack("<12d", 1, 2, -80, 0.5, 7, 3, 4, -81, 0.25, 8, 1, 2)
open(sys.argv[1] + "/checkpoint", "wb").write(b"\1" + body)
PY
echo "easyml: fuzzing the state-file and checkpoint reader, 100000 inputs"
"$build/bin/easyml-fuzz-state" "$work-state" "$seeds" -runs=100000 \
  -max_len=8192 -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | \
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY)"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "easyml: the state-file fuzzer found a problem (exit $status); see $artifacts" >&2
  exit 1
fi
# The mesh readers: the first byte picks the format (0 openCARP, 1 TetGen,
# 2 VTK; bits 2-3 the fibre file, .lon, .axi or .ortho), NUL bytes part
# the files. Seeds: two tetrahedra and a hexahedron in every format.
"$root/scripts/build.sh" easyml-fuzz-mesh || exit 1
rm -rf "$seeds" "$work-mesh" && mkdir -p "$seeds" "$work-mesh"
python3 - "$seeds" <<'PY'
import sys
out = sys.argv[1]
pts = "9\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n.5 .5 2\n"
elem = "2\nHx 0 1 2 3 4 5 6 7 1\nTt 4 5 6 8 2\n"
seeds = {
    "opencarp": b"\0" + "\0".join([pts, elem, "2\n1 0 0 0 1 0\n0 0 1 1 0 0\n"]).encode(),
    "tetgen-axi": b"\5" + "\0".join([
        "# nodes\n5 3 1 1\n1 0 0 0 .5 1\n2 1 0 0 .5 1\n3 0 1 0 .5 1\n"
        "4 0 0 1 .5 1\n5 1 1 1 .5 1\n",
        "2 4 1\n1 1 2 3 4 7\n2 2 3 5 4 -3\n",
        "2\n1 0 0\n0 1 0\n"]).encode(),
    "tetgen-ortho": b"\x09" + "\0".join([
        "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n",
        "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n",
        "2\n1 0 0 0 1 0 0 0 1\n0 1 0 0 0 1 1 0 0\n"]).encode(),
    "vtu": b"\2" + (
        '<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" '
        'byte_order="LittleEndian" header_type="UInt32">\n<UnstructuredGrid>'
        '<Piece NumberOfPoints="5" NumberOfCells="2"><Points>'
        '<DataArray type="Float64" NumberOfComponents="3" format="ascii">'
        '0 0 0 1 0 0 0 1 0 0 0 1 1 1 1</DataArray></Points><Cells>'
        '<DataArray type="Int64" Name="connectivity" format="ascii">'
        '0 1 2 3 1 2 3 4</DataArray>'
        '<DataArray type="Int64" Name="offsets" format="binary">'
        'EAAAAA==BAAAAAAAAAAIAAAAAAAAAA==</DataArray>'
        '<DataArray type="UInt8" Name="types" format="ascii">10 10'
        '</DataArray></Cells><CellData>'
        '<DataArray type="Int32" Name="elemTag" format="ascii">1 2</DataArray>'
        '<DataArray type="Float32" Name="fiber" NumberOfComponents="3" '
        'format="ascii">1 0 0 0 1 0</DataArray></CellData></Piece>'
        '</UnstructuredGrid></VTKFile>\n').encode(),
}
for name, data in seeds.items():
    open(out + "/" + name, "wb").write(data)
PY
echo "easyml: fuzzing the mesh readers, 100000 inputs"
"$build/bin/easyml-fuzz-mesh" "$work-mesh" "$seeds" -runs=100000 \
  -max_len=8192 -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | \
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY)"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "easyml: the mesh fuzzer found a problem (exit $status); see $artifacts" >&2
  exit 1
fi
echo "easyml: fuzz run clean"
