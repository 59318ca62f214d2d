"""glassbox.compare gives what `glassbox compare --format json` prints: an
int8 model against its float twin (joined by structure), and refusals."""

import json
import subprocess

import pytest

import glassbox


@pytest.fixture(scope="module")
def two_runs(cli, testdata, tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    x = testdata / "onnx" / "quant" / "qdq_conv_relu.input.npy"
    files = {}
    for name, model in [("int8", "qdq_conv_relu.onnx"), ("float", "qdq_conv_relu_float.onnx")]:
        gbx, etrecord, etdp = (folder / f"{name}{ext}" for ext in (".gbx", ".etrecord", ".etdp"))
        subprocess.run([cli, "lower", str(testdata / "onnx" / "quant" / model), "--backend",
                        "portable", "-o", str(gbx), "--etrecord", str(etrecord)],
                       check=True, capture_output=True)
        subprocess.run([cli, "run", str(gbx), "--etdump", str(etdp), "--input", str(x)],
                       check=True, capture_output=True)
        files[name] = (etdp, etrecord)
    return files


def test_compare_matches_the_cli(cli, two_runs):
    args = [*two_runs["int8"], *two_runs["float"]]
    shown = subprocess.run([cli, "compare", *map(str, args), "--format", "json"],
                           check=True, capture_output=True, text=True)
    result = glassbox.compare(*args)
    assert result == json.loads(shown.stdout)
    assert result["join"] == "structure"
    conv = [r for r in result["rows"] if "/conv/Conv" in r["op_names"]]
    assert len(conv) == 1
    assert "/features/features.0/Conv" in conv[0]["op_names_b"]
    assert conv[0]["ratio"] == pytest.approx(conv[0]["mean_ns_b"] / conv[0]["mean_ns_a"])
    assert [r["op_types"] for r in result["only_a"]] == [["quantize_linear", "dequantize_linear"]]


def test_compare_refuses_a_dump_with_another_programs_etrecord(two_runs):
    int8_etdp, _ = two_runs["int8"]
    float_etdp, float_etrecord = two_runs["float"]
    with pytest.raises(glassbox.MismatchError, match="not a run of the program of"):
        glassbox.compare(int8_etdp, float_etrecord, float_etdp, float_etrecord)
