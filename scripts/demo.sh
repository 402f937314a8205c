#!/usr/bin/env bash
# The main job on the bundled sample, an unmodified nvcc-built CUDA executable: list its fatbin,
# extract and parse its PTX, recompile the PTX for gfx942, run the kernel on the AMDGPU emulator
# against a host computation, and run the unmodified program itself through reptx's libcuda.so.1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release reptx
reptx=build/release/bin/reptx
sample=samples/vecadd/vecadd
out=build/release/sample-out
mkdir -p "$out"
$reptx list "$sample"
$reptx extract --ptx-only "$sample" -o "$out"
$reptx parse "$sample"
$reptx compile "$sample" --arch gfx942 -o "$out/vecadd.gfx942.hsaco"
n=1000
python3 - "$out" "$n" <<'PY'
import struct, sys
out, n = sys.argv[1], int(sys.argv[2])
open(out + '/a.bin', 'wb').write(struct.pack('<%df' % n, *[i * 0.25 for i in range(n)]))
open(out + '/b.bin', 'wb').write(struct.pack('<%df' % n, *[1.0 / (i + 1) for i in range(n)]))
PY
$reptx emulate "$out/vecadd.gfx942.hsaco" --kernel _Z6vecAddPKfS0_Pfi --grid 4 --block 256 \
  --arg "in:$out/a.bin" --arg "in:$out/b.bin" --arg "out:$out/c.bin:$((4 * n))" --arg "i32:$n"
python3 - "$out" "$n" <<'PY'
import struct, sys
out, n = sys.argv[1], int(sys.argv[2])
load = lambda f: struct.unpack('<%df' % n, open(out + '/' + f, 'rb').read())
a, b, c = load('a.bin'), load('b.bin'), load('c.bin')
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
bad = [i for i in range(n) if c[i] != f32(a[i] + b[i])]
print('vecadd on the emulator (gfx942):', 'PASS' if not bad else 'FAIL (%d wrong)' % len(bad))
sys.exit(1 if bad else 0)
PY
# The program itself, unmodified, with reptx's libcuda.so.1 in front (built where the CUDA
# toolkit's headers are available; see loader/README.md).
if [ -e build/release/lib/libcuda.so.1 ]; then
  $reptx run -- "$sample"
else
  echo "libcuda.so.1 was not built (no CUDA toolkit headers): skipping reptx run"
fi
