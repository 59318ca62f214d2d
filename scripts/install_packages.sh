#!/usr/bin/env bash
# Installs those of the given Debian packages that are missing (apt-get,
# through sudo when not root). Shared by scripts/setup.sh and
# scripts/setup_cross.sh. Idempotent: when everything is installed it only
# runs dpkg-query.
#   install_packages.sh NAME...
set -euo pipefail

missing=()
for p in "$@"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
