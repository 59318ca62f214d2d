"""Writing files atomically: a temporary file in the same folder, then a
rename, so a reader never sees half a file."""

import os
import tempfile


def write_atomically(path, data):
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb" if isinstance(data, (bytes, bytearray)) else "w") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
