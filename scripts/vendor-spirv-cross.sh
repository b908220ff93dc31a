#!/usr/bin/env bash
# Rebuilds vendor/spirv-cross-sys: the crates.io crate spirv-cross-sys (the
# SPIRV-Cross sources spirv-cross2 builds), without SPIRV-Cross's test data,
# with the patches in vendor/patches/spirv-cross-sys applied
# (vendor/README.md says why). Before it installs or compares anything it
# runs the differential test of each patched function against the original
# (vendor/patches/spirv-cross-sys/*_test.cpp): needs_enclose_expression (0001)
# on every code path it has (SSE2, the scalar loop, and AArch64 NEON when
# aarch64-linux-gnu-g++ and qemu-aarch64 are installed: apt-get install
# g++-aarch64-linux-gnu qemu-user; HALC_REQUIRE_NEON_TEST=1 makes their
# absence an error). 0003 and 0005 to 0010 change
# the MSL (clustered min and max, ldexp, OpCopyMemory, half matrix inverse,
# SPV_EXPECT, array copies from a select, iOS subgroup masks): their tests
# run that MSL (cargo test: tests/amber/subgroup_clustered.amber,
# ldexp_int64_exponent.amber, copy_memory.amber, matrix_inverse_half.amber,
# expect_assume.amber, array_select.amber, and subgroup_ballot_khr.amber on
# iOS).
#   bash scripts/vendor-spirv-cross.sh          # rewrite vendor/spirv-cross-sys
#   bash scripts/vendor-spirv-cross.sh --check  # fail if it differs from what is committed
# Needs cargo (to fetch the crate through the configured registry), c++ and patch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.7.4+aa217ae"
# The checksum crates.io's index gives for that version (Cargo.lock before vendoring).
sha256="0d4a12082fc9d2414042b776646d6ed9fd650410f500e611dedd3f713cf7bd1d"
dest="$root/vendor/spirv-cross-sys"
patches="$root/vendor/patches/spirv-cross-sys"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- the crate, as the registry serves it -----------------------------------
# shellcheck source=lib/vendor.sh
. "$root/scripts/lib/vendor.sh"
vendor_fetch spirv-cross-sys "$version" "$sha256" "$tmp"

# --- what building it needs, nothing else -------------------------------------
prune() {
  local d=$1
  # cargo's packaging records and the crate's own lock file.
  rm -f "$d/.cargo_vcs_info.json" "$d/Cargo.toml.orig" "$d/Cargo.lock" "$d/.gitignore" "$d/.gitmodules"
  # SPIRV-Cross's tests, samples, CLI and build systems other than the crate's build.rs.
  (cd "$d/native/SPIRV-Cross" && rm -rf reference shaders* samples tests-other cmake gn pkg-config .github .reuse \
    .clang-format .gitignore main.cpp CMakeLists.txt Makefile Package.swift appveyor.yml format_all.sh \
    build_glslang_spirv_tools.sh checkout_glslang_spirv_tools.sh test_shaders.py test_shaders.sh \
    update_test_shaders.sh spirv_cross.natvis CODE_OF_CONDUCT.adoc CONTRIBUTING.md)
}
prune "$tmp/original"
prune "$tmp/patched"
vendor_patch "$patches" "$tmp"

# --- each patched function against the original --------------------------------
# CompilerGLSL::needs_enclose_expression (0001).
extract() { # FILE NAME: the definition of CompilerGLSL::needs_enclose_expression as a free function NAME
  awk '/^bool CompilerGLSL::needs_enclose_expression\(/ { on = 1 } on { print } on && /^}\r?$/ { exit }' "$1" \
    | tr -d '\r' | sed "s/^bool CompilerGLSL::needs_enclose_expression(/static bool $2(/"
}
{
  echo '#if defined(__SSE2__)'
  echo '#include <emmintrin.h>'
  echo '#elif defined(__aarch64__) && defined(__ARM_NEON)'
  echo '#include <arm_neon.h>'
  echo '#endif'
  echo '#include <cassert>'
  echo '#include <cstdint>'
  echo '#include <string>'
  extract "$tmp/original/native/SPIRV-Cross/spirv_glsl.cpp" original_needs_enclose
  extract "$tmp/patched/native/SPIRV-Cross/spirv_glsl.cpp" patched_needs_enclose
} > "$tmp/functions.inc"
grep -q 'static bool original_needs_enclose' "$tmp/functions.inc"
grep -q 'static bool patched_needs_enclose' "$tmp/functions.inc"
# With NDEBUG, as halc builds SPIRV-Cross (.cargo/config.toml): the original's asserts stop at unbalanced input.
test_cpp="$patches/needs_enclose_expression_test.cpp"
c++ -std=c++14 -O2 -DNDEBUG -I"$tmp" "$test_cpp" -o "$tmp/test-sse2"
c++ -std=c++14 -O2 -DNDEBUG -U__SSE2__ -I"$tmp" "$test_cpp" -o "$tmp/test-scalar"
vendor_test "SSE2:   " "$tmp/test-sse2"
vendor_test "scalar: " "$tmp/test-scalar"
if command -v aarch64-linux-gnu-g++ >/dev/null && command -v qemu-aarch64 >/dev/null; then
  aarch64-linux-gnu-g++ -std=c++14 -O2 -DNDEBUG -static -I"$tmp" "$test_cpp" -o "$tmp/test-neon"
  vendor_test "NEON:   " qemu-aarch64 "$tmp/test-neon"
elif [ "${HALC_REQUIRE_NEON_TEST:-0}" = 1 ]; then
  echo "HALC_REQUIRE_NEON_TEST=1 but aarch64-linux-gnu-g++ or qemu-aarch64 is missing" >&2
  exit 1
else
  echo "NEON:    not tested (apt-get install g++-aarch64-linux-gnu qemu-user)"
fi

# --- install or compare ----------------------------------------------------------
vendor_finish spirv-cross-sys "$version" "$tmp" "$dest" "$patches" "${1:-}"
