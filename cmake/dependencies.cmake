# Every dependency comes from Debian packages (scripts/setup.sh installs them).
if(GLASSBOX_THREADS)
  find_package(Threads REQUIRED)
else()
  # One thread (bare metal): the layers that link Threads::Threads link
  # nothing, without a condition of their own.
  add_library(Threads::Threads INTERFACE IMPORTED)
endif()
if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
  # Bare metal (cmake/toolchains/arm-none-eabi.cmake): the device code needs
  # only FlatBuffers' header-only runtime and the build needs flatc, but the
  # host package's targets carry /usr/include, which would put glibc's
  # headers before newlib's. Both are found by path instead, and the
  # headers are seen through a folder that holds only flatbuffers/.
  find_program(GLASSBOX_FLATC flatc NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  # The headers installed with flatc (/usr/bin -> /usr/include on Debian).
  get_filename_component(flatc_prefix ${GLASSBOX_FLATC} DIRECTORY)
  get_filename_component(flatc_prefix ${flatc_prefix} DIRECTORY)
  find_path(GLASSBOX_FLATBUFFERS_HEADERS flatbuffers/flatbuffers.h PATHS ${flatc_prefix}/include
            NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  add_executable(flatbuffers::flatc IMPORTED)
  set_target_properties(flatbuffers::flatc PROPERTIES IMPORTED_LOCATION ${GLASSBOX_FLATC})
  set(flatbuffers_only ${CMAKE_BINARY_DIR}/flatbuffers-include)
  file(MAKE_DIRECTORY ${flatbuffers_only})
  file(CREATE_LINK ${GLASSBOX_FLATBUFFERS_HEADERS}/flatbuffers ${flatbuffers_only}/flatbuffers
       SYMBOLIC)
  add_library(flatbuffers::flatbuffers INTERFACE IMPORTED)
  set_target_properties(flatbuffers::flatbuffers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES ${flatbuffers_only})
else()
  # The package is spelled FlatBuffers; find_package(flatbuffers) fails on
  # Debian. The runtime needs only its headers (Program verification).
  find_package(FlatBuffers 2.0 CONFIG REQUIRED)
endif()
if(NOT GLASSBOX_DEVICE_ONLY)
  find_package(nlohmann_json 3.11 CONFIG REQUIRED)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(fmt CONFIG REQUIRED)
  # libzip's CMake config needs the zipcmp/zipmerge/ziptool packages.
  find_package(libzip CONFIG REQUIRED)
endif()
if(GLASSBOX_BUILD_TESTS)
  if(GLASSBOX_GTEST_SOURCE_DIR)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    # It defines the GTest:: names the package's config would give.
    add_subdirectory(${GLASSBOX_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  else()
    find_package(GTest CONFIG REQUIRED)
  endif()
endif()
if(GLASSBOX_BUILD_BENCHMARKS)
  find_package(benchmark CONFIG REQUIRED)
endif()
if(GLASSBOX_BUILD_PYTHON AND NOT GLASSBOX_DEVICE_ONLY)
  # Debian's interpreter, never whichever python3 is first on PATH (pyenv's
  # would give the module another ABI or fail to configure).
  set(PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "")
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "")
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "")
  find_package(pybind11 CONFIG QUIET)
  if(NOT pybind11_FOUND)
    message(STATUS "pybind11 not found: the Python module is not built (apt install pybind11-dev)")
    set(GLASSBOX_BUILD_PYTHON OFF)
  endif()
else()
  set(GLASSBOX_BUILD_PYTHON OFF)
endif()
if(GLASSBOX_BUILD_PYTHON)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
endif()
