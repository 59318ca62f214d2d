# `make install PREFIX=...` (cmake --install): what a delegate author needs
# to record events with ETDumpGen in their own runtime, or to build a
# backend plug-in. The public headers, the device-side static libraries
# glassbox::runtime and glassbox::etdump with their dependencies, the
# plug-in target glassbox::plugin_api (headers only), a CMake package
# (find_package(glassbox)) and a pkg-config file (glassbox.pc); and the
# glassbox command line.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GLASSBOX_INSTALLED_LIBRARIES core kernels schema runtime)
# The tracing-off device build (GLASSBOX_DEVICE_ONLY with
# GLASSBOX_ENABLE_TRACING off, the notrace preset) has no etdump layer; the
# cross and size builds, with tracing on, install it.
if(TARGET glassbox_etdump)
  list(APPEND GLASSBOX_INSTALLED_LIBRARIES etdump)
endif()
foreach(name IN LISTS GLASSBOX_INSTALLED_LIBRARIES)
  # Consumers link glassbox::<name>, the same names as inside this build.
  set_target_properties(glassbox_${name} PROPERTIES EXPORT_NAME ${name})
endforeach()
list(TRANSFORM GLASSBOX_INSTALLED_LIBRARIES PREPEND glassbox_
  OUTPUT_VARIABLE installed_targets)
install(TARGETS ${installed_targets} EXPORT glassboxTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# What a backend plug-in compiles against (glassbox/backends/plugin.h): the
# public headers and C++20, and no library, since a plug-in binds to the
# loading glassbox's symbols (docs/backend-authors.md).
if(TARGET glassbox_aot)
  add_library(glassbox_plugin_api INTERFACE)
  add_library(glassbox::plugin_api ALIAS glassbox_plugin_api)
  target_include_directories(glassbox_plugin_api INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(glassbox_plugin_api INTERFACE cxx_std_20)
  set_target_properties(glassbox_plugin_api PROPERTIES EXPORT_NAME plugin_api)
  install(TARGETS glassbox_plugin_api EXPORT glassboxTargets)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/glassbox
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The generated switches: config.h, which every hook header reads (tracing
# on or off), and threads_config.h, which glassbox/core/mutex.h reads
# (ETDumpGen's header includes it).
install(FILES ${CMAKE_BINARY_DIR}/generated/glassbox/config.h
              ${CMAKE_BINARY_DIR}/generated/glassbox/threads_config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/glassbox)
if(TARGET glassbox)
  install(TARGETS glassbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/glassbox)
install(EXPORT glassboxTargets NAMESPACE glassbox:: DESTINATION ${config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/glassboxConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/glassboxConfig.cmake INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/glassboxConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/glassboxConfig.cmake
  ${CMAKE_BINARY_DIR}/install/glassboxConfigVersion.cmake DESTINATION ${config_dir})

# pkg-config: the libraries in link order (each before what it uses). The
# prefix is found from the file's own place, so `cmake --install --prefix`
# may choose it after configuring.
file(RELATIVE_PATH GLASSBOX_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" GLASSBOX_PC_TO_PREFIX "${GLASSBOX_PC_TO_PREFIX}")
set(GLASSBOX_PC_LIBS -lglassbox_runtime -lglassbox_kernels -lglassbox_core)
if(TARGET glassbox_etdump)
  list(PREPEND GLASSBOX_PC_LIBS -lglassbox_etdump)
endif()
list(JOIN GLASSBOX_PC_LIBS " " GLASSBOX_PC_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/glassbox.pc.in
  ${CMAKE_BINARY_DIR}/install/glassbox.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/glassbox.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
