#!/bin/sh
# Rebuilds the valid base inputs of the malformed-input corpus from k.cu (needs nvcc; the test
# itself does not: the bases and the cases derived from them are committed).
# usage: build.sh [NVCC]    then: python3 ../generate.py
set -eu
NVCC=${1:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
cd "$(dirname "$0")"
# One cubin (sm_80) and one PTX entry (compute_80) per fatbin keeps every base a few KiB.
GENCODE="-gencode arch=compute_80,code=[sm_80,compute_80]"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Relocatable object: .nv_fatbin, wrapper + R_X86_64_64 relocation; zstd PTX, plain cubin.
"$NVCC" -c $GENCODE k.cu -o k.o
# Same with --compress-mode=speed: LZ4 raw-block PTX.
"$NVCC" -c $GENCODE --compress-mode=speed k.cu -o k_lz4.o
# --compress-mode=size: the cubin is zstd-compressed as well.
"$NVCC" -c $GENCODE --compress-mode=size k.cu -o k_size.o
# Bare container file.
"$NVCC" -fatbin $GENCODE k.cu -o k.fatbin
# Executable (PIE): version-2 and version-1 wrappers holding virtual addresses; stripped to
# stay small (strip keeps .nv_fatbin, .nvFatBinSegment and the dynamic relocations).
"$NVCC" $GENCODE -cudart shared k.cu -o "$TMP/k_exe"
strip -o k_exe "$TMP/k_exe"
# Static library holding the object (with an archive symbol table, as `ar rcs` writes it).
rm -f k.a
ar rcsD k.a k.o
