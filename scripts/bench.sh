#!/usr/bin/env bash
# halc against the SPIRV-Cross CLI and naga, measured side by side in one run
# (issue 14), every program run from a fresh copy (below). Prints one table
# of ratios (medians):
#   - one kernel, cold process: halc (the default for one module: in its
#     own process under crash handlers), halc with forked workers
#     (--worker-start fork: on two cores or more the validator has a worker
#     of its own beside SPIRV-Cross's), the same with one worker doing both
#     (validator first), halc --in-process (no containment), `spirv-cross --msl --msl-argument-buffers`, `spirv-val`
#     (the validator halc runs first; with spirv-cross: halc's work), naga;
#     interleaved in random order, round after round, each ratio taken
#     within a round and the median of those given; and halc's own work as a
#     share of SPIRV-Cross's compile time (--timings), and the page faults of
#     halc and its worker beside the CLI's;
#   - a batch of every corpus kernel in one `halc compile` (all cores, and
#     -j 1) against the SPIRV-Cross CLI (alone and after spirv-val, and
#     naga) run once per kernel, and against one process per kernel on every
#     core, interleaved the same way (BATCH_ROUNDS, default 12), with
#     the outputs of the parallel and serial batch compared byte for byte;
#   - peak memory of the batch against the largest single-kernel run;
#   - Executable::load + verification of 1,000 to 10,000 kernels (criterion),
#     and 1,000 over ten copies of the file (the memory of 10,000) as a control;
#     and the same loads' instructions under callgrind (examples/load_probe.rs);
#   - the first build of a crate depending on halc against the same crate
#     building SPIRV-Tools' optimizer (scripts/bench-first-build.sh, which
#     runs on its own too).
#
# Usage: bash scripts/bench.sh            (ROUNDS=N to change the rounds of the one-kernel commands)
# Needs: Rust, python3; installs spirv-cross, spirv-tools and hyperfine with apt-get and
# naga-cli with cargo (pinned, into target/bench/naga) when they are missing.
# Not run by CI (it measures; CI checks that the benches build).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

ROUNDS=${ROUNDS:-200}
NAGA_VERSION=30.0.1
WORK=target/bench
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# --- tools --------------------------------------------------------------
if ! command -v spirv-cross >/dev/null || ! command -v hyperfine >/dev/null || ! command -v spirv-val >/dev/null || [ ! -x /usr/bin/time ] || ! command -v valgrind >/dev/null || ! command -v make >/dev/null || ! command -v glslc >/dev/null; then
  apt-get update -qq && apt-get install -y -qq spirv-cross spirv-tools hyperfine time valgrind make glslc >/dev/null
fi
NAGA=$(command -v naga || true)
if [ -z "$NAGA" ]; then
  cargo install -q naga-cli --version "$NAGA_VERSION" --locked --root "$WORK/naga"
  NAGA="$WORK/naga/bin/naga"
fi
echo "tools: spirv-cross $(dpkg-query -W -f='${Version}' spirv-cross 2>/dev/null || echo '(version unknown)'), naga $("$NAGA" --version), $(hyperfine --version), $(nproc) cores" >&2

# --- halc and the corpus --------------------------------------------------
cargo build -q --release --bin halc --example bench_corpus
HALC=$(pwd)/target/release/halc
CORPUS="$WORK/corpus"
rm -rf "$CORPUS"
target/release/examples/bench_corpus "$CORPUS" > "$WORK/corpus.txt"
mapfile -t FILES < <(awk '{print "'"$CORPUS"'/" $1}' "$WORK/corpus.txt")
echo "corpus: ${#FILES[@]} modules in $CORPUS ($(awk '{print $2}' "$WORK/corpus.txt" | sort | uniq -c | tr -s ' ' | paste -sd,))" >&2

