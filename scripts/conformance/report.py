#!/usr/bin/env python3
"""Summarises `halc test --json` runs of a corpus as a Markdown table.

usage: report.py [--baseline amber-baseline.tsv] NAME=RESULT.json ...

With a baseline (path, PASS|FAIL|SKIP|..., env, message: what the amber CLI
did with each test on the same Vulkan driver), each mode is counted twice:
over every test, and over the tests amber passes (what a conformant driver
passes, the issue's denominator). Failures and skips are grouped by their
reason with paths, line numbers and values taken out.
"""
import collections, json, re, sys

def key(path):
    """A test's name independent of where its corpus is checked out."""
    for marker, prefix in (('tests/cases/', 'amber/tests/cases/'),
                           ('external/vulkancts/data/vulkan/amber/',
                            'vk-gl-cts/external/vulkancts/data/vulkan/amber/')):
        i = path.find(marker)
        if i >= 0:
            return prefix + path[i + len(marker):]
    return path

def load_baseline(path):
    base = {}
    for line in open(path):
        cols = line.rstrip('\n').split('\t')
        if len(cols) >= 2 and cols[0] not in ('path', 'test'):
            base[key(cols[0])] = cols[1]
    return base

def reason_key(reason):
    r = (reason or '').split('\n')[0]
    r = re.sub(r'^\S+?:\d+:\s*', '', r)            # file:line:
    r = re.sub(r'^\S+\.(amber|vkscript):\s*', '', r)
    r = re.sub(r'`[^`]*`', '`…`', r)
    r = re.sub(r'\b\d+(\.\d+)?\b', 'N', r)
    return r[:150]

def main(argv):
    baseline = None
    runs = []
    i = 0
    while i < len(argv):
        if argv[i] == '--baseline':
            baseline = load_baseline(argv[i + 1]); i += 2; continue
        name, path = argv[i].split('=', 1)
        runs.append((name, json.load(open(path)))); i += 1
    print('| mode | tests | passed | failed | skipped |' + (' passed of amber\'s passes |' if baseline else ''))
    print('|---|---|---|---|---|' + ('---|' if baseline else ''))
    for name, run in runs:
        tests = run['tests']
        row = f"| {name} | {len(tests)} | {run['passed']} | {run['failed']} | {run['skipped']} |"
        if baseline:
            ok = [t for t in tests if baseline.get(key(t['file'])) == 'PASS']
            p = sum(1 for t in ok if t['outcome'] == 'PASS')
            row += f" {p} of {len(ok)} ({100.0 * p / max(len(ok), 1):.1f} %) |"
        print(row)
    for name, run in runs:
        groups = collections.Counter()
        for t in run['tests']:
            if t['outcome'] != 'PASS':
                if baseline is not None and baseline.get(key(t['file'])) != 'PASS':
                    continue
                groups[(t['outcome'], reason_key(t['reason']))] += 1
        if groups:
            print(f"\n{name}: why tests " + ("amber passes " if baseline else "") + "did not pass\n")
            print('| count | outcome | reason |')
            print('|---|---|---|')
            for (o, r), n in groups.most_common():
                cell = r.replace('|', '\\|')
                print(f"| {n} | {o} | {cell} |")

main(sys.argv[1:])
