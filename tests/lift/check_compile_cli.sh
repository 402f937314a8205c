#!/bin/sh
# `reptx compile` end to end: a PTX file for two targets, the sample binary, --emit-llvm, and a
# module where one kernel fails to lift (exit code 2, the other kernel still compiled), a full
# disk, a compile past --timeout, -v / --warn-on-spills / --warn-on-local-memory-usage (checked
# against the PTX and against llvm-readelf's reading of the code object's metadata), and
# --bundle (checked against clang-offload-bundler), and the modules of a binary compiled several
# at once (-j) with the same output, reported in input order.
set -eu
REPTX=$1
KERNELS=$2
SAMPLE=$3
READELF=$4
BUNDLER=$5
TWO=$6 # a fatbin with two PTX entries (tests/fuzz/corpus/fatbin)
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

# -v: two kernels of known resources. `pressure` (.maxntid 1024: at most 128 VGPRs on gfx942)
# keeps 160 volatile loads live across a barrier, so it must spill; `tiles` has a 4096-byte
# .shared array and a 64-byte .local array indexed at run time (scratch, no spills). Both take
# a .u64 and a .u32: 12 bytes of kernel arguments.
{
  printf '.version 8.0\n.target sm_80\n.address_size 64\n'
  printf '.visible .entry pressure(.param .u64 p, .param .u32 k) .maxntid 1024, 1, 1\n{\n'
  printf '.reg .b32 %%r<2>;\n.reg .b64 %%rd<3>;\n.reg .f32 %%f<161>;\n'
  printf 'ld.param.u64 %%rd1, [p];\ncvta.to.global.u64 %%rd1, %%rd1;\nmov.u32 %%r1, %%tid.x;\n'
  printf 'mul.wide.u32 %%rd2, %%r1, 4;\nadd.s64 %%rd1, %%rd1, %%rd2;\n'
  for i in $(seq 0 159); do printf 'ld.volatile.global.f32 %%f%d, [%%rd1+%d];\n' $i $((i * 4096)); done
  printf 'bar.sync 0;\nmov.f32 %%f160, 0f00000000;\n'
  for i in $(seq 159 -1 0); do printf 'fma.rn.f32 %%f160, %%f%d, %%f%d, %%f160;\n' $i $i; done
  printf 'st.global.f32 [%%rd1], %%f160;\nret;\n}\n'
  cat <<'PTX'
.visible .entry tiles(.param .u64 p, .param .u32 k)
{
.reg .b32 %r<6>;
.reg .b64 %rd<6>;
.reg .f32 %f<3>;
.shared .align 4 .b8 tile[4096];
.local .align 4 .b8 buf[64];
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [k];
mov.u32 %r2, %tid.x;
and.b32 %r3, %r2, 15;
shl.b32 %r3, %r3, 2;
mov.u64 %rd2, buf;
cvt.u64.u32 %rd3, %r3;
add.s64 %rd2, %rd2, %rd3;
cvt.rn.f32.u32 %f1, %r2;
st.local.f32 [%rd2], %f1;
and.b32 %r4, %r1, 15;
shl.b32 %r4, %r4, 2;
mov.u64 %rd4, buf;
cvt.u64.u32 %rd3, %r4;
add.s64 %rd4, %rd4, %rd3;
ld.local.f32 %f2, [%rd4];
shl.b32 %r5, %r2, 2;
mov.u32 %r3, tile;
add.s32 %r3, %r3, %r5;
st.shared.f32 [%r3], %f2;
bar.sync 0;
ld.shared.f32 %f2, [%r3];
cvta.to.global.u64 %rd1, %rd1;
mul.wide.u32 %rd5, %r2, 4;
add.s64 %rd1, %rd1, %rd5;
st.global.f32 [%rd1], %f2;
ret;
}
PTX
} > "$T/res.ptx"
"$REPTX" compile "$T/res.ptx" --arch gfx942 --no-cache -v --warn-on-spills \
  --warn-on-local-memory-usage -o "$T/res.hsaco" > /dev/null 2> "$T/v"