# --- every measured program in the same page-cache state ----------------------
# How a program file's pages came into the page cache changes how fast it
# starts. On the development VM a file whose cached pages were dropped (by
# memory pressure, or the host's DAMON pageout of idle memory) and faulted
# back in by exec'ing it started ~0.4 ms slower on saxpy than a copy written a
# moment before: the same halc binary measured 1.22x and 1.08x the CLI, and a
# copy whose pages were dropped by hand, 1.24x. So the programs measured, and
# the shared libraries they load (all but the dynamic loader), run from copies
# written just before measuring, all alike.
BIN=$WORK/bin
rm -rf "$BIN"
mkdir -p "$BIN/lib"
cp "$HALC" "$BIN/halc"
HALC=$BIN/halc
cp "$(command -v spirv-cross)" "$(command -v spirv-val)" "$BIN/"
cp "$NAGA" "$BIN/naga"
NAGA=$BIN/naga
ldd "$BIN/halc" "$BIN/spirv-cross" "$BIN/spirv-val" "$NAGA" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u \
  | while read -r lib; do cp "$lib" "$BIN/lib/"; done
export LD_LIBRARY_PATH=$BIN/lib
export PATH=$BIN:$PATH
echo "programs copied to $BIN (libraries: $(ls "$BIN/lib" | paste -sd' '))" >&2

SMALL=$CORPUS/saxpy.spv
LARGE=$CORPUS/syn_f32_b8_ops2048_ubo.spv
JOBS=$(nproc)

# naga: which corpus modules it translates at all.
: > "$WORK/naga-ok.txt"
for f in "${FILES[@]}"; do
  if "$NAGA" "$f" "$WORK/naga.metal" >/dev/null 2>&1; then echo "$f" >> "$WORK/naga-ok.txt"; fi
done

# --- one kernel, cold process ------------------------------------------------
# Runs the commands of one kernel interleaved (scripts/lib/interleave.py:
# each round runs every command once, in a random order, timing its whole
# process; the ratio of two commands is taken within each round, the
# median of those given, so the VM's drift cancels). Writes {command: [seconds]}.
INTERLEAVE=$(pwd)/scripts/lib/interleave.py
single() { # NAME FILE
  local name=$1 f=$2
  python3 - "$f" "$WORK" "$HALC" "$NAGA" "$(grep -qxF "$f" "$WORK/naga-ok.txt" && echo 1 || echo 0)" > "$WORK/single-$name.spec.json" <<'PY'
import json, shutil, sys
f, work, halc, naga, naga_ok = sys.argv[1:]
spec = {
    # The default for one module: in halc's process under crash handlers.
    "halc": {"argv": [halc, "compile", f, "-o", f"{work}/single.halc"]},
    # Forked workers: the validator in a worker of its own beside
    # SPIRV-Cross's when there is a core to spare; then one worker doing both.
    "halc-forked": {"argv": [halc, "compile", "--worker-start", "fork", f, "-o", f"{work}/single-forked.halc"]},
    "halc-one-worker": {"argv": [halc, "compile", "--worker-start", "fork", f, "-o", f"{work}/single-one.halc"], "env": {"HALC_WORKER_VALIDATOR": "shared"}},
    "halc-in-process": {"argv": [halc, "compile", "--in-process", f, "-o", f"{work}/single-in.halc"]},
    "spirv-cross": {"argv": [shutil.which("spirv-cross"), "--msl", "--msl-version", "30000", "--msl-argument-buffers", f, "--output", f"{work}/single.metal"]},
    # What halc runs before SPIRV-Cross sees a module, as its own program.
    "spirv-val": {"argv": [shutil.which("spirv-val"), "--relax-block-layout", "--scalar-block-layout", f]},
}
if naga_ok == "1":
    spec["naga"] = {"argv": [naga, f, f"{work}/single-naga.metal"]}
json.dump(spec, sys.stdout)
PY
  python3 "$INTERLEAVE" "$ROUNDS" "$WORK/single-$name.json" "$WORK/single-$name.spec.json"
  for _ in $(seq 20); do "$HALC" compile "$f" -o "$WORK/single.halc" --timings | tail -2; done > "$WORK/timings-$name.txt"
  # Page faults: in a cold process each costs microseconds (README).
  for _ in $(seq 5); do
    /usr/bin/time -f '%R %F' spirv-cross --msl --msl-version 30000 --msl-argument-buffers "$f" --output "$WORK/single.metal" 2>&1 | tail -1
  done > "$WORK/faults-cli-$name.txt"
}
single small "$SMALL"
single large "$LARGE"

