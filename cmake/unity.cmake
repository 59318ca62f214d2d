# Unity builds (CMAKE_UNITY_BUILD=ON; the asan preset, docs/benchmarks.md
# "Build and test time"): each target's sources are compiled up to 8 to a
# translation unit, so gtest/gmock, nlohmann-json and flatbuffers headers are
# parsed and their templates instantiated once a batch instead of once a
# file. The default preset stays one file a unit: incremental rebuilds stay
# small and a missing #include still fails there.
#
# In a batch, names internal to one file (anonymous-namespace helpers and
# constants) meet those of the other files. The files below define such a
# name that another file of their target also defines; they are compiled on
# their own. A new clash shows only in the asan build, as "redefinition of
# X", "call to X is ambiguous" or a -Wshadow error naming a variable of
# another file: give the helper a more specific name, or list the file here.
set(glassbox_unity_alone
  example_npu_in_tree examples/out_of_tree_backend/example_npu.cc  # runtime::
  aot_test src/aot/graph_test.cc                               # kWidth
  aot_test src/aot/partitioner_test.cc                         # kWidth, build
  aot_test src/aot/to_backend_test.cc                          # kWidth, build
  glassbox_aot src/aot/debug_handle_map_json.cc                # corrupt
  glassbox_aot src/aot/emitter.cc                              # invalid
  glassbox_aot src/aot/graph.cc                                # invalid
  glassbox_aot src/aot/ops.cc                                  # invalid
  glassbox_cli src/cli/etrecord_command.cc                     # ShowOptions, show
  glassbox_cli src/cli/report_command.cc                       # kDescription
  glassbox_etdump_reader src/etdump/reader/decode.cc           # corrupt
  glassbox_etdump_reader src/etdump/reader/tensor_values.cc    # corrupt
  glassbox_etdump_render src/etdump/render/etdump_text.cc      # where
  etrecord_test src/etrecord/executorch_etrecord_test.cc       # kSource, load, text
  glassbox_inspector src/inspector/delegate_time.cc            # ratio_text
  glassbox_inspector src/inspector/format_grouped.cc           # render_table
  glassbox_inspector src/inspector/format_table.cc             # kMaxCellWidth
  glassbox_inspector src/inspector/numeric.cc                  # Unit
  glassbox_inspector src/inspector/quant_format.cc             # kMaxCellWidth
  inspector_test src/inspector/export_rows_test.cc             # lines_of
  runtime_hooks_test src/runtime/delegate_hooks_test.cc        # when_on
  glassbox_kernels src/runtime/kernels/conv_transpose.cc       # floor_div
  glassbox_kernels src/runtime/kernels/normalization.cc        # kLanes
  glassbox_kernels src/runtime/kernels/qconv.cc                # kRowChunk
  kernels_test src/runtime/kernels/conv_test.cc                # ConvCase
  kernels_test src/runtime/kernels/data_movement_test.cc       # kMax, numel
  kernels_test src/runtime/kernels/elementwise_test.cc         # kUlps
  kernels_test src/runtime/kernels/pooling_test.cc             # PoolCase
  kernels_test src/runtime/kernels/recurrent_test.cc           # another file's overload
  kernels_test src/runtime/kernels/reduce_test.cc              # kInf, numel
  onnx_frontend_test frontends/onnx/importer_detection_test.cc # ramp, import_and_run
)

# Targets compiled one file a unit: cli_test's files each define their own
# helpers to run the command line (glassbox, run, Outcome...).
set(glassbox_unity_off cli_test)

# Applied once every target exists: deferred to the end of the top-level
# CMakeLists.txt, which includes this file (through helpers.cmake) first.
function(glassbox_unity_alone_apply)
  set(pairs ${glassbox_unity_alone})
  while(pairs)
    list(POP_FRONT pairs target file)
    if(TARGET ${target})
      set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} TARGET_DIRECTORY ${target}
        PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endwhile()
  foreach(target ${glassbox_unity_off})
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
    endif()
  endforeach()
endfunction()
if(CMAKE_UNITY_BUILD)
  cmake_language(DEFER CALL glassbox_unity_alone_apply)
endif()
