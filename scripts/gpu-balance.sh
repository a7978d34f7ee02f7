#!/usr/bin/env bash
# The CPU with the GPUs under pacing, on a lent GPU machine, in one command:
#
#   scripts/gpu-balance.sh [--pack build/gpu-pack] [--out gpu-balance]
#                          [--budget 520] [--cells 16384]
#
# Runs benchmarks/runtime.py paced (stimulus every 300 ms, 1,500 ms: five
# cycles, enough for `auto` to measure each configuration over one whole
# cycle) on the pack's models, device sets cpu, gpu:all, cpu+gpu:all and
# auto, at a population size where the CPU is worth a tenth or more of the
# GPU (--cells); the CPU alone runs one cycle (its rate per cell-step; it
# would otherwise take most of the budget). Then, while the budget lasts,
# gpu:all against auto at 65,536 cells, where the GPU alone is the better
# choice. Reports (Markdown, JSON) in --out; each part keeps what it
# finished when the budget cuts it.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACK="$ROOT/build/gpu-pack"
OUT="$ROOT/gpu-balance"
BUDGET=520
CELLS=16384
while [ $# -gt 0 ]; do
  case "$1" in
    --pack) PACK="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --budget) BUDGET="$2"; shift 2 ;;
    --cells) CELLS="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu-balance.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$PACK/bin/easyml-bench" ] || {
  echo "gpu-balance.sh: error: no pack at '$PACK' (scripts/gpu-pack.sh)" >&2
  exit 1
}
mkdir -p "$OUT"
PACK="$(cd "$PACK" && pwd)"
export LD_LIBRARY_PATH="$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
T0=$(date +%s)
left() { echo $((T0 + BUDGET - $(date +%s))); }
models=$(python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1])))))' \
         "$PACK/facts.json")
# tentusscher-2006 first: the model every earlier table has.
order="tentusscher-2006"
for m in $models; do
  case "$m" in tentusscher-2006|*-opencarp-mix) ;; *) order="$order $m" ;; esac
done
status=0
echo "== $CELLS cells, paced, cpu / gpu / cpu+gpu / auto (until +$((BUDGET * 75 / 100)) s)"
# shellcheck disable=SC2086
timeout $((BUDGET * 75 / 100)) python3 "$ROOT/benchmarks/runtime.py" --pack "$PACK" \
  --models $order --cells "$CELLS" --duration 1500 --cpu-duration 300 \
  --bcl 300 --devices cpu gpu:all cpu+gpu:all auto --no-cut \
  --json "$OUT/paced-$CELLS.json" --markdown "$OUT/paced-$CELLS.md" || status=1
if [ "$(left)" -gt 40 ]; then
  echo "== 65536 cells, paced, gpu / auto ($(left) s left)"
  timeout "$(left)" python3 "$ROOT/benchmarks/runtime.py" --pack "$PACK" \
    --models tentusscher-2006 grandi-2010 ohara-2011 --cells 65536 \
    --duration 1500 --bcl 300 --devices gpu:all auto --no-cut \
    --json "$OUT/paced-65536.json" --markdown "$OUT/paced-65536.md" || status=1
fi
echo "reports in $OUT; exit $status"
exit $status
