#!/usr/bin/env python3
"""Checks `reptx list` / `reptx extract` on binaries built by nvcc (see make-fixtures.sh).

usage:
  check_fixtures.py check REPTX FIXTURE_DIR WORKDIR
      The committed fixtures: for every fixture of FIXTURE_DIR/manifest.json, the containers
      (section, wrapper version) and entries (kind, arch, compression) that `reptx list --json`
      reports must equal the manifest exactly, `reptx extract` (with and without --ptx-only) must
      write exactly one file per entry, every PTX must be byte-identical to its expected file and
      carry exactly the expected ptxas options file.
  check_fixtures.py rebuild REPTX MAKE_SCRIPT COMMITTED_DIR WORKDIR NVCC
      Rebuilds the fixtures from source with NVCC into WORKDIR/fixtures, runs the same checks on
      the fresh binaries against freshly normalized `nvcc -ptx` output, checks the script's
      normalization against the rule implemented here, and checks that the committed fixtures'
      manifest and expected PTX are still what the sources produce. Without nvcc it prints
      "SKIPPED: ..." and exits 77.

Prints one summary line; the exit code is 0 only when everything matches.
"""
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

# `reptx extract` names files <input basename>.c<container>.e<entry>.<arch>.<ext>.
EXTENSIONS = {'ptx': 'ptx', 'elf': 'cubin', 'ltoir': 'ltoir'}
ELF_MAGIC = b'\x7fELF'
EM_CUDA = 190
# A kernel is an .entry directive at the start of a normalized line (no leading blanks left).
ENTRY_RE = re.compile(rb'^(?:\.visible |\.weak )?\.entry ', re.M)


def normalize_ptx(text):
    """fatbin-format.md §11, written independently of make-fixtures.sh's sed version: per line,
    strip leading blanks, collapse runs of two or more blanks to one space, cut `//` comments."""
    lines = []
    for line in text.split(b'\n'):
        line = re.sub(rb'[ \t]{2,}', b' ', line.lstrip(b' \t'))
        lines.append(re.sub(rb'//.*', b'', line))
    return b'\n'.join(lines)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


