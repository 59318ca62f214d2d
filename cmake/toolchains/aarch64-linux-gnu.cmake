# Cross build for aarch64 Linux with Debian's cross toolchain
# (crossbuild-essential-arm64; scripts/setup_cross.sh installs it).
# Binaries run under qemu-user: ctest and gtest_discover_tests start them
# through CMAKE_CROSSCOMPILING_EMULATOR, with the arm64 sysroot as its
# library prefix.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The second root: Debian's arm64 XNNPACK, pthreadpool and cpuinfo, unpacked
# by scripts/setup_cross_xnnpack.sh (not installable beside the host's).
set(GLASSBOX_CROSS_ROOT /opt/glassbox-cross/arm64 CACHE PATH
    "Where scripts/setup_cross_xnnpack.sh unpacked the arm64 XNNPACK packages")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${GLASSBOX_CROSS_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# The host's FlatBuffers package: the device code uses only its headers
# (architecture-independent) and the host's flatc; nothing links its
# library. Adding dpkg's arm64 architecture is not needed.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# GLASSBOX_UNDER_EMULATOR tells the tests that count the process's page
# faults that qemu's own (code translation) count there too.
# LD_LIBRARY_PATH: libXNNPACK's own dependencies (cpuinfo) are found
# there, since a binary's RUNPATH serves only its direct ones.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu -E GLASSBOX_UNDER_EMULATOR=1
    -E LD_LIBRARY_PATH=${GLASSBOX_CROSS_ROOT}/usr/lib/aarch64-linux-gnu)
# Where that package is: the build machine's multiarch directory (a cross
# build searches the target's, /usr/lib/aarch64-linux-gnu, by itself).
set(FlatBuffers_DIR /usr/lib/${CMAKE_HOST_SYSTEM_PROCESSOR}-linux-gnu/cmake/flatbuffers
    CACHE PATH "The build machine's FlatBuffers package (headers and flatc)")
