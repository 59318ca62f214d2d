#!/bin/sh
# Installs the build tree into a temporary prefix, builds the consumer
# project beside this script against it twice (find_package(glassbox), then
# pkg-config's flags alone), runs both builds and reads what they wrote with
# the installed glassbox command line.
# Usage: install_consumer_test.sh BUILD_DIR CXX_COMPILER
set -eu
build_dir=$1
cxx=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
for file in include/glassbox/etdump/etdump_gen.h include/glassbox/config.h \
            lib/cmake/glassbox/glassboxConfig.cmake lib/cmake/glassbox/glassboxConfigVersion.cmake \
            lib/pkgconfig/glassbox.pc bin/glassbox; do
  [ -f "$prefix/$file" ] || { echo "install_consumer_test: $file was not installed"; exit 1; }
done

check_dump() {
  "$prefix/bin/glassbox" inspect --etdump "$1" --view events --format json >"$work/events.json"
  grep -q '"consumer_op"' "$work/events.json" ||
    { echo "install_consumer_test: $1 has no consumer_op event:"; cat "$work/events.json"; exit 1; }
}

# find_package(glassbox) with CMake.
cmake -S "$here" -B "$work/cmake-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build"
"$work/cmake-build/install_consumer" "$work/cmake.etdp"
check_dump "$work/cmake.etdp"

# pkg-config, from a compiler command line.
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs glassbox)
# shellcheck disable=SC2086 # the flags are words
"$cxx" "$here/main.cc" -o "$work/pkg-config-consumer" $flags
"$work/pkg-config-consumer" "$work/pkg-config.etdp"
check_dump "$work/pkg-config.etdp"
echo "install_consumer_test: find_package and pkg-config consumers wrote readable ETDumps"