class Checker:
    def __init__(self, reptx, label):
        self.reptx = reptx
        self.label = label
        self.problems = []
        self.counts = {'fixtures': 0, 'containers': 0, 'entries': 0, 'ptx': 0, 'extract runs': 0}

    def fail(self, msg):
        self.problems.append(msg)
        print('MISMATCH: ' + msg)

    def run(self, args):
        r = subprocess.run([self.reptx] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            self.fail('reptx %s exited with %d: %s' % (' '.join(args), r.returncode,
                                                       r.stderr.decode(errors='replace').strip()))
            return None
        return r.stdout

    def check_dir(self, fixture_dir, work):
        manifest = json.loads(read(os.path.join(fixture_dir, 'manifest.json')))
        if not manifest['fixtures']:
            self.fail('%s/manifest.json lists no fixtures' % fixture_dir)
        for fx in manifest['fixtures']:
            self.check_fixture(fixture_dir, fx, os.path.join(work, fx['file']))

    def check_fixture(self, fixture_dir, fx, work):
        self.counts['fixtures'] += 1
        name = fx['file']
        path = os.path.join(fixture_dir, name)
        out = self.run(['list', '--json', path])
        if out is None:
            return
        files = json.loads(out)['files']
        if len(files) != 1:
            return self.fail('%s: reptx list reports %d files' % (name, len(files)))
        got = files[0]
        want_containers = fx['containers']
        got_containers = got['containers']
        self.counts['containers'] += len(want_containers)
        if len(got_containers) != len(want_containers):
            self.fail('%s: %d containers, expected %d' % (name, len(got_containers),
                                                          len(want_containers)))
            return

        # Each container named with a wrapper version must be the target of exactly one wrapper of
        # that version, and there must be no other wrappers.
        wrappers = {}
        for w in got['wrappers']:
            wrappers.setdefault(w.get('container_offset'), []).append(w['version'])
        expected_wrappers = 0
        for ci, (want, have) in enumerate(zip(want_containers, got_containers)):
            where = '%s container %d' % (name, ci)
            if have['section'] != want['section']:
                self.fail('%s: section %r, expected %r' % (where, have['section'], want['section']))
            if 'wrapper' in want:
                expected_wrappers += 1
                versions = wrappers.get(have['offset'], [])
                if versions != [want['wrapper']]:
                    self.fail('%s: wrapper versions %r, expected [%d]' % (where, versions,
                                                                        want['wrapper']))
            got_entries = [(e['kind'], e['arch'], e['compression']) for e in have['entries']]
            want_entries = [(e['kind'], e['arch'], e['compression']) for e in want['entries']]
            self.counts['entries'] += len(want_entries)
            self.counts['ptx'] += sum(1 for e in want['entries'] if e['kind'] == 'ptx')
            if got_entries != want_entries:
                self.fail('%s: entries %r, expected %r' % (where, got_entries, want_entries))
            for e, w in zip(have['entries'], want['entries']):
                if e['kind'] == 'ptx' and w['kind'] == 'ptx':
                    kernels = len(ENTRY_RE.findall(read(os.path.join(fixture_dir, w['ptx']))))
                    if e['kernels'] != kernels or e['options'] != w['options']:
                        self.fail('%s entry %d: kernels %d options %r, expected %d and %r' %
                                  (where, e['index'], e['kernels'], e['options'], kernels,
                                   w['options']))
        if len(got['wrappers']) != expected_wrappers:
            self.fail('%s: %d wrappers, expected %d' % (name, len(got['wrappers']),
                                                       expected_wrappers))

        self.check_extract(fixture_dir, fx, path, os.path.join(work, 'all'), ptx_only=False)
        self.check_extract(fixture_dir, fx, path, os.path.join(work, 'ptx'), ptx_only=True)

    def check_extract(self, fixture_dir, fx, path, out_dir, ptx_only):
        name = fx['file']
        shutil.rmtree(out_dir, ignore_errors=True)
        self.counts['extract runs'] += 1
        args = ['extract', path, '-o', out_dir] + (['--ptx-only'] if ptx_only else [])
        if self.run(args) is None:
            return
        expected_files = {}
        for ci, c in enumerate(fx['containers']):
            for ei, e in enumerate(c['entries']):
                if ptx_only and e['kind'] != 'ptx':
                    continue
                base = '%s.c%d.e%d.%s.%s' % (name, ci, ei, e['arch'], EXTENSIONS[e['kind']])
                expected_files[base] = e
                if e['kind'] == 'ptx' and e['options']:
                    expected_files[base + '.options'] = e
        produced = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
        mode = 'extract --ptx-only' if ptx_only else 'extract'
        for f in sorted(produced - set(expected_files)):
            self.fail('%s: %s wrote unexpected %s' % (name, mode, f))
        for f in sorted(set(expected_files) - produced):
            self.fail('%s: %s did not write %s' % (name, mode, f))
        for f in sorted(produced & set(expected_files)):
            e = expected_files[f]
            data = read(os.path.join(out_dir, f))
            if f.endswith('.options'):
                if data != e['options'].encode():
                    self.fail('%s: %s is %r, expected %r' % (name, f, data, e['options']))
            elif e['kind'] == 'ptx':
                want = read(os.path.join(fixture_dir, e['ptx']))
                if data != want:
                    self.fail('%s: %s (%d bytes) differs from %s (%d bytes)%s' %
                              (name, f, len(data), e['ptx'], len(want),
                               first_difference(data, want)))
            elif e['kind'] == 'elf':
                machine = int.from_bytes(data[18:20], 'little') if len(data) >= 20 else -1
                if data[:4] != ELF_MAGIC or machine != EM_CUDA:
                    self.fail('%s: %s is not a CUDA ELF (magic %r, e_machine %d)' %
                              (name, f, data[:4], machine))

    def summary(self):
        c = self.counts
        print('%s: %d fixtures, %d containers, %d entries (%d PTX byte-compared), %d extract runs, '
              '%d mismatches' % (self.label, c['fixtures'], c['containers'], c['entries'], c['ptx'],
                                 c['extract runs'], len(self.problems)))
        return 1 if self.problems else 0


def first_difference(a, b):
    n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    line = a[:n].count(b'\n') + 1
    return '; first difference at byte %d (line %d)' % (n, line)


def check(argv):
    reptx, fixture_dir, work = argv
    checker = Checker(reptx, 'fatbin.fixtures')
    shutil.rmtree(work, ignore_errors=True)
    checker.check_dir(fixture_dir, work)
    return checker.summary()


def rebuild(argv):
    reptx, script, committed, work, nvcc = argv
    if not (os.path.isfile(nvcc) and os.access(nvcc, os.X_OK)):
        print('SKIPPED: nvcc not found at %s' % nvcc)
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    fresh = os.path.join(work, 'fixtures')
    raw = os.path.join(work, 'raw-ptx')
    env = dict(os.environ, NVCC=nvcc, RAW_PTX_DIR=raw)
    r = subprocess.run(['bash', script, fresh], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        print(r.stdout.decode(errors='replace'))
        print('FAILED: %s exited with %d' % (script, r.returncode))
        return 1

    checker = Checker(reptx, 'fatbin.nvcc_variants')
    # The sed normalization of the script must agree with the rule as implemented here.
    for name in sorted(os.listdir(raw)):
        if normalize_ptx(read(os.path.join(raw, name))) != read(os.path.join(fresh, 'expected',
                                                                             name)):
            checker.fail('expected/%s is not normalize(nvcc -ptx output)' % name)
    checker.check_dir(fresh, os.path.join(work, 'extract'))

    # The committed fixtures must still be what the sources and script produce.
    old = json.loads(read(os.path.join(committed, 'manifest.json')))
    new = json.loads(read(os.path.join(fresh, 'manifest.json')))
    if old['nvcc'] != new['nvcc']:
        print('NOTE: committed fixtures were made by nvcc %s, this is %s; not comparing them' %
              (old['nvcc'], new['nvcc']))
    else:
        if old != new:
            checker.fail('committed manifest.json differs from a fresh make-fixtures.sh run')
        old_ptx = sorted(os.listdir(os.path.join(committed, 'expected')))
        new_ptx = sorted(os.listdir(os.path.join(fresh, 'expected')))
        if old_ptx != new_ptx:
            checker.fail('committed expected/ holds %r, a fresh run %r' % (old_ptx, new_ptx))
        for name in sorted(set(old_ptx) & set(new_ptx)):
            if read(os.path.join(committed, 'expected', name)) != read(
                    os.path.join(fresh, 'expected', name)):
                checker.fail('committed expected/%s differs from a fresh run: rerun '
                             'make-fixtures.sh' % name)
    return checker.summary()


def main(argv):
    modes = {'check': (check, 3), 'rebuild': (rebuild, 5)}
    if not argv or argv[0] not in modes or len(argv) != modes[argv[0]][1] + 1:
        print(__doc__)
        return 2
    return modes[argv[0]][0](argv[1:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
