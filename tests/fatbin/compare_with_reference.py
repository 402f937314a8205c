#!/usr/bin/env python3
"""Acceptance check for `reptx list` / `reptx extract` against the reference extractor.

usage: compare_with_reference.py REPTX REFERENCE_TOOL_DIR WORKDIR CUDA_HOME

Compares over every library file in CUDA_HOME/lib* (shared libraries, archives, objects).

Runs shared/tools/extract_corpus.py and reptx over the same files, then checks entry by entry
(container offset, entry index, kind, arch, compression, stored and uncompressed sizes) and that
every PTX reptx extracts is byte-identical to the reference tool's. Prints a summary; exit 0 only
when everything agrees.
"""
import glob
import json
import re
import os
import subprocess
import sys
import time


CANDIDATE_RE = re.compile(r'(\.so(\.\d+)*|\.a|\.o|\.fatbin|\.cubin)$')


def main(argv):
    reptx, tooldir, work, cuda = argv[0], argv[1], argv[2], argv[3]
    if not os.path.isfile(os.path.join(tooldir, 'extract_corpus.py')):
        print('SKIPPED: reference tool not found in %s' % tooldir)
        return 77
    files = set()
    for d in sorted(glob.glob(os.path.join(cuda, 'lib*'))):
        for root, _, names in os.walk(os.path.realpath(d)):
            for n in names:
                p = os.path.join(root, n)
                if not os.path.islink(p) and CANDIDATE_RE.search(n):
                    files.add(os.path.realpath(p))
    files = sorted(files)
    if not files:
        print('SKIPPED: no CUDA toolkit libraries under %s/lib*' % cuda)
        return 77
    ref_out = os.path.join(work, 'reference')
    our_out = os.path.join(work, 'reptx')
    subprocess.run(['rm', '-rf', ref_out, our_out], check=True)
    t0 = time.time()
    cmd = [sys.executable, os.path.join(tooldir, 'extract_corpus.py'), ref_out]
    for f in files:
        cmd += ['--file', f]
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    t1 = time.time()
    listing = subprocess.run([reptx, 'list', '--json'] + files, check=True,
                             stdout=subprocess.PIPE).stdout
    subprocess.run([reptx, 'extract', '--ptx-only', '-o', our_out] + files, check=True,
                   stderr=subprocess.DEVNULL)
    t2 = time.time()
    ours = json.loads(listing)

    ref = {}
    with open(os.path.join(ref_out, 'manifest.jsonl')) as f:
        for line in f:
            r = json.loads(line)
            ref[(os.path.realpath(r['path']), r['container_offset'], r['entry'])] = r

    problems = []
    compared = ptx_compared = 0
    seen = set()
    for fobj in ours['files']:
        path = os.path.realpath(fobj['path'])
        base = os.path.basename(fobj['path'])
        for c in fobj['containers']:
            for e in c['entries']:
                key = (path, c['offset'], e['index'])
                seen.add(key)
                r = ref.get(key)
                if r is None:
                    problems.append('only reptx has %s container@0x%x entry %d' % key)
                    continue
                compared += 1
                for ours_k, ref_k in (('kind', 'kind'), ('sm', 'arch'),
                                      ('compression', 'compression'),
                                      ('stored_size', 'stored_size'),
                                      ('uncompressed_size', 'uncompressed_size')):
                    if e[ours_k] != r[ref_k]:
                        problems.append('%s container@0x%x entry %d: %s %r != reference %r' % (
                            base, c['offset'], e['index'], ours_k, e[ours_k], r[ref_k]))
                if e['kind'] == 'ptx':
                    name = '%s.c%d.e%d.%s.ptx' % (base, c['index'], e['index'], e['arch'])
                    with open(os.path.join(our_out, name), 'rb') as f:
                        mine = f.read()
                    with open(os.path.join(ref_out, r['file']), 'rb') as f:
                        theirs = f.read()
                    ptx_compared += 1
                    if mine != theirs:
                        problems.append('%s: PTX differs from the reference (%d vs %d bytes)' % (
                            name, len(mine), len(theirs)))
    for key in ref:
        if key not in seen:
            problems.append('only the reference has %s container@0x%x entry %d' % key)
    for p in problems[:50]:
        print('MISMATCH', p)
    print('files %d, entries compared %d (reference %d), PTX byte-compared %d, mismatches %d' % (
        len(files), compared, len(ref), ptx_compared, len(problems)))
    print('time: reference tool %.1f s, reptx list + extract %.1f s' % (t1 - t0, t2 - t1))
    return 1 if problems or compared == 0 else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
