#!/usr/bin/env bash
# The guide's "In a build" commands (docs/guide/build-integration.md), as CI runs them (from the repository
# root, with `halc` on PATH or HALC=path/to/halc).
set -euo pipefail
halc() { "${HALC:-halc}" "$@"; }
cd "$(dirname "$0")"
mkdir -p build

halc build halc.toml                                  # every executable; checks kernels.lock
halc inspect --json build/kernels.halc > build/inspect.json
cmp build/inspect.json build/kernels.json             # --reflection writes what inspect prints
cat build/kernels.d

# The ABI lock at work: pin saxpy's y buffer to another slot and the build
# must fail, naming the move, and leave the executable as it was.
cp build/kernels.halc build/before.halc
printf '[[binding]]\nset = 0\nbinding = 1\nid = 5\n' > build/moved.toml
sed 's|^lock = "kernels.lock"|lock = "kernels.lock"\nbinding_map = "build/moved.toml"|' halc.toml > moved.halc.toml
if halc build moved.halc.toml 2> build/lock-error.txt; then
  echo "the lock did not catch a moved binding" >&2; exit 1
fi
rm moved.halc.toml
grep -q 'saxpy: set 0 binding 1 moved from id 1, byte offset 8 to id 5, byte offset 8' build/lock-error.txt
cmp build/before.halc build/kernels.halc
echo "manifest example: OK"
