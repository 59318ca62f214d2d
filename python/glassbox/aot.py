"""Ahead of time, with ExecuTorch's names: a model in, a program (.gbx) and
its ETRecord out. Every step is the C++ exporter's (the one `glassbox lower`
uses); this module only gives it Python shapes."""

import os

from ._core import core as _glassbox
from ._files import write_atomically


class ExportedProgram:
    """A model graph (with debug handles) the lowering functions accept:
    what load_onnx() and demo_model() return."""

    def __init__(self, graph, name):
        self._graph = graph
        self.name = name

    @property
    def op_types(self):
        """The graph's op types, in node order."""
        return list(self._graph.op_types)

    def __repr__(self):
        return f"ExportedProgram({self.name!r}, {self._graph.num_nodes} operators)"


def load_onnx(path, input_shapes=None):
    """Imports an ONNX model (opsets 11 to 20). `input_shapes` maps input
    names to static shapes for inputs whose shape is symbolic."""
    graph = _glassbox.load_onnx(os.fspath(path), dict(input_shapes or {}))
    return ExportedProgram(graph, os.path.basename(os.fspath(path)))


def demo_model():
    """ExecuTorch's ConvReLUTanModel (conv1, relu1, conv2, relu2, tan)."""
    return ExportedProgram(_glassbox.demo_model(), "ConvReLUTanModel")


class Partitioner:
    """A backend's partitioner. `ids` is how the delegate names its debug
    identifiers ("generated", "int" or "string"); `perturb` a delegate debug
    identifier whose operator(s) get a deliberate fault (adds 0.05 to their
    output) to try numeric debugging."""

    backend = None

    def __init__(self, ids="generated", perturb=""):
        self.ids = ids
        self.perturb = str(perturb)

    def _choice(self):
        return (self.backend, self.ids, self.perturb)

    def __repr__(self):
        return f"{type(self).__name__}(ids={self.ids!r}, perturb={self.perturb!r})"


class XnnpackPartitioner(Partitioner):
    """Delegates what Debian's XNNPACK runs to the xnnpack backend."""

    backend = "xnnpack"


class DemoPartitioner(Partitioner):
    """The demo delegate: fuses conv+relu, decomposes tan into sin, cos, div."""

    backend = "demo"


def _partitioners(partitioner):
    if partitioner is None:
        return []
    if isinstance(partitioner, Partitioner):
        return [partitioner]
    return list(partitioner)


def _choices(partitioner):
    return [p._choice() for p in _partitioners(partitioner)]


def _perturbs(partitioner):
    return tuple(p.perturb for p in _partitioners(partitioner) if p.perturb)


class ETRecord:
    """The debug artifact that maps run-time events back to the model."""

    def __init__(self, record):
        self._record = record

    @staticmethod
    def load(path):
        return ETRecord(_glassbox.ETRecord.load(os.fspath(path)))

    @property
    def fingerprint(self):
        return self._record.fingerprint

    @property
    def has_reference(self):
        """True when it holds reference outputs for numeric debugging."""
        return self._record.has_reference

    def save(self, path):
        write_atomically(path, self._record.to_bytes())


class ExecutorchProgramManager:
    """An emitted program: its bytes, and its ETRecord when asked for."""

    def __init__(self, program, edge):
        self._program = program
        self._edge = edge

    @property
    def buffer(self):
        """The .gbx bytes."""
        return self._program.buffer

    @property
    def fingerprint(self):
        return self._program.fingerprint

    def save(self, path):
        write_atomically(path, self._program.buffer)

    def get_etrecord(self, reference_inputs=None):
        """The ETRecord (glassbox.InvalidStateError when lowered without
        generate_etrecord=True). For numeric debugging give reference inputs
        (NumPy arrays, one per model input, float32): every source
        operator's output on them is computed on the portable kernels and
        stored, as `glassbox lower --reference-inputs` does; then run the
        program on the same inputs at debug level "intermediates"."""
        record = self._program.get_etrecord()
        if reference_inputs is not None:
            _glassbox.attach_reference(record, self._edge, None, list(reference_inputs))
        return ETRecord(record)


class EdgeProgramManager:
    """A graph on its way to a program, with the snapshot of the graph
    before lowering that the ETRecord keeps (no deepcopy needed)."""

    def __init__(self, edge, perturbs=()):
        self._edge = edge
        # The faults the partitioners asked for, checked once the delegate
        # maps exist (to_executorch).
        self._perturbs = tuple(perturbs)

    def to_backend(self, partitioner):
        return EdgeProgramManager(self._edge.to_backend(_choices(partitioner)),
                                  self._perturbs + _perturbs(partitioner))

    def to_executorch(self):
        """Emits the program. A partitioner's perturb that names an
        identifier no delegate has raises glassbox.InvalidArgumentError (the
        fault would hit nothing), as `glassbox lower --perturb` does."""
        program = self._edge.to_executorch()
        for identifier in self._perturbs:
            _glassbox.check_perturb(program, identifier)
        return ExecutorchProgramManager(program, self._edge)

    def exported_program(self):
        """The current (lowered) graph."""
        return ExportedProgram(self._edge.graph, "lowered")


def to_edge(program, generate_etrecord=False):
    return EdgeProgramManager(_glassbox.to_edge(program._graph, generate_etrecord))


def to_edge_transform_and_lower(program, partitioner=None, generate_etrecord=False):
    """to_edge, then each partitioner in turn; no partitioner keeps every
    operator on the portable kernels."""
    return EdgeProgramManager(_glassbox.to_edge_transform_and_lower(
        program._graph, _choices(partitioner), generate_etrecord), _perturbs(partitioner))


def generate_etrecord(et_record, edge_program, executorch_program):
    """Writes the ETRecord of `executorch_program`, lowered from
    `edge_program`, to the path `et_record`. Unlike ExecuTorch's, no
    deepcopy of the edge program is needed before lowering: the graph the
    record needs is a snapshot taken in to_edge() that lowering never
    touches, so passing the manager after to_backend() is fine."""
    record = _glassbox.make_etrecord(edge_program._edge, executorch_program._program)
    write_atomically(et_record, record.to_bytes())
