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
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="$ROOT/build/gpu-pack"
OUT="$ROOT/gpu-results"
VARIANT=cuda
QUICK=""
CELLS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --variant) VARIANT="$2"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --cells) CELLS="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
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
