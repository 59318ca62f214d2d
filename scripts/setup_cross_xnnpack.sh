#!/usr/bin/env bash
# XNNPACK for the aarch64 cross build (`make test-aarch64`, issue 34):
# Debian's arm64 libxnnpack0/libxnnpack-dev and the libraries they need
# (pthreadpool, cpuinfo), unpacked into a sysroot of their own,
# $GLASSBOX_CROSS_ROOT (default /opt/glassbox-cross/arm64), that the
# aarch64 toolchain file searches.
#
# Why unpacked and not installed: libxnnpack-dev and libxnnpack0 are not
# Multi-Arch "same" in bookworm, so their arm64 builds cannot be installed
# beside the host's amd64 ones (dpkg would remove the host's). The packages
# are downloaded with dpkg's arm64 architecture added (apt needs it to see
# them) and only extracted, so the host's packages stay as they are.
# Idempotent: nothing is fetched when the sysroot has the version apt has.
set -euo pipefail
root=${GLASSBOX_CROSS_ROOT:-/opt/glassbox-cross/arm64}
packages=(libxnnpack0 libxnnpack-dev libpthreadpool0 libpthreadpool-dev libcpuinfo0 libcpuinfo-dev)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding dpkg's arm64 architecture (to download XNNPACK's arm64 packages)"
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
  "${sudo_cmd[@]}" apt-get update -q
fi
version=$(apt-cache policy libxnnpack0:arm64 | awk '/Candidate:/ {print $2}')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  "${sudo_cmd[@]}" apt-get update -q
  version=$(apt-cache policy libxnnpack0:arm64 | awk '/Candidate:/ {print $2}')
fi
stamp="$root/.glassbox-xnnpack-version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] && [ -f "$root/usr/include/xnnpack.h" ]; then
  exit 0
fi
echo "setup: unpacking XNNPACK $version for arm64 into $root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# apt's download sandbox user must be able to write there.
chmod 0777 "$work"
(cd "$work" && apt-get download -q "${packages[@]/%/:arm64}")
"${sudo_cmd[@]}" mkdir -p "$root"
for deb in "$work"/*.deb; do "${sudo_cmd[@]}" dpkg-deb -x "$deb" "$root"; done
echo "$version" | "${sudo_cmd[@]}" tee "$stamp" >/dev/null
