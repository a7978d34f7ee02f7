#!/usr/bin/env bash
# The tissue benchmarks on a GPU machine, from a pack made with
# scripts/gpu-pack.sh --tissue (no LLVM needed there):
#
#   scripts/gpu-tissue.sh --pack build/gpu-pack --out DIR [--quick]
#
# 1. the N-version slab (scripts/niederer.py) at dx 0.1 mm, dt 0.005 ms on
#    one GPU: the nine activation times and point-steps/s;
# 2. the same slab, 400 steps, across device sets (the CPU pool, the GPU
#    with the diffusion step and the activation pass on it, the activation
#    pass on the host, both on the host, the CPU with the GPU);
# 3. a 256^3 grid of ten Tusscher-Panfilov 2006 cells, 100 steps of 0.01
#    ms, on the GPU (the same three ways) and the CPU pool;
# 4. Aliev-Panfilov on 800 x 800 points, 2000 steps, the same sets;
# 5. a planar wave across the devices' slabs (ten Tusscher-Panfilov 2006,
#    400 x 1500 points, 3000 steps of 0.01 ms) on the CPU pool, the GPU
#    and both: the mix against the sum of the two alone.
# Each writes a table to DIR/tissue.md and JSON to DIR/tissue-*.json; a
# step that fails is reported and the others run. --quick: small sizes (a
# dry run on the emulated driver). PYTHON: the python3 that has numpy.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="$ROOT/build/gpu-pack"
OUT="$ROOT/gpu-results"
QUICK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "gpu-tissue.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
PACK="$(realpath "$PACK")"
TISSUE="$PACK/bin/easyml-tissue"
TT="$PACK/models/tissue/ten_tusscher_panfilov_2006.so"
AP="$PACK/models/tissue/aliev_panfilov_1996.so"
for f in "$TISSUE" "$TT" "$AP"; do
  [ -e "$f" ] || { echo "gpu-tissue.sh: error: $f is missing (make the pack with --tissue)" >&2; exit 1; }
done
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
MD="$OUT/tissue.md"
: > "$MD"
status=0
note() { echo "$*" | tee -a "$MD"; }
step() { # title, command...
  local title="$1"; shift
  note ""; note "## $title"; note ""; note '```'
  local t0=$(date +%s)
  "$@" 2>&1 | tee -a "$MD" || status=1
  note '```'; note "($(( $(date +%s) - t0 )) s)"
}

if [ -n "$QUICK" ]; then
  NV=(--dx 0.5 --dt 0.05); SLAB=(41 15 7); CUBE=(24 24 24); SQ=(100 100)
  WAVE=(40 150); WAVE_STEPS=300
else
  NV=(--dx 0.1 --dt 0.005); SLAB=(201 71 31); CUBE=(256 256 256); SQ=(800 800)
  WAVE=(400 1500); WAVE_STEPS=3000
fi
note "# Tissue on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'an emulated GPU'), $(nproc) CPU cores, $(date +%F)"
step "N-version slab on one GPU (scripts/niederer.py ${NV[*]} --devices gpu:0)" \
  "$PY" "$ROOT/scripts/niederer.py" "${NV[@]}" --devices gpu:0 \
  --model "$TT" --tissue "$TISSUE"
step "N-version slab (${SLAB[*]} points), 400 steps of 0.005 ms, by devices" \
  "$PY" "$ROOT/benchmarks/tissue-devices.py" --model "$TT" \
  --points "${SLAB[@]}" --spacing 0.1 --dt 0.005 --steps 400 \
  --devices cpu gpu:0 gpu:0@hostact gpu:0@host cpu+gpu:0 --tissue "$TISSUE" \
  --json "$OUT/tissue-slab.json"
step "ten Tusscher-Panfilov 2006 on ${CUBE[*]} points, 100 steps of 0.01 ms" \
  "$PY" "$ROOT/benchmarks/tissue-devices.py" --model "$TT" \
  --points "${CUBE[@]}" --spacing 0.1 --dt 0.01 --steps 100 \
  --devices gpu:0 gpu:0@hostact gpu:0@host cpu --tissue "$TISSUE" \
  --json "$OUT/tissue-cube.json"
step "Aliev-Panfilov on ${SQ[*]} points, 2000 steps of 0.01 ms" \
  "$PY" "$ROOT/benchmarks/tissue-devices.py" --model "$AP" \
  --points "${SQ[@]}" --spacing 0.1 --dt 0.01 --steps 2000 \
  --devices cpu gpu:0 gpu:0@hostact gpu:0@host --tissue "$TISSUE" \
  --json "$OUT/tissue-ap.json"
step "A wave across the slabs: ten Tusscher-Panfilov 2006 on ${WAVE[*]} points, $WAVE_STEPS steps of 0.01 ms" \
  "$PY" "$ROOT/benchmarks/tissue-devices.py" --model "$TT" \
  --points "${WAVE[@]}" --spacing 0.1 --dt 0.01 --steps "$WAVE_STEPS" \
  --wave-axis last --devices cpu gpu:0 cpu+gpu:0 --tissue "$TISSUE" \
  --json "$OUT/tissue-wave.json"
exit $status
