#!/bin/sh
# Regenerates the committed PTX of the lifting tests from their CUDA sources with nvcc.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in *.cu; do
  # float_ftz.cu is about flush-to-zero: nvcc emits .ftz with -ftz=true.
  FLAGS=""
  [ "$cu" = float_ftz.cu ] && FLAGS="-ftz=true"
  "$NVCC" -arch=sm_80 -ptx -O3 $FLAGS "$cu" -o "${cu%.cu}.ptx"
done
