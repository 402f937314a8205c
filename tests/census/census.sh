#!/bin/sh
# Opcode census (issue 5, acceptance 2): every machine instruction of the code objects must have
# emulator semantics (`reptx census`). Without --corpus: the conformance suite's objects (its six
# configurations: gfx942 packed and single, gfx1100, gfx90a, gfx1030, gfx1201), the lifting
# tests' kernels (tests/lift/kernels/*.ptx) and the bench kernels (bench/quality/kernels.cu
# through nvcc when present) for all five targets. With --corpus: the toolkit corpus sample for
# gfx942 and gfx1100, alone. Prints the distinct mnemonics per source, in all, and the missing
# ones.
#
# Objects that another test of the same run already compiled are taken from it: the conformance
# suite's from CONFORMANCE_OBJECTS (written by conformance.suite), the corpus sample's from
# CORPUS_OBJECTS (written by lift.corpus_sample_compile); they are compiled here otherwise.
#
# usage: census.sh REPTX CONFORMANCE_TESTS CORPUS_COMPILE SOURCE_DIR CUDA_HOME [--corpus]
set -u
REPTX=$1 CONF=$2 CORPUS=$3 SRC=$4 CUDA=$5 WITH_CORPUS=${6:-}
ARCHS=gfx942,gfx1100,gfx90a,gfx1030,gfx1201
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# has_objects DIR: DIR holds at least one code object.
has_objects() {
  [ -n "${1:-}" ] && [ -n "$(find "$1" -name '*.hsaco' 2>/dev/null | head -n 1)" ]
}

if [ "$WITH_CORPUS" = "--corpus" ]; then
  if [ ! -d "$CUDA/lib64" ]; then echo "SKIPPED: no CUDA toolkit at $CUDA"; exit 77; fi
  if has_objects "${CORPUS_OBJECTS:-}"; then
    ln -s "$CORPUS_OBJECTS" "$OUT/corpus"
  else
    mkdir -p "$OUT/corpus"
    "$CORPUS" --sample 200 --arch gfx942,gfx1100 --jobs 2 --write-objects "$OUT/corpus" "$CUDA" \
      >/dev/null
  fi
else
  mkdir -p "$OUT/lift" "$OUT/bench"
  if has_objects "${CONFORMANCE_OBJECTS:-}"; then
    ln -s "$CONFORMANCE_OBJECTS" "$OUT/conformance"
  else
    mkdir -p "$OUT/conformance"
    "$CONF" --write-objects "$OUT/conformance" >/dev/null ||
      { echo "conformance compile failed"; exit 1; }
  fi

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
fi

if [ "$WITH_CORPUS" != "--corpus" ]; then # (the corpus alone: its census is the one below)
  for d in conformance lift bench; do
    has_objects "$OUT/$d/" || continue
    printf '%s: ' "$d"
    "$REPTX" census "$OUT/$d/" | tail -n 1
  done
fi
echo "all:"
"$REPTX" census "$OUT" > "$OUT/census.txt"
rc=$?
grep MISSING "$OUT/census.txt"
tail -n 1 "$OUT/census.txt"
exit $rc
