# Helpers shared by every layer's CMakeLists.txt.

if(GLASSBOX_ENABLE_TRACING)
  set(GLASSBOX_TRACING_VALUE 1)
else()
  set(GLASSBOX_TRACING_VALUE 0)
endif()
if(GLASSBOX_THREADS)
  set(GLASSBOX_THREADS_VALUE 1)
else()
  set(GLASSBOX_THREADS_VALUE 0)
endif()
# A header of its own beside config.h, included only by the few files that
# lock (glassbox/core/mutex.h): the option reaches them alone.
configure_file(${CMAKE_CURRENT_LIST_DIR}/threads_config.h.in
               ${CMAKE_BINARY_DIR}/generated/glassbox/threads_config.h @ONLY)

function(glassbox_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
  if(GLASSBOX_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # GCC 12 at -O3 reports impossible overlaps inside std::string's inlined
  # memcpy (GCC bug 105329); the warning says nothing about our code.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()

# glassbox_add_library(name SOURCES ... [DEPS ...] [PRIVATE_DEPS ...] [DEVICE])
# One static library per layer, with an alias glassbox::<name>. DEVICE marks
# device-side code: built without exceptions. RTTI stays on: host code
# derives from device interfaces (EventTracer, DataSink), and a vtable
# emitted without type info next to one with it is an ODR trap.
function(glassbox_add_library name)
  cmake_parse_arguments(ARG "DEVICE" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(glassbox_${name} STATIC ${ARG_SOURCES})
  add_library(glassbox::${name} ALIAS glassbox_${name})
  # Installed, the public and generated headers both sit under include/.
  target_include_directories(glassbox_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:include>)
  # Private headers beside the code are included by their path from the
  # project root ("src/etdump/value_blob.h").
  target_include_directories(glassbox_${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(glassbox_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  glassbox_warnings(glassbox_${name})
  if(ARG_DEVICE)
    target_compile_options(glassbox_${name} PRIVATE -fno-exceptions)
  endif()
endfunction()

# glassbox_add_test(name SOURCES ... DEPS ... [TIMEOUT s | WHOLE_SUITES suite...]): a GoogleTest binary beside the
# code it tests, registered with ctest.
function(glassbox_add_test name)
  if(NOT GLASSBOX_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;WHOLE_SUITES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  # Tests may include private test helpers by their path from the root.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE
    GLASSBOX_TESTDATA_DIR="${PROJECT_SOURCE_DIR}/testdata")
  glassbox_warnings(${name})
  set(discover_options DISCOVERY_TIMEOUT 60)
  if(ARG_TIMEOUT)
    # TIMEOUT (seconds per test case) turns "this must stay fast" into a
    # failure instead of a slow suite; sanitizer builds run several times
    # slower, so they get more.
    set(timeout ${ARG_TIMEOUT})
    if(CMAKE_CXX_FLAGS MATCHES "sanitize")
      math(EXPR timeout "${timeout} * 6")
      # Tests that bound time (large inputs under a timeout) skip themselves
      # in sanitizer builds, which run them 20-50x slower; the default build
      # runs them.
      target_compile_definitions(${name} PRIVATE GLASSBOX_SANITIZER_BUILD=1)
    endif()
    list(APPEND discover_options PROPERTIES TIMEOUT ${timeout})
  endif()
  # WHOLE_SUITES: suites whose SetUpTestSuite builds an expensive fixture
  # (lowering and running programs through the CLI: seconds, ten times that
  # under ASan). ctest runs each discovered case in a process of its own,
  # which would build the fixture once per case; each of these suites is
  # one ctest test instead, one process, fixture built once. Also for
  # parameterized suites of hundreds of quick cases (the delegates' op
  # tables), whose process start-ups under ASan cost more than the cases.
  # COST makes ctest start them first, so they do not end the run alone.
  set(filter "")
  foreach(suite ${ARG_WHOLE_SUITES})
    add_test(NAME ${suite} COMMAND ${name} --gtest_filter=${suite}.*)
    set_tests_properties(${suite} PROPERTIES COST 1000)
    string(APPEND filter "${suite}.*:")
  endforeach()
  if(filter)
    list(APPEND discover_options TEST_FILTER "-${filter}")
  endif()
  gtest_discover_tests(${name} ${discover_options})
endfunction()

# glassbox_add_benchmark(name SOURCES ... DEPS ...)
function(glassbox_add_benchmark name)
  if(NOT GLASSBOX_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark_main)
  glassbox_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY GLASSBOX_BENCHMARKS ${name})
endfunction()

# glassbox_add_fuzzer(name SOURCES ... DEPS ...): a libFuzzer target (clang only).
function(glassbox_add_fuzzer name)
  if(NOT GLASSBOX_BUILD_FUZZERS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set_property(GLOBAL APPEND PROPERTY GLASSBOX_FUZZERS ${name})
endfunction()

# Unity builds: the files that must be compiled on their own.
include(${CMAKE_CURRENT_LIST_DIR}/unity.cmake)
