#!/bin/sh
# `reptx compile` end to end: a PTX file for two targets, the sample binary, --emit-llvm, and a
# module where one kernel fails to lift (exit code 2, the other kernel still compiled), a full
# disk and a compile past --timeout.
set -eu
REPTX=$1
KERNELS=$2
SAMPLE=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$REPTX" compile "$KERNELS/vector_add.ptx" --arch gfx942,gfx1100 -o "$T/out" > "$T/log"
test -s "$T/out/vector_add.gfx942.hsaco"
test -s "$T/out/vector_add.gfx1100.hsaco"
grep -q "gfx942: 1 kernel" "$T/log"

"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx1201 --cov 4 -o "$T/saxpy.hsaco" > /dev/null
test -s "$T/saxpy.hsaco"

"$REPTX" compile "$SAMPLE" --arch gfx90a -o "$T/sample.hsaco" > /dev/null
test -s "$T/sample.hsaco"
"$REPTX" compile "$SAMPLE" --arch gfx90a,gfx1030 -o "$T/sample" > /dev/null
ls "$T/sample" | grep -q 'gfx1030.hsaco$'

"$REPTX" compile "$KERNELS/int_mix.ptx" --emit-llvm > "$T/ir.ll"
grep -q '@reptx.tid.x' "$T/ir.ll"

cat > "$T/bad.ptx" <<'PTX'
.version 8.0
.target sm_80
.address_size 64
.visible .entry bad(.param .u32 x)
{
.reg .b32 %r<3>;
ld.param.u32 %r1, [x];
getctarank.shared::cluster.u32 %r2, %r1;
ret;
}
.visible .entry good()
{
ret;
}
PTX
rc=0
"$REPTX" compile "$T/bad.ptx" --arch gfx942 -o "$T/bad.hsaco" > /dev/null 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "bad.ptx:8: kernel 'bad'" "$T/err"
grep -q "getctarank" "$T/err"
test -s "$T/bad.hsaco"

# A full disk (/dev/full) is an error naming the file, not an LLVM fatal error.
rc=0
"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx942 -o /dev/full > /dev/null 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "/dev/full: No space left on device" "$T/err"
if grep -q "LLVM ERROR" "$T/err"; then exit 1; fi
rc=0
"$REPTX" compile "$KERNELS/int_mix.ptx" --emit-llvm -o /dev/full 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "/dev/full: No space left on device" "$T/err"
rc=0
"$REPTX" compile "$KERNELS/int_mix.ptx" --emit-llvm > /dev/full 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "standard output: No space left on device" "$T/err"

# --timeout bounds one module's compile (the worker made to hang).
rc=0
REPTX_TEST_WORKER_FAULT=hang "$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx942 --no-cache \
  --timeout 1 -o "$T/hang.hsaco" > /dev/null 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "compile worker timed out after 1 s" "$T/err"

rc=0
"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx803 2> /dev/null || rc=$?
test "$rc" = 1
echo ok
