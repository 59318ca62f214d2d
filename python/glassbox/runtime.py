"""Run time: load a program, run it on NumPy arrays under ETDumpGen. The
loading and running are the runner library's (as `glassbox run`); the GIL is
released while the program executes."""

import os

import numpy as np

from ._core import core as _glassbox
from ._files import write_atomically
from .errors import InvalidArgumentError

# ExecuTorch's names for the levels (EventTracerDebugLogLevel and
# EventTracerProfilingLevel); Glassbox's CLI names are accepted too.
_DEBUG_LEVELS = {"none": 0, "no_logging": 0, "outputs": 1, "program_outputs": 1,
                 "intermediates": 2, "intermediate_outputs": 2}
_PROFILING_LEVELS = {"none": -1, "method": 0, "method_only": 0, "all": 1, "all_events": 1}


def _level(value, table, what):
    if isinstance(value, int) and value in table.values():
        return value
    key = str(value).lower().rsplit(".", 1)[-1]
    if key not in table:
        raise InvalidArgumentError(
            f"{what} must be one of {', '.join(sorted(table))}, got {value!r}")
    return table[key]


class ETDumpGen:
    """The tracer: records a run as an ETDump. Without `buffer_size` it
    grows on the heap; with it, it records into that many bytes and drops
    (and counts) events that do not fit, never aborting."""

    def __init__(self, buffer_size=None):
        self._gen = _glassbox.ETDumpGen(buffer_size)
        self._debug_level = "none"
        self._profiling_level = "all"

    @property
    def debug_level(self):
        """"none", "outputs" (program outputs) or "intermediates" (every
        operator's and delegate operator's output; give a debug buffer)."""
        return self._debug_level

    @debug_level.setter
    def debug_level(self, value):
        self._gen.set_debug_level(_level(value, _DEBUG_LEVELS, "debug_level"))
        self._debug_level = value

    @property
    def profiling_level(self):
        """"none" (no profile events: event blocks, values and counters
        only, to measure what profiling costs), "method" (Method::execute
        only) or "all" (every operator and delegate event)."""
        return self._profiling_level

    @profiling_level.setter
    def profiling_level(self, value):
        self._gen.set_profiling_level(_level(value, _PROFILING_LEVELS, "profiling_level"))
        self._profiling_level = value

    def set_debug_buffer(self, size):
        """Keeps logged tensors in an in-memory buffer of `size` bytes (a
        full buffer drops them and the Inspector says so)."""
        self._gen.set_debug_buffer(int(size))

    def get_debug_buffer(self):
        """The used part of the debug buffer (bytes)."""
        return self._gen.get_debug_buffer()

    def get_etdump_data(self):
        """The ETDump's bytes."""
        return self._gen.get_etdump_data()

    @property
    def num_events(self):
        return self._gen.num_events

    @property
    def dropped_events(self):
        return self._gen.dropped_events

    def save(self, path, debug_buffer_path=None):
        """Writes the ETDump (and, if given a path, the debug buffer)."""
        write_atomically(path, self.get_etdump_data())
        if debug_buffer_path is not None:
            write_atomically(debug_buffer_path, self.get_debug_buffer())


class Program:
    """A loaded .gbx program (method "forward")."""

    def __init__(self, program):
        self._program = program

    @property
    def fingerprint(self):
        return self._program.fingerprint

    def run(self, inputs, etdump=None, threads=None, iterations=1):
        """Runs the program `iterations` times on `inputs` (array-likes, one
        per input, cast to the input's dtype) and returns the outputs of the
        last run as NumPy arrays. `etdump` records the runs; `threads` sets
        XNNPACK's thread count (None keeps the program's)."""
        arrays = [np.asarray(x) for x in inputs]
        tracer = etdump._gen if etdump is not None else None
        return list(self._program.run(arrays, tracer, int(threads or 0), int(iterations)))


def load(path):
    """Loads and verifies a .gbx program."""
    return Program(_glassbox.Program.load(os.fspath(path)))


def load_from_buffer(buffer, name="<buffer>"):
    """As load(), from the program's bytes (ExecutorchProgramManager.buffer)."""
    return Program(_glassbox.Program.from_bytes(bytes(buffer), name))