# --- batch --------------------------------------------------------------
printf '%s\n' "${FILES[@]}" > "$WORK/files.txt"
cat > "$WORK/spirv-cross-loop.sh" <<EOF
while read -r f; do spirv-cross --msl --msl-version 30000 --msl-argument-buffers "\$f" --output $WORK/loop.metal; done < $WORK/files.txt
EOF
cat > "$WORK/val-cross-loop.sh" <<EOF
while read -r f; do spirv-val --relax-block-layout --scalar-block-layout "\$f"; spirv-cross --msl --msl-version 30000 --msl-argument-buffers "\$f" --output $WORK/loop.metal; done < $WORK/files.txt
EOF
cat > "$WORK/naga-loop.sh" <<EOF
while read -r f; do "$NAGA" "\$f" $WORK/loop-naga.metal; done < $WORK/naga-ok.txt
EOF
# The same modules as a build that runs one halc per kernel on every core
# (make -j, ninja) would: each compile sees the cores busy.
mkdir -p "$WORK/per-file"
for v in default forked; do
  flag=""; [ "$v" = forked ] && flag="--worker-start fork"
  echo "xargs -P $JOBS -I{} sh -c '$HALC compile $flag {} -o $WORK/per-file/\$(basename {}).halc' < $WORK/files.txt" \
    > "$WORK/per-file-halc-$v.sh"
done
echo "xargs -P $JOBS -I{} sh -c 'spirv-cross --msl --msl-version 30000 --msl-argument-buffers {} --output $WORK/per-file/\$(basename {}).metal 2>/dev/null || true' < $WORK/files.txt" \
  > "$WORK/per-file-cli.sh"
# Interleaved as the single-kernel commands are: a batch and a CLI loop run a
# few seconds apart, and the VM's speed drifts by more than the margins
# measured (a batch timed with hyperfine minutes before the CLI loop gave
# 4.96x in one run and 7.94x in another on the same build).
python3 - "$WORK" "$HALC" "$JOBS" > "$WORK/batch.spec.json" <<'PY'
import json, sys
work, halc, jobs = sys.argv[1:]
files = open(f"{work}/files.txt").read().split()
sh = lambda name: {"argv": ["bash", f"{work}/{name}.sh"]}
json.dump({
    "per-file-halc": sh("per-file-halc-default"),
    "per-file-halc-forked": sh("per-file-halc-forked"),
    "per-file-cli": sh("per-file-cli"),
    "halc-batch": {"argv": [halc, "compile", "-q", "-j", jobs, *files, "-o", f"{work}/batch.halc"]},
    "halc-batch-j1": {"argv": [halc, "compile", "-q", "-j", "1", *files, "-o", f"{work}/batch-j1.halc"]},
    "spirv-cross-loop": sh("spirv-cross-loop"),
    "val-cross-loop": sh("val-cross-loop"),
    "naga-loop": sh("naga-loop"),
}, sys.stdout)
PY
python3 "$INTERLEAVE" "${BATCH_ROUNDS:-12}" "$WORK/batch.json" "$WORK/batch.spec.json"
if cmp -s "$WORK/batch.halc" "$WORK/batch-j1.halc"; then SAME=identical; else SAME=DIFFERENT; fi
"$HALC" compile -q -j "$JOBS" "${FILES[@]}" -o "$WORK/batch.halc" --timings > "$WORK/batch-timings.txt"
# One worker, as each job of the batch has (a single module otherwise runs
# in halc's process, or its validator gets a worker of its own, splitting
# the memory between two).
HALC_WORKER_VALIDATOR=shared "$HALC" compile -q -j 1 --worker-start fork "$LARGE" -o "$WORK/single.halc" --timings > "$WORK/large-timings.txt"

