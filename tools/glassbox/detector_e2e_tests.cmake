# End-to-end CLI tests of testdata/onnx/tiny_detector.onnx, included by
# tools/glassbox/CMakeLists.txt (onnx_dir and work come from there).
# A detector with torchvision's SSD post-processing as opset 11 exports it
# (testdata/onnx/tiny_detector.onnx: per-class threshold, NonZero, top-k
# with a computed k, the class offsets, NonMaxSuppression, the cap), whose
# output's size follows the data. Lowered on each backend (the delegates
# take the head and leave values sized by data on portable with a reason),
# run on an input whose output is at its bound (6 detections) and on one
# below it (5 of 6: --expect compares the actual size); the numeric check
# of a run with intermediates shows the size per execution against the
# bound; the modules view has the post-processing module.
if(GLASSBOX_BUILD_TESTS)
  set(det ${onnx_dir}/tiny_detector)
  foreach(backend portable xnnpack onednn)
    if(NOT backend STREQUAL "portable" AND NOT TARGET glassbox_${backend}_runtime)
      continue()
    endif()
    set(prefix ${work}/detector_${backend})
    set(det_test glassbox_e2e_detector_${backend})
    add_test(NAME ${det_test}_lower
      COMMAND glassbox lower ${det}.onnx --backend ${backend} -o ${prefix}.gbx
              --etrecord ${prefix}.etrecord --reference-inputs ${det}.input.npy)
    set_tests_properties(${det_test}_lower PROPERTIES FIXTURES_SETUP detector_${backend})
    add_test(NAME ${det_test}_run
      COMMAND glassbox run ${prefix}.gbx --etdump ${prefix}.etdp
              --input ${det}.input.npy --expect ${det}.expected.npy --tolerance 1e-5)
    add_test(NAME ${det_test}_run_few
      COMMAND glassbox run ${prefix}.gbx --etdump ${prefix}_few.etdp --iterations 2
              --input ${det}.input_few.npy --expect ${det}.expected_few.npy --tolerance 1e-5)
    # The size is checked: the first input's 6x6 expected against the
    # second's 5x6 output.
    add_test(NAME ${det_test}_run_size_differs
      COMMAND glassbox run ${prefix}.gbx --etdump ${prefix}_size.etdp
              --input ${det}.input_few.npy --expect ${det}.expected.npy)
    set_tests_properties(${det_test}_run_size_differs PROPERTIES
      PASS_REGULAR_EXPRESSION "shape \\[6, 6\\] differs from output 0's \\[5, 6\\]")
    add_test(NAME ${det_test}_run_intermediates
      COMMAND glassbox run ${prefix}.gbx --etdump ${prefix}_debug.etdp
              --debug-level intermediates --debug-data ${prefix}.bin --input ${det}.input.npy)
    set_tests_properties(${det_test}_run ${det_test}_run_few ${det_test}_run_size_differs
      ${det_test}_run_intermediates PROPERTIES FIXTURES_REQUIRED detector_${backend})
    set_tests_properties(${det_test}_run PROPERTIES FIXTURES_SETUP detector_${backend}_dump)
    set_tests_properties(${det_test}_run_intermediates PROPERTIES
      FIXTURES_SETUP detector_${backend}_debug)
    add_test(NAME ${det_test}_numeric
      COMMAND glassbox inspect --etdump ${prefix}_debug.etdp --etrecord ${prefix}.etrecord
              --debug-data ${prefix}.bin --numeric)
    # Class 1's 15 boxes above the threshold (of 64 reserved: the bound of
    # the decomposed GatherND's last step, not of its first); 8 boxes
    # survive NMS (of 3 classes x 64 reserved); the cap keeps 6.
    # A GatherND whose flattening a delegate took is compared at its last
    # step on portable, not at the delegate's (no shape_mismatch rows).
    set_tests_properties(${det_test}_numeric PROPERTIES
      FIXTURES_REQUIRED detector_${backend}_debug
      FAIL_REGULAR_EXPRESSION "shape_mismatch"
      PASS_REGULAR_EXPRESSION
      "/postprocess/GatherND_1[_0-9]* +15x4 \\(bound 64x4\\).*/postprocess/NonMaxSuppression +8x3 \\(bound 192x3\\).*/detect/Concat +6x6 \\(bound 6x6\\).*no operator exceeds the threshold")
    add_test(NAME ${det_test}_modules
      COMMAND glassbox inspect --etdump ${prefix}.etdp --etrecord ${prefix}.etrecord
              --view modules --format csv)
    set_tests_properties(${det_test}_modules PROPERTIES
      FIXTURES_REQUIRED detector_${backend}_dump
      PASS_REGULAR_EXPRESSION "\npostprocess,,1,")
  endforeach()
  # The second input leaves class 3 with no candidate: its NonZero, TopK
  # and label values are empty (logged with no bytes), compared as equal to
  # the reference's empty values, not reported as missing data.
  set(prefix ${work}/detector_few)
  add_test(NAME glassbox_e2e_detector_few_lower
    COMMAND glassbox lower ${det}.onnx --backend portable -o ${prefix}.gbx
            --etrecord ${prefix}.etrecord --reference-inputs ${det}.input_few.npy)
  add_test(NAME glassbox_e2e_detector_few_run
    COMMAND glassbox run ${prefix}.gbx --etdump ${prefix}.etdp --debug-level intermediates
            --debug-data ${prefix}.bin --input ${det}.input_few.npy)
  add_test(NAME glassbox_e2e_detector_few_numeric
    COMMAND glassbox inspect --etdump ${prefix}.etdp --etrecord ${prefix}.etrecord
            --debug-data ${prefix}.bin --numeric)
  set_tests_properties(glassbox_e2e_detector_few_lower PROPERTIES FIXTURES_SETUP detector_few)
  set_tests_properties(glassbox_e2e_detector_few_run PROPERTIES
    FIXTURES_REQUIRED detector_few FIXTURES_SETUP detector_few_debug)
  set_tests_properties(glassbox_e2e_detector_few_numeric PROPERTIES
    FIXTURES_REQUIRED detector_few_debug
    PASS_REGULAR_EXPRESSION
    "/postprocess/NonZero_4 +1x0 \\(bound 1x64\\) +0 +0 +0 +inf +1 +compared.*/detect/Concat +5x6 \\(bound 6x6\\)"
    FAIL_REGULAR_EXPRESSION "no_data|no readable data")
  foreach(backend xnnpack onednn)
    if(TARGET glassbox_${backend}_runtime)
      set_tests_properties(glassbox_e2e_detector_${backend}_lower PROPERTIES
        PASS_REGULAR_EXPRESSION "delegates: +[1-9].*\\(tensor sized by data \\(dynamic\\)\\)")
    endif()
  endforeach()
endif()
