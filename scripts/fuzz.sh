#!/usr/bin/env bash
# Bounded libFuzzer run of the front end, seeded with the reference corpus
# (when ../shared/corpus exists), the example models and the lit inputs.
# Usage: scripts/fuzz.sh [seconds]   (default: $EASYML_FUZZ_SECONDS or 120)
# Exits non-zero if the fuzzer finds a crash, leak or sanitizer report; the
# reproducer is left in build/fuzz-artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EASYML_BUILD_DIR:-$root/build}
seconds=${1:-${EASYML_FUZZ_SECONDS:-120}}
"$root/scripts/build.sh" easyml-fuzz-frontend
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
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|INFO: Running|Done)" || true
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "easyml: the fuzzer found a problem (exit $status); see $artifacts" >&2
  exit 1
fi
echo "easyml: fuzz run clean"