# --- batches under make's jobserver ----------------------------------------------
# The corpus as JOBS+1 batches, one `halc compile` recipe each, under
# `make -jJOBS`: more batches than make runs at once, as in a build where
# halc shares the CPUs with other work. Each halc takes jobserver tokens for
# its jobs (the default), or runs a job per core whatever make runs beside
# it (`-j JOBS` given, as halc did before it read the jobserver).
# Interleaved as the one-kernel rows are; outputs compared.
MK=$WORK/make
rm -rf "$MK" && mkdir -p "$MK"
BATCHES=$((JOBS + 1))
{
  echo "HALC_ARGS ?="
  printf 'all:'; for i in $(seq "$BATCHES"); do printf ' b%s.halc' "$i"; done; echo
  for i in $(seq "$BATCHES"); do
    printf 'b%s.halc:\n\t+@%s compile -q $(HALC_ARGS) ' "$i" "$HALC"
    awk -v i="$i" -v n="$BATCHES" 'NR % n == i % n' "$WORK/files.txt" | tr '\n' ' '
    printf -- '-o $@\n'
  done
  printf '.PHONY: all'; for i in $(seq "$BATCHES"); do printf ' b%s.halc' "$i"; done; echo
} > "$MK/Makefile"
python3 - "$MK" "$JOBS" > "$MK/spec.json" <<'PY'
import json, sys
mk, jobs = sys.argv[1:]
make = ["make", "-s", f"-j{jobs}", "-C", mk]
json.dump({
    "jobserver": {"argv": make + [f"HALC_ARGS="]},
    "ignored": {"argv": make + [f"HALC_ARGS=-j {jobs}"]},
}, sys.stdout)
PY
python3 "$INTERLEAVE" 30 "$MK/times.json" "$MK/spec.json"
mkdir -p "$MK/ignored"
make -s -j"$JOBS" -C "$MK" >/dev/null && cp "$MK"/b*.halc "$MK/ignored/"
make -s -j"$JOBS" -C "$MK" HALC_ARGS="-j $JOBS" >/dev/null
MAKE_SAME=identical
for f in "$MK"/b*.halc; do cmp -s "$f" "$MK/ignored/$(basename "$f")" || MAKE_SAME=DIFFERENT; done

# --- GLSL through glslc ------------------------------------------------------------
# `halc build` of a manifest of 40 GLSL kernels (the example's transform.comp,
# with its #include): glslc one at a time against several at once (the
# default: one per core). glslc, not halc, is most of such a build's time.
GL=$WORK/glsl
rm -rf "$GL" && mkdir -p "$GL/shaders"
cp -r examples/kernels-app/shaders/include "$GL/"
{
  echo '[[executable]]'; echo 'output = "build/k.halc"'; echo 'include_dirs = ["include"]'
  for i in $(seq 0 39); do
    cp examples/kernels-app/shaders/transform.comp "$GL/shaders/k$i.comp"
    printf '\n[[executable.kernel]]\nsource = "shaders/k%s.comp"\n' "$i"
  done
} > "$GL/halc.toml"
(cd "$GL" && hyperfine -N --style none --warmup 1 --runs 5 --export-json "$GL/times.json" \
  -n glsl-j1 "$HALC build -q -j 1" -n glsl-default "$HALC build -q" >/dev/null)
