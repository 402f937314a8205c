#!/usr/bin/env bash
# Rebuilds the bundled sample executable exactly as committed: plain nvcc with its defaults (static
# cudart, default arch sm_75), so the fatbin holds an sm_75 cubin and sm_75 PTX like most
# binaries built without -arch.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
"$NVCC" -o vecadd vecadd.cu
