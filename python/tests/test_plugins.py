"""Backend plug-ins from Python: glassbox.load_plugin registers the
example_npu plug-in (examples/out_of_tree_backend, built in the tree), whose
backend then lowers, runs and is inspected like a built-in one, and its
decoder expands the raw traces of deferred decoding; refused libraries
raise with the command line's message."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import glassbox


def plugin_path(variable):
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        pytest.skip(f"{variable} is not set (ctest sets it)")
    return pathlib.Path(path)


class NpuPartitioner(glassbox.Partitioner):
    backend = "example_npu"


def test_a_loaded_plugin_lowers_runs_and_is_inspected(testdata, tmp_path):
    glassbox.load_plugin(plugin_path("GLASSBOX_EXAMPLE_PLUGIN"))
    assert "example_npu" in glassbox.backends
    program = glassbox.load_onnx(testdata / "onnx" / "tiny_cnn.onnx")
    edge = glassbox.to_edge_transform_and_lower(
        program, partitioner=[NpuPartitioner()], generate_etrecord=True)
    et_program = edge.to_executorch()
    et_program.save(tmp_path / "m.gbx")
    et_program.get_etrecord().save(tmp_path / "m.etrecord")
    x = np.load(testdata / "onnx" / "tiny_cnn.input.npy")
    tracer = glassbox.ETDumpGen()
    outputs = glassbox.load(tmp_path / "m.gbx").run([x], etdump=tracer)
    expected = np.load(testdata / "onnx" / "tiny_cnn.expected.npy")
    np.testing.assert_allclose(outputs[0], expected, atol=1e-5)
    tracer.save(tmp_path / "m.etdp")
    inspector = glassbox.Inspector(etdump_path=tmp_path / "m.etdp",
                                   etrecord=str(tmp_path / "m.etrecord"))
    npu_ops = {name for block in inspector.event_blocks for event in block.events
               if event.delegate_backend_name == "example_npu" and event.is_delegated_op
               for name in event.op_names}
    assert npu_ops == {"/features/features.0/Conv", "/features/features.1/Relu", "/fc/Gemm"}
    # The NPU's counters are columns of the ops view, as in the csv: the
    # conv's MACs are 4x8x8 outputs x 3x3x3 taps an execution.
    ops = inspector.view_dataframe("ops").set_index("label")
    assert ops.loc["/features/features.0/Conv", "macs_mean"] == 6912
    assert ops.loc["/fc/Gemm", "macs_mean"] == 5 * 64
    assert "counters" not in ops.columns


def test_raw_traces_expand_with_the_loaded_plugins_decoder(testdata, tmp_path, cli):
    npu = plugin_path("GLASSBOX_EXAMPLE_PLUGIN")
    onnx = testdata / "onnx"
    subprocess.run([cli, "lower", onnx / "tiny_cnn.onnx", "--plugin", npu, "--backend",
                    "example_npu", "--compile-spec", "trace=deferred", "-o", tmp_path / "d.gbx",
                    "--etrecord", tmp_path / "d.etrecord"], check=True, capture_output=True)
    subprocess.run([cli, "run", tmp_path / "d.gbx", "--etdump", tmp_path / "d.etdp", "--input",
                    onnx / "tiny_cnn.input.npy"], check=True, capture_output=True,
                   env={**os.environ, "GLASSBOX_PLUGINS": str(npu)})
    # Without the plug-in (a fresh interpreter: loaded plug-ins stay), the
    # error names the backend whose decoder is missing.
    refused = subprocess.run(
        [sys.executable, "-c",
         "import glassbox, sys; glassbox.Inspector(etdump_path=sys.argv[1], etrecord=sys.argv[2])",
         tmp_path / "d.etdp", tmp_path / "d.etrecord"], capture_output=True, text=True)
    assert refused.returncode != 0
    assert "raw trace(s) of backend 'example_npu' need its decoder" in refused.stderr
    glassbox.load_plugin(npu)
    inspector = glassbox.Inspector(etdump_path=tmp_path / "d.etdp",
                                   etrecord=str(tmp_path / "d.etrecord"))
    # The trace's per-op events, with their identifiers resolved and their
    # counters, as direct logging gives them.
    ops = inspector.view_dataframe("ops").set_index("label")
    assert ops.loc["/features/features.0/Conv", "macs_mean"] == 6912
    assert ops.loc["/fc/Gemm", "macs_mean"] == 5 * 64


def test_refused_plugins_raise_with_one_clear_message():
    folder = plugin_path("GLASSBOX_TEST_PLUGIN_DIR")
    with pytest.raises(glassbox.CorruptFileError, match="ABI version 999"):
        glassbox.load_plugin(folder / "libtest_plugin_wrong_abi.so")
    with pytest.raises(glassbox.IOError, match="no symbol glassbox_plugin_entry"):
        glassbox.load_plugin(folder / "libtest_plugin_no_entry.so")
    with pytest.raises(glassbox.InvalidArgumentError, match="'demo' is already registered"):
        glassbox.load_plugin(folder / "libtest_plugin_clash.so")