# A rebuild after one of the 40 sources changed (a new line each run),
# with glslc's outputs kept (--glslc-cache; the sources are dated a minute
# back, as files edited before a build are) against without.
touch -d '1 minute ago' "$GL"/shaders/*.comp "$GL"/include/*
(cd "$GL" && $HALC build -q --glslc-cache build/glslc-cache)
EDIT="sh -c 'echo // \$\$ >> shaders/k7.comp && touch -d \"1 minute ago\" shaders/k7.comp'"
(cd "$GL" && hyperfine -N --style none --warmup 1 --runs 5 --export-json "$GL/edit.json" --prepare "$EDIT" \
  -n glsl-cached "$HALC build -q --glslc-cache build/glslc-cache" -n glsl-uncached "$HALC build -q" >/dev/null)

# --- load + verify (criterion) ------------------------------------------------
# Cargo and rustc with the system's libraries, not the copies.
unset LD_LIBRARY_PATH
cargo bench -q --bench load -- --noplot 2>/dev/null | grep -E "^load_and_verify/|time:" > "$WORK/load.txt" || true
# The same loads counted in instructions (callgrind, only inside the load):
# independent of caches and of the VM's speed, so what grows faster than the
# kernel count in the times above and not here is memory, not the checks.
cargo build -q --release --example load_probe
for n in 1000 3000 10000; do
  target/release/examples/load_probe write "$n" "$WORK/load-$n.halc"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=load_probe::measured_load \
    target/release/examples/load_probe load "$WORK/load-$n.halc" 2>&1 \
    | sed -n "s/.*Collected : \([0-9]*\).*/$n \1/p"
done > "$WORK/load-instructions.txt"

# --- the table ------------------------------------------------------------------
python3 - "$WORK" "${#FILES[@]}" "$JOBS" "$SAME" "$BATCHES" "$MAKE_SAME" <<'EOF'
import json, re, statistics, sys
work, n, jobs, same = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
batches, make_same = int(sys.argv[5]), sys.argv[6]

def medians(path):
    return {r["command"]: r["median"] for r in json.load(open(path))["results"]}

def own_share(path):
    shares, own, cross = [], [], []
    for line in open(path):
        m = re.search(r"work \(.*\) ([\d.]+) ms = .* of SPIRV-Cross \(([\d.]+) ms\)", line)
        if m:
            own.append(float(m[1])); cross.append(float(m[2]))
            shares.append(float(m[1]) / float(m[2]) * 100)
    return statistics.median(shares), statistics.median(own), statistics.median(cross)

def peak(path):
    m = re.search(r"halc ([\d.]+) MiB, largest worker process ([\d.]+) MiB", open(path).read())
    return float(m[1]), float(m[2])

def faults(name):
    halc = [int(a) + int(b) for a, b in re.findall(r"page faults: halc (\d+), workers (\d+)", open(f"{work}/timings-{name}.txt").read())]
    cli = [sum(map(int, l.split())) for l in open(f"{work}/faults-cli-{name}.txt") if l.strip()]
    return statistics.median(halc), statistics.median(cli)

naga_ok = sum(1 for _ in open(f"{work}/naga-ok.txt"))
rows = []
for name, label in [("small", "saxpy (fixture, 1.6 KB)"), ("large", "synthetic 8 buffers x 2048 ops (42 KB)")]:
    runs = json.load(open(f"{work}/single-{name}.json"))
    t = {c: statistics.median(v) for c, v in runs.items()}
    sx = t["spirv-cross"]
    # The ratio within each round (the same minute of the VM), then the median.
    paired = {c: statistics.median(a / b for a, b in zip(v, runs["spirv-cross"])) for c, v in runs.items()}
    rows.append((f"one kernel, cold: {label} ({len(runs['spirv-cross'])} rounds)", ""))
    for cmd in ["halc", "halc-forked", "halc-one-worker", "halc-in-process", "spirv-cross", "spirv-val", "naga"]:
        if cmd in t:
            rows.append((f"  {cmd}", f"{t[cmd]*1e3:.2f} ms = {paired[cmd]:.2f}x spirv-cross"))
        else:
            rows.append((f"  {cmd}", "cannot translate this kernel"))
    vc = statistics.median(a / (b + c) for a, b, c in zip(runs["halc"], runs["spirv-val"], runs["spirv-cross"]))
    rows.append(("  spirv-val + spirv-cross (sum: halc's checks)", f"{(t['spirv-val'] + sx)*1e3:.2f} ms; halc = {vc:.2f}x that"))
    share, own, cross = own_share(f"{work}/timings-{name}.txt")
    rows.append(("  halc's own work (--timings)", f"{own:.3f} ms = {share:.1f} % of SPIRV-Cross's {cross:.3f} ms"))
    fh, fc = faults(name)
    rows.append(("  page faults: halc + workers, spirv-cross", f"{fh:.0f}, {fc:.0f}"))

