# ctest driver of xnnpack_device_run: lowers MODEL with the host's glassbox
# (HOST_GLASSBOX) to portable kernels and to XNNPACK, then runs both on the
# target (through EMULATOR when cross-built) and lets the program compare.
foreach(var HOST_GLASSBOX MODEL PROGRAM OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "xnnpack_device_run.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT EXISTS "${HOST_GLASSBOX}")
  message(FATAL_ERROR "the host's glassbox (${HOST_GLASSBOX}) lowers the model: build it first "
                      "(make build)")
endif()
file(MAKE_DIRECTORY "${OUT_DIR}")
foreach(backend portable xnnpack)
  execute_process(
    COMMAND "${HOST_GLASSBOX}" lower "${MODEL}" --backend ${backend} -o "${OUT_DIR}/${backend}.gbx"
    RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "glassbox lower --backend ${backend} failed: ${error}")
  endif()
endforeach()
execute_process(
  COMMAND ${EMULATOR} "${PROGRAM}" "${OUT_DIR}/portable.gbx" "${OUT_DIR}/xnnpack.gbx"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "xnnpack_device_run failed (status ${status})")
endif()
