"""Int8 models: calculate_numeric_gap("SQNR") and view_dataframe("quant")
give the numbers of `glassbox inspect --view quant` for a QDQ model lowered
with its quantization references."""

import json
import subprocess

import pytest

import glassbox


@pytest.fixture(scope="module")
def quant_run(cli, testdata, tmp_path_factory):
    folder = tmp_path_factory.mktemp("quant")
    model = testdata / "onnx" / "quant" / "qdq_cnn_small.onnx"
    x = testdata / "onnx" / "quant" / "qdq_cnn_small.input.npy"
    files = {k: folder / v for k, v in
             {"gbx": "m.gbx", "etrecord": "m.etrecord", "etdp": "m.etdp", "bin": "m.bin"}.items()}
    subprocess.run([cli, "lower", str(model), "--backend", "portable", "-o", str(files["gbx"]),
                    "--etrecord", str(files["etrecord"]), "--reference-inputs", str(x)],
                   check=True, capture_output=True)
    subprocess.run([cli, "run", str(files["gbx"]), "--etdump", str(files["etdp"]), "--input",
                    str(x), "--debug-level", "intermediates", "--debug-data", str(files["bin"])],
                   check=True, capture_output=True)
    shown = subprocess.run([cli, "inspect", "--etdump", str(files["etdp"]), "--etrecord",
                            str(files["etrecord"]), "--debug-data", str(files["bin"]),
                            "--view", "quant", "--format", "json"],
                           check=True, capture_output=True, text=True)
    inspector = glassbox.Inspector(etdump_path=files["etdp"], etrecord=files["etrecord"],
                                   debug_buffer_path=files["bin"])
    return inspector, json.loads(shown.stdout)["rows"]


def test_sqnr_gap_matches_the_cli(quant_run):
    inspector, cli_rows = quant_run
    gaps = inspector.calculate_numeric_gap(distance="SQNR")
    assert len(gaps) == len(cli_rows) > 10
    assert list(gaps["op_names"]) == [r["op_names"] for r in cli_rows]
    assert list(gaps["gap"]) == pytest.approx([r["sqnr_db"] for r in cli_rows])
    # Worst isolated loss first.
    isolated = list(gaps["isolated_sqnr_db"])
    assert isolated == sorted(isolated)


def test_quant_view_dataframe_has_the_documented_columns(quant_run):
    inspector, cli_rows = quant_run
    frame = inspector.view_dataframe("quant")
    for column in ["op_names", "sqnr_db", "quant_sqnr_db", "kernel_sqnr_db", "isolated_sqnr_db",
                   "max_error_steps", "clipped_fraction", "scale", "zero_point"]:
        assert column in frame.columns
    assert list(frame["quant_sqnr_db"]) == pytest.approx([r["quant_sqnr_db"] for r in cli_rows])
    # The portable run is the simulation itself.
    assert (frame["max_error_steps"] == 0).all()