runs = json.load(open(f"{work}/batch.json"))
b = {c: statistics.median(v) for c, v in runs.items()}
# Ratios within each round, then the median (as for one kernel).
def ratio(num, den):
    return statistics.median(x / y for x, y in zip(runs[num], runs[den]))
rows.append((f"batch: {n} corpus modules (argument buffers), {len(runs['halc-batch'])} rounds", ""))
rows.append((f"  halc, one run, -j {jobs}", f"{b['halc-batch']*1e3:.0f} ms"))
rows.append(("  halc, one run, -j 1", f"{b['halc-batch-j1']*1e3:.0f} ms (output {same} to -j {jobs})"))
rows.append(("  spirv-cross CLI once per module", f"{b['spirv-cross-loop']*1e3:.0f} ms = {ratio('spirv-cross-loop', 'halc-batch'):.2f}x the halc batch"))
rows.append(("  spirv-val then spirv-cross once per module", f"{b['val-cross-loop']*1e3:.0f} ms = {ratio('val-cross-loop', 'halc-batch'):.2f}x the halc batch"))
rows.append((f"  naga CLI once per module ({naga_ok} of {n} it translates)", f"{b['naga-loop']*1e3:.0f} ms"))
rows.append((f"  one process per module, {jobs} at a time (xargs -P {jobs}, as make -j runs them)", ""))
rows.append(("    halc", f"{b['per-file-halc']*1e3:.0f} ms = {ratio('per-file-halc', 'per-file-cli'):.2f}x the CLI's; the batch is {ratio('per-file-halc', 'halc-batch'):.2f}x faster"))
rows.append(("    halc --worker-start fork", f"{b['per-file-halc-forked']*1e3:.0f} ms = {ratio('per-file-halc-forked', 'per-file-cli'):.2f}x the CLI's"))
rows.append(("    spirv-cross CLI", f"{b['per-file-cli']*1e3:.0f} ms"))
# The workers' C++ alone (--timings): no batch on these cores can be faster.
cols = ["read", "parse", "check", "validate", "reflect", "layout", "spirv-cross", "check-msl", "worker"]
total = next(l.split() for l in open(f"{work}/batch-timings.txt") if l.startswith("total"))
t = dict(zip(cols, map(float, total[1:])))
floor = (t["validate"] + t["spirv-cross"]) / jobs
# The floor against that run's own elapsed time (both from one process, so
# the VM's drift cancels), applied to the paired ratio.
elapsed = float(re.search(r"on \d+ jobs in ([\d.]+) ms", open(f"{work}/batch-timings.txt").read())[1])
best = ratio('spirv-cross-loop', 'halc-batch') * elapsed / floor
rows.append((f"  its workers' SPIRV-Cross + validator / {jobs} cores", f"({t['spirv-cross']:.0f} + {t['validate']:.0f}) / {jobs} = {floor:.0f} ms of that run's {elapsed:.0f}: at best {best:.2f}x the CLI loop"))
pb, wb = peak(f"{work}/batch-timings.txt")
ps, ws = peak(f"{work}/large-timings.txt")
bound = (ps + ws) * jobs
rows.append(("  peak memory, batch (max RSS)", f"halc {pb:.1f} MiB + {jobs} workers of at most {wb:.1f} MiB = {pb + jobs*wb:.1f} MiB"))
rows.append(("  largest single-kernel run (one worker) x workers", f"(halc {ps:.1f} + worker {ws:.1f} MiB) x {jobs} = {bound:.1f} MiB; batch = {(pb + jobs*wb)/bound:.2f}x that"))

