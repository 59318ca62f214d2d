"""Bad files and bad arguments raise glassbox.Error subclasses carrying the
C++ message (naming the file), never crash the interpreter."""

import zipfile

import numpy as np
import pytest

import glassbox


@pytest.fixture
def garbage(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(b"\x00not a glassbox file\xff" * 10)
    return path


def test_bad_program_file(garbage):
    with pytest.raises(glassbox.CorruptFileError, match="garbage.bin"):
        glassbox.load(garbage)


def test_missing_program_file(tmp_path):
    with pytest.raises(glassbox.IOError, match="missing.gbx") as info:
        glassbox.load(tmp_path / "missing.gbx")
    assert isinstance(info.value, OSError) and isinstance(info.value, glassbox.Error)


def test_truncated_program(demo_files, tmp_path):
    data = demo_files["gbx"].read_bytes()
    (tmp_path / "half.gbx").write_bytes(data[: len(data) // 2])
    with pytest.raises(glassbox.Error, match="half.gbx"):
        glassbox.load(tmp_path / "half.gbx")


def test_bad_etrecord_and_etdump(garbage, demo_files):
    with pytest.raises(glassbox.CorruptFileError, match="garbage.bin"):
        glassbox.ETRecord.load(garbage)
    with pytest.raises(glassbox.CorruptFileError, match="garbage.bin"):
        glassbox.Inspector(etdump_path=garbage)
    with pytest.raises(glassbox.CorruptFileError, match="garbage.bin"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=garbage)


def test_bad_onnx(garbage, testdata):
    with pytest.raises(glassbox.Error, match="garbage.bin"):
        glassbox.load_onnx(garbage)
    with pytest.raises(glassbox.Error, match="unsupported_op.onnx"):
        glassbox.load_onnx(testdata / "onnx" / "unsupported_op.onnx")


def test_etdump_of_another_program(demo_files, tmp_path, testdata):
    if "xnnpack" not in glassbox.backends:
        pytest.skip("needs a second program")
    other = glassbox.to_edge_transform_and_lower(
        glassbox.load_onnx(testdata / "onnx" / "tiny_cnn.onnx"),
        partitioner=[glassbox.XnnpackPartitioner()], generate_etrecord=True).to_executorch()
    other.get_etrecord().save(tmp_path / "other.etrecord")
    with pytest.raises(glassbox.MismatchError):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=tmp_path / "other.etrecord")


def test_wrong_inputs(demo_files):
    program = glassbox.load(demo_files["gbx"])
    with pytest.raises(glassbox.InvalidArgumentError, match="input 0"):
        program.run([np.zeros((1, 3, 64, 64), np.float32)])
    with pytest.raises(glassbox.InvalidArgumentError, match="1 input"):
        program.run([demo_files["input"], demo_files["input"]])


def test_etrecord_not_generated():
    program = glassbox.to_edge_transform_and_lower(
        glassbox.demo_model(), partitioner=[glassbox.DemoPartitioner()]).to_executorch()
    with pytest.raises(glassbox.InvalidStateError, match="generate_etrecord"):
        program.get_etrecord()


def test_bad_levels_and_scales(demo_files):
    tracer = glassbox.ETDumpGen()
    with pytest.raises(glassbox.InvalidArgumentError, match="debug_level"):
        tracer.debug_level = "everything"
    with pytest.raises(glassbox.InvalidArgumentError, match="target_time_scale"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], target_time_scale="fortnights")


@pytest.mark.parametrize("returned", [float("inf"), float("-inf"), float("nan")])
def test_converter_returning_a_time_that_is_not_finite(demo_files, returned):
    # It reached the views as null, and to_dataframe failed on a NoneType.
    with pytest.raises(glassbox.InvalidArgumentError, match="delegate_time_scale_converter"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                           delegate_time_scale_converter=lambda name, raw_time: returned)


def test_converter_returning_no_number(demo_files):
    with pytest.raises(TypeError, match="delegate_time_scale_converter.*NoneType"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                           delegate_time_scale_converter=lambda name, raw_time: None)


def test_etrecord_of_the_wrong_type(demo_files):
    with pytest.raises(TypeError, match="etrecord.*int"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=42)


def test_deeply_nested_etrecord_json_is_an_error_not_a_crash(demo_files, tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.etrecord"
    with zipfile.ZipFile(demo_files["etrecord"]) as good, zipfile.ZipFile(path, "w") as bad:
        for item in good.infolist():
            data = good.read(item)
            bad.writestr(item, '{"forward": %s}' % deep if item.filename.endswith(
                "debug_handle_map.json") else data)
    with pytest.raises(glassbox.CorruptFileError, match="nested deeper than 256 levels"):
        glassbox.ETRecord.load(path)
