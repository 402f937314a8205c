#!/bin/sh
# Runs the device printf program (programs/printf.cu) through `reptx run` on the emulator and
# compares the device's output (the lines before "== host reference ==") with the host's printf
# of the same values (the lines between that marker and "== end =="), both sorted: CUDA defines
# no order between the lines of different threads. Usage: check_printf.sh REPTX PROGRAM
set -u
out=$("$1" run --backend emulator -- "$2")
rc=$?
printf '%s\n' "$out"
if [ $rc -ne 0 ]; then
  echo "FAIL: exit status $rc"
  exit 1
fi
dev=$(printf '%s\n' "$out" | sed -n '/^== host reference ==$/q;p' | LC_ALL=C sort)
host=$(printf '%s\n' "$out" | sed -n '/^== host reference ==$/,/^== end ==$/p' | sed '1d;$d' |
  LC_ALL=C sort)
if [ -z "$host" ] || [ "$dev" != "$host" ]; then
  echo "FAIL: device printf output differs from the host reference:"
  printf '%s\n' "$dev" > /tmp/reptx-printf-dev.$$
  printf '%s\n' "$host" > /tmp/reptx-printf-host.$$
  diff -u /tmp/reptx-printf-host.$$ /tmp/reptx-printf-dev.$$
  rm -f /tmp/reptx-printf-dev.$$ /tmp/reptx-printf-host.$$
  exit 1
fi
echo "device printf: $(printf '%s\n' "$dev" | wc -l) lines match the host reference"
printf '%s\n' "$out" | grep -q '^PASS$' || { echo "FAIL: no PASS"; exit 1; }
exit 0
