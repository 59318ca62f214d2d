# Every dependency comes from Debian packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
# The package is spelled FlatBuffers; find_package(flatbuffers) fails on
# Debian. The runtime needs only its headers (Program verification).
find_package(FlatBuffers 2.0 CONFIG REQUIRED)
if(NOT GLASSBOX_DEVICE_ONLY)
  find_package(nlohmann_json 3.11 CONFIG REQUIRED)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(fmt CONFIG REQUIRED)
  # libzip's CMake config needs the zipcmp/zipmerge/ziptool packages.
  find_package(libzip CONFIG REQUIRED)
endif()
if(GLASSBOX_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
if(GLASSBOX_BUILD_BENCHMARKS)
  find_package(benchmark CONFIG REQUIRED)
endif()