grep -qx "reptx info    : Compiled entry function 'pressure' for 'gfx942' (wave64)" "$T/v"
grep -qx "reptx info    : Compiled entry function 'tiles' for 'gfx942' (wave64)" "$T/v"
grep -q "^reptx info    : Used .*, 0 bytes LDS, .* bytes code, 12 bytes kernel arguments$" "$T/v"
grep -q "^reptx info    : Used .*, 4096 bytes LDS, .* bytes code, 12 bytes kernel arguments$" "$T/v"
# Each kernel's figures in its block (Compiled, properties, Used), as llvm-readelf reads them.
"$READELF" --notes "$T/res.hsaco" > "$T/notes"
for k in pressure tiles; do
  note() { # the metadata key $1 of kernel $k (one of those sorted after its .name)
    awk -v k="$k" -v key="$1" '/^    \.name:/ { on = ($2 == k) } on && $1 == key":" { print $2 }' "$T/notes"
  }
  block=$(grep -A3 "^reptx info    : Compiled entry function '$k'" "$T/v")
  echo "$block" | grep -q "^    $(note .private_segment_fixed_size) bytes stack frame, $(note .vgpr_spill_count) VGPRs spilled, $(note .sgpr_spill_count) SGPRs spilled$"
  echo "$block" | grep -q "^reptx info    : Used $(note .vgpr_count) VGPRs (0 AGPRs), $(note .sgpr_count) SGPRs, "
done
spills=$(awk '/^    \.name:/ { on = ($2 == "pressure") } on && $1 == ".vgpr_spill_count:" { print $2 }' "$T/notes")
test "$spills" -gt 0
test "$(awk '/^    \.name:/ { on = ($2 == "tiles") } on && $1 == ".private_segment_fixed_size:" { print $2 }' "$T/notes")" -ge 64
grep -qx "reptx warning : Registers are spilled in function 'pressure' for 'gfx942': $spills VGPRs to scratch memory, 0 SGPRs" "$T/v"
test "$(grep -c "^reptx warning : Registers are spilled" "$T/v")" = 1
grep -q "^reptx warning : Local memory used for function 'tiles' for 'gfx942': [0-9]* bytes stack frame$" "$T/v"
# Without the flags nothing of this is printed; a cached result is reported as such.
REPTX_CACHE_PATH="$T/cache" "$REPTX" compile "$T/res.ptx" --arch gfx942 -o "$T/res.hsaco" \
  > /dev/null 2> "$T/quiet"
test ! -s "$T/quiet"
REPTX_CACHE_PATH="$T/cache" "$REPTX" compile "$T/res.ptx" --arch gfx942 -v -o "$T/res.hsaco" \
  > /dev/null 2> "$T/cached"
grep -qx "reptx info    : Cached entry function 'tiles' for 'gfx942' (wave64)" "$T/cached"

# --bundle: one clang offload bundle per module, the same bytes as clang-offload-bundler makes of
# the separately written code objects (hipcc's layout: an empty host entry, 4096-byte alignment),
# and each target's code object unbundles to the same bytes.
"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx942,gfx1100 -o "$T/sep" > /dev/null
"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx942,gfx1100 --bundle -o "$T/saxpy.hipfb" \
  > "$T/log"
