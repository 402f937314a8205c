#!/usr/bin/env bash
# The main job on the bundled sample: list the fatbin of an unmodified CUDA executable, extract
# its PTX and parse it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release reptx
sample=samples/vecadd/vecadd
out=build/release/sample-out
build/release/bin/reptx list "$sample"
build/release/bin/reptx extract --ptx-only "$sample" -o "$out"
for f in "$out"/*.ptx; do echo "== $f"; grep -E '^\.(version|target|visible|entry)' "$f"; done
build/release/bin/reptx parse "$sample"
