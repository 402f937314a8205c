#!/usr/bin/env bash
# Extraction throughput over the whole toolkit corpus: reptx (1 and 2 threads) and the Python
# reference parser, in the same run on the same files. Usage: bench/extract_throughput.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release bench_extract >/dev/null
mapfile -t files < <(find /usr/local/cuda/lib64/ -maxdepth 1 -type f \( -name '*.so*' -o -name '*.a' \) | sort)
export REPTX_BENCH_FILES=$(IFS=:; echo "${files[*]}")
# Warm the page cache so both tools read from memory.
cat "${files[@]}" >/dev/null
build/release/bin/bench_extract --benchmark_counters_tabular=true
python3 bench/python_reference_extract.py ../shared/tools "${files[@]}"
