#!/bin/sh
# Regenerates the committed PTX of the lifting tests from their CUDA sources with nvcc.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in *.cu; do
  # float_ftz.cu is about flush-to-zero: nvcc emits .ftz with -ftz=true.
  FLAGS=""
  [ "$cu" = float_ftz.cu ] && FLAGS="-ftz=true"
  # elect.sync needs sm_90.
  ARCH=sm_80
  [ "$cu" = warp_elect.cu ] && ARCH=sm_90
  # bf16 arithmetic (add.bf16, fma.rn.bf16...) needs sm_90 too.
  [ "$cu" = half_bf16.cu ] && ARCH=sm_90
  # bf16 atomics (atom.add.noftz.bf16/.bf16x2) need sm_90.
  [ "$cu" = half_atomics.cu ] && ARCH=sm_90
  "$NVCC" -arch=$ARCH -ptx -O3 $FLAGS "$cu" -o "${cu%.cu}.ptx"
done
