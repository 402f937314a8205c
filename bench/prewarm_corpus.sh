#!/bin/sh
# `reptx prewarm` over the CUDA toolkit's libraries (issue 6, acceptance 4): wall time, kernels
# per second, cache size compressed and uncompressed, kernels compiled and failed per target with
# failures grouped by reason. Uses a fresh private cache so every module compiles cold.
#
#   bench/prewarm_corpus.sh [-r REPTX] [-a ARCHS] [-j JOBS] [PATH...]
#
# Default: build/release/bin/reptx, gfx942,gfx1100, all cores, /usr/local/cuda/lib64 (the whole
# corpus: 9,300 unique PTX modules, 36,580 kernels; 47 minutes per target with 2 jobs on the
# 2-core development machine, docs/prewarm-toolkit.md). The JSON summary lands in
# $OUT (default /tmp/reptx-prewarm-corpus.json).
set -eu
REPTX=build/release/bin/reptx
ARCHS=gfx942,gfx1100
JOBS=$(nproc)
while getopts r:a:j: o; do
  case $o in
    r) REPTX=$OPTARG ;;
    a) ARCHS=$OPTARG ;;
    j) JOBS=$OPTARG ;;
    *) exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- /usr/local/cuda/lib64
OUT=${OUT:-/tmp/reptx-prewarm-corpus.json}
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
export REPTX_CACHE_PATH="$CACHE" REPTX_CACHE_MAXSIZE=0
unset REPTX_CACHE_READONLY_PATHS REPTX_CACHE_DISABLE
export ASAN_OPTIONS=detect_leaks=0

echo "reptx prewarm $* --arch $ARCHS -j $JOBS"
"$REPTX" prewarm "$@" --arch "$ARCHS" -j "$JOBS" --json --no-progress > "$OUT"
"$REPTX" cache stats --json > "$CACHE.stats"
python3 - "$OUT" "$CACHE.stats" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
print(f"{s['modules']} unique modules ({s['ptx_entries']} entries, {s['duplicates']} duplicates), "
      f"{s['ptx_bytes']/1e6:.1f} MB of PTX x targets, {s['seconds']:.1f} s with {s['jobs']} jobs")
kernels = 0
for t in s['targets']:
    kernels += t['kernels_compiled']
    tot = t['kernels_compiled'] + t['kernels_failed']
    pct = 100.0 * t['kernels_compiled'] / tot if tot else 0
    print(f"  {t['arch']:8} modules {t['modules']:5}  module errors {t['module_errors']:4}  "
          f"kernels compiled {t['kernels_compiled']:6} / {tot:6} ({pct:.1f}%)  not cached {t['not_cached']}")
print(f"  {kernels / s['seconds']:.2f} kernels/s compiled")
for l in c['layers']:
    if l['writable']:
        r = l['uncompressed_bytes'] / l['stored_bytes'] if l['stored_bytes'] else 0
        print(f"  cache: {l['entries']} entries, {l['stored_bytes']/1e6:.2f} MB stored, "
              f"{l['uncompressed_bytes']/1e6:.2f} MB uncompressed ({r:.1f}x)")
print("failures by reason (kernels; module errors count modules):")
for f in s['failures'][:25]:
    per = ", ".join(f"{a} {n}" for a, n in sorted(f['by_arch'].items()))
    print(f"  {f['kernels']:6}  {f['reason']}  ({per})")
PY
rm -f "$CACHE.stats"
