#!/usr/bin/env bash
# Bounded libFuzzer runs of the front end, seeded with the reference corpus
# (when ../shared/corpus exists), the example models and the lit inputs,
# and of the state-file and checkpoint reader (10^5 inputs from a state
# file and a checkpoint made here).
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
echo "easyml: fuzz run clean"
