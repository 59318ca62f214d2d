"""ExecuTorch's demo flow in Python: ConvReLUTanModel lowered to the demo
delegate with an ETRecord, run under ETDumpGen, inspected."""

import numpy as np
import pytest

import glassbox


def test_run_gives_the_models_output_shape_and_is_deterministic(demo_files):
    (output,) = demo_files["outputs"]
    assert output.shape == (4, 32, 64, 64)
    assert output.dtype == np.float32
    again = glassbox.load(demo_files["gbx"]).run([demo_files["input"]])
    np.testing.assert_array_equal(again[0], output)
    other = glassbox.load(demo_files["gbx"]).run([demo_files["input"] * 0.5])
    assert not np.array_equal(other[0], output)


def test_program_from_buffer_matches_the_saved_file(demo_files):
    edge = glassbox.to_edge_transform_and_lower(
        glassbox.demo_model(), partitioner=[glassbox.DemoPartitioner()])
    program = edge.to_executorch()
    assert program.buffer == demo_files["gbx"].read_bytes()
    from_buffer = glassbox.load_from_buffer(program.buffer)
    np.testing.assert_array_equal(from_buffer.run([demo_files["input"]])[0],
                                  demo_files["outputs"][0])


def test_event_blocks_name_the_models_operators_and_modules(demo_files):
    inspector = glassbox.Inspector(etdump_path=demo_files["etdp"],
                                   etrecord=demo_files["etrecord"])
    blocks = {block.name: block for block in inspector.event_blocks}
    assert "Execute" in blocks
    delegate_events = [e for e in blocks["Execute"].events if e.is_delegated_op]
    assert delegate_events, "the demo delegate logs its operators"
    op_types = {t for e in delegate_events for t in e.op_types}
    assert {"conv2d", "relu", "tan"} <= op_types
    modules = {m for e in delegate_events for ops in e.module_hierarchy for m in ops}
    assert "conv_layer.conv1" in modules
    assert all(e.delegate_backend_name == "DemoBackend" for e in delegate_events)
    for event in delegate_events:
        perf = event.perf_data
        assert len(perf.raw) == 3  # three traced runs
        assert perf.min <= perf.p10 <= perf.p50 <= perf.p90 <= perf.max
        assert np.isclose(perf.avg, np.mean(perf.raw))


def test_target_time_scale_converts_every_time(demo_files):
    in_ms = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"])
    in_us = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                               target_time_scale=glassbox.TimeScale.US)
    a = in_ms.to_dataframe()
    b = in_us.to_dataframe()
    np.testing.assert_allclose(b["avg"], a["avg"] * 1000)
    assert in_us.time_unit == "us"
    assert "avg (us)" in in_us.to_dataframe(include_units=True).columns


def by_event(frame):
    return frame.set_index(["event_block_name", "event_name", "instruction_id"], drop=False)


def test_delegate_time_scale_converter_scales_only_delegate_events(demo_files):
    plain = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"])
    names = set()

    def doubled_in_ms(name, raw_time):
        # ExecuTorch's meaning: a raw time (here ns, the dump's clock) in,
        # the same time in the target time scale (ms) out; here doubled.
        names.add(name)
        return 2 * raw_time * 1e-6

    doubled = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                                 delegate_time_scale_converter=doubled_in_ms)
    # Rows are ordered by time: compare them by event.
    a = by_event(plain.to_dataframe())
    b = by_event(doubled.to_dataframe()).loc[a.index]
    delegate = a["role"] == "delegate"
    assert delegate.any() and (~delegate).any()
    np.testing.assert_allclose(b["avg"][delegate], 2 * a["avg"][delegate], rtol=1e-6)
    np.testing.assert_allclose(b["avg"][~delegate], a["avg"][~delegate])
    assert set(b["time_scale"][delegate]) == {"converter"}
    # Called with the delegate events' names (identifier text when unnamed).
    assert names == set(a["event_name"][delegate])
    # The C++ views honour it too: the ops view's delegate rows double.
    ops_plain = plain.view_dataframe("ops").set_index("label")
    ops_doubled = doubled.view_dataframe("ops").set_index("label")
    assert ops_doubled.loc["tan", "mean_ns"] == pytest.approx(2 * ops_plain.loc["tan", "mean_ns"])


