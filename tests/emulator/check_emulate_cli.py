#!/usr/bin/env python3
"""`reptx emulate` end to end: vector_add on files of floats (output compared with a host
computation, bit-exactly), --list, and an out-of-bounds kernel whose fault report must name the
kernel, the lane and the address, with exit code 2.

usage: check_emulate_cli.py REPTX KERNEL_DIR WORKDIR"""
import os
import struct
import subprocess
import sys


def main(reptx, kdir, work):
    os.makedirs(work, exist_ok=True)
    failures = []
    n = 1000
    a = [i * 0.5 for i in range(n)]
    b = [float(3 * i + 1) / 7.0 for i in range(n)]
    pa, pb, pc = (os.path.join(work, x) for x in ('a.bin', 'b.bin', 'c.bin'))
    with open(pa, 'wb') as f:
        f.write(struct.pack('<%df' % n, *a))
    with open(pb, 'wb') as f:
        f.write(struct.pack('<%df' % n, *b))
    for arch in ('gfx942', 'gfx1100'):
        co = os.path.join(kdir, 'vector_add.%s.hsaco' % arch)
        r = subprocess.run([reptx, 'emulate', co, '--kernel', 'vector_add', '--grid', '4',
                            '--block', '256', '--arg', 'in:' + pa, '--arg', 'in:' + pb,
                            '--arg', 'out:%s:%d' % (pc, 4 * n), '--arg', 'i32:%d' % n],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append('%s: exit %d: %s' % (arch, r.returncode, r.stderr))
            continue
        got = struct.unpack('<%df' % n, open(pc, 'rb').read())
        # Host reference: the sum of the two float32 values, rounded to float32.
        want = [struct.unpack('<f', struct.pack('<f', struct.unpack('<f', struct.pack('<f', x))[0]
                                                + struct.unpack('<f', struct.pack('<f', y))[0]))[0]
                for x, y in zip(a, b)]
        bad = [i for i in range(n) if struct.pack('<f', got[i]) != struct.pack('<f', want[i])]
        if bad:
            failures.append('%s: %d wrong elements, first %d: %r != %r' % (
                arch, len(bad), bad[0], got[bad[0]], want[bad[0]]))
        if '16 wave(s)' not in r.stdout and '32 wave(s)' not in r.stdout:
            failures.append('%s: unexpected summary %r' % (arch, r.stdout))
    r = subprocess.run([reptx, 'emulate', os.path.join(kdir, 'vector_add.gfx942.hsaco'), '--list'],
                       capture_output=True, text=True)
    if r.returncode != 0 or 'vector_add: wave64' not in r.stdout:
        failures.append('--list: %r' % r.stdout)
    oob = os.path.join(kdir, 'out_of_bounds.gfx942.hsaco')
    r = subprocess.run([reptx, 'emulate', oob, '--kernel', 'out_of_bounds', '--grid', '2',
                        '--block', '64', '--arg', 'out:%s:%d' % (pc, 4 * 64), '--arg', 'i32:64',
                        '--arg', 'i32:16'], capture_output=True, text=True)
    if r.returncode != 2 or 'out_of_bounds' not in r.stderr or 'lane' not in r.stderr:
        failures.append('out of bounds: exit %d, stderr %r' % (r.returncode, r.stderr))
    for f in failures:
        print('FAIL', f)
    print('%d passed, %d failed' % (4 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
