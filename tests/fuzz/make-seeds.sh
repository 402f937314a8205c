#!/usr/bin/env bash
# Rebuilds the fatbin fuzzer's seed corpus (tests/fuzz/corpus/fatbin/) with nvcc: small inputs that
# reach every path of the container parser (bare fatbins with uncompressed, zstd and LZ4 PTX and
# cubin entries, ident and options strings, arch/family-specific and encrypted LTO-IR entries,
# relocatable and -rdc objects, an executable, a shared object, an ar archive, a container inside
# unrelated bytes). Hand-made reproducers of past findings (crash-*, leak-*, timeout-*, oom-*) in
# the corpus directory are kept.
#
# Usage: tests/fuzz/make-seeds.sh [CUDA_HOME]   (default /usr/local/cuda)
set -euo pipefail

CUDA_HOME=${1:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/corpus/fatbin
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Two kernels and a __device__ global: enough for .entry counting and a non-empty cubin, and the
# PTX stays a few hundred bytes so the seeds stay small.
cat >"$WORK/k.cu" <<'EOF'
__device__ float Bias;
extern "C" __global__ void scale(float *X, float S, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] = X[I] * S + Bias;
}
extern "C" __global__ void fill(int *X, int V) { X[threadIdx.x] = V; }
EOF
# A host part so that -cudart shared and -shared links give registration code and wrappers.
cat >"$WORK/main.cu" <<'EOF'
#include "k.cu"
int main() {
  float *X = nullptr;
  cudaMalloc(&X, 64 * sizeof(float));
  scale<<<1, 64>>>(X, 2.0f, 64);
  return cudaDeviceSynchronize() != cudaSuccess;
}
EOF

SM80='-gencode arch=compute_80,code=[sm_80,compute_80]'
cd "$WORK"
nv() { "$NVCC" "$@"; }

# Bare fatbins: each compression mode, with and without compressing the cubins too.
nv -fatbin $SM80 --compress-mode=default -o fatbin-zstd-ptx.fatbin k.cu
nv -fatbin $SM80 --compress-mode=default -Xfatbin -compress-all -o fatbin-zstd-all.fatbin k.cu
nv -fatbin $SM80 --compress-mode=speed -Xfatbin -compress-all -o fatbin-lz4-all.fatbin k.cu
nv -fatbin $SM80 --compress-mode=speed -o fatbin-lz4-ptx.fatbin k.cu
nv -fatbin $SM80 --compress-mode=none -o fatbin-none.fatbin k.cu
# Options (aux) and ident strings.
nv -fatbin $SM80 -lineinfo -o fatbin-lineinfo.fatbin k.cu
nv -fatbin $SM80 -G --compress-mode=none -o fatbin-debug-none.fatbin k.cu
nv -fatbin $SM80 -Xptxas -O2 -Xptxas -v -o fatbin-ptxas-opts.fatbin k.cu 2>/dev/null
# Arch-specific (flag 0x100000, cubin aux blob) and family-specific (0x200000) targets.
nv -fatbin -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_103f,code=compute_103f \
  -o fatbin-sm100a-103f.fatbin k.cu
# Encrypted LTO-IR entry (flag 0x10000).
nv -fatbin -gencode arch=compute_80,code=lto_80 -o fatbin-ltoir.fatbin k.cu
# PTX only and cubin only.
nv -fatbin -gencode arch=compute_80,code=compute_80 -o fatbin-ptx-only.fatbin k.cu
nv -fatbin -gencode arch=compute_80,code=sm_80 --compress-mode=none -o fatbin-cubin-only.fatbin k.cu
# Two containers back to back in one bare file (zero padding between them is allowed).
cat fatbin-ptx-only.fatbin fatbin-lz4-ptx.fatbin >fatbin-two-containers.fatbin

# ELF files: relocatable object (.nv_fatbin + R_X86_64_64 wrapper relocation), -rdc object
# (__nv_relfatbin), executable and shared object (VA wrappers, version 2 for the device link).
nv -c $SM80 -o obj-whole.o k.cu
nv -c -rdc=true $SM80 -o obj-rdc.o k.cu
nv -cudart shared -gencode arch=compute_80,code=sm_80 -o exe-cudart-shared main.cu
nv -shared -Xcompiler -fPIC -cudart shared -gencode arch=compute_80,code=compute_80 \
  -o lib-shared.so k.cu
# The fatbin sections are SHF_ALLOC, so strip keeps them and drops only symbols and debug info.
strip exe-cudart-shared lib-shared.so
# A standalone cubin: an ELF without fatbin sections.
nv -cubin -arch=sm_80 -o cubin-sm80.cubin k.cu

# ar archive: an odd-length text member first, so the objects land at offsets that are not 8-aligned
# (ar aligns members to 2 only) and the archive walk meets a non-ELF member.
printf 'odd' >note.txt
ar rcs archive.a note.txt obj-whole.o obj-rdc.o

# A container inside unrelated bytes (FileKind Other, magic-scan path) after a false magic hit.
{
  printf 'not an ELF file \x50\xed\x55\xba junk....'
  cat fatbin-none.fatbin
} >raw-embedded.bin

mkdir -p "$OUT"
find "$OUT" -maxdepth 1 -type f ! -name 'crash-*' ! -name 'leak-*' ! -name 'timeout-*' \
  ! -name 'oom-*' -delete
cp fatbin-*.fatbin obj-*.o exe-cudart-shared lib-shared.so cubin-sm80.cubin archive.a \
  raw-embedded.bin "$OUT"/
du -cb "$OUT"/* | sort -n
