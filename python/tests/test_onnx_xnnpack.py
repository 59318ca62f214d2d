"""An ONNX model from testdata through XNNPACK, checked against PyTorch's
output stored beside it."""

import numpy as np
import pytest

import glassbox

pytestmark = pytest.mark.skipif("xnnpack" not in glassbox.backends,
                                reason="this build has no XNNPACK backend (libxnnpack-dev)")


@pytest.mark.parametrize("model", ["tiny_cnn", "tiny_transformer"])
def test_onnx_model_through_xnnpack_matches_pytorch(model, testdata, tmp_path):
    program = glassbox.load_onnx(testdata / "onnx" / f"{model}.onnx")
    edge = glassbox.to_edge_transform_and_lower(
        program, partitioner=[glassbox.XnnpackPartitioner()], generate_etrecord=True)
    executorch_program = edge.to_executorch()
    executorch_program.save(tmp_path / "m.gbx")
    executorch_program.get_etrecord().save(tmp_path / "m.etrecord")
    x = np.load(testdata / "onnx" / f"{model}.input.npy")
    expected = np.load(testdata / "onnx" / f"{model}.expected.npy")
    tracer = glassbox.ETDumpGen()
    (y,) = glassbox.load(tmp_path / "m.gbx").run([x], etdump=tracer, threads=2)
    np.testing.assert_allclose(y, expected, atol=1e-4)
    tracer.save(tmp_path / "m.etdp")
    inspector = glassbox.Inspector(etdump_path=tmp_path / "m.etdp",
                                   etrecord=tmp_path / "m.etrecord")
    frame = inspector.to_dataframe()
    delegated = frame[frame["is_delegated_op"]]
    assert len(delegated) > 0
    assert set(delegated["delegate_backend_name"]) == {"XnnpackBackend"}
    assert all(len(types) > 0 for types in delegated["op_types"])


def test_xnnpack_operator_types_through_the_metadata_parser(testdata, tmp_path):
    program = glassbox.to_edge_transform_and_lower(
        glassbox.load_onnx(testdata / "onnx" / "tiny_cnn.onnx"),
        partitioner=[glassbox.XnnpackPartitioner()], generate_etrecord=True).to_executorch()
    program.save(tmp_path / "m.gbx")
    program.get_etrecord().save(tmp_path / "m.etrecord")
    tracer = glassbox.ETDumpGen()
    glassbox.load(tmp_path / "m.gbx").run([np.load(testdata / "onnx" / "tiny_cnn.input.npy")],
                                          etdump=tracer)
    tracer.save(tmp_path / "m.etdp")
    inspector = glassbox.Inspector(
        etdump_path=tmp_path / "m.etdp", etrecord=tmp_path / "m.etrecord",
        delegate_metadata_parser=lambda raw: {"xnnpack_operator": raw[0].decode()})
    frame = inspector.to_dataframe(include_delegate_debug_data=True)
    operators = dict(zip(frame["event_name"], frame["xnnpack_operator"]))
    types = dict(zip(frame["event_name"], frame["op_types"]))
    # The delegate names the XNNPACK operator that ran each source op (a
    # conv's layout conversions are its events too).
    convolutions = [name for name, ops in types.items() if ops == ["conv2d", "relu"]]
    assert any("convolution" in operators[name] for name in convolutions)
    linears = [name for name, ops in types.items() if ops == ["linear"]]
    assert linears and all("fully_connected" in operators[name] for name in linears)
