#!/usr/bin/env bash
# Runs halc test over public Amber corpora in its three modes and prints the
# results table (docs/conformance.md holds the last one).
#
#   scripts/conformance/run.sh OUT_DIR CORPUS_DIR... [-- HALC_TEST_ARGS...]
#
# CORPUS_DIR: checkouts of google/amber's tests/cases and of the Vulkan CTS's
# external/vulkancts/data/vulkan/amber (never committed: fetch them). The
# compute-only, buffer-only tests among them (classify.py) run with
# `halc test --json` on the CPU, with `--reference vulkan` and `--compare`.
# The table also counts each mode over the tests the amber CLI passes on
# the same lavapipe (docs/conformance/amber-baseline.tsv, or $AMBER_BASELINE:
# a TSV of test, PASS|FAIL|SKIP, ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
python3 "$here/classify.py" "${dirs[@]}" > "$out/list.txt"
echo "$(wc -l < "$out/list.txt") compute-only, buffer-only tests" >&2
halc=${HALC:-$here/../../target/release/halc}
mapfile -t files < "$out/list.txt"
for mode in cpu vulkan compare; do
  case $mode in
    cpu) flags=() ;;
    vulkan) flags=(--reference vulkan) ;;
    compare) flags=(--compare) ;;
  esac
  start=$(date +%s)
  "$halc" test --json --time-limit "${TIME_LIMIT:-30}" "${flags[@]}" "$@" "${files[@]}" > "$out/$mode.json" || true
  echo "$mode: $(( $(date +%s) - start )) s" | tee -a "$out/times.txt" >&2
done
base=(--baseline "${AMBER_BASELINE:-$here/../../docs/conformance/amber-baseline.tsv}")
python3 "$here/report.py" "${base[@]}" cpu="$out/cpu.json" vulkan="$out/vulkan.json" compare="$out/compare.json"
