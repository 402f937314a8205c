#!/bin/sh
# `reptx compile --wave64-mode` and `reptx emulate` end to end: warp_ids (kernels/warp_vote.ptx)
# for gfx942 in both wave64 modes and for gfx1100, run with a 3-D block of 96 threads in 2 blocks;
# every thread's %laneid, %warpid and %nwarpid are checked (flat id % 32, flat id / 32, 3). Single
# mode must show its leading argument and use one wave per warp (3 per block).
set -eu
REPTX=$1
KERNELS=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # $1: code object, $2: expected waves
  "$REPTX" emulate "$1" --kernel warp_ids --grid 2 --block 12,4,2 --arg "out:$T/ids.bin:6144" \
    > "$T/log"
  grep -q "2 work-group(s), $2 wave(s)" "$T/log"
  od -An -v -tu4 -w32 "$T/ids.bin" | awk '
    { t = (NR - 1) % 96
      if ($1 != t % 32 || $2 != int(t / 32) || $3 != 3) { print "thread " NR - 1 ": " $0; bad = 1 } }
    END { if (NR != 192) { print NR " rows"; bad = 1 }; exit bad }'
}

"$REPTX" compile --no-cache "$KERNELS/warp_vote.ptx" --arch gfx942 -o "$T/packed.hsaco" > /dev/null
check "$T/packed.hsaco" 4
"$REPTX" compile --no-cache "$KERNELS/warp_vote.ptx" --arch gfx942 --wave64-mode single \
  -o "$T/single.hsaco" > /dev/null
"$REPTX" emulate "$T/single.hsaco" --list | grep -q '+0    16 bytes  by_value __reptx_wave64_single'
check "$T/single.hsaco" 6
"$REPTX" compile --no-cache "$KERNELS/warp_vote.ptx" --arch gfx1100 -o "$T/w32.hsaco" > /dev/null
check "$T/w32.hsaco" 6

# An unknown mode is a usage error.
if "$REPTX" compile "$KERNELS/warp_vote.ptx" --wave64-mode double -o "$T/x" 2> /dev/null; then
  exit 1
fi
echo ok
