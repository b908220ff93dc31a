# Shared by scripts/vendor-spirv-cross.sh, and vendor-spirv-tools.sh
# (sourced): fetch a crate as the registry serves it, apply halc's patches to
# a copy, and install the patched copy under vendor/ or compare it with what
# is committed there. Each script prunes, tests its patches and then calls
# vendor_finish.

# vendor_fetch CRATE VERSION SHA256 TMP: TMP/original and TMP/patched, each
# the crate's contents, after checking its SHA-256 against the one crates.io's
# index gives (the Cargo.lock entry before vendoring).
vendor_fetch() {
  local crate=$1 version=$2 sha256=$3 tmp=$4
  mkdir -p "$tmp/fetch/src"
  cat > "$tmp/fetch/Cargo.toml" <<TOML
[package]
name = "fetch-$crate"
version = "0.0.0"
edition = "2021"
[dependencies]
$crate = "=$version"
TOML
  touch "$tmp/fetch/src/lib.rs"
  cargo fetch -q --manifest-path "$tmp/fetch/Cargo.toml"
  local file
  file="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$crate-$version.crate" | head -1)"
  echo "$sha256  $file" | sha256sum -c --quiet -
  mkdir -p "$tmp/original" "$tmp/patched"
  tar -xzf "$file" -C "$tmp/original" --strip-components=1
  tar -xzf "$file" -C "$tmp/patched" --strip-components=1
}

# vendor_patch PATCHES TMP: every PATCHES/*.patch applied to TMP/patched, in
# order (none when PATCHES does not exist).
vendor_patch() {
  local p
  for p in "$1"/*.patch; do
    [ -e "$p" ] || continue
    patch -s -p1 --no-backup-if-mismatch -d "$2/patched" < "$p"
  done
}

# vendor_finish CRATE VERSION TMP DEST PATCHES MODE: MODE --check fails when
# DEST differs from TMP/patched; otherwise DEST becomes TMP/patched.
vendor_finish() {
  local crate=$1 version=$2 tmp=$3 dest=$4 patches=$5 mode=$6
  local name="vendor/${dest##*/vendor/}"
  if [ "$mode" = "--check" ]; then
    if ! diff -r "$tmp/patched" "$dest" >/dev/null; then
      diff -r "$tmp/patched" "$dest" | head -20 >&2
      echo "$name differs from $crate $version with ${patches##*/vendor/} applied: run scripts/vendor-${crate%-sys}.sh" >&2
      exit 1
    fi
    echo "$name is $crate $version with $(find "$patches" -name '*.patch' 2>/dev/null | wc -l) patch(es) applied"
  else
    rm -rf "$dest"
    cp -a "$tmp/patched" "$dest"
    # Dated now, not as the crate's archive dates them (years back): cargo
    # rebuilds a path crate only for files newer than its last build.
    find "$dest" -type f -exec touch {} +
    echo "wrote $dest ($(du -sh "$dest" | cut -f1))"
  fi
}

# vendor_test LABEL COMMAND...: runs a differential test and prints LABEL and
# its summary line. A failing test ends the script (set -e): the output is
# assigned first, since `echo "$(test)"` succeeds whatever the test did.
vendor_test() {
  local out
  out=$("${@:2}")
  echo "$1 $out"
}
