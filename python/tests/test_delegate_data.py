"""What delegates attach to their events, in Python: the delegate debug
metadata through ExecuTorch's delegate_metadata_parser (Event attributes and
DataFrame columns), and logged values as NumPy arrays (Event.debug_data)."""

import numpy as np
import pytest

import glassbox


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The demo program (string identifiers) run once at debug level
    "intermediates" with a debug buffer."""
    folder = tmp_path_factory.mktemp("delegate_data")
    program = glassbox.to_edge_transform_and_lower(
        glassbox.demo_model(), partitioner=[glassbox.DemoPartitioner(ids="string")],
        generate_etrecord=True).to_executorch()
    program.save(folder / "m.gbx")
    program.get_etrecord().save(folder / "m.etrecord")
    x = np.random.default_rng(1).uniform(-1, 1, (4, 3, 64, 64)).astype(np.float32)
    tracer = glassbox.ETDumpGen()
    tracer.debug_level = "intermediates"
    tracer.set_debug_buffer(32 << 20)
    (y,) = glassbox.load(folder / "m.gbx").run([x], etdump=tracer)
    tracer.save(folder / "m.etdp", debug_buffer_path=folder / "m.bin")
    return {"etdp": folder / "m.etdp", "etrecord": folder / "m.etrecord",
            "bin": folder / "m.bin", "output": y}


def inspector_of(traced, **options):
    return glassbox.Inspector(etdump_path=traced["etdp"], etrecord=traced["etrecord"], **options)


def events_by_name(inspector):
    return {event.name: event for block in inspector.event_blocks for event in block.events
            if block.name == "Execute"}


def test_parser_sees_each_delegate_events_metadata_and_its_result_is_shown(traced):
    seen = []

    def parser(raw):
        seen.append(raw)
        return {"kernel": raw[0].decode(), "bytes": len(raw[0])}

    events = events_by_name(inspector_of(traced, delegate_metadata_parser=parser))
    # The demo delegate names the kernel that ran each identifier.
    assert events["tan.sin"].delegate_debug_metadata == {"kernel": "sin", "bytes": 3}
    assert events["conv_relu_1"].delegate_debug_metadatas["kernel"] == "conv_relu"
    assert events["tan.sin"].raw_delegate_debug_metadatas == [b"sin"]
    assert all(isinstance(raw, list) and isinstance(raw[0], bytes) for raw in seen)
    # Framework events carry none and are never given to the parser.
    assert events["DELEGATE_CALL"].delegate_debug_metadata == []
    assert len(seen) == sum(1 for e in events.values() if e.raw_delegate_debug_metadatas)


def test_dataframe_columns_from_the_parsed_metadata(traced):
    inspector = inspector_of(traced,
                             delegate_metadata_parser=lambda raw: {"kernel": raw[0].decode()})
    frame = inspector.to_dataframe(include_delegate_debug_data=True)
    kernels = dict(zip(frame["event_name"], frame["kernel"]))
    assert kernels["tan.cos"] == "cos" and kernels["conv_relu_2"] == "conv_relu"
    assert kernels["Method::execute"] is None
    assert "kernel" not in inspector.to_dataframe().columns
    # A parser returning a list gives one delegate_debug_metadata column.
    listed = inspector_of(traced, delegate_metadata_parser=lambda raw: [r.decode() for r in raw])
    column = dict(zip(*(listed.to_dataframe(include_delegate_debug_data=True)[c]
                        for c in ("event_name", "delegate_debug_metadata"))))
    assert column["tan.div"] == ["div"]


def test_without_parser_the_raw_bytes_are_shown(traced):
    events = events_by_name(inspector_of(traced))
    assert events["tan.div"].delegate_debug_metadata == [b"div"]


def test_debug_data_holds_the_logged_values_as_numpy_arrays(traced):
    events = events_by_name(inspector_of(traced, debug_buffer_path=traced["bin"]))
    y = traced["output"]
    # The delegate's output is the program's output; tan = sin / cos of the
    # second conv+relu's output.
    (delegate_out,) = events["DELEGATE_CALL"].debug_data
    assert delegate_out.dtype == np.float32 and delegate_out.shape == y.shape
    np.testing.assert_array_equal(delegate_out, y)
    (conv2,) = events["conv_relu_2"].debug_data
    (sin,) = events["tan.sin"].debug_data
    (cos,) = events["tan.cos"].debug_data
    np.testing.assert_allclose(sin, np.sin(conv2), atol=1e-6)
    np.testing.assert_allclose(cos, np.cos(conv2), atol=1e-6)
    assert (events["conv_relu_1"].debug_data[0] >= 0).all()  # after a relu
    assert events["Method::execute"].debug_data == []
    frame = inspector_of(traced, debug_buffer_path=traced["bin"]).to_dataframe()
    (div,) = frame[frame["event_name"] == "tan.div"]["debug_data"].iloc[0]
    np.testing.assert_array_equal(div, y)


def test_without_debug_buffer_events_have_no_debug_data(traced):
    events = events_by_name(inspector_of(traced))
    assert all(event.debug_data == [] for event in events.values())


def test_truncated_debug_buffer_raises_naming_it(traced, tmp_path):
    truncated = tmp_path / "short.bin"
    truncated.write_bytes(traced["bin"].read_bytes()[:1000])
    # The ETDump and the data file do not belong together (truncated, or
    # another run's): a mismatch that names the data file.
    with pytest.raises(glassbox.MismatchError, match="short.bin"):
        inspector_of(traced, debug_buffer_path=truncated)
