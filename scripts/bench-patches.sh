#!/usr/bin/env bash
# What each performance patch under vendor/patches buys today (issue 37: keep
# a patch to a vendored crate only for >= 5 % on a workload a user sees).
# For each patch below it builds a release halc without that one patch and
# times it against the fully patched halc in the same run, interleaved
# (scripts/lib/interleave.py, as scripts/bench.sh): each round runs both
# once, in a random order, and the ratio is taken within the round. Workloads:
#   batch  one `halc compile -q -j NPROC` of every module of the bench corpus
#          (target/release/examples/bench_corpus writes it)
#   large  the corpus's largest module compiled alone (`halc compile F -o O`)
#   small  saxpy compiled alone (1.6 KB: a process's start is most of it)
# and prints, per patch and workload, the medians with and without the patch,
# the median of the per-round ratios (without / with: what the patch buys),
# their spread (the middle half of the rounds' ratios: how noisy one round
# is), the 95 % confidence interval of that median (order statistics; it
# narrows with more rounds) and the verdict, from the interval:
#   keep     the whole interval is at or above 1.05
#   drop     the whole interval is below 1.05
#   unclear  the interval crosses 1.05 (keep the patch; measure again on a
#            quieter machine or with more rounds)
# A patch is kept if any workload keeps it or is unclear.
#
# The builds: the commit REV (default HEAD; committed files only, so that
# work in progress in the checkout does not end up in one build and not the
# other) is extracted to DIR/full, and each variant is a copy of it in
# DIR/<variant> whose `[patch.crates-io]` points the crate it changes at
# DIR/<variant>.vendor/<crate>, a copy of DIR/full's with that one patch
# reversed (`patch -R -F0`: without fuzz, so the tree is the one the vendor
# script writes without that patch, the other patches touching other lines),
# and the crates it does not change at DIR/full/vendor. All builds share one
# target directory, DIR/target, where cargo keeps one build of a path crate
# per path, outside a workspace (inside one it names the crate by its path
# relative to the workspace's root, which every copy shares: a variant's
# changed crate under its own vendor/ would be rebuilt by each variant and
# be taken, stale, by the next). So the C++ of the crates no variant changes
# is compiled twice (DIR/full's own, and the copies' shared one) and that of
# each changed crate once per variant; halc, whose dependencies differ, in
# each build. The variants are built and measured one after the other.
#
# Usage: bash scripts/bench-patches.sh [VARIANT...]     (default: all)
#   BENCH_PATCHES_DIR  where the copies, the target directory and the results
#                      go (default target/bench/patches)
#   BENCH_PATCHES_REV  the commit measured (default HEAD)
#   BATCH_ROUNDS (default 60), LARGE_ROUNDS (400), SMALL_ROUNDS (1500): about a
#   minute of measuring per patch on 2 cores
# Needs cargo, python3, patch. Not run by CI (it measures).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export CARGO_TERM_COLOR=never
DIR=${BENCH_PATCHES_DIR:-$ROOT/target/bench/patches}
REV=$(git rev-parse "${BENCH_PATCHES_REV:-HEAD}")
BATCH_ROUNDS=${BATCH_ROUNDS:-60}
LARGE_ROUNDS=${LARGE_ROUNDS:-400}
SMALL_ROUNDS=${SMALL_ROUNDS:-1500}
JOBS=$(nproc)
INTERLEAVE=$ROOT/scripts/lib/interleave.py

