#!/usr/bin/env python3
"""Runs reptx over the malformed-input corpus (cases.tsv, made by generate.py).

usage: run_cases.py REPTX [CASE...]

For each case: `reptx list [EXTRA...] CASE` or `reptx extract [EXTRA...] CASE -o TMPDIR` must
exit with status 2 (not a signal), print an error that names the case file and contains the
expected substring, print no sanitizer report, and, where the row says so, still list (stdout
substring) or extract (files in TMPDIR) the valid extra inputs. Prints `N passed, M failed`;
exits 1 on any failure.
"""
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER_MARKS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:',
                   'UndefinedBehaviorSanitizer', 'AddressSanitizer:DEADLYSIGNAL')
TIMEOUT_S = 120


def load_cases():
    rows = []
    with open(os.path.join(HERE, 'cases.tsv')) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            cols = line.split('\t') + [''] * 5
            rows.append(dict(file=cols[0], command=cols[1], expect=cols[2],
                             extra=cols[3].split(), stdout=cols[4]))
    return rows


def run_case(reptx, case, tmp):
    """Returns a list of problems (empty when the case passes)."""
    path = os.path.join(HERE, 'cases', case['file'])
    extra = [os.path.join(HERE, e) for e in case['extra']]
    outdir = os.path.join(tmp, case['file'] + '.out')
    cmd = [reptx, case['command']] + extra + [path]
    if case['command'] == 'extract':
        cmd += ['-o', outdir]
    env = dict(os.environ)
    # Leak checking on; keep going after a UBSan report so that it reaches stderr whole.
    env.setdefault('ASAN_OPTIONS', 'detect_leaks=1')
    env.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1')
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return ['timed out after %d s' % TIMEOUT_S]
    out = r.stdout.decode(errors='replace')
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
    # The message must start with the tool prefix and the case's own path.
    if 'reptx: error: %s: ' % path not in err:
        problems.append('no error naming %s' % path)
    if case['expect'] not in err:
        problems.append('stderr lacks %r' % case['expect'])
    if case['stdout'] and case['stdout'] not in out.replace(HERE + os.sep, ''):
        problems.append('stdout lacks %r' % case['stdout'])
    if case['command'] == 'extract':
        # Entries of the valid extra inputs are still written.
        written = os.listdir(outdir) if os.path.isdir(outdir) else []
        for e in case['extra']:
            base = os.path.basename(e)
            if not any(n.startswith(base + '.') for n in written):
                problems.append('nothing extracted from %s' % e)
    if problems:
        problems.append('command: %s' % ' '.join(cmd))
        problems.append('stderr:\n' + err[-4000:])
    return problems


def main(argv):
    if len(argv) < 1:
        print(__doc__)
        return 1
    reptx = os.path.abspath(argv[0])
    only = set(argv[1:])
    cases = [c for c in load_cases() if not only or c['file'] in only]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix='reptx-malformed-') as tmp:
        for case in cases:
            problems = run_case(reptx, case, tmp)
            if problems:
                failed += 1
                print('FAIL %s (%s)' % (case['file'], case['command']))
                for p in problems:
                    print('  ' + p.replace('\n', '\n    '))
            else:
                passed += 1
                print('ok   %s (%s)' % (case['file'], case['command']))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed or not cases else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
