# Every Glassbox build option, in one place.
option(GLASSBOX_ENABLE_TRACING "Compile the tracing hooks in (OFF: every hook body vanishes)" ON)
option(GLASSBOX_BUILD_TESTS "Build the unit tests" ON)
option(GLASSBOX_BUILD_BENCHMARKS "Build the Google Benchmark programs" OFF)
option(GLASSBOX_BUILD_FUZZERS "Build the libFuzzer targets (needs clang)" OFF)
option(GLASSBOX_DEVICE_ONLY "Build only core and runtime (used to prove the tracing-off build)" OFF)
option(GLASSBOX_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ON)
