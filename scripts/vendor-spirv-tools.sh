#!/usr/bin/env bash
# Rebuilds vendor/spirv-tools-sys and vendor/spirv-tools (below: the Rust
# wrapper, with its optimizer made optional).
# vendor/spirv-tools-sys: the crates.io crate spirv-tools-sys (the
# SPIRV-Tools sources the spirv-tools crate builds; halc runs its validator),
# without the SPIR-V headers' grammar files and bindings for other languages,
# with the patch in vendor/patches/spirv-tools-sys applied (vendor/README.md
# says why: the optimizer behind a feature; it changes what is compiled, not
# a source file, so it has no differential test).
#   bash scripts/vendor-spirv-tools.sh          # rewrite vendor/spirv-tools-sys and vendor/spirv-tools
#   bash scripts/vendor-spirv-tools.sh --check  # fail if it differs from what is committed
# Needs cargo (to fetch the crate through the configured registry) and patch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.13.3"
# The checksum crates.io's index gives for that version (Cargo.lock before vendoring).
sha256="3dbb2c54a9c790946820dd59163c63155e00204e0cbdc4d18374bee4d868ae66"
dest="$root/vendor/spirv-tools-sys"
patches="$root/vendor/patches/spirv-tools-sys"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- the crate, as the registry serves it -----------------------------------
# shellcheck source=lib/vendor.sh
. "$root/scripts/lib/vendor.sh"
vendor_fetch spirv-tools-sys "$version" "$sha256" "$tmp"

# --- what building it needs, nothing else -------------------------------------
prune() {
  local d=$1
  # cargo's packaging records and the crate's own lock file.
  rm -f "$d/.cargo_vcs_info.json" "$d/Cargo.toml.orig" "$d/Cargo.lock"
  # The SPIR-V headers' JSON grammars and headers for languages other than
  # C and C++ (the crate's build reads only C and C++ headers; its tables
  # are generated already, in generated/).
  find "$d/spirv-headers" -type f -not -name '*.h' -not -name '*.hpp' -not -name '*.hpp11' -delete
}
prune "$tmp/original"
prune "$tmp/patched"
vendor_patch "$patches" "$tmp"

# --- install or compare ----------------------------------------------------------
vendor_finish spirv-tools-sys "$version" "$tmp" "$dest" "$patches" "${1:-}"

# --- the Rust wrapper, spirv-tools ------------------------------------------------
# Vendored for one patch (0001): its optimizer module becomes the feature
# `opt` (default on, as spirv-tools-sys's 0003), so that halc, which only
# validates and assembles, builds SPIRV-Tools without the optimizer's 119
# source files. CI builds halc with it and checks that no crate in the
# workspace turns the feature on.
wrapper_version="0.13.3"
wrapper_sha256="43bbd243a64a3ac7f87f8f026977285fc578698627337bd65a309576e89ad00f"
wtmp="$tmp/wrapper"
vendor_fetch spirv-tools "$wrapper_version" "$wrapper_sha256" "$wtmp"
rm -f "$wtmp/patched/.cargo_vcs_info.json" "$wtmp/patched/Cargo.toml.orig" "$wtmp/patched/Cargo.lock"
vendor_patch "$root/vendor/patches/spirv-tools" "$wtmp"
vendor_finish spirv-tools "$wrapper_version" "$wtmp" "$root/vendor/spirv-tools" "$root/vendor/patches/spirv-tools" "${1:-}"
