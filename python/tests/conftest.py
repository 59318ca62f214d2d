"""Shared fixtures: paths from ctest's environment, and the demo flow done
once per session (lower, run three times, save), which most tests read."""

import os
import pathlib

import numpy as np
import pytest

import glassbox

TESTDATA = pathlib.Path(os.environ.get(
    "GLASSBOX_TESTDATA_DIR", pathlib.Path(__file__).resolve().parents[2] / "testdata"))


@pytest.fixture(scope="session")
def testdata():
    return TESTDATA


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("GLASSBOX_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("GLASSBOX_CLI is not set (ctest sets it to the glassbox binary)")
    return path


@pytest.fixture(scope="session")
def demo_files(tmp_path_factory):
    """demo.gbx, demo.etrecord and demo.etdp of three traced runs."""
    folder = tmp_path_factory.mktemp("demo")
    edge = glassbox.to_edge_transform_and_lower(
        glassbox.demo_model(), partitioner=[glassbox.DemoPartitioner()],
        generate_etrecord=True)
    program = edge.to_executorch()
    program.save(folder / "demo.gbx")
    program.get_etrecord().save(folder / "demo.etrecord")
    loaded = glassbox.load(folder / "demo.gbx")
    x = np.random.default_rng(0).uniform(-1, 1, (4, 3, 64, 64)).astype(np.float32)
    tracer = glassbox.ETDumpGen()
    outputs = loaded.run([x], etdump=tracer, iterations=3)
    tracer.save(folder / "demo.etdp")
    return {"folder": folder, "gbx": folder / "demo.gbx", "etrecord": folder / "demo.etrecord",
            "etdp": folder / "demo.etdp", "input": x, "outputs": outputs}
