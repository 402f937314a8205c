#!/usr/bin/env python3
"""Checks that ptxas accepts what `reptx parse --print` makes of a random sample of toolkit PTX.

usage: ptxas_roundtrip.py REPTX CORPUS [--sample N] [--seed S] [--jobs J] [--ptxas PATH]
                          [--work DIR] [--timeout SECONDS]

CORPUS is a directory of extracted PTX (`reptx extract --ptx-only -o DIR ...`), or a CUDA
library directory (for example /usr/local/cuda/lib64): its shared libraries are then extracted
with `reptx extract --ptx-only` into a scratch directory under --work, removed at the end.

The sample is N files drawn with a fixed seed from the texts with distinct contents, so a run is
reproducible. For each one, ptxas compiles the printed text (`-arch` from its .target; `-c` when
it declares .extern symbols or its .options say --compile-only, since ptxas otherwise rejects
unresolved externs) and, when reptx or ptxas failed on it, the original with the same flags.
Originals that ptxas rejects are then excluded and counted. Exits 0 when ptxas accepts every
printed text whose original it accepts, 1 otherwise, and 77 (skipped) when ptxas or the corpus is
missing.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
TARGET_RE = re.compile(r'^\s*\.target\s+([^\n/]*)', re.M)


def unique_texts(directory):
    """Paths of the .ptx files of a directory, one per distinct content, in a stable order."""
    by_digest = {}
    for path in sorted(glob.glob(os.path.join(directory, '*.ptx'))):
        with open(path, 'rb') as f:
            digest = hashlib.sha1(f.read()).hexdigest()
        by_digest.setdefault(digest, path)
    return [by_digest[d] for d in sorted(by_digest)]


def extract(reptx, libdir, out):
    """Extracts the PTX of every CUDA library of libdir (symlinks counted once) into out."""
    libs, seen = [], set()
    for path in sorted(glob.glob(os.path.join(libdir, '*.so*'))):
        real = os.path.realpath(path)
        if real not in seen and os.path.isfile(real):
            seen.add(real)
            libs.append(real)
    if not libs:
        return False
    r = subprocess.run([reptx, 'extract', '--ptx-only', '-j', '2', '-o', out] + libs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode not in (0, 2):  # 2: some inputs had no fatbin, which is fine here
        sys.exit('reptx extract failed (%d): %s' % (r.returncode, r.stderr.decode(errors='replace')))
    return bool(glob.glob(os.path.join(out, '*.ptx')))


def ptxas_flags(path, text):
    m = TARGET_RE.search(text)
    targets = [t.strip() for t in m.group(1).split(',')] if m else []
    arch = next((t for t in targets if t.startswith(('sm_', 'compute_'))), None)
    if arch is None:
        return None
    flags = ['-arch', arch.replace('compute_', 'sm_')]
    options = ''
    if os.path.exists(path + '.options'):
        with open(path + '.options', errors='replace') as f:
            options = f.read()
    if re.search(r'^\s*\.extern\b|\s\.extern\s', text, re.M) or '--compile-only' in options:
        flags.append('-c')
    return flags


def first_errors(stderr, limit=5):
    lines = [l for l in stderr.decode(errors='replace').splitlines() if l.strip()]
    return '\n'.join('      ' + l for l in lines[:limit])


def run_ptxas(ptxas, flags, path, scratch, timeout):
    out = os.path.join(scratch, os.path.basename(path) + '.cubin')
    try:
        r = subprocess.run([ptxas] + flags + [path, '-o', out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, 'ptxas timed out after %d s' % timeout
    if os.path.exists(out):
        os.remove(out)
    return r.returncode == 0, first_errors(r.stderr)


def check(args, path, scratch):
    """Returns (status, detail): status is one of excluded, accepted, rejected, reptx-failed.

    ptxas compiles the original only when reptx or ptxas failed on the printed text, to tell a
    reptx defect from an original ptxas rejects as well (excluded): that halves the ptxas runs.
    """
    name = os.path.basename(path)
    with open(path, errors='replace') as f:
        text = f.read()
    flags = ptxas_flags(path, text)
    if flags is None:
        return 'excluded', 'no sm_/compute_ target'
    printed = os.path.join(scratch, name)
    with open(printed, 'wb') as out:
        r = subprocess.run([args.reptx, 'parse', '--print', path], stdout=out,
                           stderr=subprocess.PIPE)
    if r.returncode != 0:
        status, why = 'reptx-failed', first_errors(r.stderr)
    else:
        ok, why = run_ptxas(args.ptxas, flags, printed, scratch, args.timeout)
        status = 'accepted' if ok else 'rejected'
    os.remove(printed)
    if status == 'accepted':
        return status, ''
    ok, original_why = run_ptxas(args.ptxas, flags, path, scratch, args.timeout)
    if not ok:
        return 'excluded', 'original: ' + (original_why.strip() or 'rejected')
    return status, why


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('reptx')
    p.add_argument('corpus')
    p.add_argument('--sample', type=int, default=500)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--ptxas', default='/usr/local/cuda/bin/ptxas')
    p.add_argument('--work', default=None, help='scratch directory (default: a temporary one)')
    p.add_argument('--timeout', type=int, default=900, help='seconds per ptxas run')
    args = p.parse_args()

    if not (os.path.isfile(args.ptxas) and os.access(args.ptxas, os.X_OK)):
        print('SKIP: no ptxas at %s' % args.ptxas)
        return SKIP
    if not os.path.isdir(args.corpus):
        print('SKIP: no corpus at %s' % args.corpus)
        return SKIP
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix='ptxas-roundtrip-', dir=args.work)
    start = time.time()
    try:
        corpus = args.corpus
        if not glob.glob(os.path.join(corpus, '*.ptx')):
            corpus = os.path.join(work, 'corpus')
            if not extract(args.reptx, args.corpus, corpus):
                print('SKIP: no PTX in the libraries of %s' % args.corpus)
                return SKIP
        files = unique_texts(corpus)
        sample = random.Random(args.seed).sample(files, min(args.sample, len(files)))
        print('sample: %d of %d distinct PTX texts (seed %d), %d workers'
              % (len(sample), len(files), args.seed, args.jobs), flush=True)
        scratch = os.path.join(work, 'scratch')
        os.makedirs(scratch)
        counts = {'excluded': 0, 'accepted': 0, 'rejected': 0, 'reptx-failed': 0}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(check, args, path, scratch): path for path in sample}
            for fut in concurrent.futures.as_completed(futures):
                name = os.path.basename(futures[fut])
                status, detail = fut.result()
                counts[status] += 1
                if status == 'excluded':
                    print('excluded %s: %s' % (name, detail.splitlines()[0].strip()), flush=True)
                elif status != 'accepted':
                    print('FAIL %s: %s\n%s' % (name, status, detail), flush=True)
        print('originals rejected by ptxas where the printed text failed (excluded): %d'
              % counts['excluded'])
        print('printed accepted: %d, printed rejected: %d, reptx failed: %d'
              % (counts['accepted'], counts['rejected'], counts['reptx-failed']))
        print('time: %.0f s' % (time.time() - start))
        return 1 if counts['rejected'] or counts['reptx-failed'] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
