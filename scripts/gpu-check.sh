#!/usr/bin/env bash
# The GPU execution tests and benchmark, in one command, where a GPU is:
#
#   scripts/gpu-check.sh [--pack build/gpu-pack] [--out gpu-results] [--quick]
#
# With no pack and LLVM here, it makes one first (scripts/gpu-pack.sh); on
# a GPU machine without LLVM, make the pack elsewhere and bring it along.
# Runs: the devices found; the corpus validation bars on the GPU
# (scripts/validate.py --variants cuda); fused vs one-step and GPU vs CPU
# (scripts/gpu-equivalence.py); the benchmark (benchmarks/gpu.py); the
# heterogeneous runtime on cpu, gpu:all, cpu+gpu:all and auto
# (benchmarks/runtime.py). Writes
# Markdown and JSON reports to --out; exits non-zero if a check failed.
# --quick: three models and a short benchmark (a smoke test); --cells N:
# benchmark size (default 2^20, and 2^24 for tentusscher-2006).
# --budget S: finish within S seconds (a lent GPU machine's time): the
# benchmark model by model until 55% of it (tentusscher-2006 in both forms
# first), then validation and equivalence side by side until 88%, then the
# heterogeneous runtime; what did not fit is reported as not run.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="$ROOT/build/gpu-pack"
OUT="$ROOT/gpu-results"
VARIANT=cuda
QUICK=""
CELLS=""
BUDGET=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --variant) VARIANT="$2"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --cells) CELLS="$2"; shift 2 ;;
    --budget) BUDGET="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ ! -x "$PACK/bin/easyml-bench" ]; then
  "$ROOT/scripts/gpu-pack.sh" --out "$PACK" || exit 1
fi
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BENCH="$PACK/bin/easyml-bench"
CORPUS="$(mktemp -d)"
trap 'rm -rf "$CORPUS"' EXIT
tar xJf "$PACK/corpus.tar.xz" -C "$CORPUS"
MODELS=()
[ -n "$QUICK" ] && MODELS=(--models tentusscher-2006 hodgkin-1952 ohara-2011)
JOBS=$(nproc)

