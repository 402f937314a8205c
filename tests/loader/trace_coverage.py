#!/usr/bin/env python3
"""Every driver entry point defined in loader/lib (a `CUresult cuXxx(...) {` definition) must start
with `REPTX_TRACE(cuXxx, <every parameter, in order>);` (loader/lib/Trace.h), so that
REPTX_LOG=trace cannot drift from the implementation. Usage: trace_coverage.py LOADER_LIB_DIR"""
import pathlib
import re
import sys

DEF = re.compile(r'^CUresult (cu[A-Z]\w*)\(([^)]*(?:\([^)]*\)[^)]*)*)\)\s*\{\s*', re.M)


def param_names(text):
    parts, depth, cur = [], 0, ''
    for ch in text:
        depth += ch == '('
        depth -= ch == ')'
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    names = []
    for p in (' '.join(p.split()) for p in parts):
        if not p or p == 'void':
            continue
        m = re.search(r'\(\*\s*(\w+)\)', p) or re.search(r'(\w+)\s*(\[\d*\])?$', p)
        names.append(m.group(1))
    return names


def main():
    bad, seen = [], 0
    for path in sorted(pathlib.Path(sys.argv[1]).glob('*.cpp')):
        text = path.read_text()
        for m in DEF.finditer(text):
            seen += 1
            name = m.group(1)
            want = 'REPTX_TRACE(' + ', '.join([name] + param_names(m.group(2))) + ');'
            got = re.match(r'REPTX_TRACE\([^;]*\);', text[m.end():])
            if not got or ' '.join(got.group(0).split()) != want:
                line = text.count('\n', 0, m.start()) + 1
                bad.append(f'{path.name}:{line}: {name} must start with {want}')
    print('\n'.join(bad))
    print(f'{seen} entry points, {len(bad)} without their REPTX_TRACE line')
    return 1 if bad or seen == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