def test_delegate_time_scales_give_a_backend_its_tick_length(demo_files):
    plain = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"])
    scaled = glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                                delegate_time_scales={"DemoBackend": (3, 2)})
    a = by_event(plain.to_dataframe())
    b = by_event(scaled.to_dataframe()).loc[a.index]
    delegate = a["role"] == "delegate"
    np.testing.assert_allclose(b["avg"][delegate], 1.5 * a["avg"][delegate], rtol=1e-6)
    np.testing.assert_allclose(b["avg"][~delegate], a["avg"][~delegate])
    with pytest.raises(glassbox.InvalidArgumentError, match="DemoBackend"):
        glassbox.Inspector(etdump_path=demo_files["etdp"], etrecord=demo_files["etrecord"],
                           delegate_time_scales={"DemoBackend": (0, 1)})


def test_find_total_for_module_and_tabular_outputs(demo_files, tmp_path, capsys):
    inspector = glassbox.Inspector(etdump_path=demo_files["etdp"],
                                   etrecord=demo_files["etrecord"])
    whole = inspector.find_total_for_module("")
    conv1 = inspector.find_total_for_module("conv_layer.conv1")
    assert 0 < conv1 < whole
    assert inspector.find_total_for_module("no.such.module") == 0.0
    inspector.print_data_tabular()
    assert "conv2d" in capsys.readouterr().out
    inspector.save_data_to_tsv(tmp_path / "events.tsv")
    header = (tmp_path / "events.tsv").read_text().splitlines()[0].split("\t")
    assert header[:3] == ["block", "name", "role"]
    assert inspector.to_chrome_trace().startswith("{")


def test_generate_etrecord_standalone_equals_get_etrecord(demo_files, tmp_path):
    edge = glassbox.to_edge(glassbox.demo_model(), generate_etrecord=True)
    lowered = edge.to_backend([glassbox.DemoPartitioner()])
    program = lowered.to_executorch()
    # The manager after lowering still knows the edge graph: no deepcopy.
    glassbox.generate_etrecord(tmp_path / "standalone.etrecord", lowered, program)
    program.get_etrecord().save(tmp_path / "from_manager.etrecord")
    assert ((tmp_path / "standalone.etrecord").read_bytes()
            == (tmp_path / "from_manager.etrecord").read_bytes())
    assert (tmp_path / "from_manager.etrecord").read_bytes() == \
        demo_files["etrecord"].read_bytes()


def test_a_fixed_size_tracer_drops_events_instead_of_failing(demo_files, tmp_path):
    # 18 KiB holds about half of the 22 events of three runs (each event is
    # charged its exact serialized size, plus the blocks' fixed costs and the
    # reserve for every delegate clock a dump may declare, with its offset).
    tracer = glassbox.ETDumpGen(buffer_size=18 * 1024)
    glassbox.load(demo_files["gbx"]).run([demo_files["input"]], etdump=tracer, iterations=3)
    assert tracer.num_events > 0 and tracer.dropped_events > 0
    tracer.save(tmp_path / "partial.etdp")
    inspector = glassbox.Inspector(etdump_path=tmp_path / "partial.etdp",
                                   etrecord=demo_files["etrecord"])
    assert any("dropped" in d["message"] for d in inspector.diagnostics())


def test_profiling_levels_record_what_they_say(demo_files, tmp_path):
    # "none" keeps the blocks (one per run) but no profile events; "method"
    # keeps Method::execute only; an unknown level is refused by name.
    counts = {}
    for level in ("none", "method", "all"):
        tracer = glassbox.ETDumpGen()
        tracer.profiling_level = level
        assert tracer.profiling_level == level
        glassbox.load(demo_files["gbx"]).run([demo_files["input"]], etdump=tracer, iterations=2)
        tracer.save(tmp_path / f"{level}.etdp")
        inspector = glassbox.Inspector(etdump_path=tmp_path / f"{level}.etdp",
                                       etrecord=demo_files["etrecord"])
        executes = [b for b in inspector.event_blocks if b.name == "Execute"]
        counts[level] = sum(len(b.events) for b in executes)
    assert counts["none"] == 0
    assert 0 < counts["method"] < counts["all"]
    with pytest.raises(glassbox.InvalidArgumentError, match="profiling_level"):
        glassbox.ETDumpGen().profiling_level = "some"
