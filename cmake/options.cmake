# Every Glassbox build option, in one place.
option(GLASSBOX_ENABLE_TRACING "Compile the tracing hooks in (OFF: every hook body vanishes)" ON)
option(GLASSBOX_BUILD_TESTS "Build the unit tests" ON)
option(GLASSBOX_BUILD_BENCHMARKS "Build the Google Benchmark programs" OFF)
option(GLASSBOX_BUILD_FUZZERS "Build the libFuzzer targets (needs clang)" OFF)
option(GLASSBOX_DEVICE_ONLY "Build only core and runtime (used to prove the tracing-off build)" OFF)
option(GLASSBOX_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ON)
# The Python package (python/): on when pybind11 is found (Debian's
# pybind11-dev); the libraries are then built position-independent so the
# extension module can link them.
option(GLASSBOX_BUILD_PYTHON "Build the Python module _glassbox (needs pybind11)" ON)
