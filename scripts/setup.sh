#!/usr/bin/env bash
# Installs the Debian 12 packages reptx needs, only those missing (idempotent).
set -euo pipefail
PACKAGES=(
  clang-22 lld-22 llvm-22-dev llvm-22-tools liblld-22-dev libclang-rt-22-dev
  cmake ninja-build ccache pkg-config python3 zstd
  libelf-dev libzstd-dev liblz4-dev libxxhash-dev libmimalloc-dev
  libcli11-dev libfmt-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
