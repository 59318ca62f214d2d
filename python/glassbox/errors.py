"""The exceptions glassbox raises: one class per kind of failure, each
carrying the C++ core's one-line message (which names the file at fault)."""


class Error(Exception):
    """Base class of every error glassbox raises."""


class InvalidArgumentError(Error, ValueError):
    """An argument is out of range or inconsistent."""


class InvalidStateError(Error):
    """The call is not allowed now (e.g. no ETRecord was generated)."""


class NotSupportedError(Error):
    """Valid, but not implemented by Glassbox."""


class CorruptFileError(Error):
    """A file failed verification, or is of a version Glassbox does not read."""


class IOError(Error, OSError):  # noqa: A001 (ExecuTorch users expect this name)
    """A file could not be found, opened, read or written."""


class MismatchError(Error):
    """Two inputs that must belong together do not (e.g. the ETDump and
    ETRecord of different programs)."""


class OutOfResourcesError(Error):
    """A fixed-size buffer or table is full."""


class InternalError(Error):
    """A bug in Glassbox: please report it with the message."""


_BY_CODE = {
    "InvalidArgument": InvalidArgumentError,
    "InvalidState": InvalidStateError,
    "NotFound": IOError,
    "NotSupported": NotSupportedError,
    "OutOfResources": OutOfResourcesError,
    "MemoryAllocationFailed": OutOfResourcesError,
    "AccessFailed": IOError,
    "CorruptData": CorruptFileError,
    "VersionMismatch": CorruptFileError,
    "Mismatch": MismatchError,
}


def class_for(code):
    """The exception class for a C++ error code name (used by _glassbox)."""
    return _BY_CODE.get(code, InternalError)
