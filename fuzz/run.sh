#!/usr/bin/env bash
# Runs one fuzz target for a given time, seeding its corpus first.
#   bash fuzz/run.sh TARGET SECONDS
# TARGET: compile_bytes | compile_mutated   (fuzz/, the compiler)
#         amber_parse                         (fuzz/, halc test's Amber parser)
#         amber_run                           (fuzz/, halc test's runner, CPU backend)
#         load_bytes | load_mutated         (runtime-loader/fuzz/, the loader)
# Needs nightly and cargo-fuzz (`cargo install cargo-fuzz`). Crashes land in
# the package's artifacts/TARGET/; each becomes a regression fixture.
set -euo pipefail
target="${1:?target}"
secs="${2:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "$target" in
  compile_*|amber_*) pkg="$root/fuzz" ;;
  load_*) pkg="$root/runtime-loader/fuzz" ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
seeds="$pkg/seeds/$target"
rm -rf "$seeds"
mkdir -p "$seeds" "$pkg/corpus/$target"
case "$target" in
  compile_*)
    cp "$root"/fixtures/kernels/*.spv "$seeds/"
    ;;
  amber_*)
    cp "$root"/tests/amber/*.amber "$root"/tests/amber/*.vkscript "$root"/tests/amber/negative/*.amber "$seeds/"
    ;;
  load_mutated)
    cargo build -q --manifest-path "$root/Cargo.toml" --bin halc
    halc="$root/target/debug/halc"
    for f in "$root"/fixtures/kernels/*.spv; do
      n="$(basename "$f" .spv)"
      "$halc" compile "$f" -o "$seeds/$n.halc" 2>/dev/null || true
      "$halc" compile "$f" --bindings discrete -o "$seeds/$n.discrete.halc" 2>/dev/null || true
      "$halc" compile "$f" --argument-buffer-tier 1 --platform ios -o "$seeds/$n.ios1.halc" 2>/dev/null || true
    done
    ;;
esac
# amber_run: a dispatch has 2 s (its own limit); an input past 30 s hangs.
# ASan's own alternate signal stack is off: at a thread's exit ASan unmaps
# whatever alternate stack the thread has, which in a dispatch is the
# executor's, and dies (the sandbox then reports its write to stderr).
timeout=()
if [ "$target" = amber_run ]; then
  timeout=(-timeout=30)
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0:use_sigaltstack=0"
fi
cd "$pkg"
cargo +nightly fuzz run "$target" "corpus/$target" "$seeds" -- \
  -max_total_time="$secs" -rss_limit_mb=4096 -print_final_stats=1 "${timeout[@]}"
