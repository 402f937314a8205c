#!/bin/sh
# Crash safety at the issue's scale (issue 6, acceptance 1): four `reptx prewarm` processes fill
# one cache from the same modules at once and are SIGKILLed at random moments, KILLS times in all
# (default 200); then `reptx cache verify` must report 0 corrupt entries, a last prewarm must
# complete, and every cached code object must be byte-identical to a fresh compile
# (`reptx compile --no-cache`). tests/prewarm/CrashSafetyTest.cpp is the ctest-sized version.
#
#   bench/prewarm_kill.sh [-r REPTX] [-k KILLS]
set -eu
REPTX=build/release/bin/reptx
KILLS=200
while getopts r:k: o; do
  case $o in
    r) REPTX=$OPTARG ;;
    k) KILLS=$OPTARG ;;
    *) exit 1 ;;
  esac
done
KERNELS=$(cd "$(dirname "$0")/../tests/lift/kernels" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export REPTX_CACHE_PATH="$T/cache" ASAN_OPTIONS=detect_leaks=0
unset REPTX_CACHE_READONLY_PATHS REPTX_CACHE_DISABLE REPTX_CACHE_MAXSIZE
mkdir "$T/in"
cp "$KERNELS"/*.ptx "$T/in/"
ARCHS=gfx942,gfx1100

start() { "$REPTX" prewarm "$T/in" --arch $ARCHS -j 1 --no-progress > /dev/null 2>&1 & echo $!; }
P1=$(start); P2=$(start); P3=$(start); P4=$(start)
k=0; done_=0; started=$(date +%s)
while [ $k -lt "$KILLS" ]; do
  sleep "0.$(shuf -i 05-95 -n 1)"
  i=$(shuf -i 1-4 -n 1)
  eval p=\$P$i
  if kill -0 "$p" 2>/dev/null; then kill -KILL "$p"; k=$((k + 1)); else done_=$((done_ + 1)); fi
  wait "$p" 2>/dev/null || true
  eval P$i=$(start)
  # A finished run has filled the cache: clear it now and then, so kills keep hitting stores.
  if [ $((k % 50)) -eq 49 ]; then "$REPTX" cache clear > /dev/null; fi
done
for p in $P1 $P2 $P3 $P4; do kill -KILL "$p" 2>/dev/null && k=$((k + 1)); wait "$p" 2>/dev/null || true; done
echo "$k SIGKILLs, $done_ runs finished on their own, $(( $(date +%s) - started )) s"
"$REPTX" cache stats | sed -n '2,3p'
"$REPTX" cache verify
"$REPTX" prewarm "$T/in" --arch $ARCHS --no-progress | sed -n '1,4p'
n=0
for f in "$T"/in/*.ptx; do
  for a in gfx942 gfx1100; do
    "$REPTX" compile "$f" --arch $a -o "$T/hit.hsaco" > "$T/log" 2>&1 || true
    # (a module whose every kernel fails to lift writes no code object)
    if [ -s "$T/hit.hsaco" ]; then
      grep -q "(cached)" "$T/log" || { echo "not cached: $f $a"; cat "$T/log"; exit 1; }
      "$REPTX" compile "$f" --arch $a --no-cache -o "$T/fresh.hsaco" > /dev/null 2>&1 || true
      cmp "$T/hit.hsaco" "$T/fresh.hsaco"
      n=$((n + 1))
    fi
    rm -f "$T/hit.hsaco" "$T/fresh.hsaco"
  done
done
echo "$n cached code objects byte-identical to a fresh compile"
