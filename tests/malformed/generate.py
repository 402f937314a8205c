#!/usr/bin/env python3
"""Derives the malformed-input corpus from the valid bases in base/ (see base/build.sh).

usage: generate.py

Writes cases/* and cases.tsv. Every case is one targeted damage to a real nvcc output (or a bare
container rebuilt from one), so each exercises exactly one check of the fatbin reader; the
expected message substring carries the exact offsets, so a check that fires at the wrong place
fails too. Needs only the Python standard library and the `zstd` command-line tool; the LZ4
blocks are written by hand (the format is simple and the hand-made blocks are exact). The
outputs are committed so that the test needs neither nvcc nor zstd.

cases.tsv columns: case file (relative to cases/), command (list or extract), expected
substring of stderr, extra valid inputs put before the case (space-separated, relative to this
directory; optional), expected substring of stdout (optional).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, 'base')
CASES = os.path.join(HERE, 'cases')

CONTAINER_MAGIC = 0xBA55ED50
WRAPPER_MAGIC = 0x466243B1
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
MAX_ENTRY = 1 << 30


def align8(n):
    return (n + 7) & ~7


# ------------------------------------------------------------------ ELF and fatbin layout


class Section:
    def __init__(self, index, hdr_off, fields, name):
        (self.name_off, self.type, self.flags, self.addr, self.offset, self.size, self.link,
         self.info, self.align, self.entsize) = fields
        self.index = index
        self.hdr_off = hdr_off  # file offset of this section's header
        self.name = name


def sections(data):
    """ELF64 little-endian section table, as a dict name -> Section (first of each name)."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    raw = []
    for i in range(shnum):
        off = shoff + i * shentsize
        raw.append((i, off, struct.unpack_from('<IIQQQQIIQQ', data, off)))
    strtab = raw[shstrndx][2]
    out = {}
    for i, off, f in raw:
        start = strtab[4] + f[0]
        name = data[start:data.index(b'\0', start)].decode()
        out.setdefault(name, Section(i, off, f, name))
    return out


def entries(data, cont):
    """The entries of the container at file offset cont: list of dicts."""
    fat_size, = struct.unpack_from('<Q', data, cont + 8)
    p, end, out = cont + 16, cont + 16 + fat_size, []
    while p + 64 <= end:
        kind, ver, hsize, psize, csize, aux = struct.unpack_from('<HHIQII', data, p)
        flags, = struct.unpack_from('<Q', data, p + 0x28)
        usize, = struct.unpack_from('<Q', data, p + 0x38)
        out.append(dict(off=p, kind=kind, hsize=hsize, psize=psize, csize=csize, aux=aux,
                        flags=flags, usize=usize))
        p += hsize + psize
    return out


def put(data, off, fmt, *values):
    struct.pack_into('<' + fmt, data, off, *values)


def set_entry(data, e, psize=None, csize=None, flags=None, usize=None):
    if psize is not None:
        put(data, e['off'] + 8, 'Q', psize)
    if csize is not None:
        put(data, e['off'] + 0x10, 'I', csize)
    if flags is not None:
        put(data, e['off'] + 0x28, 'Q', flags)
    if usize is not None:
        put(data, e['off'] + 0x38, 'Q', usize)


def replace_payload(data, e, stored, flags, usize):
    """Stores new (compressed) bytes in place of an entry's payload; the entry keeps its
    payload_size, so nothing else in the file moves."""
    assert len(stored) <= e['psize'], (len(stored), e['psize'])
    start = e['off'] + e['hsize']
    data[start:start + e['psize']] = stored + bytes(e['psize'] - len(stored))
    set_entry(data, e, csize=len(stored), flags=flags, usize=usize)


