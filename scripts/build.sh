#!/usr/bin/env bash
# usage: scripts/build.sh release|ci [ninja targets...]
#   release: optimized tools for real use (build/release)
#   ci:      the test configuration: ASan+UBSan, -Werror, fuzzers (build/ci)
set -euo pipefail
cd "$(dirname "$0")/.."
flavor=${1:-release}
shift || true
common=(-G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)
case "$flavor" in
  release) cmake -S . -B build/release "${common[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null ;;
  ci) cmake -S . -B build/ci "${common[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREPTX_WERROR=ON \
        -DREPTX_SANITIZE=address,undefined -DREPTX_BUILD_FUZZERS=ON >/dev/null ;;
  *) echo "usage: scripts/build.sh release|ci [targets]" >&2; exit 1 ;;
esac
ninja -C "build/$flavor" "$@"
