#!/usr/bin/env bash
# A drug study on a GPU machine (no compiler there), from a pack made here:
#
#   scripts/gpu-drug.sh --make-pack build/gpu-drug --cipa DIR   (here)
#   scripts/gpu-drug.sh --pack build/gpu-drug --out DIR [--samples 100]
#                       [--beats 10] [--big-samples 2000] [--big-beats 1]
#                       [--adaptive-only] [--big-cpu]           (there)
#
# The pack: easyml-drug, CiPA's O'Hara-Rudy model (the corpus's Myokit
# export) with its qNet state compiled for cpu-simd and cuda (sm_90), and
# CiPA's drug data (the 12 training drugs' Cmax, Hill and hERG tables,
# optimal and uncertainty). On the GPU machine it runs:
# 1. the 12 drugs x 4 doses x --small-samples (10), 2 beats, on the CPU (all
#    cores) and on the GPU, and compares their qNet and APD90;
# 2. 12 drugs x 4 doses x --samples samples, --beats beats at 2,000 ms on
#    the GPU: throughput and time per simulation-beat;
# 3. with --big-samples N, 12 x 4 x N simulations for one beat (the
#    uncertainty study's population size);
# 4. the same as 1 and 2 with each simulation taking its own steps (the
#    model compiled --adaptive, dt 0.5 ms), and with --big-samples the
#    uncertainty population for --big-beats beats (on all CPU cores too
#    with --big-cpu). --adaptive-only skips 1-3.
# Writes DIR/drug.md and the tables.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="" OUT="" MAKE="" CIPA="" SAMPLES=100 BEATS=10 BIG=0 SMALL=10
BIG_BEATS=1 ADAPTIVE_ONLY="" BIG_CPU=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --make-pack) MAKE="$2"; shift 2 ;;
    --cipa) CIPA="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --samples) SAMPLES="$2"; shift 2 ;;
    --beats) BEATS="$2"; shift 2 ;;
    --big-samples) BIG="$2"; shift 2 ;;
    --small-samples) SMALL="$2"; shift 2 ;;
    --big-beats) BIG_BEATS="$2"; shift 2 ;;
    --adaptive-only) ADAPTIVE_ONLY=1; shift ;;
    --big-cpu) BIG_CPU=1; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "gpu-drug.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
MAP="$ROOT/data/drugs/ohara-cipa-v1-2017.json"
DRUGS=dofetilide,bepridil,sotalol,quinidine,cisapride,terfenadine,ondansetron,chlorpromazine,verapamil,ranolazine,mexiletine,diltiazem
if [ -n "$MAKE" ]; then
  [ -d "$CIPA/hERG_fitting/results" ] || { echo "gpu-drug.sh: error: --cipa needs a CiPA checkout" >&2; exit 1; }
  BIN="$ROOT/build/bin"
  CORPUS="${EASYML_CORPUS:-$ROOT/../shared/corpus}"
  rm -rf "$MAKE" && mkdir -p "$MAKE"/{bin,lib,models,cipa/AP_simulation}
  cp "$BIN/easyml-drug" "$MAKE/bin/"
  ldd "$BIN/easyml-drug" | awk '/libomp/ {print $3}' | xargs -r -I{} cp {} "$MAKE/lib/"
  cp -r "$CIPA/AP_simulation/data" "$MAKE/cipa/AP_simulation/"
  cp -r "$CIPA/hERG_fitting" "$CIPA/Hill_fitting" "$MAKE/cipa/"
  "$BIN/easyml-drug" --model "$CORPUS/models/ohara-cipa-v1-2017/model.model" \
    --mapping "$MAP" --write-compile-args "$MAKE/models/qnet.rsp" || exit 1
  "$BIN/easyml-drug" --model "$CORPUS/models/ohara-cipa-v1-2017/model.model" \
    --mapping "$MAP" --adaptive --write-compile-args "$MAKE/models/qnet-adaptive.rsp" || exit 1
  for m in qnet qnet-adaptive; do
    "$BIN/easyml-compile" "$CORPUS/models/ohara-cipa-v1-2017/model.model" "@$MAKE/models/$m.rsp" --model-name ohara-cipa-v1-2017 \
      --variant=cpu-simd,cuda --cuda-chips=sm_90 --cpu=x86-64-v4 \
      --per-cell-params=gNa,gNaL,PCa_base,gK1,gKs,gto,gKr,Kmax,Ku,n,halfmax,Vhalf,Kt,D \
      --emit=shared -o "$MAKE/models/$m.so" || exit 1
  done
  echo "packed: $MAKE ($(du -sh "$MAKE" | cut -f1))"
  exit 0