def build_container(parts):
    """A container from (entry header bytes, stored bytes, flags, compressed size, declared
    size) tuples; payload_size is recomputed, as fatbinary does (align8 of the stored bytes)."""
    body = bytearray()
    for hdr, stored, flags, csize, usize in parts:
        h = bytearray(hdr)
        put(h, 8, 'Q', align8(len(stored)))
        put(h, 0x10, 'I', csize)
        put(h, 0x28, 'Q', flags)
        put(h, 0x38, 'Q', usize)
        body += h + stored + bytes(align8(len(stored)) - len(stored))
    return struct.pack('<IHHQ', CONTAINER_MAGIC, 1, 16, len(body)) + body


# ------------------------------------------------------------------ compressed data


def zstd(raw, content_size=True):
    """A standard zstd frame; with content_size=False the frame does not say how large its
    output is, which is what a decompression bomb relies on."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'in')
        with open(src, 'wb') as f:
            f.write(raw)
        args = ['zstd', '-q', '-c', '-5', '--no-check', src]
        if not content_size:
            args.insert(1, '--no-content-size')
        return subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout


def zstd_zeros_unsized(n):
    """n zero bytes as a frame without content size, streamed so nothing large is held."""
    p = subprocess.Popen(['zstd', '-q', '-c', '-1', '--no-check', '--no-content-size'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def feed():
        chunk = bytes(1 << 20)
        for _ in range(n >> 20):
            p.stdin.write(chunk)
        p.stdin.close()

    t = threading.Thread(target=feed)
    t.start()
    out = p.stdout.read()
    t.join()
    assert p.wait() == 0
    return out


def lz4_length(n):
    """LZ4 length continuation bytes for a length whose 4-bit token field is saturated."""
    out = bytearray()
    n -= 15
    while n >= 255:
        out.append(255)
        n -= 255
    out.append(n)
    return bytes(out)


def lz4_zeros(n):
    """A raw LZ4 block that decodes to n zero bytes: one literal, one overlapping match of n-6
    bytes at offset 1, and the five literals the format requires at the end."""
    assert n >= 13
    match = n - 6
    return (bytes([0x1F, 0]) + struct.pack('<H', 1) + lz4_length(match - 4) + bytes([0x50]) +
            bytes(5))


def lz4_bad_offset():
    """A raw LZ4 block whose first match reaches 0x1000 bytes before the start of the output."""
    return bytes([0x1F, ord('x')]) + struct.pack('<H', 0x1000) + lz4_length(40) + bytes([0x50]) + \
        b'xxxxx'


# ------------------------------------------------------------------ the corpus


class Corpus:
    def __init__(self):
        self.rows = []
        self.names = set()

    def base(self, name):
        with open(os.path.join(BASE, name), 'rb') as f:
            return bytearray(f.read())

    def add(self, name, data, command, expect, extra='', stdout=''):
        assert name not in self.names, name
        assert command in ('list', 'extract')
        self.names.add(name)
        with open(os.path.join(CASES, name), 'wb') as f:
            f.write(data)
        self.rows.append((name, command, expect, extra, stdout))

    def write_tsv(self):
        with open(os.path.join(HERE, 'cases.tsv'), 'w') as f:
            f.write('# Generated by generate.py; do not edit. Columns: case file, command, expected '
                    'stderr substring, extra valid inputs, expected stdout substring.\n')
            for row in self.rows:
                assert not any('\t' in c or '\n' in c for c in row), row
                f.write('\t'.join(row).rstrip('\t') + '\n')


def main():
    if shutil.which('zstd') is None:
        sys.exit('generate.py: the zstd command-line tool is needed')
    if os.path.isdir(CASES):
        shutil.rmtree(CASES)
    os.makedirs(CASES)
    K = Corpus()

    obj = K.base('k.o')
    S = sections(obj)
    fb = S['.nv_fatbin'].offset                     # the object's one container
    E = entries(obj, fb)
    cubin, ptx = E[0], E[1]
    assert cubin['kind'] == 2 and ptx['kind'] == 1 and ptx['flags'] & FLAG_ZSTD
    seg = S['.nvFatBinSegment']
    rela = S['.rela.nvFatBinSegment']
    symtab = S['.symtab']
    fat_size, = struct.unpack_from('<Q', obj, fb + 8)

    def obj_case(name, command, expect, mutate, base=obj):
        d = bytearray(base)
        mutate(d)
        K.add(name, d, command, expect)

    def where(cont, e, index):
        return 'container at 0x%x: entry %d at 0x%x: ' % (cont, index, e['off'])

    # -- empty and truncated files
    K.add('empty.o', b'', 'list', 'empty.o: empty file')
    K.add('trunc_elf_header.o', obj[:40], 'list', 'truncated ELF header (40 of 64 bytes)')

    def shtab(data, n, base=0, image='file'):
        return ('section header table at 0x%x (%d entries of 64 bytes) extends past the end of '
                'the %s at 0x%x' % (base + struct.unpack_from('<Q', data, 0x28)[0],
                                    struct.unpack_from('<H', data, 0x3c)[0], image, base + n))

    K.add('trunc_section_table.o', obj[:len(obj) - 100], 'list', shtab(obj, len(obj) - 100))
    # Cut inside the fatbin: the container is whole up to there, but the section table is gone.
    K.add('trunc_in_fatbin.o', obj[:fb + 100], 'list', shtab(obj, fb + 100))
    exe = K.base('k_exe')
    K.add('trunc_exe_program_headers', exe[:200], 'list', shtab(exe, 200))
    bare = K.base('k.fatbin')
    K.add('trunc_container_header.fatbin', bare[:10], 'list',
          'container at 0x0: truncated header (16 bytes needed)')
    bfat, = struct.unpack_from('<Q', bare, 8)
    K.add('trunc_entry_header.fatbin', bare[:16 + 40], 'list',
          'container at 0x0: size %d extends past the end of its section or file (40 bytes '
          'available)' % bfat)
    K.add('trunc_payload.fatbin', bare[:16 + 64 + 1000], 'list',
          'container at 0x0: size %d extends past the end of its section or file (1064 bytes '
          'available)' % bfat)

    # -- lying container and entry sizes (strict: inside .nv_fatbin)
    sec_size = S['.nv_fatbin'].size
    obj_case('fat_size_past_section.o', 'list',
             'container at 0x%x: size %d extends past the end of its section or file (%d bytes '
             'available)' % (fb, fat_size + 8, sec_size - 16),
             lambda d: put(d, fb + 8, 'Q', fat_size + 8))
    obj_case('fat_size_huge.o', 'list',
             'container at 0x%x: size 18446744073709551615 extends past' % fb,
             lambda d: put(d, fb + 8, 'Q', 2**64 - 1))
    obj_case('fat_size_short.o', 'list',
             where(fb, ptx, 1) + 'payload size %d extends past the container end (%d bytes left)'
             % (ptx['psize'], ptx['psize'] - 8),
             lambda d: put(d, fb + 8, 'Q', fat_size - 8))
    obj_case('entry_header_size_small.o', 'list',
             where(fb, cubin, 0) + 'header size 32 is smaller than 64',
             lambda d: put(d, cubin['off'] + 4, 'I', 32))
    obj_case('entry_header_size_huge.o', 'list',
             where(fb, ptx, 1) + 'header size 4294967295 extends past the container end',
             lambda d: put(d, ptx['off'] + 4, 'I', 0xFFFFFFFF))
    obj_case('entry_payload_size_huge.o', 'list',
             where(fb, cubin, 0) + 'payload size 18446744073709551608 extends past the container '
             'end', lambda d: set_entry(d, cubin, psize=2**64 - 8))
    # Entry 0 claims 8 bytes of entry 1: the next header is read 8 bytes early, so its "kind"
    # is the low half of entry 1's payload_size.
    obj_case('entry_payload_overlaps_next.o', 'list',
             'container at 0x%x: entry 1 at 0x%x: unknown entry kind %d'
             % (fb, ptx['off'] + 8, ptx['psize'] & 0xFFFF),
             lambda d: set_entry(d, cubin, psize=cubin['psize'] + 8))
    obj_case('compressed_size_past_payload.o', 'list',
             where(fb, ptx, 1) + 'compressed size %d exceeds the payload size %d'
             % (ptx['psize'] + 1, ptx['psize']),
             lambda d: set_entry(d, ptx, csize=ptx['psize'] + 1))
    obj_case('compressed_size_zero.o', 'list',
             where(fb, ptx, 1) + 'compressed entry without a compressed size',
             lambda d: set_entry(d, ptx, csize=0))
    obj_case('compressed_size_short.o', 'list',
             where(fb, ptx, 1) + 'corrupt zstd data',
             lambda d: set_entry(d, ptx, csize=ptx['csize'] - 20))
    obj_case('uncompressed_size_zero.o', 'list',
             where(fb, ptx, 1) + 'compressed entry without a decompressed size',
             lambda d: set_entry(d, ptx, usize=0))
    obj_case('uncompressed_size_over_cap.o', 'list',
             where(fb, ptx, 1) + 'declared size %d exceeds the limit of %d bytes'
             % (2 * MAX_ENTRY, MAX_ENTRY),
             lambda d: set_entry(d, ptx, usize=2 * MAX_ENTRY))
    # A bare container that claims 1 GiB of entries but holds one empty cubin entry.
    big = bytearray(build_container([(bytes(obj[cubin['off']:cubin['off'] + 64]), b'', 0x11, 0,
                                      0)]))
    put(big, 16 + 8, 'Q', MAX_ENTRY)
    put(big, 8, 'Q', 64 + MAX_ENTRY)
    K.add('fat_size_past_file.fatbin', big, 'list',
          'container at 0x0: size %d extends past the end of its section or file (64 bytes '
          'available)' % (64 + MAX_ENTRY))

    # -- bad magics, versions, kinds
    obj_case('container_bad_magic.o', 'list',
             "section '.nv_fatbin' at 0x%x: bytes at 0x%x are not part of any fatbin container: "
             'expected the container magic 0xba55ed50 or zero padding, found 0xba55ed51' % (fb, fb),
             lambda d: put(d, fb, 'I', CONTAINER_MAGIC + 1))
    obj_case('container_bad_version.o', 'list',
             'container at 0x%x: unsupported version 2' % fb, lambda d: put(d, fb + 4, 'H', 2))
    obj_case('container_bad_header_size.o', 'list',
             'container at 0x%x: unexpected header size 32' % fb,
             lambda d: put(d, fb + 6, 'H', 32))
    obj_case('entry_unknown_kind.o', 'list', where(fb, ptx, 1) + 'unknown entry kind 4',
             lambda d: put(d, ptx['off'], 'H', 4))
    obj_case('entry_bad_version.o', 'list',
             where(fb, cubin, 0) + 'unsupported entry header version 0x0102',
             lambda d: put(d, cubin['off'] + 2, 'H', 0x0102))
    obj_case('entry_both_compressions.o', 'list',
             where(fb, ptx, 1) + 'flags ask for both zstd and LZ4 compression',
             lambda d: set_entry(d, ptx, flags=ptx['flags'] | FLAG_LZ4))

    # -- aux and ident descriptors (the PTX entry has an 80-byte header, descriptor at +0x40)
    assert ptx['hsize'] == 80 and ptx['aux'] == 0x40
    obj_case('aux_descriptor_outside_header.o', 'list',
             where(fb, ptx, 1) + 'options descriptor at +0x4c lies outside the 80-byte header',
             lambda d: put(d, ptx['off'] + 0x14, 'I', 0x4c))
    obj_case('aux_string_outside_header.o', 'list',
             where(fb, ptx, 1) + 'options string (+0x48, 4096 bytes) lies outside the 80-byte '
             'header', lambda d: put(d, ptx['off'] + 0x40, 'II', 0x48, 4096))
    obj_case('ident_outside_header.o', 'list',
             where(fb, cubin, 0) + 'identifier (+0xfffffff0, 32 bytes) lies outside the 64-byte '
             'header', lambda d: put(d, cubin['off'] + 0x20, 'II', 0xFFFFFFF0, 32))

    # -- zstd
    zflags = ptx['flags']
    # 4 MiB of zeros in a frame without content size, in place of 482 bytes of PTX.
    bomb = zstd_zeros_unsized(4 << 20)
    obj_case('zstd_bomb_ptx.o', 'list',
             where(fb, ptx, 1) + 'zstd data decompresses to more than the declared %d bytes'
             % ptx['usize'], lambda d: replace_payload(d, ptx, bomb, zflags, ptx['usize']))
    # The cubin is not decoded by `list`; `extract` finds the bomb.
    cbomb = zstd_zeros_unsized(64 << 20)
    obj_case('zstd_bomb_cubin.o', 'extract',
             where(fb, cubin, 0) + 'zstd data decompresses to more than the declared %d bytes'
             % cubin['psize'],
             lambda d: replace_payload(d, cubin, cbomb, cubin['flags'] | FLAG_ZSTD,
                                       cubin['psize']))
    # 1 GiB of zeros (36 KiB of zstd) as the payload of a cubin that declares 3240 bytes.
    gbomb = zstd_zeros_unsized(1 << 30)
    hdr = bytes(obj[cubin['off']:cubin['off'] + 64])
    K.add('zstd_bomb_1gib.fatbin',
          build_container([(hdr, gbomb, cubin['flags'] | FLAG_ZSTD, len(gbomb), cubin['psize'])]),
          'extract',
          'container at 0x0: entry 0 at 0x10: zstd data decompresses to more than the declared '
          '%d bytes' % cubin['psize'])
    sized = zstd(bytes(4 << 20))
    obj_case('zstd_content_size_mismatch.o', 'list',
             where(fb, ptx, 1) + 'zstd frame holds %d bytes but the header declares %d'
             % (4 << 20, ptx['usize']),
             lambda d: replace_payload(d, ptx, sized, zflags, ptx['usize']))
    obj_case('zstd_declared_size_lies.o', 'list',
             where(fb, ptx, 1) + 'zstd frame holds %d bytes but the header declares %d'
             % (ptx['usize'], ptx['usize'] + 100),
             lambda d: set_entry(d, ptx, usize=ptx['usize'] + 100))
    short = zstd(bytes(100), content_size=False)
    obj_case('zstd_output_short.o', 'list',
             where(fb, ptx, 1) + 'zstd data decompresses to 100 bytes, the header declares %d'
             % ptx['usize'], lambda d: replace_payload(d, ptx, short, zflags, ptx['usize']))
    obj_case('zstd_not_a_frame.o', 'list', where(fb, ptx, 1) + 'not a zstd frame',
             lambda d: put(d, ptx['off'] + ptx['hsize'], 'I', 0xDEADBEEF))

    def corrupt_block(d):
        # Keep the frame header (magic, descriptor, window, content size), wreck the first
        # block: a reserved block type.
        start = ptx['off'] + ptx['hsize']
        fhd = d[start + 4]
        single, fcs, did = (fhd >> 5) & 1, fhd >> 6, fhd & 3
        hdr = 5 + (0 if single else 1) + [0, 1, 2, 4][did] + [single, 2, 4, 8][fcs]
        d[start + hdr:start + hdr + 3] = b'\xff\xff\xff'

    obj_case('zstd_corrupt_block.o', 'list', where(fb, ptx, 1) + 'corrupt zstd data',
             corrupt_block)

    # -- LZ4 (--compress-mode=speed: the PTX entry is an LZ4 raw block)
    lobj = K.base('k_lz4.o')
    LS = sections(lobj)
    lfb = LS['.nv_fatbin'].offset
    LE = entries(lobj, lfb)
    lcubin, lptx = LE[0], LE[1]
    assert lptx['flags'] & FLAG_LZ4 and not lcubin['flags'] & (FLAG_LZ4 | FLAG_ZSTD)
    obj_case('lz4_bomb_ptx.o', 'list',
             where(lfb, lptx, 1) + 'LZ4 block decompresses to more than the declared %d bytes'
             % lptx['usize'],
             lambda d: replace_payload(d, lptx, lz4_zeros(64 << 10), lptx['flags'],
                                       lptx['usize']), base=lobj)
    obj_case('lz4_bomb_cubin.o', 'extract',
             where(lfb, lcubin, 0) + 'LZ4 block decompresses to more than the declared %d bytes'
             % lcubin['psize'],
             lambda d: replace_payload(d, lcubin, lz4_zeros(512 << 10),
                                       lcubin['flags'] | FLAG_LZ4, lcubin['psize']), base=lobj)
    obj_case('lz4_bad_match_offset.o', 'list',
             where(lfb, lptx, 1) + 'corrupt LZ4 block (error at input byte 5)',
             lambda d: replace_payload(d, lptx, lz4_bad_offset(), lptx['flags'], lptx['usize']),
             base=lobj)
    obj_case('lz4_output_short.o', 'list',
             where(lfb, lptx, 1) + 'LZ4 block decompresses to 100 bytes, the header declares %d'
             % lptx['usize'],
             lambda d: replace_payload(d, lptx, lz4_zeros(100), lptx['flags'], lptx['usize']),
             base=lobj)
    obj_case('lz4_truncated_block.o', 'list',
             where(lfb, lptx, 1) + 'corrupt LZ4 block (error at input byte',
             lambda d: set_entry(d, lptx, csize=lptx['csize'] // 2), base=lobj)

    # -- containers: garbage, overlap, empty
    ES = sections(exe)
    efb = ES['.nv_fatbin'].offset
    c0 = entries(exe, efb)
    c0fat, = struct.unpack_from('<Q', exe, efb + 8)
    c1 = efb + 16 + c0fat
    assert struct.unpack_from('<I', exe, c1)[0] == CONTAINER_MAGIC and len(c0) == 1

    def garbage_between(d):
        # Container 0 gives up the last 8 bytes of its only entry; they become stray bytes.
        put(d, efb + 8, 'Q', c0fat - 8)
        set_entry(d, c0[0], psize=c0[0]['psize'] - 8)
        d[c1 - 8:c1] = b'GARBAGE!'

    obj_case('garbage_between_containers', 'list',
             "section '.nv_fatbin' at 0x%x: bytes at 0x%x are not part of any fatbin container: "
             'expected the container magic 0xba55ed50 or zero padding, found 0x42524147'
             % (efb, c1 - 8), garbage_between, base=exe)
    # Container 0 swallows the header of container 1: the containers overlap.
    obj_case('containers_overlap', 'list',
             'container at 0x%x: entry 1 at 0x%x: unknown entry kind %d'
             % (efb, c1, CONTAINER_MAGIC & 0xFFFF),
             lambda d: put(d, efb + 8, 'Q', c0fat + 64 + 16), base=exe)
    # fat_size 0: an empty container, followed by entries that now belong to no container.
    obj_case('empty_container_then_entries.o', 'list',
             "section '.nv_fatbin' at 0x%x: bytes at 0x%x are not part of any fatbin container: "
             'expected the container magic 0xba55ed50 or zero padding, found 0x01010002'
             % (fb, fb + 16), lambda d: put(d, fb + 8, 'Q', 0))
    two = bytes(bare) + b'JUNKJUNK' + bytes(bare)
    K.add('garbage_between_containers.fatbin', two, 'list',
          'bare fatbin: bytes at 0x%x are not part of any fatbin container: expected the '
          'container magic 0xba55ed50 or zero padding, found 0x4b4e554a' % len(bare))

    # -- wrappers
    eseg = ES['.nvFatBinSegment']
    wraps = [eseg.offset + i * 24 for i in range(eseg.size // 24)]
    w1 = wraps[1]
    data1, = struct.unpack_from('<Q', exe, w1 + 8)
    assert data1 == ES['.nv_fatbin'].addr + (c1 - efb)
    obj_case('wrapper_into_container', 'list',
             'wrapper at 0x%x points to 0x%x, inside the container at 0x%x' % (w1, c1 + 16, c1),
             lambda d: put(d, w1 + 8, 'Q', data1 + 16), base=exe)
    obj_case('wrapper_outside_file', 'list',
             'wrapper at 0x%x: data pointer 0x7fff00000000 lies outside every section of the file'
             % w1, lambda d: put(d, w1 + 8, 'Q', 0x7FFF00000000), base=exe)
    text = ES['.text']
    obj_case('wrapper_into_text', 'list',
             'wrapper at 0x%x points to 0x%x: ' % (w1, text.offset) +
             'container at 0x%x: bad magic' % text.offset,
             lambda d: put(d, w1 + 8, 'Q', text.addr), base=exe)
    obj_case('wrapper_bad_magic.o', 'list',
             'wrapper at 0x%x: bad magic 0x12345678 (expected 0x466243b1)' % seg.offset,
             lambda d: put(d, seg.offset, 'I', 0x12345678))
    obj_case('wrapper_bad_version.o', 'list',
             'wrapper at 0x%x: unsupported version 3' % seg.offset,
             lambda d: put(d, seg.offset + 4, 'I', 3))
    obj_case('wrapper_segment_size.o', 'list',
             'section .nvFatBinSegment at 0x%x: size 20 is not a multiple of the 24-byte wrapper '
             'record' % seg.offset, lambda d: put(d, seg.hdr_off + 0x20, 'Q', 20))

    # -- .rela.nvFatBinSegment: one R_X86_64_64 against the .nv_fatbin section symbol
    r_offset, r_info, r_addend = struct.unpack_from('<QQq', obj, rela.offset)
    sym, rtype = r_info >> 32, r_info & 0xFFFFFFFF
    assert rtype == 1 and r_offset == 8
    obj_case('reloc_bad_type.o', 'list',
             'wrapper at 0x%x: unsupported relocation type 2' % seg.offset,
             lambda d: put(d, rela.offset + 8, 'Q', (sym << 32) | 2))
    obj_case('reloc_symbol_out_of_range.o', 'list',
             'wrapper at 0x%x: relocation names symbol 999999, which does not exist' % seg.offset,
             lambda d: put(d, rela.offset + 8, 'Q', (999999 << 32) | 1))
    obj_case('reloc_symbol_in_no_section.o', 'list',
             'wrapper at 0x%x: relocation symbol lies in no section of the file (section index '
             '200)' % seg.offset, lambda d: put(d, symtab.offset + sym * 24 + 6, 'H', 200))
    obj_case('reloc_symbol_undefined.o', 'list',
             'wrapper at 0x%x: relocation symbol lies in no section of the file (section index 0)'
             % seg.offset, lambda d: put(d, symtab.offset + sym * 24 + 6, 'H', 0))
    obj_case('reloc_offset_past_section.o', 'list',
             'wrapper at 0x%x: relocation 0 targets offset 0x1000, past the end of '
             '.nvFatBinSegment (24 bytes)' % seg.offset,
             lambda d: put(d, rela.offset, 'Q', 0x1000))
    # The relocation is fine but fills the second half of the pointer: nothing fills the field.
    obj_case('reloc_misses_data_field.o', 'list',
             'wrapper at 0x%x: no relocation fills its data pointer' % seg.offset,
             lambda d: put(d, rela.offset, 'Q', 12))
    obj_case('reloc_addend_past_section.o', 'list',
             "wrapper at 0x%x: relocation points 0x100000 bytes into section '.nv_fatbin', which "
             'has only 0x%x' % (seg.offset, S['.nv_fatbin'].size),
             lambda d: put(d, rela.offset + 16, 'q', 0x100000))
    obj_case('reloc_addend_negative.o', 'list',
             "wrapper at 0x%x: relocation points 0xfffffffffffffff0 bytes into section "
             "'.nv_fatbin'" % seg.offset, lambda d: put(d, rela.offset + 16, 'q', -16))
    obj_case('reloc_into_container.o', 'list',
             'wrapper at 0x%x points to 0x%x, inside the container at 0x%x'
             % (seg.offset, fb + 16, fb), lambda d: put(d, rela.offset + 16, 'q', 16))
    obj_case('reloc_bad_symtab_link.o', 'list',
             'wrapper at 0x%x: symbol table 99 of its relocations is unreadable' % seg.offset,
             lambda d: put(d, rela.hdr_off + 0x28, 'I', 99))

    # -- section table entries that lie
    nv = S['.nv_fatbin']
    obj_case('section_past_eof.o', 'list',
             "section '.nv_fatbin' (offset 0x%x, size 0x100000) extends past the end of the file "
             'at 0x%x' % (nv.offset, len(obj)), lambda d: put(d, nv.hdr_off + 0x20, 'Q', 0x100000))
    obj_case('section_offset_past_eof.o', 'list',
             "section '.nv_fatbin' (offset 0x10000000, size 0x%x) extends past the end of the "
             'file at 0x%x' % (nv.size, len(obj)), lambda d: put(d, nv.hdr_off + 0x18, 'Q', 0x10000000))

    # An empty .nv_fatbin section: the wrapper's relocation points past its end.
    obj_case('empty_fatbin_section.o', 'list',
             "wrapper at 0x%x: relocation points 0x0 bytes into section '.nv_fatbin', which has "
             'only 0x0' % seg.offset, lambda d: put(d, nv.hdr_off + 0x20, 'Q', 0))

    # -- archives: offsets are file offsets in the archive, messages name the member
    ar = K.base('k.a')
    member = ar.index(bytes(obj[:64]))             # the member's ELF image
    afb = member + fb
    ptx_a = dict(ptx, off=ptx['off'] + member)
    bad = bytearray(ar)
    put(bad, ptx_a['off'], 'H', 7)
    K.add('archive_member_bad_entry.a', bad, 'list',
          where(afb, ptx_a, 1) + 'unknown entry kind 7')
    K.add('archive_truncated_member.a', ar[:afb + 200], 'list',
          'k.o: ' + shtab(obj, afb + 200 - member, member, 'archive member'))
    bad = bytearray(ar)
    put(bad, member + nv.hdr_off + 0x20, 'Q', 0x100000)
    K.add('archive_member_section_past_end.a', bad, 'list',
          "k.o: section '.nv_fatbin' (offset 0x%x, size 0x100000) extends past the end of the "
          'archive member at 0x%x' % (afb, member + len(obj)))
    bad = bytearray(ar)
    put(bad, member + seg.offset, 'I', 0)
    K.add('archive_member_bad_wrapper.a', bad, 'list',
          'k.o: wrapper at 0x%x: bad magic 0x00000000' % (member + seg.offset))

    # -- several files in one invocation: the good one is still listed / extracted
    bad = bytearray(obj)
    put(bad, ptx['off'], 'H', 4)
    K.add('bad_next_to_good.o', bad, 'list', where(fb, ptx, 1) + 'unknown entry kind 4',
          extra='base/k.o', stdout='base/k.o: ELF relocatable object, 1 fatbin container, 2 entries')
    K.add('bomb_next_to_good.o', open(os.path.join(CASES, 'zstd_bomb_cubin.o'), 'rb').read(),
          'extract', where(fb, cubin, 0) + 'zstd data decompresses to more than the declared',
          extra='base/k.fatbin base/k_size.o')

    K.write_tsv()
    total = sum(os.path.getsize(os.path.join(CASES, n)) for n in K.names)
    print('%d cases, %d bytes' % (len(K.rows), total))


if __name__ == '__main__':
    main()
