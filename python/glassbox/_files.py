"""Writing files atomically through the C++ core's io::write_file_atomically
(a temporary file beside the destination, renamed on success), the same
mechanism as the command line's outputs."""

import os

from ._core import core as _glassbox


def write_atomically(path, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    _glassbox.write_file_atomically(os.fspath(path), bytes(data))