fi
[ -x "$PACK/bin/easyml-drug" ] || { echo "gpu-drug.sh: error: no pack at '$PACK'" >&2; exit 1; }
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
MODEL=qnet
study() { "$PACK/bin/easyml-drug" --model "$PACK/models/$MODEL.so" --mapping "$MAP" \
  --cipa "$PACK/cipa" --drugs "$DRUGS" --doses 1,2,3,4 --imp-par mode=0 -q "$@"; }
timed() { # name, args...: runs a study, prints its wall time
  local name="$1"; shift
  local t0=$(date +%s.%N)
  study "$@" --out "$OUT/$name.csv" || { echo "$name: failed"; return 1; }
  echo "$name: $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s ($(($(wc -l < "$OUT/$name.csv") - 1)) simulations)"
}
status=0
{
  echo "# Drug study on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPU cores, $(date +%F)"
  echo '```'
  compare() { python3 - "$OUT/$1.csv" "$OUT/$2.csv" <<'PY'
import csv, sys
a = list(csv.DictReader(open(sys.argv[1]))); b = list(csv.DictReader(open(sys.argv[2])))
for col in ("qnet", "apd90"):
    d = max(abs(float(x[col]) - float(y[col])) / max(abs(float(x[col])), 1e-12)
            for x, y in zip(a, b) if x[col] not in ("nan", "") and y[col] not in ("nan", ""))
    print(f"{sys.argv[2]} vs {sys.argv[1]}, {len(a)} simulations: largest relative difference of {col} {100 * d:.3g}%")
PY
  }
  if [ -z "$ADAPTIVE_ONLY" ]; then
    timed cpu-small --samples 1-"$SMALL" --beats 2 --devices cpu || status=1
    timed gpu-small --samples 1-"$SMALL" --beats 2 --devices gpu:0 || status=1
    compare cpu-small gpu-small
    timed gpu-study --samples 1-"$SAMPLES" --beats "$BEATS" --devices gpu:0 || status=1
    if [ "$BIG" -gt 0 ]; then
      timed gpu-big --samples 1-"$BIG" --beats 1 --devices gpu:0 || status=1
      rm -f "$OUT/gpu-big.csv"
    fi
  fi
  # Each simulation its own steps (dt 0.5 ms, the stimulus's).
  MODEL=qnet-adaptive
  timed cpu-adaptive-small --samples 1-"$SMALL" --beats 2 --devices cpu --adaptive || status=1
  timed gpu-adaptive-small --samples 1-"$SMALL" --beats 2 --devices gpu:0 --adaptive || status=1
  compare cpu-adaptive-small gpu-adaptive-small
  [ -z "$ADAPTIVE_ONLY" ] && compare gpu-small gpu-adaptive-small
  timed gpu-adaptive-study --samples 1-"$SAMPLES" --beats "$BEATS" --devices gpu:0 --adaptive || status=1
  if [ "$BIG" -gt 0 ]; then
    timed gpu-adaptive-big --samples 1-"$BIG" --beats "$BIG_BEATS" --devices gpu:0 --adaptive || status=1
    if [ -n "$BIG_CPU" ]; then
      timed cpu-adaptive-big --samples 1-"$BIG" --beats "$BIG_BEATS" --devices cpu --adaptive || status=1
      compare gpu-adaptive-big cpu-adaptive-big
    fi
  fi
  echo '```'
  exit $status
} 2>&1 | tee "$OUT/drug.md"
# The block runs in a subshell: its status is the first of the pipeline's.
exit "${PIPESTATUS[0]}"