mk = json.load(open(f"{work}/make/times.json"))
rows.append((f"  {batches} batches of the corpus under make -j{jobs} ({len(mk['jobserver'])} rounds)", ""))
rows.append(("    halc taking jobserver tokens (default)", f"{statistics.median(mk['jobserver'])*1e3:.0f} ms = {statistics.median(a / b for a, b in zip(mk['jobserver'], mk['ignored'])):.2f}x ignoring them (outputs {make_same})"))
rows.append((f"    halc ignoring them (-j {jobs} given)", f"{statistics.median(mk['ignored'])*1e3:.0f} ms"))

g = medians(f"{work}/glsl/times.json")
rows.append(("halc build, 40 GLSL kernels through glslc", ""))
rows.append((f"  several glslc at once (default, {jobs} cores)", f"{g['glsl-default']*1e3:.0f} ms = {g['glsl-j1']/g['glsl-default']:.2f}x faster than one at a time"))
rows.append(("  one at a time (-j 1)", f"{g['glsl-j1']*1e3:.0f} ms"))
e = medians(f"{work}/glsl/edit.json")
rows.append(("  one of the 40 edited, --glslc-cache", f"{e['glsl-cached']*1e3:.0f} ms = {e['glsl-uncached']/e['glsl-cached']:.2f}x faster than without it"))
rows.append(("  one of the 40 edited, without it", f"{e['glsl-uncached']*1e3:.0f} ms"))

load = open(f"{work}/load.txt").read()
def ms(v, unit):
    return float(v) * {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3}[unit]
times = {}
for m in re.finditer(r"load_and_verify/(\d+)\s*\n?\s*time:\s*\[\S+ \S+ (\S+) (\S+)", load):
    times[int(m[1])] = ms(m[2], m[3])
rows.append(("Executable::load + verify (criterion)", ""))
for k in sorted(times):
    rows.append((f"  {k} kernels", f"{times[k]:.3f} ms = {times[k]/k*1e6:.0f} ns per kernel"))
if 1000 in times and 10000 in times:
    rows.append(("  10,000 / 1,000", f"{times[10000]/times[1000]:.2f}x the time for 10x the kernels"))
# The control: 1,000 kernels' work over ten copies of the file (the memory
# of 10,000). Per kernel near 10,000's: the excess is cache and TLB misses.
m = re.search(r"load_and_verify/1000x10copies\s*\n?\s*time:\s*\[\S+ \S+ (\S+) (\S+)", load)
if m and 10000 in times:
    c = ms(m[1], m[2])
    rows.append(("  1000 kernels, ten copies in turn (control)", f"{c:.3f} ms = {c/1000*1e6:.0f} ns per kernel; 10,000 = {times[10000]/(10*c):.2f}x ten of these"))

ins = {int(k): int(v) for k, v in (l.split() for l in open(f"{work}/load-instructions.txt") if l.strip())}
rows.append(("Executable::load + verify, instructions (callgrind)", ""))
for k in sorted(ins):
    rows.append((f"  {k} kernels", f"{ins[k]/1e6:.2f} M = {ins[k]/k:.0f} per kernel"))
if 1000 in ins and 10000 in ins:
    rows.append(("  10,000 / 1,000", f"{ins[10000]/ins[1000]:.3f}x the instructions for 10x the kernels"))

w = max(len(r[0]) for r in rows)
for a, v in rows:
    print(f"{a:<{w}}  {v}")
EOF

# --- the first build of a dependent crate ----------------------------------------
bash scripts/bench-first-build.sh
