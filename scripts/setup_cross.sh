#!/usr/bin/env bash
# Installs the cross toolchains of the device targets. For `make
# test-aarch64` and `make size`: Debian's aarch64 cross compiler, qemu-user
# to run its binaries, and GoogleTest's sources (built with the cross
# compiler, so dpkg needs no arm64 architecture). For the bare-metal
# Cortex-M build (issue 34, docs/device.md): the arm-none-eabi compiler,
# newlib (its C library) and libstdc++ built on it (both separate
# packages) and qemu-system-arm with the
# MPS2 boards. Idempotent.
set -euo pipefail
bash "$(dirname "$0")/install_packages.sh" crossbuild-essential-arm64 qemu-user googletest \
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
bash "$(dirname "$0")/setup_cross_xnnpack.sh"
