#!/usr/bin/env python3
"""Runs `reptx parse` on every invalid PTX snippet of tests/ptx/invalid and checks its errors.

usage: check_invalid.py REPTX [FILE.ptx...]

expected.tsv lists, for each snippet, the errors it must report: file, line, column and a
substring of the message (a file with several errors has several rows). For each file the tool
must exit with status 2 (not a signal), print `FILE:LINE:COL: error: ` lines whose locations and
messages match the rows one for one and no other error, and print no sanitizer report. Prints
`N passed, M failed`; exits 1 on any failure.
"""
import os
import re
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, 'invalid')
SANITIZER_MARKS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:',
                   'UndefinedBehaviorSanitizer', 'AddressSanitizer:DEADLYSIGNAL')
TIMEOUT_S = 60


def load_expected():
    rows = {}
    with open(os.path.join(CASES, 'expected.tsv')) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) != 4:
                sys.exit('expected.tsv:%d: want 4 tab-separated columns, found %d' % (n, len(cols)))
            rows.setdefault(cols[0], []).append((int(cols[1]), int(cols[2]), cols[3]))
    return rows


def check(reptx, name, want):
    """Returns a list of problems (empty when the file passes)."""
    path = os.path.join(CASES, name)
    env = dict(os.environ)
    env.setdefault('ASAN_OPTIONS', 'detect_leaks=1')
    env.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1')
    try:
        r = subprocess.run([reptx, 'parse', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return ['timed out after %d s' % TIMEOUT_S]
    err = r.stderr.decode(errors='replace')
    problems = []
    if r.returncode < 0:
        problems.append('killed by signal %s' % signal.Signals(-r.returncode).name)
    elif r.returncode != 2:
        problems.append('exit code %d, expected 2' % r.returncode)
    for mark in SANITIZER_MARKS:
        if mark in err:
            problems.append('sanitizer report (%s)' % mark)
            break
    got = [(int(m.group(1)), int(m.group(2)), m.group(3))
           for m in re.finditer(r'^' + re.escape(path) + r':(\d+):(\d+): error: (.*)$', err, re.M)]
    other = [l for l in err.splitlines() if ': error: ' in l and not l.startswith(path + ':')]
    if other:
        problems.append('errors not located in the file: %s' % other)
    unmatched = list(got)
    for line, col, text in want:
        hit = next((g for g in unmatched if g[0] == line and g[1] == col and text in g[2]), None)
        if hit:
            unmatched.remove(hit)
        else:
            problems.append('no error %d:%d containing %r' % (line, col, text))
    for line, col, text in unmatched:
        problems.append('unexpected error %d:%d: %s' % (line, col, text))
    return problems


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reptx = sys.argv[1]
    expected = load_expected()
    files = sorted(f for f in os.listdir(CASES) if f.endswith('.ptx'))
    missing = [f for f in files if f not in expected]
    stale = [f for f in expected if f not in files]
    if len(sys.argv) > 2:
        files = [os.path.basename(f) for f in sys.argv[2:]]
    passed = failed = 0
    for name in files:
        problems = check(reptx, name, expected.get(name, []))
        if name in missing:
            problems.append('no row in expected.tsv')
        if problems:
            failed += 1
            print('FAIL %s' % name)
            for p in problems:
                print('    %s' % p)
        else:
            passed += 1
    for name in stale:
        failed += 1
        print('FAIL %s: listed in expected.tsv but missing' % name)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
