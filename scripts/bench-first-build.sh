#!/usr/bin/env bash
# The first build of a crate that depends on halc (issue 36, item 2): a copy of
# examples/kernels-app (halc::build in build.rs, the runtime-loader with the CPU
# backend, the guide's recipe, docs/guide/build-integration.md) built with `cargo build` into an empty target
# directory, as a user's first build after adding halc. Its peer in the same
# run is the same crate with SPIRV-Tools' optimizer turned back on (what every
# build compiled before halc stopped asking for it: vendor/README.md,
# spirv-tools-sys 0003), built the same way; the runs alternate.
#
# Prints, per variant: wall time, CPU time (user + system), and the ten units
# that took longest (cargo --timings), then the ratio of the medians.
#
# Usage: bash scripts/bench-first-build.sh        (ROUNDS=N, default 1: N builds of each)
# Needs: Rust, glslc, python3, /usr/bin/time. Registry downloads are fetched
# first and not counted. scripts/bench.sh runs it as its last section.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ROUNDS=${ROUNDS:-1}
WORK=${WORK:-$root/target/bench/first-build}
rm -rf "$WORK" && mkdir -p "$WORK"
export CARGO_TERM_COLOR=never

# The crate, its paths to halc made absolute (they are relative to the
# example's place in the repository).
make_app() {
  local dir=$1 opt=$2
  mkdir -p "$dir"
  cp -r examples/kernels-app/build.rs examples/kernels-app/src examples/kernels-app/shaders "$dir/"
  cp examples/kernels-app/Cargo.lock "$dir/"
  sed -e "s#\"\.\./\.\./#\"$root/#g" -e "s#\"\.\./\.\.\"#\"$root\"#g" examples/kernels-app/Cargo.toml > "$dir/Cargo.toml"
  if [ "$opt" = with-optimizer ]; then
    # A build dependency on spirv-tools-sys asking for `opt`: cargo unifies
    # the features of halc's copy with it.
    python3 - "$dir/Cargo.toml" <<'EOF'
import sys
p = sys.argv[1]; s = open(p).read()
anchor = "[build-dependencies]\n"
assert anchor in s
s = s.replace(anchor, anchor + 'spirv-tools-sys = { version = "0.13", default-features = false, features = ["use-compiled-tools", "opt"] }\n', 1)
open(p, "w").write(s)
EOF
  fi
  grep -q "$root/vendor/spirv-tools-sys" "$dir/Cargo.toml"
  cargo fetch -q --manifest-path "$dir/Cargo.toml"
}
make_app "$WORK/app" without-optimizer
make_app "$WORK/app-opt" with-optimizer
# The control: the peer does compile the optimizer, this one does not.
cargo tree -q --manifest-path "$WORK/app-opt/Cargo.toml" -e features -i spirv-tools-sys | grep -q 'feature "opt"'
if cargo tree -q --manifest-path "$WORK/app/Cargo.toml" -e features -i spirv-tools-sys | grep -q 'feature "opt"'; then
  echo "the crate builds SPIRV-Tools' optimizer" >&2
  exit 1
fi

build() {
  local name=$1 dir=$2 round=$3
  local target="$WORK/target-$name"
  rm -rf "$target"
  /usr/bin/time -f "%e %U %S" -o "$WORK/$name-$round.time" \
    env CARGO_TARGET_DIR="$target" cargo build -q --timings --manifest-path "$dir/Cargo.toml"
  cp "$target"/cargo-timings/cargo-timing.html "$WORK/$name-$round.html"
  rm -rf "$target"
}
for round in $(seq 1 "$ROUNDS"); do
  build halc "$WORK/app" "$round"
  build halc-with-optimizer "$WORK/app-opt" "$round"
done

python3 - "$WORK" "$ROUNDS" "$(nproc)" <<'EOF'
import json, re, statistics, sys
work, rounds, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3]
walls = {}
for name in ("halc", "halc-with-optimizer"):
    ws, cpus = [], []
    for r in range(1, rounds + 1):
        wall, user, system = map(float, open(f"{work}/{name}-{r}.time").read().split()[-3:])
        ws.append(wall); cpus.append(user + system)
    walls[name] = statistics.median(ws)
    print(f"first build, {name}: {statistics.median(ws) / 60:.1f} min wall, "
          f"{statistics.median(cpus) / 60:.1f} min CPU ({rounds} build(s), {cores} cores)")
    html = open(f"{work}/{name}-{rounds}.html").read()
    units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)[1])
    units.sort(key=lambda u: -u["duration"])
    for u in units[:10]:
        print(f"    {u['duration']:7.1f} s  {u['name']} {u['version']} {u.get('target', '').strip()}")
print(f"first build: {walls['halc'] / walls['halc-with-optimizer']:.2f} x the time with the optimizer")
EOF
