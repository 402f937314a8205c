#!/usr/bin/env bash
# Every test: installs what is missing, builds the CI configuration (ASan+UBSan, -Werror) and runs
# the whole suite through ctest. Extra arguments go to ctest (e.g. -R fatbin, -LE slow).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh ci
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Tests that run `reptx compile` use a cache of their own, emptied before every run, never the
# user's ~/.cache/reptx.
if [ -z "${REPTX_CACHE_PATH:-}" ]; then
  export REPTX_CACHE_PATH=$PWD/build/ci/test-cache
  rm -rf "$REPTX_CACHE_PATH"
fi
cd build/ci
ctest --output-on-failure -j2 "$@"
