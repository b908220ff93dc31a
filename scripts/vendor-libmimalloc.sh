#!/usr/bin/env bash
# Rebuilds vendor/libmimalloc-sys: the crates.io crate libmimalloc-sys (the
# mimalloc a batch's workers give SPIRV-Cross and SPIRV-Tools), with mimalloc
# 2 only (halc builds it with the `v2` feature; the `v3` sources are left
# out), with the patch in vendor/patches/libmimalloc-sys applied
# (vendor/README.md says why): no constructor initialises mimalloc in every
# process that links it. Before it installs or compares anything it builds
# mimalloc from the patched tree and from the original and runs the test on
# both: patched, uninitialised until the program initialises it; original,
# initialised at start; allocations from it either way.
#   bash scripts/vendor-libmimalloc.sh          # rewrite vendor/libmimalloc-sys
#   bash scripts/vendor-libmimalloc.sh --check  # fail if it differs from what is committed
# Needs cargo (to fetch the crate through the configured registry), cc and patch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.1.49"
# The checksum crates.io's index gives for that version (Cargo.lock before vendoring).
sha256="6a45a52f43e1c16f667ccfe4dd8c85b7f7c204fd5e3bf46c5b0db9a5c3c0b8e9"
dest="$root/vendor/libmimalloc-sys"
patches="$root/vendor/patches/libmimalloc-sys"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=lib/vendor.sh
. "$root/scripts/lib/vendor.sh"
vendor_fetch libmimalloc-sys "$version" "$sha256" "$tmp"

# --- what building mimalloc 2 needs, nothing else ------------------------------
prune() {
  local d=$1
  rm -f "$d/.cargo_vcs_info.json" "$d/Cargo.toml.orig" "$d/Cargo.lock"
  rm -rf "$d/c_src/mimalloc/v3" "$d/c_src/mimalloc/v2/contrib" "$d/c_src/mimalloc/v2/azure-pipelines.yml"
}
prune "$tmp/original"
prune "$tmp/patched"
vendor_patch "$patches" "$tmp"

# --- the patched mimalloc against the original ----------------------------------------
# Built as the crate's build.rs builds it without debug features (static.c,
# both include directories, MI_NO_THP for the `no_thp` feature halc uses);
# the patched tree with the define its build.rs now adds, which the test checks.
grep -q 'build.define("MI_NO_PROCESS_ATTACH", "1");' "$tmp/patched/build.rs"
for tree in original patched; do
  src="$tmp/$tree/c_src/mimalloc/v2"
  defines=(-DMI_NO_THP=1 -DMI_DEBUG=0 -DMI_BUILD_RELEASE -DNDEBUG)
  [ "$tree" = patched ] && defines+=(-DMI_NO_PROCESS_ATTACH=1)
  cc -O1 -ftls-model=initial-exec "${defines[@]}" -I"$src/include" -I"$src/src" \
    "$src/src/static.c" "$patches/no_process_constructor_test.c" -lpthread -o "$tmp/test-$tree"
  vendor_test "constructor:" "$tmp/test-$tree" "$tree"
done

# --- install or compare ----------------------------------------------------------
vendor_finish libmimalloc-sys "$version" "$tmp" "$dest" "$patches" "${1:-}"