grep -qx "bundle of 2 targets -> $T/saxpy.hipfb" "$T/log"
head -c 24 "$T/saxpy.hipfb" | grep -q "^__CLANG_OFFLOAD_BUNDLE__$"
if [ -x "$BUNDLER" ]; then
  host=$("$(dirname "$BUNDLER")/llvm-config" --host-target) # the host entry reptx writes
  "$BUNDLER" -type=o -bundle-align=4096 \
    -targets="host-$host,hipv4-amdgcn-amd-amdhsa--gfx942,hipv4-amdgcn-amd-amdhsa--gfx1100" \
    -input=/dev/null -input="$T/sep/saxpy.gfx942.hsaco" -input="$T/sep/saxpy.gfx1100.hsaco" \
    -output="$T/ref.hipfb"
  cmp "$T/saxpy.hipfb" "$T/ref.hipfb"
  for a in gfx942 gfx1100; do
    "$BUNDLER" -unbundle -type=o -targets="hipv4-amdgcn-amd-amdhsa--$a" \
      -input="$T/saxpy.hipfb" -output="$T/un.$a.hsaco"
    cmp "$T/un.$a.hsaco" "$T/sep/saxpy.$a.hsaco"
  done
  # A compressed bundle (-compress, "CCOB") works in reptx emulate too; one whose header declares
  # an absurd uncompressed size is an error, not an abort in LLVM's allocator.
  "$BUNDLER" -type=o -bundle-align=4096 -compress \
    -targets="host-$host,hipv4-amdgcn-amd-amdhsa--gfx942,hipv4-amdgcn-amd-amdhsa--gfx1100" \
    -input=/dev/null -input="$T/sep/saxpy.gfx942.hsaco" -input="$T/sep/saxpy.gfx1100.hsaco" \
    -output="$T/ccob.hipfb"
  head -c 4 "$T/ccob.hipfb" | grep -q "^CCOB$"
  "$REPTX" emulate "$T/ccob.hipfb" --arch gfx1100 --list | grep -q "^saxpy: wave32,"
  python3 -c "import struct,sys; d=bytearray(open(sys.argv[1],'rb').read()); struct.pack_into('<Q',d,16,1<<62); open(sys.argv[2],'wb').write(d)" "$T/ccob.hipfb" "$T/huge.hipfb"
  rc=0
  "$REPTX" emulate "$T/huge.hipfb" --arch gfx1100 --list 2> "$T/err" || rc=$?
  test "$rc" = 2
  grep -q "bytes uncompressed (more than 1 GiB)" "$T/err"
else
  echo "clang-offload-bundler not found: bundle checked by its header only"
fi
# reptx emulate takes a target's code object out of a bundle (LLVM's reader, not ours).
"$REPTX" emulate "$T/saxpy.hipfb" --arch gfx1100 --list > "$T/list"
grep -q "^saxpy: wave32," "$T/list"
"$REPTX" emulate "$T/saxpy.hipfb" --arch gfx942 --list > "$T/list"
grep -q "^saxpy: wave64," "$T/list"
rc=0
"$REPTX" emulate "$T/saxpy.hipfb" --list 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "holds gfx942, gfx1100: choose one with --arch" "$T/err"
rc=0
"$REPTX" emulate "$T/saxpy.hipfb" --arch gfx90a --list 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "no gfx90a code object in the offload bundle" "$T/err"
head -c 100 "$T/saxpy.hipfb" > "$T/cut.hipfb"
rc=0
"$REPTX" emulate "$T/cut.hipfb" --arch gfx942 --list 2> "$T/err" || rc=$?
test "$rc" = 2
grep -q "cut.hipfb: not a valid offload bundle" "$T/err"
# Without -o: <stem>.hipfb in the working directory.
mkdir "$T/cwd"
(cd "$T/cwd" && "$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx1201 --bundle > /dev/null)
test -s "$T/cwd/saxpy.hipfb"

# -j: two modules x three targets, one at a time and four at a time: the same files, the same
# report in the same (input) order.
"$REPTX" compile "$TWO" --no-cache --arch gfx942,gfx1100,gfx90a -j 1 -o "$T/j1" > "$T/j1.log"
"$REPTX" compile "$TWO" --no-cache --arch gfx942,gfx1100,gfx90a -j 4 -o "$T/j4" > "$T/j4.log"
test "$(ls "$T/j1" | wc -l)" = 6
diff -r "$T/j1" "$T/j4"
sed "s|$T/j1/||" "$T/j1.log" > "$T/j1.txt"
sed "s|$T/j4/||" "$T/j4.log" > "$T/j4.txt"
diff "$T/j1.txt" "$T/j4.txt"
head -1 "$T/j4.txt" | grep -q "^gfx942: 2 kernels -> .*c0.e0.sm_80.gfx942.hsaco$"
tail -1 "$T/j4.txt" | grep -q "^gfx90a: 2 kernels -> .*c1.e1.sm_80.gfx90a.hsaco$"

rc=0
"$REPTX" compile "$KERNELS/saxpy.ptx" --arch gfx803 2> /dev/null || rc=$?
test "$rc" = 1
echo ok
