# Bare-metal Cortex-M3 with Debian's gcc-arm-none-eabi and newlib
# (scripts/setup_cross.sh installs them). The target is qemu-system-arm's
# mps2-an385 board, whose CPU is a Cortex-M3. Nothing here runs on the
# host: there is no emulator for ctest, the image runs under
# qemu-system-arm (docs/device.md).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# try_compile links no executable: a bare-metal link needs the startup
# code and linker script that only the device program supplies.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(GLASSBOX_CORTEX_M_FLAGS "-mcpu=cortex-m3 -mthumb")
set(CMAKE_C_FLAGS_INIT "${GLASSBOX_CORTEX_M_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${GLASSBOX_CORTEX_M_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${GLASSBOX_CORTEX_M_FLAGS}")
# newlib's nano variant (smaller printf and malloc), no system calls of
# its own: the program brings the few stubs it needs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# FlatBuffers: cmake/dependencies.cmake finds flatc and the header-only
# runtime by path for this system (Generic), never the host's package, whose
# include directory is /usr/include.
