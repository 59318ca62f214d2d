"""The extension module: inside the package when installed, beside it
(a top-level _glassbox) in the build tree, where the tests find it through
PYTHONPATH=<build>/python:<source>/python."""

try:
    from . import _glassbox as core  # noqa: F401
except ImportError:
    import _glassbox as core  # noqa: F401
