#!/usr/bin/env python3
"""The same work as bench_extract, done by the reference parser shared/tools/fatbin_parse.py:
scan each file and decompress every decodable entry in memory. Prints decompressed MB/s."""
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
from fatbin_parse import scan_file, decompress_entry  # noqa: E402

files = sys.argv[2:]
t0 = time.time()
total = entries = 0
for path in files:
    buf, containers, _ = scan_file(path)
    for c in containers:
        for e in c.entries:
            if e.flags & 0x10000:
                continue
            data, _ = decompress_entry(buf, e)
            total += len(data)
            entries += 1
dt = time.time() - t0
print('python reference: %d files, %d entries, %.1f MB decompressed in %.2f s = %.0f MB/s' % (
    len(files), entries, total / 1e6, dt, total / 1e6 / dt))
