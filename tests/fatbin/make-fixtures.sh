#!/usr/bin/env bash
# Rebuilds the nvcc fixtures of the fatbin extraction tests from tests/fatbin/src.
#
# usage: make-fixtures.sh [OUTDIR]        (default: tests/fatbin/fixtures next to this script)
# environment: NVCC (default /usr/local/cuda/bin/nvcc)
#              RAW_PTX_DIR  if set, the unnormalized `nvcc -ptx` outputs are kept there too
#
# Writes into OUTDIR:
#   <fixture files>            objects, executables and a bare .fatbin built with nvcc
#   expected/<name>.ptx        normalize(`nvcc -ptx` with the same arch and semantic flags)
#   manifest.json              for every fixture, every container and entry the fatbin must hold
#
# The manifest is written by hand below from what nvcc 13.0 is documented to emit
# (shared/reference/fatbin-format.md §9), not from any extractor's output, so the tests check the
# extractor against an independent statement of the expected contents. The embedded PTX does not
# depend on the build directory or on the order of the builds, so re-running the script reproduces
# byte-identical expected/ files and manifest (the host parts of the binaries may differ).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$SCRIPT_DIR/src
OUT_DIR=${1:-$SCRIPT_DIR/fixtures}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}

if ! [ -x "$NVCC" ]; then
  echo "make-fixtures.sh: nvcc not found at $NVCC" >&2
  exit 1
fi

