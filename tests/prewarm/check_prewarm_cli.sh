#!/bin/sh
# `reptx prewarm` end to end: a directory of PTX files and a CUDA binary for two targets, the
# summary and --json, a second run that only hits, --output as a read-only layer that `reptx
# compile` then hits, and the exit codes (1 usage, 2 missing input).
set -eu
REPTX=$1
KERNELS=$2
SAMPLE=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=detect_leaks=0
unset REPTX_CACHE_READONLY_PATHS REPTX_CACHE_DISABLE REPTX_CACHE_MAXSIZE
export REPTX_CACHE_PATH="$T/cache"
mkdir "$T/in"
cp "$KERNELS/saxpy.ptx" "$KERNELS/vector_add.ptx" "$T/in/"
cp "$KERNELS/saxpy.ptx" "$T/in/copy.ptx"     # a duplicate: compiled once
cp "$SAMPLE" "$T/in/vecadd"
echo "not a binary" > "$T/in/README"           # skipped

"$REPTX" prewarm "$T/in" --arch gfx942,gfx1100 -j 2 > "$T/out" 2> "$T/err"
cat "$T/out"
grep -q "3 unique PTX modules (4 entries, 1 duplicates) in 4 of 5 files, 2 targets" "$T/out"
grep -Eq "^gfx942 +3 +0 +3 +0 +3 +0$" "$T/out"
grep -Eq "^gfx1100 +3 +0 +3 +0 +3 +0$" "$T/out"

"$REPTX" prewarm "$T/in" --arch gfx942,gfx1100 --json > "$T/json"
cat "$T/json"
grep -q '"hits": 3' "$T/json"
grep -q '"compiled": 0' "$T/json"
grep -q '"kernels_compiled": 3' "$T/json"
"$REPTX" cache stats | grep -q "entries           6"

# --output: a self-contained layer (hits copied from the cache, so no compile is needed).
"$REPTX" prewarm "$T/in/saxpy.ptx" "$T/in/vecadd" --arch gfx1100 --output "$T/layer" --json \
  > "$T/json"
grep -q '"hits": 2' "$T/json"
REPTX_CACHE_PATH="$T/empty" REPTX_CACHE_READONLY_PATHS="$T/layer" \
  "$REPTX" compile "$T/in/saxpy.ptx" --arch gfx1100 -o "$T/saxpy.hsaco" > "$T/out"
grep -q "gfx1100: 1 kernel -> $T/saxpy.hsaco (cached)" "$T/out"
REPTX_CACHE_PATH="$T/untouched" "$REPTX" compile "$T/in/saxpy.ptx" --arch gfx1100 --no-cache \
  -o "$T/fresh.hsaco" > "$T/out"
cmp "$T/saxpy.hsaco" "$T/fresh.hsaco"
test ! -e "$T/untouched"

rc=0; "$REPTX" prewarm "$T/in" --arch gfx803 2> /dev/null || rc=$?
test "$rc" = 1
rc=0; "$REPTX" prewarm "$T/in" --wave64-mode odd 2> /dev/null || rc=$?
test "$rc" = 1
rc=0; "$REPTX" prewarm "$T/missing" 2> /dev/null || rc=$?
test "$rc" = 2
echo ok
