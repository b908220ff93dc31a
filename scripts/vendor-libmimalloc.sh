#!/usr/bin/env bash
# Rebuilds vendor/libmimalloc-sys: the crates.io crate libmimalloc-sys (the
# mimalloc a batch's workers give SPIRV-Cross and SPIRV-Tools), with mimalloc
# 2 only (halc builds it with the `v2` feature; the `v3` sources are left
# out), unpatched: its one patch (no process constructor) was removed when
# scripts/bench-patches.sh measured it under 5 % (vendor/README.md).
#   bash scripts/vendor-libmimalloc.sh          # rewrite vendor/libmimalloc-sys
#   bash scripts/vendor-libmimalloc.sh --check  # fail if it differs from what is committed
# Needs cargo (to fetch the crate through the configured registry).
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

# --- install or compare ----------------------------------------------------------
vendor_finish libmimalloc-sys "$version" "$tmp" "$dest" "$patches" "${1:-}"