# variant  vendored crate  patch (vendor/patches/<crate>/<patch>.patch)
VARIANTS=(
  "cross-0001 spirv-cross-sys 0001-needs_enclose_expression-16-characters-at-a-time"
  "cross-0002 spirv-cross-sys 0002-inherit_expression_dependencies-merge-sorted-lists"
  "cross-0004 spirv-cross-sys 0004-keyword-sets-sorted-arrays"
  "tools-0001 spirv-tools-sys 0001-validation-state-counts-by-word-counts"
  "tools-0002 spirv-tools-sys 0002-lookup-opcode-dense-table"
)
CRATES=(spirv-cross-sys spirv-tools-sys spirv-tools)
WANT=("$@")
wanted() { [ ${#WANT[@]} = 0 ] || printf '%s\n' "${WANT[@]}" | grep -qxF "$1"; }

mkdir -p "$DIR/results" "$DIR/bin"
export CARGO_TARGET_DIR=$DIR/target

# --- the fully patched workspace -------------------------------------------------
FULL=$DIR/full
if [ "$(cat "$FULL/.rev" 2>/dev/null)" != "$REV" ]; then
  rm -rf "$FULL"
  mkdir -p "$FULL"
  # Files dated now (-m): older than nothing built here before, so cargo,
  # which compares dates, rebuilds what a different REV changed.
  git archive "$REV" | tar -x -m -C "$FULL"
  echo "$REV" > "$FULL/.rev"
fi
echo "measuring $(git log -1 --format='%h %s' "$REV" | cut -c1-80)" >&2
build() { # WORKSPACE NAME: a release halc, copied to DIR/bin/halc-NAME.built
  # From the workspace's directory, for its .cargo/config.toml.
  (cd "$1" && cargo build -q --release --bin halc --example bench_corpus)
  cp "$CARGO_TARGET_DIR/release/halc" "$DIR/bin/halc-$2.built"
}
echo "building full" >&2
build "$FULL" full
CORPUS=$DIR/corpus
rm -rf "$CORPUS"
"$CARGO_TARGET_DIR/release/examples/bench_corpus" "$CORPUS" > "$DIR/corpus.txt"
mapfile -t FILES < <(awk '{print "'"$CORPUS"'/" $1}' "$DIR/corpus.txt")
LARGE=$(ls -S "${FILES[@]}" | sed -n 1p)
SMALL=$CORPUS/saxpy.spv
[ -f "$SMALL" ]
echo "corpus: ${#FILES[@]} modules; largest $(basename "$LARGE") ($(stat -c %s "$LARGE") bytes); small $(basename "$SMALL") ($(stat -c %s "$SMALL") bytes)" >&2

# --- each variant: built, then measured against full ---------------------------------
for v in "${VARIANTS[@]}"; do
  read -r name crate patch <<<"$v"
  wanted "$name" || continue
  file=$FULL/vendor/patches/$crate/$patch.patch
  if [ ! -f "$file" ]; then
    echo "$name: $crate/$patch.patch is not in $REV (removed?): skipped" >&2
    continue
  fi
  V=$DIR/$name
  if [ "$(cat "$V/.rev" 2>/dev/null)" != "$REV" ]; then
    rm -rf "$V" "$V.vendor"
    cp -a "$FULL" "$V"
    rm -rf "$V/.rev" "$V/vendor"
    mkdir -p "$V.vendor"
    cp -a "$FULL/vendor/$crate" "$V.vendor/"
    patch -R -p1 -F0 -s -d "$V.vendor/$crate" < "$file"
    for c in "${CRATES[@]}"; do
      to=$FULL/vendor/$c
      [ "$c" = "$crate" ] && to=$V.vendor/$c
      sed -i "s|^$c = { path = \"vendor/$c\" }|$c = { path = \"$to\" }|" "$V/Cargo.toml"
      grep -qxF "$c = { path = \"$to\" }" "$V/Cargo.toml"
    done
    echo "$REV" > "$V/.rev"
  fi
  echo "building $name (without $crate/$patch)" >&2
  build "$V" "$name"

  # Both programs copied just before measuring: how a program's pages came
  # into the page cache changes how fast it starts (scripts/bench.sh).
  WITH=$DIR/bin/halc-full
  WITHOUT=$DIR/bin/halc-$name
  cp "$DIR/bin/halc-full.built" "$WITH"
  cp "$DIR/bin/halc-$name.built" "$WITHOUT"
  out=$DIR/results/$name
  mkdir -p "$out"
  python3 - "$WITH" "$WITHOUT" "$out" "$JOBS" "$LARGE" "$SMALL" "${FILES[@]}" <<'PY'
import json, sys
with_, without, out, jobs, large, small, *files = sys.argv[1:]
def spec(argv):
    return {k: {"argv": [h, *argv(k)]} for k, h in (("with", with_), ("without", without))}
json.dump(spec(lambda k: ["compile", "-q", "-j", jobs, *files, "-o", f"{out}/batch-{k}.halc"]), open(f"{out}/batch.spec.json", "w"))
json.dump(spec(lambda k: ["compile", large, "-o", f"{out}/large-{k}.halc"]), open(f"{out}/large.spec.json", "w"))
json.dump(spec(lambda k: ["compile", small, "-o", f"{out}/small-{k}.halc"]), open(f"{out}/small.spec.json", "w"))
PY
  echo "measuring $name: batch ($BATCH_ROUNDS rounds), large ($LARGE_ROUNDS), small ($SMALL_ROUNDS)" >&2
  python3 "$INTERLEAVE" "$BATCH_ROUNDS" "$out/batch.json" "$out/batch.spec.json"
  python3 "$INTERLEAVE" "$LARGE_ROUNDS" "$out/large.json" "$out/large.spec.json"
  python3 "$INTERLEAVE" "$SMALL_ROUNDS" "$out/small.json" "$out/small.spec.json"
  for w in batch large small; do
    if cmp -s "$out/$w-with.halc" "$out/$w-without.halc"; then echo identical; else echo DIFFERENT; fi > "$out/$w.same"
  done
  echo "$crate/$patch.patch" > "$out/patch"
done

# --- the table -------------------------------------------------------------------
python3 - "$DIR/results" "${#FILES[@]}" "$JOBS" "$(basename "$LARGE")" "$(basename "$SMALL")" "${VARIANTS[@]}" <<'PY'
import json, os, statistics, sys
results, n, jobs, large, small, *variants = sys.argv[1:]
labels = {
    "batch": f"batch: {n} modules, -j {jobs}",
    "large": f"largest alone: {large}",
    "small": f"small alone: {small}",
}
def quartiles(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]
def median_ci(xs):
    # The ranks whose interval holds the median with ~95 % probability
    # (binomial, normal approximation), whatever the distribution.
    s, n = sorted(xs), len(xs)
    h = 0.98 * n ** 0.5
    lo, hi = max(int(n / 2 - h), 0), min(int(n / 2 + 1 + h + 0.999), n) - 1
    return s[lo], s[hi]
rows = [("patch", "workload", "rounds", "with", "without", "ratio", "middle half", "95 % CI", "output", "verdict")]
summary = []
for v in variants:
    name = v.split()[0]
    d = os.path.join(results, name)
    if not os.path.exists(os.path.join(d, "patch")):
        continue
    patch = open(os.path.join(d, "patch")).read().strip()
    verdicts = []
    for w in ("batch", "large", "small"):
        t = json.load(open(os.path.join(d, f"{w}.json")))
        ratios = [b / a for a, b in zip(t["with"], t["without"])]
        r = statistics.median(ratios)
        q1, q3 = quartiles(ratios)
        lo, hi = median_ci(ratios)
        verdict = "keep" if lo >= 1.05 else "drop" if hi < 1.05 else "unclear"
        verdicts.append(verdict)
        same = open(os.path.join(d, f"{w}.same")).read().strip()
        rows.append((name, labels[w], str(len(ratios)),
                     f"{statistics.median(t['with'])*1e3:.1f} ms", f"{statistics.median(t['without'])*1e3:.1f} ms",
                     f"{r:.3f}", f"{q1:.3f}-{q3:.3f}", f"{lo:.3f}-{hi:.3f}", same, verdict))
    overall = "keep" if "keep" in verdicts else "unclear: keep" if "unclear" in verdicts else "drop"
    summary.append(f"{name} ({patch}): {overall}")
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
print()
print("ratio: the median over rounds of (without / with); middle half: of the rounds' ratios;")
print("verdict from the 95 % CI of the median: keep if all of it >= 1.05, drop if all < 1.05 (issue 37)")
for s in summary:
    print(s)
PY
