#!/bin/sh
# Kills easyml-bench and easyml-tissue runs N times (default 10) at random
# moments with SIGKILL and restarts them from their last checkpoint, in
# these set-ups:
#   cpu     one process on the CPU;
#   hetero  the CPU and two emulated GPUs (restarted on the CPU alone every
#           other time, which computes the same bits);
#   ranks   3 MPI ranks, restarted on 2;
#   writer  3 computing MPI ranks and a writer rank (--mpi-writer) for
#           --save-vm, restarted on 2 and a writer;
#   tissue  a 2D sheet paced twice (snapshots, activation and APD maps) on
#           the CPU and two emulated GPUs that keep Vm, and on 3 ranks
#           restarted on 2.
# Every output file must be byte-identical to an uninterrupted run's.
#
#   scripts/kill-restart.sh [N] [BUILD_DIR]
set -eu
N=${1:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
BIN=$BUILD/bin
PY=$(command -v /usr/bin/python3 || command -v python3)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kill-restart.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MODEL=$ROOT/examples/models/luo_rudy_1991.model
RUN="--num 512 --duration 3000 --bcl 500 --numstim 6 --fout=run --save-vm vm.npy --biomarkers bio.csv --population=g_Na*lognormal(1,0.1) -q"
status=0

echo "== cpu: one process, $N kills"
"$BIN/easyml-compile" "$MODEL" --emit=shared -o "$WORK/lr.so"
"$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-bench" \
  --kills "$N" --dir "$WORK/cpu" -- --load-module "$WORK/lr.so" $RUN ||
  status=1

if [ -e "$BUILD/test/emulated-cuda/libcuda.so.1" ]; then
  echo "== hetero: cpu + 2 emulated GPUs, restarted on the CPU, $N kills"
  "$BIN/easyml-compile" "$MODEL" --variant=cpu-simd,cuda --vector-math=scalar \
    --per-cell-params=g_Na \
    --cuda-chips=sm_90 --emulate-gpu-kernels --emit=shared -o "$WORK/lrg.so"
  "$BIN/easyml-compile" "$MODEL" --variant=cpu-simd --vector-width=1 \
    --vector-math=scalar --emit=shared -o "$WORK/lr1.so"
  LD_LIBRARY_PATH=$BUILD/test/emulated-cuda \
  EASYML_EMULATED_KERNELS=$WORK/lr1.so:cpu-simd EASYML_EMULATED_DEVICES=2 \
    "$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-bench" \
    --kills "$N" --dir "$WORK/hetero" --restart-args "--devices cpu" \
    -- --load-module "$WORK/lrg.so" --devices cpu+gpu:all \
    --lb-min-window 0 $RUN || status=1
else
  echo "== hetero: skipped (no emulated CUDA driver in $BUILD)"
fi

if command -v mpirun >/dev/null 2>&1; then
  MPI="mpirun --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca mpi_yield_when_idle 1"
  [ "$(id -u)" = 0 ] && MPI="$MPI --allow-run-as-root"
  echo "== ranks: 3 ranks, restarted on 2, $N kills"
  "$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-bench" \
    --kills "$N" --dir "$WORK/ranks" --mpirun "$MPI -np 3" \
    --restart-mpirun "$MPI -np 2" -- --load-module "$WORK/lr.so" $RUN ||
    status=1
  echo "== writer: 3 ranks and a writer rank, restarted on 2 and one, $N kills"
  "$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-bench" \
    --kills "$N" --dir "$WORK/writer" --mpirun "$MPI -np 4" \
    --restart-mpirun "$MPI -np 3" -- --load-module "$WORK/lr.so" $RUN \
    --mpi-writer || status=1
else
  echo "== ranks: skipped (no mpirun)"
fi
echo "== tissue: cpu + 2 emulated GPUs, $N kills"
TISSUE='"grid": {"points": [80, 60], "spacing_mm": 0.1}, "time": {"dt": 0.01, "duration": 80}, "stimuli": [{"sphere": {"center": [0, 0, 0], "radius": 0.5}, "current_per_area": 80, "duration": 1, "period": 40, "count": 2}], "outputs": {"directory": ".", "snapshots_every": 5, "biomarkers": ["apd90"], "formats": ["npy", "vtk"]}'
if [ -e "$BUILD/test/emulated-cuda/libcuda.so.1" ]; then
  printf '{"model": "%s", "devices": "cpu+gpu:all", "threads": 2, %s}' \
    "$WORK/lrg.so" "$TISSUE" > "$WORK/tissue.json"
  LD_LIBRARY_PATH=$BUILD/test/emulated-cuda \
  EASYML_EMULATED_KERNELS=$WORK/lr1.so:cpu-simd EASYML_EMULATED_DEVICES=2 \
    "$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-tissue" \
    --kills "$N" --dir "$WORK/tissue" --every 4 --copy "$WORK/tissue.json" \
    -- tissue.json -q || status=1
else
  echo "== tissue: skipped (no emulated CUDA driver in $BUILD)"
fi
if command -v mpirun >/dev/null 2>&1; then
  echo "== tissue-ranks: 3 ranks, restarted on 2, $N kills"
  printf '{"model": "%s", "threads": 1, %s}' "$WORK/lr.so" "$TISSUE" \
    > "$WORK/tissue-ranks.json"
  "$PY" "$ROOT/scripts/kill-restart.py" --bench "$BIN/easyml-tissue" \
    --kills "$N" --dir "$WORK/tissue-ranks" --every 4 \
    --copy "$WORK/tissue-ranks.json" --mpirun "$MPI -np 3" \
    --restart-mpirun "$MPI -np 2" -- tissue-ranks.json -q || status=1
fi
exit $status