mkdir -p "$OUT_DIR/expected"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# nvcc runs in a scratch copy of the sources with relative file names, so nothing about the
# checkout's location can leak into the outputs.
cp "$SRC_DIR"/*.cu "$WORK/"
cd "$WORK"

nvcc() {
  echo "+ nvcc $*" >&2
  "$NVCC" "$@"
}

# The fatbinary PTX normalization of fatbin-format.md §11, line by line: strip leading blanks,
# collapse runs of two or more blanks into one space (a lone tab stays), delete `//` comments.
# The payload's trailing NUL is not part of what `reptx extract` writes, so it is not added here.
normalize_ptx() {
  LC_ALL=C sed -E -e 's/^[[:blank:]]+//' -e 's/[[:blank:]]{2,}/ /g' -e 's://.*$::' "$1" > "$2"
}

# expected_ptx NAME SOURCE ARCH [NVCC FLAGS...]: the reference PTX of SOURCE for one arch.
expected_ptx() {
  local name=$1 source=$2 arch=$3
  shift 3
  nvcc -ptx -arch="$arch" "$@" "$source" -o "raw.$name"
  normalize_ptx "raw.$name" "$OUT_DIR/expected/$name"
  if [ -n "${RAW_PTX_DIR:-}" ]; then
    mkdir -p "$RAW_PTX_DIR"
    cp "raw.$name" "$RAW_PTX_DIR/$name"
  fi
}

# Manifest builder. Every value written is a plain token (no quotes or backslashes), so no JSON
# escaping is needed; json_str refuses anything else rather than emit broken JSON.
json_str() {
  case $1 in
  *'"'* | *\\*) echo "make-fixtures.sh: cannot quote $1" >&2 && exit 1 ;;
  esac
  printf '"%s"' "$1"
}
MANIFEST=
SEP_FIXTURE=
SEP_CONTAINER=
SEP_ENTRY=
# fixture NAME DESCRIPTION: starts the manifest record of fixture file NAME.
fixture() {
  [ -f "$OUT_DIR/$1" ] || { echo "make-fixtures.sh: $1 was not built" >&2 && exit 1; }
  close_fixture
  MANIFEST+="$SEP_FIXTURE"$'\n    {"file": '"$(json_str "$1")"', "description": '
  MANIFEST+="$(json_str "$2")"', "containers": ['
  SEP_FIXTURE=,
  SEP_CONTAINER=
  OPEN_FIXTURE=1
}
# container SECTION [WRAPPER]: the next container of the current fixture ("<raw>" for a bare
# .fatbin) and the version of the __fatBinC_Wrapper_t that points at it (none for a bare .fatbin).
container() {
  close_container
  MANIFEST+="$SEP_CONTAINER"$'\n      {"section": '"$(json_str "$1")"
  if [ -n "${2:-}" ]; then
    MANIFEST+=', "wrapper": '"$2"
  fi
  MANIFEST+=', "entries": ['
  SEP_CONTAINER=,
  SEP_ENTRY=
  OPEN_CONTAINER=1
}
# entry KIND ARCH COMPRESSION [EXPECTED_PTX [OPTIONS]]: the next entry of the current container.
entry() {
  MANIFEST+="$SEP_ENTRY"$'\n        {"kind": '"$(json_str "$1")"', "arch": '"$(json_str "$2")"
  MANIFEST+=', "compression": '"$(json_str "$3")"
  if [ "$1" = ptx ]; then
    [ -f "$OUT_DIR/expected/$4" ] || { echo "make-fixtures.sh: no expected/$4" >&2 && exit 1; }
    MANIFEST+=', "ptx": '"$(json_str "expected/$4")"', "options": '"$(json_str "${5:-}")"
  fi
  MANIFEST+='}'
  SEP_ENTRY=,
}
OPEN_FIXTURE=
OPEN_CONTAINER=
close_container() {
  if [ -n "$OPEN_CONTAINER" ]; then
    MANIFEST+=']}'
  fi
  OPEN_CONTAINER=
}
close_fixture() {
  close_container
  if [ -n "$OPEN_FIXTURE" ]; then
    MANIFEST+=']}'
  fi
  OPEN_FIXTURE=
}

# ---------------------------------------------------------------------------- builds

# The cubin for sm_80 plus the compute_80 PTX: the shape the compression table of §9 describes.
G80=(-gencode 'arch=compute_80,code=[sm_80,compute_80]')

# One relocatable object per compression mode. Only PTX is compressed by default; `size` and
# -compress-all also compress the ordinary cubin; `speed` switches to LZ4.
for mode in default size speed balance none; do
  nvcc -c kernels.cu --compress-mode=$mode "${G80[@]}" -o "$OUT_DIR/kernels.$mode.o"
done
nvcc -c kernels.cu -Xfatbin -compress-all "${G80[@]}" -o "$OUT_DIR/kernels.compress-all.o"
nvcc -c kernels.cu -Xfatbin -compress-all --compress-mode=speed "${G80[@]}" \
  -o "$OUT_DIR/kernels.compress-all-speed.o"

# Several -gencode at once: a cubin-only target, a cubin+PTX target and a PTX-only target.
nvcc -c kernels.cu -gencode arch=compute_75,code=sm_75 "${G80[@]}" \
  -gencode arch=compute_90,code=compute_90 -o "$OUT_DIR/kernels.multi.o"

# The bare container `nvcc -fatbin` writes.
nvcc -fatbin kernels.cu "${G80[@]}" -o "$OUT_DIR/kernels.fatbin"

# A whole executable with nvcc's default arch (sm_75). -cudart shared keeps it small.
nvcc kernels.cu -cudart shared -o "$OUT_DIR/kernels.exe"

# Separate compilation: two relocatable objects, then nvcc's device link into an executable.
nvcc -rdc=true -c rdc_a.cu "${G80[@]}" -o "$OUT_DIR/rdc_a.o"
nvcc -rdc=true -c rdc_b.cu "${G80[@]}" -o rdc_b.o
nvcc -rdc=true "$OUT_DIR/rdc_a.o" rdc_b.o "${G80[@]}" -cudart shared -o "$OUT_DIR/rdc.exe"

# ---------------------------------------------------------------------------- expected PTX

expected_ptx kernels.sm_75.ptx kernels.cu sm_75
expected_ptx kernels.sm_80.ptx kernels.cu sm_80
expected_ptx kernels.sm_90.ptx kernels.cu sm_90
expected_ptx rdc_a.sm_80.ptx rdc_a.cu sm_80 -rdc=true
expected_ptx rdc_b.sm_80.ptx rdc_b.cu sm_80 -rdc=true

# ---------------------------------------------------------------------------- manifest

fixture kernels.default.o '-c --compress-mode=default, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 none
entry ptx sm_80 zstd kernels.sm_80.ptx

fixture kernels.size.o '-c --compress-mode=size, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 zstd
entry ptx sm_80 zstd kernels.sm_80.ptx

fixture kernels.speed.o '-c --compress-mode=speed, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 none
entry ptx sm_80 lz4 kernels.sm_80.ptx

fixture kernels.balance.o '-c --compress-mode=balance, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 none
entry ptx sm_80 zstd kernels.sm_80.ptx

fixture kernels.none.o '-c --compress-mode=none, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 none
entry ptx sm_80 none kernels.sm_80.ptx

fixture kernels.compress-all.o '-c -Xfatbin -compress-all, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 zstd
entry ptx sm_80 zstd kernels.sm_80.ptx

fixture kernels.compress-all-speed.o \
  '-c -Xfatbin -compress-all --compress-mode=speed, sm_80 + compute_80'
container .nv_fatbin 1
entry elf sm_80 lz4
entry ptx sm_80 lz4 kernels.sm_80.ptx

fixture kernels.multi.o '-c, sm_75 + sm_80 + compute_80 + compute_90'
container .nv_fatbin 1
entry elf sm_75 none
entry elf sm_80 none
entry ptx sm_80 zstd kernels.sm_80.ptx
entry ptx sm_90 zstd kernels.sm_90.ptx

fixture kernels.fatbin '-fatbin, sm_80 + compute_80'
container '<raw>'
entry elf sm_80 none
entry ptx sm_80 zstd kernels.sm_80.ptx

# Every nvcc-linked executable gets a device-link image first, behind a version-2 wrapper: without
# -rdc it is an empty sm_75 cubin. The real code follows behind a version-1 wrapper.
fixture kernels.exe 'executable, default arch, -cudart shared'
container .nv_fatbin 2
entry elf sm_75 none
container .nv_fatbin 1
entry elf sm_75 none
entry ptx sm_75 zstd kernels.sm_75.ptx

# Relocatable cubins are compressed even in the default mode; the PTX needs --compile-only.
fixture rdc_a.o '-rdc=true -c, sm_80 + compute_80'
container __nv_relfatbin 1
entry elf sm_80 zstd
entry ptx sm_80 zstd rdc_a.sm_80.ptx '--compile-only  '

# The device-linked image holds only the linked cubin; each object's PTX stays in its own
# __nv_relfatbin container, in link order.
fixture rdc.exe '-rdc=true executable from rdc_a.o + rdc_b.o, -cudart shared'
container .nv_fatbin 2
entry elf sm_80 none
container __nv_relfatbin 1
entry elf sm_80 zstd
entry ptx sm_80 zstd rdc_a.sm_80.ptx '--compile-only  '
container __nv_relfatbin 1
entry elf sm_80 zstd
entry ptx sm_80 zstd rdc_b.sm_80.ptx '--compile-only  '

close_fixture
NVCC_RELEASE=$("$NVCC" --version | sed -n 's/^Cuda compilation tools, //p')
{
  printf '{\n  "nvcc": %s,\n  "fixtures": [' "$(json_str "$NVCC_RELEASE")"
  printf '%s\n  ]\n}\n' "$MANIFEST"
} > "$OUT_DIR/manifest.json"
echo "make-fixtures.sh: wrote $OUT_DIR" >&2
