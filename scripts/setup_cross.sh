#!/usr/bin/env bash
# Installs the cross toolchain of the device targets (`make test-aarch64`,
# `make size`): Debian's aarch64 cross compiler, qemu-user to run its
# binaries, and GoogleTest's sources (built with the cross compiler, so
# dpkg needs no arm64 architecture). Idempotent.
set -euo pipefail
bash "$(dirname "$0")/install_packages.sh" crossbuild-essential-arm64 qemu-user googletest
