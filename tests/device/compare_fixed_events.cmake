# ctest etdump_fixed_events_golden: runs PROGRAM (under EMULATOR, a list,
# when cross-built) to write OUT and OUT.bin, and compares both with
# GOLDEN and GOLDEN.bin. Regenerate the goldens on the host with
#   build/default/tests/device/etdump_fixed_events testdata/etdump/fixed_events.etdp
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "etdump_fixed_events failed: ${rc}")
endif()
foreach(suffix "" ".bin")
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}${suffix} ${GOLDEN}${suffix}
    RESULT_VARIABLE different)
  if(different)
    message(FATAL_ERROR "${OUT}${suffix} differs from ${GOLDEN}${suffix}")
  endif()
endforeach()
