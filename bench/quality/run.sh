#!/bin/sh
# Static code quality of reptx against clang's native AMDGPU code (issue 4, acceptance 5).
# Builds bench/quality/kernels.cu two ways for one target:
#   (a) nvcc -arch=sm_80 -ptx -O3, then reptx compile (the recompiler under test);
#   (b) clang++-22 -x hip for the target through cuda_shim.h (the native baseline,
#       shared/reference/amdgpu-codegen.md section 4a, with -ffp-contract=on like nvcc's fma);
# both as code object v5, then prints stats.py's table (ratios reptx/native per kernel).
#
# usage: bench/quality/run.sh [-r REPTX] [-a gfx942] [-o OUTDIR] [-m] [-l] [-u]
#   -r  the reptx binary (default: build/h-quality-rel, h-quality, release, ci)
#   -a  target (default gfx942)      -o  keep the PTX and code objects in OUTDIR
#   -m  Markdown table               -l  also print the hot loops of both builds
#   -u  also a second table against a native build that unrolls the loops nvcc unrolls by 4
#       (kernels.cu NVCC_UNROLL; a diagnostic: the goal's baseline is the first table's)
# Exit: 0 done (or SKIPPED without nvcc), 1 a kernel reptx did not compile, 2 a build or tool
# failure. The kernel cache is not touched (reptx compile --no-cache).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
CLANG=${CLANG:-$LLVM_BIN/clang++}
ARCH=gfx942
REPTX=
OUT=
STATS_FLAGS=
UNROLLED=

while getopts r:a:o:mlu opt; do
  case $opt in
  r) REPTX=$OPTARG ;;
  a) ARCH=$OPTARG ;;
  o) OUT=$OPTARG ;;
  m) STATS_FLAGS="$STATS_FLAGS --markdown" ;;
  l) STATS_FLAGS="$STATS_FLAGS --loops" ;;
  u) UNROLLED=1 ;;
  *) sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2; exit 2 ;;
  esac
done

if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "SKIPPED: nvcc not found ($NVCC); set NVCC to the CUDA compiler"
  exit 0
fi
if [ -z "$REPTX" ]; then
  for b in h-quality-rel h-quality release ci; do
    if [ -x "$ROOT/build/$b/bin/reptx" ]; then REPTX=$ROOT/build/$b/bin/reptx; break; fi
  done
fi
if [ -z "$REPTX" ] || [ ! -x "$REPTX" ]; then
  echo "run.sh: no reptx binary (build one, or pass -r)" >&2
  exit 2
fi
for t in "$CLANG" "$LLVM_BIN/llvm-objdump" "$LLVM_BIN/llvm-readelf" "$LLVM_BIN/llvm-mca"; do
  command -v "$t" >/dev/null 2>&1 || { echo "run.sh: $t not found" >&2; exit 2; }
done

if [ -n "$OUT" ]; then
  mkdir -p "$OUT"
  W=$(cd "$OUT" && pwd)
else
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
fi

fail() { echo "run.sh: $1 failed" >&2; exit 2; }

echo "# reptx: $REPTX"
echo "# nvcc:  $("$NVCC" --version | tail -n 1)"
echo "# clang: $("$CLANG" --version | head -n 1)"

# (a) CUDA -> PTX -> reptx. The cache stays out of it: --no-cache, and a private cache path in
# case an older reptx ignores the flag.
"$NVCC" -arch=sm_80 -ptx -O3 "$HERE/kernels.cu" -o "$W/kernels.ptx" || fail "nvcc"
REPTX_CACHE_PATH="$W/cache" "$REPTX" compile "$W/kernels.ptx" --arch "$ARCH" --cov 5 \
  --no-cache -o "$W/reptx_$ARCH.hsaco" 2>"$W/reptx.log" || {
  cat "$W/reptx.log" >&2
  # Kernels that fail to lift are left out of the object; no object at all is a build failure.
  [ -s "$W/reptx_$ARCH.hsaco" ] || fail "reptx compile"
}
[ -s "$W/reptx.log" ] && cat "$W/reptx.log" >&2

# (b) native: clang-22 HIP, no ROCm headers or device libraries (with -u, once more with nvcc's
# unrolling: QUALITY_NVCC_UNROLL).
native() {
  # shellcheck disable=SC2086 # $2: extra flags, a list
  "$CLANG" -x hip -nogpuinc -nogpulib --offload-arch="$ARCH" --offload-device-only \
    --no-gpu-bundle-output -O3 -ffp-contract=on -mcode-object-version=5 $2 \
    -c "$HERE/kernels.cu" -o "$1" || fail "clang++ (HIP)"
}
native "$W/native_$ARCH.hsaco" ""

# shellcheck disable=SC2086 # STATS_FLAGS is a list of flags
LLVM_BIN=$LLVM_BIN python3 "$HERE/stats.py" --mcpu "$ARCH" $STATS_FLAGS \
  "$W/reptx_$ARCH.hsaco" "$W/native_$ARCH.hsaco"

if [ -n "$UNROLLED" ]; then
  # clang cannot unroll scan_rows_warp's loop (its shuffles are convergent): no warning for it.
  native "$W/native_unrolled_$ARCH.hsaco" "-DQUALITY_NVCC_UNROLL -Wno-pass-failed"
  echo
  echo "# against native with nvcc's 4x unrolling of the NVCC_UNROLL loops (diagnostic)"
  # shellcheck disable=SC2086
  LLVM_BIN=$LLVM_BIN python3 "$HERE/stats.py" --mcpu "$ARCH" $STATS_FLAGS \
    "$W/reptx_$ARCH.hsaco" "$W/native_unrolled_$ARCH.hsaco"
fi
