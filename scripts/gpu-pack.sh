#!/usr/bin/env bash
# Prepares everything a GPU machine needs to run the GPU execution tests and
# benchmark without LLVM/MLIR there: easyml-bench and its OpenMP runtime,
# every corpus model compiled for cpu-simd + cuda (and rocm with --rocm),
# per-model facts for the roofline (states, flops per cell-step), and the
# corpus files the checks read (reference traces, protocols, meta), packed.
#
#   scripts/gpu-pack.sh [--out build/gpu-pack] [--cuda-chips sm_90] [--rocm]
#                       [--cpu x86-64-v4] [--models "m1 m2"] [--emulate]
#                       [--compile-args "--cuda-smem-spilling=false"]
#
# Besides the corpus models the pack holds tentusscher-2006-opencarp-mix:
# tentusscher-2006 in openCARP's method mix (gates Rush-Larsen, the rest
# forward Euler instead of its cvode group), which benchmarks/gpu.py runs at
# 2^24 cells next to the cvode form (issue 15).
#
# The cpu-simd part is compiled for --cpu (default x86-64-v4: AVX-512 that
# every AVX-512 Xeon has; the build machine's own CPU may have more).
# --emulate adds the GPU kernels' host copies (--emulate-gpu-kernels) for a
# dry run on the emulated drivers (EASYML_EMULATED_KERNELS=host).
# --compile-args adds easyml-compile options to every model (an A/B pack:
# e.g. without shared-memory spilling, --out build/gpu-pack-nosmem).
#
# --tissue adds easyml-tissue and the example models of the tissue
# benchmarks (models/tissue/: ten Tusscher-Panfilov 2006 for the N-version
# slab and 256^3 grids, Aliev-Panfilov), for scripts/gpu-tissue.sh.
#
# --archive FILE also writes the pack as one .tar.xz (about 27 MB for the
# corpus, where the folder is 67 MB: a lent machine takes 64 MiB at most).
#
# Then, on the GPU machine: scripts/gpu-check.sh --pack build/gpu-pack
# (from an archive: tar xJf FILE -C /tmp; --pack /tmp/gpu-pack)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build/gpu-pack"
CHIPS="sm_80,sm_90"
VARIANTS="cpu-simd,cuda"
CPU="x86-64-v4"
CORPUS="${EASYML_CORPUS:-$ROOT/../shared/corpus}"
EXTRA=""
MODELS=""
ARCHIVE=""
TISSUE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --cuda-chips) CHIPS="$2"; shift 2 ;;
    --rocm) VARIANTS="$VARIANTS,rocm"; shift ;;
    --cpu) CPU="$2"; shift 2 ;;
    # Width 1: cpu-simd in the GPU's layout, for dry runs of gpu-check.sh
    # on the emulated driver (test/Runtime/EmulatedDriver).
    --vector-width) EXTRA="$EXTRA --vector-width=$2"; shift 2 ;;
    --emulate) EXTRA="$EXTRA --emulate-gpu-kernels"; shift ;;
    --compile-args) EXTRA="$EXTRA $2"; shift 2 ;;
    --corpus) CORPUS="$2"; shift 2 ;;
    --models) MODELS="$2"; shift 2 ;;
    --archive) ARCHIVE="$2"; shift 2 ;;
    --tissue) TISSUE=1; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "gpu-pack.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
done
# Absolute: the corpus is archived from inside its folder.
OUT="$(realpath -m "$OUT")"
[ -d "$CORPUS/models" ] || { echo "gpu-pack.sh: error: no corpus at $CORPUS" >&2; exit 1; }
"$ROOT/scripts/build.sh" >/dev/null
BIN="$ROOT/build/bin"
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"/{bin,lib,models}
cp "$BIN/easyml-bench" "$OUT.tmp/bin/"
# The OpenMP runtime easyml-bench links (LLVM's; absent where LLVM is).
ldd "$BIN/easyml-bench" | awk '/libomp/ {print $3}' | xargs -r -I{} cp {} "$OUT.tmp/lib/"

models=$(echo ${MODELS:-$(ls "$CORPUS/models")} | tr " " "\n")
n=$(echo "$models" | wc -w)
echo "compiling $n corpus models for $VARIANTS ($CHIPS)..."
echo "$models" | xargs -P "$(nproc)" -I{} sh -c \
  '"$0" "$1/models/{}/model.model" --model-name "{}" --variant="$2" \
     --cuda-chips="$3" --cpu="$6" --emit=shared -o "$4/models/{}.so" -w $5 || echo "FAILED {}"' \
  "$BIN/easyml-compile" "$CORPUS" "$VARIANTS" "$CHIPS" "$OUT.tmp" "$EXTRA" "$CPU" | tee "$OUT.tmp/compile.log"
if grep -q FAILED "$OUT.tmp/compile.log"; then
  echo "gpu-pack.sh: error: some models did not compile" >&2; exit 1
fi
# tentusscher-2006 in openCARP's method mix: its cvode group by forward
# Euler (gates are Rush-Larsen by default), as openCARP's own model does.
mkdir -p "$OUT.tmp/derived"
mix="$OUT.tmp/derived/tentusscher-2006-opencarp-mix.model"
sed 's/\.method(cvode)/.method(fe)/' \
  "$CORPUS/models/tentusscher-2006/model.model" > "$mix"
if grep -q 'method(cvode)' "$mix" || ! grep -q 'method(fe)' "$mix"; then
  echo "gpu-pack.sh: error: cannot derive the openCARP method mix" >&2; exit 1
fi
"$BIN/easyml-compile" "$mix" --model-name tentusscher-2006-opencarp-mix \
  --variant="$VARIANTS" --cuda-chips="$CHIPS" --cpu="$CPU" --emit=shared \
  -o "$OUT.tmp/models/tentusscher-2006-opencarp-mix.so" -w $EXTRA
if [ -n "$TISSUE" ]; then
  cp "$BIN/easyml-tissue" "$OUT.tmp/bin/"
  mkdir -p "$OUT.tmp/models/tissue"
  for m in ten_tusscher_panfilov_2006 aliev_panfilov_1996; do
    "$BIN/easyml-compile" "$ROOT/examples/models/$m.model" \
      --variant="$VARIANTS" --cuda-chips="$CHIPS" --cpu="$CPU" --emit=shared \
      -o "$OUT.tmp/models/tissue/$m.so" -w $EXTRA
  done
fi
# Roofline facts per model (the FP64 operations of one cell-step).
python3 "$ROOT/benchmarks/gpu.py" --facts "$OUT.tmp/facts.json" \
  --corpus "$CORPUS" --build "$ROOT/build" --derived "$OUT.tmp/derived" \
  ${MODELS:+--models $MODELS}
( cd "$CORPUS" && tar cJf "$OUT.tmp/corpus.tar.xz" \
    models/*/reference.csv models/*/meta.json models/*/protocol.json )
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
echo "packed: $OUT ($(du -sh "$OUT" | cut -f1))"
if [ -n "$ARCHIVE" ]; then
  mkdir -p "$(dirname "$ARCHIVE")"
  tar cf - -C "$(dirname "$OUT")" "$(basename "$OUT")" | xz -T0 -6 > "$ARCHIVE.tmp"
  mv "$ARCHIVE.tmp" "$ARCHIVE"
  echo "archive: $ARCHIVE ($(du -sh "$ARCHIVE" | cut -f1))"
fi
