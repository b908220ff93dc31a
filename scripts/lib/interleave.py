# Runs commands interleaved (scripts/bench.sh, scripts/bench-patches.sh):
#   python3 scripts/lib/interleave.py ROUNDS OUT.json SPEC.json
# SPEC is {name: {"argv": [...], "env": {...}}}. Each round runs every command
# once, in a random order, and times its whole process (posix_spawn to exit),
# output discarded; a command that fails ends it. The VM's speed drifts (up
# to 1.5x within minutes) and a command run many times in a row (as
# hyperfine does) takes whatever the VM gave that minute; interleaved, each
# round's runs see the same machine, and the ratio of two commands taken
# within each round cancels the drift. Writes {name: [seconds]} as JSON,
# one entry per round, after a first run of each that is not counted.
import json, os, random, sys, time
rounds, out, spec = int(sys.argv[1]), sys.argv[2], json.load(open(sys.argv[3]))
null = os.open(os.devnull, os.O_WRONLY)
times = {name: [] for name in spec}
def run(argv, env):
    e = dict(os.environ, **env)
    t = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, e, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status = os.waitpid(pid, 0)
    dt = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return dt
for name, c in spec.items():  # a first run of each, not counted
    run(c["argv"], c.get("env", {}))
for _ in range(rounds):
    order = list(spec)
    random.shuffle(order)
    for name in order:
        times[name].append(run(spec[name]["argv"], spec[name].get("env", {})))
json.dump(times, open(out, "w"))