"$BENCH" --list-devices | tee "$OUT/devices.txt"
grep -q "device 0" "$OUT/devices.txt" || { echo "gpu-check.sh: error: no GPU found" >&2; exit 1; }
DEVICE="$(grep -m1 'device 0' "$OUT/devices.txt" | sed 's/^ *//')"
status=0
if [ -n "$BUDGET" ]; then
  # Time-boxed: the benchmark first (alone on the machine, so its timings
  # hold), then the two correctness checks side by side, then the runtime.
  T0=$(date +%s)
  at() { echo $((T0 + BUDGET * $1 / 100)); }
  first=(tentusscher-2006 tentusscher-2006-opencarp-mix)
  rest=$(python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1])))))' \
         "$PACK/facts.json")
  order=("${first[@]}")
  for m in $rest; do [[ " ${first[*]} " == *" $m "* ]] || order+=("$m"); done
  [ -n "$QUICK" ] && order=(tentusscher-2006 hodgkin-1952 ohara-2011)
  echo "== benchmark (until +$((BUDGET * 55 / 100)) s)"
  BARGS=(--seconds 0.4)
  [ -n "$CELLS" ] && BARGS+=(--cells "$CELLS" --big-cells "$CELLS")
  timeout $((BUDGET * 70 / 100)) python3 "$ROOT/benchmarks/gpu.py" --pack "$PACK" \
    --variant "$VARIANT" --models "${order[@]}" "${BARGS[@]}" --deadline "$(at 55)" \
    --json "$OUT/benchmarks-gpu.json" --markdown "$OUT/benchmarks-gpu.md" || status=1
  left=$(( $(at 88) - $(date +%s) ))
  echo "== validation and equivalence side by side (until +$((BUDGET * 88 / 100)) s)"
  half=$(( (JOBS + 1) / 2 ))
  timeout $((left + 30)) python3 "$ROOT/scripts/validate.py" --corpus "$CORPUS" \
    --prebuilt "$PACK/models" --bench "$BENCH" --variants "$VARIANT" \
    --convergence-variants "$VARIANT" --jobs "$half" "${MODELS[@]}" \
    --deadline "$(( $(at 88) - 20 ))" --note "Device: $DEVICE ($(date +%F))." \
    --markdown "$OUT/validation-gpu.md" --json "$OUT/validation-gpu.json" \
    > "$OUT/validation-gpu.log" 2>&1 &
  vpid=$!
  timeout $((left + 30)) python3 "$ROOT/scripts/gpu-equivalence.py" --corpus "$CORPUS" \
    --prebuilt "$PACK/models" --bench "$BENCH" --variant "$VARIANT" \
    --jobs "$half" "${MODELS[@]}" --deadline "$(( $(at 88) - 20 ))" \
    --markdown "$OUT/equivalence-gpu.md" --json "$OUT/equivalence-gpu.json" \
    > "$OUT/equivalence-gpu.log" 2>&1 || status=1
  wait $vpid || status=1
  tail -n 3 "$OUT/validation-gpu.log" "$OUT/equivalence-gpu.log"
  left=$(( $(at 99) - $(date +%s) ))
  if [ "$left" -gt 20 ]; then
    echo "== heterogeneous runtime ($left s left)"
    timeout "$left" python3 "$ROOT/benchmarks/runtime.py" --pack "$PACK" \
      --models tentusscher-2006 ohara-2011 --cells 262144 --duration 50 \
      --json "$OUT/benchmarks-runtime.json" --markdown "$OUT/benchmarks-runtime.md" || status=1
  else
    echo "== heterogeneous runtime: not run (time budget)"
  fi
  echo "reports in $OUT; exit $status"
  exit $status
fi
echo "== corpus validation bars on the GPU"
python3 "$ROOT/scripts/validate.py" --corpus "$CORPUS" --prebuilt "$PACK/models" \
  --bench "$BENCH" --variants "$VARIANT" --convergence-variants "$VARIANT" \
  --jobs "$JOBS" "${MODELS[@]}" --note "Device: $DEVICE ($(date +%F))." \
  --markdown "$OUT/validation-gpu.md" --json "$OUT/validation-gpu.json" || status=1
echo "== fused vs one-step, GPU vs CPU"
python3 "$ROOT/scripts/gpu-equivalence.py" --corpus "$CORPUS" --prebuilt "$PACK/models" \
  --bench "$BENCH" --variant "$VARIANT" --jobs "$JOBS" "${MODELS[@]}" \
  --markdown "$OUT/equivalence-gpu.md" --json "$OUT/equivalence-gpu.json" || status=1
echo "== benchmark"
if [ -n "$QUICK" ]; then BARGS=(--seconds 0.5 --big-cells 4194304); else BARGS=(); fi
[ -n "$CELLS" ] && BARGS+=(--cells "$CELLS" --big-cells "$CELLS")
python3 "$ROOT/benchmarks/gpu.py" --pack "$PACK" --variant "$VARIANT" "${MODELS[@]}" \
  "${BARGS[@]}" --json "$OUT/benchmarks-gpu.json" --markdown "$OUT/benchmarks-gpu.md" || status=1
echo "== heterogeneous runtime (cpu, gpu:all, cpu+gpu:all, auto)"
if [ -n "$QUICK" ]; then RARGS=(--cells 262144 --duration 50); else RARGS=(--cells 1048576 --duration 200); fi
python3 "$ROOT/benchmarks/runtime.py" --pack "$PACK" \
  --models tentusscher-2006 hodgkin-1952 ohara-2011 "${RARGS[@]}" \
  --json "$OUT/benchmarks-runtime.json" --markdown "$OUT/benchmarks-runtime.md" || status=1
echo "reports in $OUT; exit $status"
exit $status
