#!/usr/bin/env bash
# Installs the Debian packages Glassbox builds with, if any is missing, and
# the npm packages of the report page (src/report/vendor_npm: dagre) and
# the tests (tests/browser: playwright-core, driving Debian's
# chromium; tests/fleet: @duckdb/node-api) with the machine's Node.js and npm. Idempotent: when everything is installed it only runs
# dpkg-query and compares two files.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format
  flatbuffers-compiler libflatbuffers-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libzip-dev zipcmp zipmerge ziptool
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  # oneDNN's CMake config does find_package(OpenCL REQUIRED): the OpenCL
  # package is only its Recommends, which --no-install-recommends skips.
  libdnnl-dev ocl-icd-opencl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pandas python3-pytest
  python3-setuptools python3-wheel python3-pip python3-venv
)

bash "$(dirname "$0")/install_packages.sh" "${packages[@]}"

# The npm packages of the report page (src/report/vendor_npm: dagre, which
# the build embeds to lay out the graph section), of the browser tests
# (tests/browser) and of the fleet test and DuckDB example (tests/fleet:
# @duckdb/node-api, DuckDB's binary inside), exactly as locked; `npm ci` only when a lock file changed since
# its last install.
root_dir="$(cd "$(dirname "$0")/.." && pwd)"
for npm_dir in "$root_dir/src/report/vendor_npm" "$root_dir/tests/browser" "$root_dir/tests/fleet"; do
  if ! cmp -s "$npm_dir/package-lock.json" "$npm_dir/node_modules/.glassbox-installed-lock"; then
    echo "setup: npm ci in ${npm_dir#"$root_dir"/}"
    (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$npm_dir/package-lock.json" "$npm_dir/node_modules/.glassbox-installed-lock"
  fi
done
