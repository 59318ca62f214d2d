"""The DataFrames hold what `glassbox inspect --format json` prints for the
same files: same rows, same columns' values (times converted to ms)."""

import json
import subprocess

import numpy as np
import pytest

import glassbox


def cli_json(cli, *args):
    result = subprocess.run([cli, "inspect", *map(str, args), "--format", "json"],
                            check=True, capture_output=True, text=True)
    return json.loads(result.stdout)


def test_events_dataframe_equals_the_cli_json(cli, demo_files):
    expected = cli_json(cli, "--etdump", demo_files["etdp"], "--etrecord",
                        demo_files["etrecord"], "--view", "events")["rows"]
    frame = glassbox.Inspector(etdump_path=demo_files["etdp"],
                               etrecord=demo_files["etrecord"]).to_dataframe()
    assert len(frame) == len(expected) > 0
    for (_, row), want in zip(frame.iterrows(), expected):
        assert row["event_block_name"] == want["block"]
        assert row["event_name"] == want["name"]
        assert row["delegate_debug_identifier"] == want["delegate_debug_identifier"]
        assert row["op_types"] == want["op_types"]
        assert row["module_hierarchy"] == want["module_hierarchy"]
        assert row["is_delegated_op"] == want["delegated"]
        for column, key in [("avg", "mean_ns"), ("p10", "p10_ns"), ("p50", "p50_ns"),
                            ("p90", "p90_ns"), ("min", "min_ns"), ("max", "max_ns")]:
            assert row[column] == pytest.approx(want[key] * 1e-6), column
        # The raw samples are the group's, before the JSON's 0.1 ns rounding.
        assert np.mean(row["raw"]) == pytest.approx(want["mean_ns"] * 1e-6, abs=1e-7)


@pytest.mark.parametrize("view", ["ops", "modules", "reconcile", "types"])
def test_view_dataframes_equal_the_cli_json(cli, demo_files, view):
    expected = cli_json(cli, "--etdump", demo_files["etdp"], "--etrecord",
                        demo_files["etrecord"], "--view", view)["rows"]
    frame = glassbox.Inspector(etdump_path=demo_files["etdp"],
                               etrecord=demo_files["etrecord"]).view_dataframe(view)
    assert frame.to_dict("records") == expected


def test_executorch_written_etdump_without_an_etrecord(cli):
    import os
    import pathlib

    folder = os.environ.get("GLASSBOX_ETDUMP_FIXTURE_DIR")
    if not folder or not (pathlib.Path(folder) / "executorch_style.etdp").exists():
        pytest.skip("the ETDump fixtures are built by the etdump_fixtures target")
    path = pathlib.Path(folder) / "executorch_style.etdp"
    inspector = glassbox.Inspector(etdump_path=path)
    frame = inspector.to_dataframe()
    expected = cli_json(cli, "--etdump", path, "--view", "events")
    assert list(frame["event_name"]) == [row["name"] for row in expected["rows"]]
    assert "Fancy Fusion" in set(frame["delegate_debug_identifier"])
    assert any("ASSUMED" in d["message"] or "assum" in d["message"]
               for d in inspector.diagnostics())


def test_executorch_etrecord_joins_in_python_as_in_the_cli(cli, testdata):
    import os
    import pathlib

    folder = os.environ.get("GLASSBOX_ETDUMP_FIXTURE_DIR")
    if not folder or not (pathlib.Path(folder) / "executorch_style.etdp").exists():
        pytest.skip("the ETDump fixtures are built by the etdump_fixtures target")
    dump = pathlib.Path(folder) / "executorch_style.etdp"
    record = testdata / "executorch" / "int_ids.etrecord"
    inspector = glassbox.Inspector(etdump_path=dump, etrecord=record)
    for view in ("ops", "modules"):
        expected = cli_json(cli, "--etdump", dump, "--etrecord", record, "--view", view)["rows"]
        assert inspector.view_dataframe(view).to_dict("records") == expected
    # ExecuTorch's ETRecord has no fingerprint: the identifiers are checked
    # against its maps instead, and the unmapped one is reported.
    assert any("Fancy Fusion" in d["message"] for d in inspector.diagnostics())
