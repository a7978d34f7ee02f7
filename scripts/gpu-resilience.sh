#!/usr/bin/env bash
# What checkpoints and device-loss recovery cost, on a GPU machine, from a
# pack made with scripts/gpu-pack.sh (no LLVM needed there):
#
#   scripts/gpu-resilience.sh --pack build/gpu-pack --out DIR
#                             [--cells N] [--models "m1 m2"]
#
# For each model (default: every model in the pack), N cells (default 2^20)
# paced at 500 ms for 100 ms of dt 0.01 ms:
#   1. the GPU alone, without and with --checkpoint every 20 ms (5
#      checkpoints): seconds and bytes per checkpoint and per cell;
#   2. the CPU pool and the GPU, with --no-recovery and with the host
#      copies that recovery keeps after every wave: throughput of each and
#      the copies' seconds and bytes;
#   3. the last checkpoint of the GPU run, continued on the CPU + GPU:
#      the restart's load seconds and the step it continued from.
# Writes DIR/resilience.md (a table) and DIR/resilience.json.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="$ROOT/build/gpu-pack"
OUT="$ROOT/gpu-results"
CELLS=1048576
MODELS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --cells) CELLS="$2"; shift 2 ;;
    --models) MODELS="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "gpu-resilience.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
PACK="$(cd "$PACK" && pwd)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BENCH="$PACK/bin/easyml-bench"
PY=${PYTHON:-python3}
[ -n "$MODELS" ] || MODELS=$(cd "$PACK/models" && ls *.so | sed 's/\.so$//' |
                             grep -v opencarp-mix)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
RUN="--num $CELLS --duration 100 --bcl 500 --numstim 1 --dt 0.01 --no-trace --dt-out 10 -q"

for m in $MODELS; do
  so="$PACK/models/$m.so"
  d="$WORK/$m"
  mkdir -p "$d" && cd "$d" || exit 1
  echo "== $m ($CELLS cells)" >&2
  "$BENCH" --load-module "$so" --variant cuda $RUN --report-json gpu.json \
    > /dev/null || echo "   gpu run failed" >&2
  "$BENCH" --load-module "$so" --variant cuda $RUN --checkpoint ck.bin \
    --checkpoint-every 20 --report-json gpu-ck.json > /dev/null ||
    echo "   gpu checkpoint run failed" >&2
  "$BENCH" --load-module "$so" --devices cpu+gpu:0 --no-recovery $RUN \
    --report-json hybrid.json > /dev/null || echo "   hybrid run failed" >&2
  "$BENCH" --load-module "$so" --devices cpu+gpu:0 $RUN \
    --report-json hybrid-copies.json > /dev/null ||
    echo "   hybrid run with copies failed" >&2
  "$BENCH" --load-module "$so" --devices cpu+gpu:0 $RUN --restart ck.bin \
    --report-json restart.json > /dev/null || echo "   restart failed" >&2
  ls -l ck.bin >&2
  cp restart.json "$OUT/$m-restart.json" 2>/dev/null
  cp gpu.json "$OUT/$m-gpu.json" 2>/dev/null
  cp gpu-ck.json "$OUT/$m-gpu-ck.json" 2>/dev/null
  cp hybrid.json "$OUT/$m-hybrid.json" 2>/dev/null
  cp hybrid-copies.json "$OUT/$m-hybrid-copies.json" 2>/dev/null
done

"$PY" - "$OUT" $MODELS <<'PY'
import json, os, sys
out, models = sys.argv[1], sys.argv[2:]
rows, table = [], ["| model | cells | GPU cell-steps/s | with 5 checkpoints | "
                   "per checkpoint (s) | bytes per cell | CPU+GPU | "
                   "with host copies | copies (s) |",
                   "|---|---|---|---|---|---|---|---|---|"]
def load(m, k):
    p = os.path.join(out, f"{m}-{k}.json")
    return json.load(open(p)) if os.path.exists(p) else None
for m in models:
    g, c = load(m, "gpu"), load(m, "gpu-ck")
    h, hc = load(m, "hybrid"), load(m, "hybrid-copies")
    if not (g and c and h and hc):
        table.append(f"| {m} | failed | | | | | | | |")
        continue
    ck = c.get("checkpoints", {})
    n = max(1, ck.get("count", 0))
    r = {"model": m, "cells": g["cells"],
         "gpu": g["cell_steps_per_second"],
         "gpu_checkpoints": c["cell_steps_per_second"],
         "checkpoints": ck.get("count", 0),
         "checkpoint_seconds": ck.get("seconds", 0) / n,
         "checkpoint_bytes_per_cell": ck.get("bytes", 0) / g["cells"],
         "hybrid": h["cell_steps_per_second"],
         "hybrid_copies": hc["cell_steps_per_second"],
         "copy_seconds": hc["runtime"]["host_copy_seconds"],
         "copy_bytes": hc["runtime"]["host_copy_bytes"],
         "restart": load(m, "restart"),
         "device": g.get("device", "")}
    rows.append(r)
    table.append(
        f"| {m} | {r['cells']} | {r['gpu']:.3g} | {r['gpu_checkpoints']:.3g} "
        f"| {r['checkpoint_seconds']:.3f} | {r['checkpoint_bytes_per_cell']:.0f} "
        f"| {r['hybrid']:.3g} | {r['hybrid_copies']:.3g} "
        f"| {r['copy_seconds']:.3f} |")
open(os.path.join(out, "resilience.md"), "w").write("\n".join(table) + "\n")
json.dump(rows, open(os.path.join(out, "resilience.json"), "w"), indent=1)
print("\n".join(table))
PY
