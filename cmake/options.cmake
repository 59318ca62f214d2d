# Every Glassbox build option, in one place.
option(GLASSBOX_ENABLE_TRACING "Compile the tracing hooks in (OFF: every hook body vanishes)" ON)
option(GLASSBOX_BUILD_TESTS "Build the unit tests" ON)
option(GLASSBOX_BUILD_BENCHMARKS "Build the Google Benchmark programs" OFF)
option(GLASSBOX_BUILD_FUZZERS "Build the libFuzzer targets (needs clang)" OFF)
option(GLASSBOX_DEVICE_ONLY "Build only the device layers: core and runtime; with tracing on also etdump and the demo delegate's runtime half (cross and size builds, the tracing-off build)" OFF)
# Threads (std::mutex, std::thread, the Threads package): OFF for bare
# metal, whose C++ library has none (a single-threaded libstdc++): the
# device layers' locks then compile to nothing (glassbox/core/mutex.h).
option(GLASSBOX_THREADS "Build with threads (OFF: one thread, locks compile to nothing)" ON)
# The size test programs of tests/size (the size presets, `make size`).
option(GLASSBOX_BUILD_SIZE_TEST "Build the size test programs (tests/size)" OFF)
# Cross builds take GoogleTest from its sources (Debian's googletest
# package), built with the cross compiler, instead of the host's package.
set(GLASSBOX_GTEST_SOURCE_DIR "" CACHE PATH "GoogleTest sources to build instead of find_package(GTest)")
option(GLASSBOX_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ON)
# The Python package (python/): on when pybind11 is found (Debian's
# pybind11-dev); the libraries are then built position-independent so the
# extension module can link them.
option(GLASSBOX_BUILD_PYTHON "Build the Python module _glassbox (needs pybind11)" ON)
# The bare-metal demo image (tests/baremetal, the baremetal preset, `make
# demo-baremetal`).
option(GLASSBOX_BUILD_BAREMETAL_DEMO "Build the bare-metal demo image (tests/baremetal)" OFF)
