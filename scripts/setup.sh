#!/usr/bin/env bash
# Installs the Debian packages Glassbox builds with, if any is missing.
# Idempotent: when everything is installed it only runs dpkg-query.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format
  flatbuffers-compiler libflatbuffers-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libzip-dev zipcmp zipmerge ziptool
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pandas python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
