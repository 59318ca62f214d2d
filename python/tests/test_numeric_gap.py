"""Numeric debugging: a deliberate fault in the demo delegate's cos
(identifier "tan.cos") is found by calculate_numeric_gap, and nothing is
found without it."""

import numpy as np
import pytest

import glassbox


def lower_run_inspect(tmp_path, perturb):
    edge = glassbox.to_edge_transform_and_lower(
        glassbox.demo_model(),
        partitioner=[glassbox.DemoPartitioner(ids="string", perturb=perturb)],
        generate_etrecord=True)
    program = edge.to_executorch()
    x = np.random.default_rng(7).uniform(-1, 1, (4, 3, 64, 64)).astype(np.float32)
    program.get_etrecord(reference_inputs=[x]).save(tmp_path / "m.etrecord")
    tracer = glassbox.ETDumpGen()
    tracer.debug_level = "intermediates"
    tracer.set_debug_buffer(32 << 20)
    glassbox.load_from_buffer(program.buffer).run([x], etdump=tracer)
    tracer.save(tmp_path / "m.etdp", debug_buffer_path=tmp_path / "m.bin")
    return glassbox.Inspector(etdump_path=tmp_path / "m.etdp", etrecord=tmp_path / "m.etrecord",
                              debug_buffer_path=tmp_path / "m.bin")


def test_the_perturbed_operator_is_the_first_failure(tmp_path):
    gaps = lower_run_inspect(tmp_path, "tan.cos").calculate_numeric_gap("MAX_ABS")
    failures = gaps[gaps["first_failure"]]
    assert len(failures) == 1
    first = failures.iloc[0]
    assert first["aot_ops"] == ["tan"]
    assert "tan.cos" in first["runtime_ops"]
    assert first["exceeds"] and first["gap"] > 1e-3
    # Nothing before it exceeds.
    before = gaps.loc[:failures.index[0] - 1]
    assert not before["exceeds"].any()


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return lower_run_inspect(tmp_path_factory.mktemp("clean"), "")


@pytest.mark.parametrize("distance", ["MSE", "L1", "SNR", "COSINE"])
def test_without_a_fault_no_operator_exceeds(clean, distance):
    gaps = clean.calculate_numeric_gap(distance)
    compared = gaps[gaps["status"] == "compared"]
    assert len(compared) > 0
    assert not gaps["exceeds"].any()


def test_unknown_distance_is_refused(clean):
    with pytest.raises(glassbox.InvalidArgumentError, match="distance"):
        clean.calculate_numeric_gap("KL")


@pytest.mark.parametrize("lower", [
    lambda p: glassbox.to_edge_transform_and_lower(glassbox.demo_model(), partitioner=[p]),
    lambda p: glassbox.to_edge(glassbox.demo_model()).to_backend([p]),
], ids=["to_edge_transform_and_lower", "to_backend"])
def test_a_fault_no_delegate_operator_has_is_refused(lower):
    # String identifiers: "tan.cos" exists, "tan.tan" does not; the
    # exporter's check, the one `glassbox lower --perturb` makes.
    edge = lower(glassbox.DemoPartitioner(ids="string", perturb="tan.tan"))
    with pytest.raises(glassbox.InvalidArgumentError,
                       match="perturb=tan.tan: no delegate operator has the identifier tan.tan"):
        edge.to_executorch()
    assert lower(glassbox.DemoPartitioner(ids="string", perturb="tan.cos")).to_executorch()
