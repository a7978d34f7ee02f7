#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run the lit suite
# (which includes the gtest unit tests and the corpus checks), then a bounded
# fuzz run of the front end. Ends with a 'N passed, N failed' line.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EASYML_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" || exit 1
"$root/scripts/build.sh" || exit 1
"$root/scripts/build.sh" EasyMLFrontendTests easyml-fuzz-frontend mlir-doc || exit 1
"$root/scripts/make-venv.sh" || exit 1

log=$(mktemp)
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test" | tee "$log"
lit_status=${PIPESTATUS[0]}
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
unsupported=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
rm -f "$log"
passed=${passed:-0}; failed=${failed:-0}; unsupported=${unsupported:-0}
if [ "$lit_status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi

if "$root/scripts/fuzz.sh"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi
echo
if [ "$unsupported" -gt 0 ]; then
  echo "$passed passed, $failed failed, $unsupported skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
