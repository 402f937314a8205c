#!/bin/sh
# Regenerates kernels.ptx, the committed nvcc output of kernels.cu that bench_emulator runs
# (bench/emulator_speed.cpp), with the flags run.sh uses for the code-quality comparison.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
"$NVCC" -arch=sm_80 -ptx -O3 kernels.cu -o kernels.ptx
