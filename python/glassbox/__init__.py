"""Glassbox: ExecuTorch's delegate-debugging workflow on Glassbox's C++ core.

    import glassbox
    program = glassbox.demo_model()     # or load_onnx("m.onnx"), export(module, (x,))
    edge = glassbox.to_edge_transform_and_lower(
        program, partitioner=[glassbox.DemoPartitioner()], generate_etrecord=True)
    et_program = edge.to_executorch()
    et_program.save("m.gbx")
    et_program.get_etrecord().save("m.etrecord")

    tracer = glassbox.ETDumpGen()
    outputs = glassbox.load("m.gbx").run([x], etdump=tracer)
    tracer.save("m.etdp")

    inspector = glassbox.Inspector(etdump_path="m.etdp", etrecord="m.etrecord")
    inspector.print_data_tabular()

See docs/python.md.
"""

import os

from .errors import (CorruptFileError, Error, InternalError, InvalidArgumentError,
                     InvalidStateError, IOError, MismatchError, NotSupportedError,
                     OutOfResourcesError)
from .aot import (DemoPartitioner, EdgeProgramManager, ETRecord, ExecutorchProgramManager,
                  ExportedProgram, Partitioner, XnnpackPartitioner, demo_model,
                  generate_etrecord, load_onnx, to_edge, to_edge_transform_and_lower)
from .torch_export import export
from .runtime import ETDumpGen, Program, load, load_from_buffer
from .inspector import Event, EventBlock, Inspector, PerfData, TimeScale
from .compare import compare
from ._core import core as _glassbox

backends = tuple(_glassbox.backend_names())
"""The delegate backends: built into this module ("demo", "xnnpack") and
loaded with load_plugin."""


def load_plugin(path):
    """Loads a backend plug-in (a shared library built against this
    Glassbox version, docs/backend-authors.md) and registers its backend;
    `glassbox.backends` then lists it. Use it through a Partitioner subclass
    whose `backend` is its name. A refused library raises, with the same
    one-line message as `glassbox lower --plugin`: CorruptFileError for
    another ABI version or build tag, IOError for a file dlopen refuses or
    one without glassbox_plugin_entry, InvalidArgumentError for a backend
    name already registered. Loading the same library twice is a no-op."""
    global backends
    _glassbox.load_plugin(os.fspath(path))
    backends = tuple(_glassbox.backend_names())

__all__ = [
    "CorruptFileError", "DemoPartitioner", "ETDumpGen", "ETRecord", "EdgeProgramManager",
    "Error", "Event", "EventBlock", "ExecutorchProgramManager", "ExportedProgram", "IOError",
    "Inspector", "InternalError", "InvalidArgumentError", "InvalidStateError", "MismatchError",
    "NotSupportedError", "OutOfResourcesError", "Partitioner", "PerfData", "Program",
    "TimeScale", "XnnpackPartitioner", "backends", "compare", "demo_model", "export",
    "generate_etrecord", "load", "load_from_buffer", "load_onnx", "load_plugin", "to_edge",
    "to_edge_transform_and_lower",
]
