#!/bin/sh
# REPTX_LOG=trace through `reptx run` (loader/lib/Trace.h): the program's key driver calls appear,
# in order, each with its result, and without REPTX_LOG no trace line appears. PROGRAM is
# programs/vecadd.cu (3 allocations of 4000 bytes, a <<<4, 256>>> launch of vadd).
# Usage: check_trace.sh REPTX PROGRAM
set -u
out=$(REPTX_LOG=trace "$1" run --device emulator -- "$2" 2>&1)
rc=$?
printf '%s\n' "$out" |
  grep '^\[reptx trace\] cu\(Init\|Mem\|LibraryLoad\|LibraryGetKernel\|LaunchKernel\)\|^PASS' | head -40
echo "... $(printf '%s\n' "$out" | grep -c '^\[reptx trace\]') trace lines"
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
# The first line matching each pattern must come after the one of the pattern before.
line=0
for pat in \
  '^\[reptx trace\] cuInit(Flags=0) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuGetExportTable(Table=0x[0-9a-f]*, Id=0x[0-9a-f]*) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuMemAlloc_v2(Ptr=0x[0-9a-f]*, Bytes=4000) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuMemcpyHtoD_v2(D=0x[0-9a-f]*, S=0x[0-9a-f]*, N=4000) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cu\(Library\|Module\)LoadData(.*) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuLibraryGetKernel(.*Name="_Z4vaddPKfS0_Pfi") -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuLaunchKernel(F=0x[0-9a-f]*, GX=4, GY=1, GZ=1, BX=256, BY=1, BZ=1, .*) -> CUDA_SUCCESS$' \
  '^\[reptx trace\] cuMemcpyDtoH_v2(D=0x[0-9a-f]*, S=0x[0-9a-f]*, N=4000) -> CUDA_SUCCESS$' \
  '^PASS$'; do
  n=$(printf '%s\n' "$out" | tail -n +$((line + 1)) | grep -n -m1 "$pat" | cut -d: -f1)
  if [ -z "$n" ]; then
    echo "FAIL: no line matching '$pat' after line $line"
    exit 1
  fi
  line=$((line + n))
done
quiet=$(env -u REPTX_LOG "$1" run --device emulator -- "$2" 2>&1)
if printf '%s\n' "$quiet" | grep -q '\[reptx trace\]'; then
  echo "FAIL: trace lines without REPTX_LOG"
  exit 1
fi
printf '%s\n' "$quiet" | grep -q '^PASS$' || { echo "FAIL: no PASS without REPTX_LOG"; exit 1; }
echo "trace: every key call in order; none without REPTX_LOG"
exit 0
