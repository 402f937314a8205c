#!/bin/sh
# Opcode census (issue 5, acceptance 2): compiles the conformance suite (its six configurations:
# gfx942 packed and single, gfx1100, gfx90a, gfx1030, gfx1201), the lifting tests' kernels
# (tests/lift/kernels/*.ptx) and the bench kernels (bench/quality/kernels.cu through nvcc when
# present) for all five targets and, with --corpus, the toolkit corpus sample for gfx942 and
# gfx1100, then runs `reptx census` over all the code objects: every machine instruction must
# have emulator semantics. Prints the distinct mnemonics per source, in
# all, and the missing ones.
#
# usage: census.sh REPTX CONFORMANCE_TESTS CORPUS_COMPILE SOURCE_DIR CUDA_HOME [--corpus]
set -u
REPTX=$1 CONF=$2 CORPUS=$3 SRC=$4 CUDA=$5 WITH_CORPUS=${6:-}
ARCHS=gfx942,gfx1100,gfx90a,gfx1030,gfx1201
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/conformance" "$OUT/lift" "$OUT/bench" "$OUT/corpus"

"$CONF" --write-objects "$OUT/conformance" >/dev/null || { echo "conformance compile failed"; exit 1; }

# (wave64 single mode: the conformance suite's objects cover it)
for ptx in "$SRC"/tests/lift/kernels/*.ptx; do
  stem=$(basename "$ptx" .ptx)
  "$REPTX" compile --no-cache --arch "$ARCHS" "$ptx" -o "$OUT/lift/$stem" >/dev/null 2>&1 ||
    echo "note: $stem did not compile"
done

NVCC=$CUDA/bin/nvcc
if [ -x "$NVCC" ]; then
  "$NVCC" -arch=sm_80 -ptx -O3 "$SRC/bench/quality/kernels.cu" -o "$OUT/bench/kernels.ptx" \
    >/dev/null 2>&1 || { echo "nvcc failed on bench/quality/kernels.cu"; exit 1; }
  "$REPTX" compile --no-cache --arch "$ARCHS" "$OUT/bench/kernels.ptx" -o "$OUT/bench/out" \
    >/dev/null || { echo "reptx failed on the bench kernels"; exit 1; }
else
  echo "note: no nvcc at $NVCC: bench kernels left out"
fi

if [ "$WITH_CORPUS" = "--corpus" ]; then
  if [ ! -d "$CUDA/lib64" ]; then echo "SKIPPED: no CUDA toolkit at $CUDA"; exit 77; fi
  # The code objects of the corpus sample, written by lift.corpus_sample_compile (CORPUS_OBJECTS)
  # when it ran first (the ctest fixture); otherwise compiled here.
  if [ -n "${CORPUS_OBJECTS:-}" ] && [ -n "$(find "$CORPUS_OBJECTS" -name '*.hsaco' 2>/dev/null | head -n 1)" ]; then
    rmdir "$OUT/corpus" && ln -s "$CORPUS_OBJECTS" "$OUT/corpus"
  else
    "$CORPUS" --sample 200 --arch gfx942,gfx1100 --jobs 2 --write-objects "$OUT/corpus" "$CUDA" \
      >/dev/null
  fi
fi

for d in conformance lift bench corpus; do
  n=$(find "$OUT/$d" -name '*.hsaco' | wc -l)
  [ "$n" -gt 0 ] || continue
  printf '%s: ' "$d"
  "$REPTX" census "$OUT/$d" | tail -n 1
done
echo "all:"
"$REPTX" census "$OUT" > "$OUT/census.txt"
rc=$?
grep MISSING "$OUT/census.txt"
tail -n 1 "$OUT/census.txt"
exit $rc
