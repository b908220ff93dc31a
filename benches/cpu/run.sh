#!/usr/bin/env bash
# CPU-backend benchmark: ns/thread for saxpy (1 M threads, no barriers) and a
# 128-thread tree reduction (8 barriers), warm cache, and clang's cold compile
# time per kernel. Needs glslc and clang++ >= 15.
#   bash benches/cpu/run.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cargo build -q --release --bin halc
glslc --target-env=vulkan1.0 benches/cpu/reduce128.comp -o "$tmp/reduce128.spv"
target/release/halc compile fixtures/kernels/saxpy.spv -o "$tmp/saxpy.halc"
target/release/halc compile "$tmp/reduce128.spv" -o "$tmp/reduce128.halc"
cargo run -q --release -p runtime-loader --features cpu --example cpu_bench -- "$tmp/saxpy.halc" "$tmp/reduce128.halc"
